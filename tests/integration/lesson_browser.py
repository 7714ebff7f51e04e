"""Headless browsers for the lesson page's tests, driven with the Python
standard library alone (no websocket or WebDriver package):

  Chromium  the DevTools protocol on a pipe (--remote-debugging-pipe: no port);
  Firefox   Marionette, Firefox's own remote protocol (length-prefixed JSON
            over TCP on 127.0.0.1, on a port Firefox picks and writes into its
            profile directory).

Both offer navigate(url), eval(expr) (the value of a JavaScript expression,
promises awaited, returned as JSON), requested_urls(), cpu() (the CPU
seconds the browser's processes have used) and close().
"""
import json
import os
import signal
import socket
import subprocess
import time


def _no_network_args():
    # An unreachable proxy: a request that slipped past the page's CSP fails
    # instead of leaving the machine.
    return ["--proxy-server=127.0.0.1:9"]


class Chromium:
    name = "Chromium"

    def __init__(self, binary, tmp):
        # pass_fds keeps the child's 3 and 4 open after preexec_fn made them the pipes.
        r_ours, w_theirs = os.pipe()  # chromium writes to its fd 4
        r_theirs, w_ours = os.pipe()  # chromium reads from its fd 3
        os.set_inheritable(r_theirs, True)
        os.set_inheritable(w_theirs, True)

        def fds():
            os.dup2(r_theirs, 3)
            os.dup2(w_theirs, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + os.path.join(tmp, "chromium-profile"), "--remote-debugging-pipe",
             "--window-size=1200,1800", "about:blank"] + _no_network_args(),
            preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        os.close(r_theirs)
        os.close(w_theirs)
        self.rd, self.wr = os.fdopen(r_ours, "rb", buffering=0), os.fdopen(w_ours, "wb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.send(domain + ".enable")

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

    def navigate(self, url):
        self.send("Page.navigate", {"url": url})

    def eval(self, expr, timeout=120):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr[:60]}...: {r['exceptionDetails'].get('exception', {}).get('description')}")
        return r["result"].get("value")

    def cpu(self):
        return cpu_seconds(self.proc)

    def requested_urls(self):
        """Every URL the page asked for, as the network domain saw it."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        _reap(self.proc)


class Firefox:
    name = "Firefox"

    def __init__(self, binary, tmp):
        profile = os.path.join(tmp, "firefox-profile")
        os.makedirs(profile, exist_ok=True)
        prefs = {
            "marionette.port": 0,  # any free port, written to MarionetteActivePort
            "network.proxy.type": 1, "network.proxy.http": "127.0.0.1", "network.proxy.http_port": 9,
            "network.proxy.ssl": "127.0.0.1", "network.proxy.ssl_port": 9,
            "network.captive-portal-service.enabled": False, "network.connectivity-service.enabled": False,
            "app.update.disabledForTesting": True, "browser.shell.checkDefaultBrowser": False,
            "datareporting.policy.dataSubmissionEnabled": False, "toolkit.telemetry.reportingpolicy.firstRun": False,
            "browser.startup.homepage_override.mstone": "ignore",
        }
        with open(os.path.join(profile, "user.js"), "w") as f:
            for k, v in prefs.items():
                f.write(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n")
        env = dict(os.environ, HOME=tmp, MOZ_CRASHREPORTER_DISABLE="1", MOZ_HEADLESS="1")
        self.proc = subprocess.Popen(
            [binary, "--headless", "--marionette", "--no-remote", "--profile", profile,
             "--window-size", "1200,1800", "about:blank"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        port_file = os.path.join(profile, "MarionetteActivePort")
        deadline = time.time() + 120
        port = None
        while port is None:
            if self.proc.poll() is not None:
                raise RuntimeError(f"firefox exited ({self.proc.returncode}) before Marionette started")
            if time.time() > deadline:
                raise TimeoutError("Firefox's Marionette did not start in 120 s")
            try:
                with open(port_file) as f:
                    port = int(f.read().strip())
            except (OSError, ValueError):
                time.sleep(0.2)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=300)
        self.buf = b""
        self.next_id = 0
        self._read()  # the greeting: {"applicationType": "gecko", "marionetteProtocol": 3}
        self.send("WebDriver:NewSession", {"capabilities": {"alwaysMatch": {"pageLoadStrategy": "none"}}})
        self.send("WebDriver:SetTimeouts", {"script": 300000})

    def _read(self):
        while True:
            head, sep, rest = self.buf.partition(b":")
            if sep and len(rest) >= int(head):
                n = int(head)
                msg, self.buf = rest[:n], rest[n:]
                return json.loads(msg)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("firefox closed the Marionette connection")
            self.buf += chunk

    def send(self, command, params=None):
        self.next_id += 1
        body = json.dumps([0, self.next_id, command, params or {}]).encode()
        self.sock.sendall(str(len(body)).encode() + b":" + body)
        while True:
            m = self._read()
            if m[0] == 1 and m[1] == self.next_id:
                if m[2]:
                    raise RuntimeError(f"{command}: {m[2].get('error')}: {m[2].get('message')}")
                return m[3]

    def navigate(self, url):
        self.send("WebDriver:Navigate", {"url": url})

    def eval(self, expr, timeout=120):
        # The script runs in the page's window (its globals: sdLesson); the
        # expression's value, awaited, goes back through the callback.
        script = ("const done = arguments[arguments.length - 1];"
                  f"Promise.resolve().then(() => ({expr})).then(v => done({{value: v === undefined ? null : v}}),"
                  " e => done({error: String(e && e.stack || e)}));")
        r = self.send("WebDriver:ExecuteAsyncScript", {"script": script, "args": []})["value"]
        if "error" in r:
            raise RuntimeError(f"{expr[:60]}...: {r['error']}")
        return r["value"]

    def cpu(self):
        return cpu_seconds(self.proc)

    def requested_urls(self):
        return None  # Marionette has no network log; the page's CSP still forbids every request

    def close(self):
        try:
            self.send("Marionette:Quit", {"flags": ["eForceQuit"]})
        except Exception:
            pass
        try:
            self.sock.close()
        except Exception:
            pass
        _reap(self.proc)


def cpu_seconds(proc):
    """CPU time (user + system, children reaped included) of every process in
    the browser's session: what a load costs, whatever else the machine runs."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[0] is stat's 3rd field (state): session is the 6th, utime..cstime the 14th-17th.
        if int(fields[3]) == proc.pid:
            total += sum(int(x) for x in fields[11:15])
    return total / os.sysconf("SC_CLK_TCK")


def _reap(proc):
    """Waits for the browser we started; if it hangs, ends its process group
    (its own session: the browser's helper processes, nothing else)."""
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def open_browser(kind, binary, tmp):
    return {"chromium": Chromium, "firefox": Firefox}[kind](binary, tmp)
