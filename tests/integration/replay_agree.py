#!/usr/bin/env python3
"""replay_agree.py MOUNT_TRACE REPLAY_TRACE [--p50-ms X] [--p90-ms Y] [--p99-ms Z]

Compares a `streamdisk mount --trace` trace with the `streamdisk replay
--open-loop --trace-out` replay of it on the same model, row by row:
  - the replay's completion with the mount's modelled_end_s (to 1 us): the
    mount fed the one model every operation in order;
  - the replay's completion with the mount's end_s (when the reply really went
    out), for writes and reads: p50, p90, p99 of |difference| against the
    limits (default 1 ms each).
Percentiles are nearest rank, as models/percentile.h. Exits 1 on a failure.
"""
import argparse, csv, math, sys

ap = argparse.ArgumentParser()
ap.add_argument("mount")
ap.add_argument("replay")
ap.add_argument("--p50-ms", type=float, default=1)
ap.add_argument("--p90-ms", type=float, default=1)
ap.add_argument("--p99-ms", type=float, default=1)
a = ap.parse_args()

rows = lambda p: list(csv.DictReader(l for l in open(p) if not l.startswith("#")))
mount, rep = rows(a.mount), rows(a.replay)
if not len(mount) == len(rep) > 10:
    sys.exit("FAIL: %d mount rows, %d replayed rows" % (len(mount), len(rep)))
model = [abs(float(r["end_s"]) - float(m["modelled_end_s"])) for m, r in zip(mount, rep) if m["modelled_end_s"]]
real = sorted(abs(float(r["end_s"]) - float(m["end_s"])) for m, r in zip(mount, rep) if m["op"] in ("write", "read"))
if not model or not real:
    sys.exit("FAIL: no modelled completions or no writes and reads in the trace")
q = lambda p: real[max(0, math.ceil(p * len(real)) - 1)]
print("ops %d, data ops %d: |replay - mount's model| max %.3g s; |replay - mount's reply| p50 %.3f ms, "
      "p90 %.3f ms, p99 %.3f ms, max %.3f ms" % (len(rep), len(real), max(model), q(0.5) * 1e3, q(0.9) * 1e3,
                                                q(0.99) * 1e3, real[-1] * 1e3))
rc = 0
if max(model) > 1e-6:
    print("FAIL: the replay's model and the mount's disagree", file=sys.stderr); rc = 1
for p, limit in ((0.5, a.p50_ms), (0.9, a.p90_ms), (0.99, a.p99_ms)):
    if q(p) > limit * 1e-3:
        print("FAIL: p%g reply error above %.3f ms" % (p * 100, limit), file=sys.stderr); rc = 1
sys.exit(rc)
