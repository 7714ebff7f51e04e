#!/usr/bin/env python3
"""Test client for `streamdisk mount` integration tests.

roundtrip MNT BACK  : threads write random blocks at random offsets into
                      several files, then every file is compared with the
                      expected bytes through the mount and in BACK.
mixed MNT SECONDS   : two threads, two files, random block sizes and think
                      times, an fsync now and then (a recorder-like mix).
fill PATH BLOCK     : writes BLOCK-byte blocks to PATH until an error;
                      prints "<bytes written> <errno name>".
"""
import errno
import os
import random
import sys
import threading


def roundtrip(mnt, back):
    nfiles, nthreads, slot_bytes, slots = 4, 4, 256 << 10, 16
    size = slot_bytes * slots
    expected = [bytearray(size) for _ in range(nfiles)]
    written = [0] * nfiles  # high-water mark per file
    lock = threading.Lock()
    errors = []

    def worker(tid):
        rng = random.Random(tid)
        try:
            fds = [os.open(os.path.join(mnt, f"f{i}"), os.O_RDWR | os.O_CREAT, 0o644) for i in range(nfiles)]
            for _ in range(60):
                i = rng.randrange(nfiles)
                # Thread t owns slots t, t + nthreads, ...: concurrent writes never overlap.
                slot = rng.randrange(slots // nthreads) * nthreads + tid
                off = slot * slot_bytes + rng.randrange(slot_bytes)
                n = rng.randint(1, slot_bytes * (slot + 1) - off)
                data = rng.randbytes(n)
                assert os.pwrite(fds[i], data, off) == n
                with lock:
                    expected[i][off:off + n] = data
                    written[i] = max(written[i], off + n)
            for fd in fds:
                os.close(fd)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {tid}: {e!r}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    bad = 0
    for i in range(nfiles):
        want = bytes(expected[i][:written[i]])
        for where in (mnt, back):
            with open(os.path.join(where, f"f{i}"), "rb") as f:
                got = f.read()
            if got != want:
                print(f"f{i} in {where}: {len(got)} bytes, expected {len(want)}; differ", file=sys.stderr)
                bad += 1
    return 1 if bad else 0


def mixed(mnt, seconds):
    import time
    errors = []

    def worker(tid):
        rng = random.Random(100 + tid)
        try:
            fd = os.open(os.path.join(mnt, f"m{tid}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            end, off, k = time.monotonic() + seconds, 0, 0
            while time.monotonic() < end:
                n = rng.choice([4096, 65536, 300_000, 1 << 20])
                done = os.pwrite(fd, rng.randbytes(n), off)
                if done != n:
                    raise OSError(f"short write: {done} of {n} bytes at offset {off}")
                off += done
                k += 1
                if k % 20 == 0:
                    os.fsync(fd)
                time.sleep(rng.choice([0, 0, 0.001, 0.01]))
            os.close(fd)
            if k == 0:
                raise RuntimeError("no write completed")
        except Exception as e:  # noqa: BLE001 - reported below; a thread's exception would not reach the exit status
            errors.append(f"thread {tid}: {e!r}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    return 0


def fill(path, block):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    total, buf = 0, b"\xa5" * block
    try:
        while True:
            n = os.write(fd, buf)
            total += n
    except OSError as e:
        print(total, errno.errorcode.get(e.errno, str(e.errno)))
    finally:
        os.close(fd)
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "roundtrip":
        sys.exit(roundtrip(sys.argv[2], sys.argv[3]))
    if cmd == "mixed":
        sys.exit(mixed(sys.argv[2], float(sys.argv[3])))
    if cmd == "fill":
        sys.exit(fill(sys.argv[2], int(sys.argv[3])))
    sys.exit(f"unknown command {cmd}")
