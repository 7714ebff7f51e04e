#!/usr/bin/env python3
"""Drives the lesson page in headless Chromium over the DevTools protocol on a
pipe (--remote-debugging-pipe: no websocket library, no network port).

usage: lesson_driver.py CHROMIUM PAGE.html STREAMDISK TMPDIR

Checks (each failure is one "FAIL: ..." line; exit 1 if any):
  - the page loads from file:// and asks for nothing but file: and data: URLs;
  - moving a slider re-simulates: the verdict and the plot change;
  - for a handful of settings the page's numbers (its JSON and the table it
    shows) equal `streamdisk simulate --json` run with the page's own command;
  - the time to re-simulate 1.5 h x 48 channels, printed as a figure.
"""
import json
import os
import subprocess
import sys
import time

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


class Browser:
    def __init__(self, chromium, tmp):
        # pass_fds keeps the child's 3 and 4 open after preexec_fn made them the pipes.
        r_ours, w_theirs = os.pipe()  # chromium writes to its fd 4
        r_theirs, w_ours = os.pipe()  # chromium reads from its fd 3
        os.set_inheritable(r_theirs, True)
        os.set_inheritable(w_theirs, True)

        def fds():
            os.dup2(r_theirs, 3)
            os.dup2(w_theirs, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--proxy-server=127.0.0.1:9", "--user-data-dir=" + os.path.join(tmp, "profile"),
             "--remote-debugging-pipe", "--window-size=1200,1800", "about:blank"],
            preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r_theirs)
        os.close(w_theirs)
        self.rd, self.wr = os.fdopen(r_ours, "rb", buffering=0), os.fdopen(w_ours, "wb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = self.rd.read(65536)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=120):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.wr.write(json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def attach(self):
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.send(domain + ".enable")

    def eval(self, expr, timeout=120):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr[:60]}...: {r['exceptionDetails'].get('exception', {}).get('description')}")
        return r["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# Runs after the page's next re-simulation (it runs on an animation frame).
AFTER_FRAME = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"


def set_control(b, control_id, value):
    """Moves a slider (its position) or picks an option, as a user would."""
    b.eval(f"""(() => {{ const e = document.getElementById({json.dumps(control_id)});
        if (!e) throw new Error('no control {control_id}');
        e.value = {json.dumps(str(value))};
        e.dispatchEvent(new Event(e.tagName === 'SELECT' ? 'change' : 'input', {{bubbles: true}})); }})()""")
    b.eval(AFTER_FRAME)


def page_state(b):
    return b.eval("""({verdict: document.getElementById('verdict').textContent,
        plot: [...document.querySelectorAll('#plots polyline.line')].map(p => p.getAttribute('points')).join('|'),
        overrunMarks: document.querySelectorAll('#plots line.overrun').length,
        runs: sdLesson.runs, ms: sdLesson.lastMs, args: sdLesson.cliArgs(),
        answer: sdLesson.lastAnswer,
        table: Object.fromEntries([...document.querySelectorAll('#numbers td[data-key]')].map(
            td => [td.dataset.key, td.textContent]))})""")


def compare_with_cli(streamdisk, st, label):
    if st["answer"].get("error"):
        fail(f"{label}: the page reports an error: {st['answer']['error']}")
        return
    cli = subprocess.run([streamdisk] + st["args"] + ["--json", "--no-spread"], capture_output=True, text=True, timeout=300)
    if cli.returncode != 0:
        fail(f"{label}: streamdisk {' '.join(st['args'])} --json --no-spread: exit {cli.returncode}: {cli.stderr.strip()}")
        return
    want, got = json.loads(cli.stdout), st["answer"]["result"]
    # Every key simulate prints, identical: one model, not an imitation.
    for k in sorted(set(want) | set(got)):
        if want.get(k) != got.get(k):
            fail(f"{label}: '{k}' is {got.get(k)!r} in the page, {want.get(k)!r} from simulate --json")
    # And what the page shows is those numbers.
    t = st["table"]
    shown = {
        "bytes written": str(want["payload_bytes"]),
        "overrun events": str(want["overrun_events"]),
        "first overrun": "none" if want["first_overrun_s"] is None else repr_js(want["first_overrun_s"]),
        "peak buffer": str(want["peak_buffer_bytes"]),
    }
    for k, v in shown.items():
        if not t.get(k, "").startswith(v):
            fail(f"{label}: the page shows {k} '{t.get(k)}', simulate --json says {v}")
    if st["verdict"] != want["verdict"]:
        fail(f"{label}: verdict '{st['verdict']}' differs from simulate's '{want['verdict']}'")
    print(f"{label}: page = simulate --json ({want['payload_bytes']} bytes, {want['overrun_events']} overrun events, "
          f"first {want['first_overrun_s']}, peak buffer {want['peak_buffer_bytes']}): "
          f"streamdisk {' '.join(st['args'])}")


def repr_js(x):
    """A double as JavaScript's String() prints it (shortest round trip, like Python's repr)."""
    s = repr(float(x))
    return s[:-2] if s.endswith(".0") else s


def main(chromium, page, streamdisk, tmp):
    b = Browser(chromium, tmp)
    try:
        b.attach()
        t0 = time.time()
        b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)})
        while not b.eval("!!(window.sdLesson && (sdLesson.ready || sdLesson.error))"):
            if time.time() - t0 > 60:
                raise TimeoutError("the page did not load the model in 60 s")
            time.sleep(0.05)
        load_s = time.time() - t0
        err = b.eval("sdLesson.error || ''")
        if err:
            fail(f"the page could not start the model: {err}")
            return
        b.eval(AFTER_FRAME)
        print(f"page loaded and simulated its first recording in {load_s:.2f} s "
              f"({os.path.getsize(page) / 1e6:.2f} MB file)")
        urls = [e["params"]["request"]["url"] for e in b.events if e.get("method") == "Network.requestWillBeSent"]
        remote = [u for u in urls if not (u.startswith("file:") or u.startswith("data:"))]
        if remote:
            fail(f"the page asked the network for {remote[:3]}")
        if not any(u.startswith("file:") for u in urls):
            fail("no file:// request seen: the driver did not watch the load")

        # 1. A slider move changes the verdict and the plot (step 4: stalls against the buffer).
        before = page_state(b)
        if "OVERRUNS" not in before["verdict"] or before["overrunMarks"] == 0:
            fail(f"step 4 should overrun on a 2 MiB buffer, got '{before['verdict']}'")
        compare_with_cli(streamdisk, before, "step 4 (2 MiB ring)")
        set_control(b, "r-buffer", 9)  # 16 KiB * 2^9 = 8 MiB
        after = page_state(b)
        if after["runs"] <= before["runs"]:
            fail("moving the buffer slider did not re-simulate")
        if after["verdict"] == before["verdict"]:
            fail(f"the verdict did not change with the buffer: '{after['verdict']}'")
        if after["plot"] == before["plot"]:
            fail("the plot did not change with the buffer")
        compare_with_cli(streamdisk, after, "step 4, 8 MiB ring")

        # 2. Device sliders become --set overrides that simulate accepts and agrees with.
        set_control(b, "s-device-sustained_mbps", 60)
        st = page_state(b)
        if not any(a.startswith("device.sustained_mbps=") for a in st["args"]):
            fail(f"the sustained-rate slider gave no --set: {st['args']}")
        compare_with_cli(streamdisk, st, "step 4, 8 MiB ring, sustained rate moved")
        set_control(b, "s-host-dirty_limit_bytes", 0)
        compare_with_cli(streamdisk, page_state(b), "same, no host page cache")
        # This profile's stalls are exfat-fuse's: the stall slider sets the filesystem layer.
        set_control(b, "s-stall-stall_duration_ms", 150)
        st = page_state(b)
        if not any(a.startswith("filesystem.stall_duration_ms=") for a in st["args"]):
            fail(f"the stall-length slider did not set the filesystem layer's stalls: {st['args']}")
        compare_with_cli(streamdisk, st, "same, longer stalls")

        # 3. The other guided steps, and a fill level.
        for n in (1, 2, 3):
            b.eval(f"document.getElementById('step-{n}').click()")
            b.eval(AFTER_FRAME)
            compare_with_cli(streamdisk, page_state(b), f"step {n}")
        b.eval("document.getElementById('step-2').click()")
        b.eval(AFTER_FRAME)
        set_control(b, "r-fill", 5)  # 50 %, and the recording takes it past the disk's 80 % knee
        compare_with_cli(streamdisk, page_state(b), "step 2 on a half-full disk")
        # A device without a capacity cannot be 85 % full: the page says so, as simulate does.
        b.eval("document.getElementById('step-3').click()")
        b.eval(AFTER_FRAME)
        set_control(b, "r-fill", 9)
        st = page_state(b)
        if "capacity" not in (st["answer"].get("error") or "") or "capacity" not in st["verdict"]:
            fail(f"--fill on a profile without a capacity: the page shows '{st['verdict']}'")

        # 4. "What would you buy?": capacity over the built-in devices, as `capacity` answers.
        b.eval("document.getElementById('step-4').click()")
        b.eval(AFTER_FRAME)
        set_control(b, "r-duration", 3)  # 2 min: quick enough for a test
        b.eval("document.getElementById('buy-run').click()")
        t = time.time()
        while not b.eval("!!sdLesson.buyDone"):
            if time.time() - t > 240:
                raise TimeoutError("'What would you buy?' did not finish in 240 s")
            time.sleep(0.2)
        buy, args = b.eval("sdLesson.buy"), b.eval("sdLesson.buyArgs")
        cli = subprocess.run([streamdisk] + args + ["--json"], capture_output=True, text=True, timeout=300)
        if cli.returncode != 0:
            fail(f"streamdisk {' '.join(args)} --json: exit {cli.returncode}: {cli.stderr.strip()}")
        else:
            want = {r["profile"]: r for r in json.loads(cli.stdout)["results"]}
            if sorted(want) != sorted(a.get("profile", "?") for a in buy):
                fail(f"the page compared {[a.get('profile') for a in buy]}, capacity {sorted(want)}")
            for a in buy:
                w = want.get(a.get("profile"))
                if w and (a["channels"], a["band_low"], a["band_high"], a["limited_by"]) != (
                        w["best"], w["band"]["low"], w["band"]["high"], w["limited_by"]):
                    fail(f"{a['profile']}: the page says {a['channels']} channels (band {a['band_low']}-"
                         f"{a['band_high']}, {a['limited_by']}), capacity {w['best']} ({w['band']}, {w['limited_by']})")
            print(f"what would you buy: {len(buy)} devices, page = streamdisk {' '.join(args)} "
                  f"({', '.join(str(a['channels']) for a in buy)} channels); {time.time() - t:.1f} s in the page")

        # 5. Responsiveness: 1.5 h x 48 channels (sim_bench's case: 24-bit W64,
        # 4 MiB ring, 1 MiB blocks), re-simulated on each slider move.
        b.eval("document.getElementById('step-4').click()")
        b.eval(AFTER_FRAME)
        for cid, v in (("r-channels", 12), ("r-sample_rate", "48k"), ("r-sample_bits", "24"), ("r-format", "w64"),
                       ("r-buffer", 8), ("r-block", 12), ("r-duration", 9)):
            set_control(b, cid, v)
        st = page_state(b)
        want = ["simulate", "-p", "rpi4-buster-ultrafit-exfat", "-c", "48", "-r", "48k", "-b", "24", "-f", "w64",
                "--buffer", "4MiB", "--block", "1MiB", "-d", "1.5h", "--seed", "8"]
        if st["args"] != want:
            fail(f"the 1.5 h x 48 channel setting is not what the test meant: {st['args']}")
        compare_with_cli(streamdisk, st, "1.5 h x 48 ch")
        times = []
        for i in range(7):  # the seed slider: each move a new recording of the same length
            set_control(b, "r-seed", i % 3 + 1)
            times.append(b.eval("sdLesson.lastMs"))
        times.sort()
        t = time.time()
        cli = subprocess.run([streamdisk] + st["args"] + ["--json"], capture_output=True, timeout=300)
        native = time.time() - t
        print(f"re-simulation of 1.5 h x 48 ch in the page: median {times[3]:.0f} ms "
              f"(fastest {times[0]:.0f}, slowest {times[-1]:.0f} ms, 7 slider moves); "
              f"the same run natively, as a whole `streamdisk simulate` process (start-up and profile loading "
              f"included): {native * 1e3:.0f} ms; load average {os.getloadavg()[0]:.1f}")
    finally:
        b.close()


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        main(*sys.argv[1:])
    except Exception as e:  # a hung or crashed browser is a failure, not a traceback
        fail(f"{type(e).__name__}: {e}")
    sys.exit(1 if FAILS else 0)
