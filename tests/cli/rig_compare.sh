#!/usr/bin/env bash
# bench/rig_compare.py's truth at capacity's criterion (the rate where P(>=1 overrun)
# crosses 5 %, fitted to runs alone): recovers a known step and a known gentle curve
# from synthetic runs, and its interval covers the true point; bad input gets one line
# and exit 2. No rig and no model runs are needed.
source "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null || skip "python3 not installed"

out=$(python3 - "$root/bench/rig_compare.py" <<'PY'
import importlib.util, math, random, sys
spec = importlib.util.spec_from_file_location("rc", sys.argv[1])
rc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rc)
# A step at 10 MB/s: clean below, overran above, a bisection's runs.
step = [(r, 0) for r in (6, 6, 8, 8, 9.5, 9.5, 9.9, 9.9)] + [(r, 1) for r in (10.1, 10.5, 12, 16)]
print("step", *rc.criterion_rate(step))
# A gentle curve: P = logistic(logit(0.05) + 4 ln(r / 5)), so P(5) = 5 %, P(8) ~ 45 %;
# 60 runs at each of 6 rates.
rnd = random.Random(7)
gentle = []
for r in (3, 4, 5, 6, 7, 8):
    p = 1 / (1 + math.exp(-(math.log(0.05 / 0.95) + 4 * math.log(r / 5))))
    gentle += [(r, 1 if rnd.random() < p else 0) for _ in range(60)]
print("gentle", *rc.criterion_rate(gentle))
# No overrun at all: no upper bound inside the data's reach.
print("clean", *rc.criterion_rate([(r, 0) for r in (2, 3, 4)]))
PY
) || fail "criterion_rate raised: $out"
echo "$out"
read -r _ ml lo hi < <(grep '^step' <<<"$out")
python3 -c "import sys; ml,lo,hi=map(float,sys.argv[1:]); sys.exit(not (9.5 <= ml <= 10.1 and lo <= ml <= hi and 9.0 <= lo and hi <= 10.1))" "$ml" "$lo" "$hi" \
  || fail "step at 10: got $ml [$lo, $hi], want the point in 9.5..10.1 inside a bracket within 9..10.1"
read -r _ ml lo hi < <(grep '^gentle' <<<"$out")
python3 -c "import sys; ml,lo,hi=map(float,sys.argv[1:]); sys.exit(not (4.5 <= ml <= 5.5 and lo <= 5 <= hi and hi / lo < 1.6))" "$ml" "$lo" "$hi" \
  || fail "gentle curve with P(5) = 5 %: got $ml [$lo, $hi], want 4.5..5.5 with 5 inside an interval narrower than 1.6x"
grep -q '^clean .* None$' <<<"$out" || fail "all clean: the interval must have no upper bound: $out"

# Bad input: one line, exit 2, nothing else.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo '{"rig": "x"' >"$tmp/bad.jsonl"
err=$(STREAMDISK=/bin/true python3 "$root/bench/rig_compare.py" --runs "$tmp/bad.jsonl" --profiles "$tmp" --streamdisk /bin/true 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || fail "a broken runs file: exit $rc, expected 2"
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "cannot read" <<<"$err" || fail "a broken runs file: want one 'cannot read' line, got: $err"
err=$(python3 "$root/bench/rig_compare.py" --runs "$tmp/none.jsonl" --profiles "$tmp" --streamdisk /bin/true --predictions "$tmp/bad.jsonl" 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && grep -q "cannot read" <<<"$err" || fail "a broken predictions file: exit $rc, one line expected: $err"
[ "$fails" -eq 0 ] || exit 1
echo "rig_compare criterion: ok"
