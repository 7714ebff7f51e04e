#!/usr/bin/env bash
# simulate --trace -> replay with the same profile reproduces every simulated
# completion time, to the trace's 1 ns precision (the seed comes from the trace).
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for p in rpi4-buster-ultrafit-exfat usrp-2974; do
  "$STREAMDISK" simulate -p $p -c 18 -r 48k -b 16 -d 120s --seed 5 --trace "$tmp/sim.csv" >/dev/null \
    || fail "$p: simulate --trace failed"
  "$STREAMDISK" replay "$tmp/sim.csv" -p $p --trace-out "$tmp/rep.csv" >/dev/null || fail "$p: replay failed"
  python3 - "$tmp/sim.csv" "$tmp/rep.csv" <<'PY' || fail "$p: replayed completion times differ from the simulation"
import csv, sys
def rows(path):
    return [r for r in csv.DictReader(l for l in open(path) if not l.startswith("#"))]
sim, rep = rows(sys.argv[1]), rows(sys.argv[2])
assert len(sim) == len(rep) > 10, (len(sim), len(rep))
worst = max(abs(float(a["end_s"]) - float(b["end_s"])) for a, b in zip(sim, rep))
assert worst <= 1.5e-9, "largest difference %.3g s" % worst
assert all(a["op"] == b["op"] and a["offset"] == b["offset"] for a, b in zip(sim, rep))
PY
done
finish
