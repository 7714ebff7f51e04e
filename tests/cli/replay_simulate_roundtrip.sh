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

# Trace format 2: the direct column and the prefill line. A --direct --fill run
# replays to the same completions with its writes marked direct; the same trace
# as version 1 (no direct column: read as buffered) lets the model's page cache
# absorb the writes, so its completions must differ.
p=rpi4-buster-ultrafit-exfat
"$STREAMDISK" simulate -p $p -c 8 -r 48k -b 16 -f raw -d 30s --direct --fill 40% --trace "$tmp/direct.csv" >/dev/null \
  || fail "simulate --direct --fill --trace failed"
head -1 "$tmp/direct.csv" | grep -qx '# streamdisk-trace 2' || fail "a new trace is not format version 2"
grep -q '^# prefill_bytes=[1-9]' "$tmp/direct.csv" || fail "simulate --fill --trace wrote no prefill_bytes line"
"$STREAMDISK" replay "$tmp/direct.csv" -p $p --trace-out "$tmp/rep.csv" >/dev/null || fail "replay of the direct trace failed"
sed -e '1s/.*/# streamdisk-trace 1/' -e 's/,error,direct$/,error/' -e '/^[0-9]/s/,[01]$//' "$tmp/direct.csv" >"$tmp/v1.csv"
"$STREAMDISK" replay "$tmp/v1.csv" -p $p --trace-out "$tmp/rep1.csv" >/dev/null || fail "replay of the version 1 trace failed"
python3 - "$tmp/direct.csv" "$tmp/rep.csv" "$tmp/rep1.csv" <<'PY' || fail "the direct column was not honoured"
import csv, sys
def rows(path):
    return [r for r in csv.DictReader(l for l in open(path) if not l.startswith("#"))]
sim, rep, rep1 = (rows(p) for p in sys.argv[1:])
writes = [r for r in sim if r["op"] == "write"]
assert writes and all(r["direct"] == "1" for r in writes), "simulate --direct wrote buffered rows"
assert all(a["direct"] == b["direct"] for a, b in zip(sim, rep)), "replay --trace-out lost the direct column"
worst = max(abs(float(a["end_s"]) - float(b["end_s"])) for a, b in zip(sim, rep))
assert worst <= 1.5e-9, "direct replay: largest difference %.3g s" % worst
assert all(r["direct"] == "0" for r in rep1), "a version 1 trace was not read as buffered"
apart = max(abs(float(a["end_s"]) - float(b["end_s"])) for a, b in zip(sim, rep1))
assert apart > 1e-4, "read as buffered, the replay should differ (the page cache absorbs writes): %.3g s" % apart
PY
finish
