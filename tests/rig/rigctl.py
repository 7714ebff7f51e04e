#!/usr/bin/env python3
"""Controller of one test rig (started and stopped by rig.sh; python3 stdlib only).

It plays the parts of a device that nbdkit's filters cannot play on their own:

  write cache   fill += bytes the loop device wrote; while the fill is below
                CACHE_BYTES the rate filter runs at BURST_MBPS, else at RATE_MBPS.
                After IDLE_S seconds with no write completed and none in flight
                (/sys/block/LOOP/stat fields 7 and 9) the cache drains at RECOVER_MBPS
                (recovery), so a later burst is fast again. FILL_CAP=1 caps the fill at
                CACHE_BYTES, as a real SLC cache's is (writes past a full cache go to
                the slow media and owe the cache nothing); the default 0 keeps counting
                (a long write then owes recovery for every byte past the cache: the
                rigs' truths up to session 20 were measured so).
  stalls        PAUSE_MODE=time: every PAUSE_EVERY seconds (uniform +-PAUSE_JITTER
                fraction) the pause filter holds requests for PAUSE_LEN seconds
                (+-PAUSE_LEN_JITTER fraction).
                PAUSE_MODE=bytes: the same, every PAUSE_EVERY bytes written.

Bytes written come from /sys/block/LOOP/stat (sectors written, field 7), so every
write the filesystem driver sends counts, whatever wrote it. Every change is logged
to DIR/events.log as "<CLOCK_MONOTONIC s> <event> <value>" (pause/resume/rate).

Usage: rigctl.py DIR    (DIR/rig.env holds the resolved rig parameters)
"""
import os
import random
import signal
import socket
import sys
import time

TICK_S = 0.01


def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#') and '=' in line:
                k, v = line.split('=', 1)
                env[k] = v.strip().strip("'\"")
    return env


class Rig:
    def __init__(self, rig_dir):
        self.dir = rig_dir
        self.env = read_env(os.path.join(rig_dir, 'rig.env'))
        e = self.env
        self.stat_path = '/sys/block/%s/stat' % os.path.basename(e['LOOP'])
        self.rate = float(e.get('RATE_MBPS', '10'))
        self.burst_rate = float(e.get('BURST_MBPS', '0') or 0)
        self.cache_bytes = float(e.get('CACHE_BYTES', '0') or 0)
        self.recover = float(e.get('RECOVER_MBPS', '0') or 0) * 1e6
        self.idle_s = float(e.get('IDLE_S', '0.5'))
        self.fill_cap = e.get('FILL_CAP', '0') not in ('', '0')
        self.pause_mode = e.get('PAUSE_MODE', 'none')
        self.pause_every = float(e.get('PAUSE_EVERY', '0') or 0)
        self.pause_jitter = float(e.get('PAUSE_JITTER', '0') or 0)
        self.pause_len = float(e.get('PAUSE_LEN', '0') or 0)
        self.pause_len_jitter = float(e.get('PAUSE_LEN_JITTER', '0') or 0)
        self.rng = random.Random(int(e.get('SEED', '0')) or None)
        self.log = open(os.path.join(rig_dir, 'events.log'), 'a', buffering=1)
        self.sock = None
        if self.pause_mode != 'none':
            self.sock = socket.socket(socket.AF_UNIX)
            self.sock.connect(os.path.join(rig_dir, 'pause.sock'))
        self.current_rate = None
        self.paused = False

    def event(self, kind, value):
        self.log.write('%.6f %s %s\n' % (time.monotonic(), kind, value))

    def written(self):
        """Bytes written so far (completed requests) and requests in flight."""
        with open(self.stat_path) as f:
            fields = f.read().split()
        return int(fields[6]) * 512, int(fields[8])

    def set_rate(self, mbps):
        if mbps == self.current_rate:
            return
        tmp = os.path.join(self.dir, 'rate.tmp')
        with open(tmp, 'w') as f:
            f.write('%d\n' % int(mbps * 8e6))  # the rate filter takes bits per second
        os.rename(tmp, os.path.join(self.dir, 'rate'))
        self.current_rate = mbps
        self.event('rate', '%g' % mbps)

    def pause(self, on):
        if self.sock is None or on == self.paused:
            return
        self.sock.sendall(b'p' if on else b'r')
        self.sock.recv(1)  # 'P' once requests in flight are done, 'R' at once
        self.paused = on
        self.event('pause' if on else 'resume', '')

    def next_gap(self):
        j = self.pause_jitter
        return self.pause_every * (1 + self.rng.uniform(-j, j))

    def next_len(self):
        j = self.pause_len_jitter
        return self.pause_len * (1 + self.rng.uniform(-j, j))

    def run(self, stop):
        fill = 0.0
        last_w = self.written()[0]
        last_t = time.monotonic()
        last_write_t = last_t
        has_cache = self.cache_bytes > 0 and self.burst_rate > 0
        self.set_rate(self.burst_rate if has_cache else self.rate)
        # Time mode counts seconds, bytes mode counts bytes towards the next pause.
        to_pause = self.next_gap() if self.pause_mode != 'none' else None
        resume_at = None
        open(os.path.join(self.dir, 'ctl.ready'), 'w').close()
        while not stop[0]:
            time.sleep(TICK_S)
            now = time.monotonic()
            w, inflight = self.written()
            dw, dt = w - last_w, now - last_t
            last_w, last_t = w, now
            if dw > 0 or inflight > 0:  # a large request completes late: busy meanwhile
                last_write_t = now
            if has_cache:
                fill += dw
                if self.fill_cap:
                    fill = min(fill, self.cache_bytes)
                if now - last_write_t >= self.idle_s:
                    fill = max(0.0, fill - self.recover * dt)
                self.set_rate(self.burst_rate if fill < self.cache_bytes else self.rate)
            if resume_at is not None:
                if now >= resume_at:
                    self.pause(False)
                    resume_at = None
                    to_pause = self.next_gap()
                continue
            if to_pause is not None:
                to_pause -= dt if self.pause_mode == 'time' else dw
                if to_pause <= 0:
                    length = self.next_len()
                    self.pause(True)
                    resume_at = time.monotonic() + length
        self.pause(False)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write('usage: rigctl.py RIG_DIR\n')
        return 2
    stop = [False]

    def on_signal(_sig, _frm):
        stop[0] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    Rig(sys.argv[1]).run(stop)
    return 0


if __name__ == '__main__':
    sys.exit(main())
