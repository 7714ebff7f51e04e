#!/usr/bin/env python3
"""Holds streamdisk's overrun probabilities against the reference recorder's runs.

The truth table (bench/rig_truth.sh) says where the recorder stopped being clean in
2-3 runs in a row; capacity's criterion is P(>=1 overrun in the recording) < 5 %.
Those are different points. This compares like with like: for every rate at which the
recorder ran on a rig (runs.jsonl from bench/rig_truth.sh truth), the model's
P(>=1 overrun) at that rate from the rig's characterized profile (predict-RIG.toml),
estimated from --seeds simulated recordings ((k + 1/2) / (n + 1), never exactly 0 or 1), against the recorder's observed count.

Per rig and buffer it prints each rate (runs, overran, model P) and a calibration
line: expected overruns (sum of the model's P over the runs) against observed, with
the probability of a count at least that far from the expectation if the model were
right (Poisson-binomial, exact). A small value (< 0.05) says the model's
probabilities do not fit the runs.

It also estimates the truth under capacity's own criterion from the runs alone, with no
model: the rate at which P(>=1 overrun) crosses 5 %, fitting P(rate) = logistic(a + b ln
rate) (b > 0, any steepness up to a step) by maximum likelihood, with its 95 % profile-
likelihood interval (the rates whose best fit is within 1.92 log-likelihood units of the
best). Few runs give a wide interval: that is the truth's uncertainty, not the model's.
With --predictions (predict.jsonl of bench/rig_truth.sh predict) it says whether each
prediction lies inside that interval.

Usage (from the repository root, after building; no root needed, no rig is run):
  bench/rig_compare.py --runs bench/rig_truth.out/runs.jsonl --profiles bench/rig_truth.characterize
  bench/rig_compare.py --runs DIR/runs.jsonl --profiles DIR --seeds 100 --json
  bench/rig_compare.py --runs bench/rig_truth.s7/current-runs.jsonl --profiles bench/rig_truth.s6 \
      --profiles bench/rig_truth.s5 --predictions bench/rig_truth.s7/predict.jsonl
"""
import argparse
import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor


def die(msg):
    print(f"rig_compare.py: {msg}", file=sys.stderr)
    sys.exit(2)


def rig_of(label):
    """The rig a row is about: 'hostcache (warm)' -> 'hostcache' (its profile and prediction)."""
    return label.split()[0]


def size_name(b):
    return f"{b // 1048576}MiB" if b % 1048576 == 0 else f"{b}B"


def model_p(streamdisk, profile, rate, buffer, block, duration, seeds):
    """P(>=1 overrun) over `seeds` simulated recordings (seeds 1..N)."""
    over = 0
    for seed in range(1, seeds + 1):
        cmd = [streamdisk, "simulate", "-p", profile, "-r", f"{rate:.0f}", "-c", "1", "-b", "8", "-f", "raw",
               "--buffer", str(buffer), "--block", str(block), "-d", f"{duration}s", "--no-spread",
               "--seed", str(seed), "--json"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            die(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
        if json.loads(out.stdout)["overrun_events"] > 0:
            over += 1
    # (k + 1/2) / (n + 1): a model that never overran in n seeds says P < ~3/n, not P = 0,
    # and a run that overran where the estimate is 0 must not make the fit impossible.
    return (over + 0.5) / (seeds + 1)


def poisson_binomial(ps):
    """Distribution of the number of successes of independent trials with probabilities ps."""
    dist = [1.0]
    for p in ps:
        nxt = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1 - p)
            nxt[k + 1] += q * p
        dist = nxt
    return dist


def two_sided(dist, observed):
    """P(a count at least as unlikely as `observed`)."""
    p_obs = dist[observed]
    return min(1.0, sum(q for q in dist if q <= p_obs * (1 + 1e-9)))


LOGIT_CRITERION = math.log(0.05 / 0.95)


def criterion_rate(outcomes):
    """outcomes: [(rate_MBps, overran)]. The rate where a logistic P(overrun) in log rate
    crosses 5 %, by maximum likelihood over a grid, and its 95 % profile-likelihood
    interval (None for an end the data do not bound inside the grid)."""
    runs = [(math.log(r), k) for r, k in outcomes]  # the fit is in log rate
    lo_r, hi_r = min(x for x, _ in runs), max(x for x, _ in runs)
    span = max(hi_r - lo_r, 0.05)
    grid = [lo_r - span + i * 3 * span / 600 for i in range(601)]  # ln(rate at 5 %)
    slopes = [0.5 * 1.15 ** k for k in range(70)]  # b: gentle to a step (~1e4)

    def loglik(x5, b):
        total = 0.0
        for x, k in runs:
            z = LOGIT_CRITERION + b * (x - x5)
            # log p (overran) or log(1 - p) (clean) = -log(1 + e^-(+-z)), stable for large |z|
            y = z if k else -z
            total += -math.log1p(math.exp(-y)) if y > -30 else y
        return total

    prof = [max(loglik(x5, b) for b in slopes) for x5 in grid]
    best = max(prof)
    i_best = prof.index(best)
    inside = [i for i, v in enumerate(prof) if v >= best - 1.92]
    lo = None if inside[0] == 0 else math.exp(grid[inside[0]])
    hi = None if inside[-1] == len(grid) - 1 else math.exp(grid[inside[-1]])
    return math.exp(grid[i_best]), lo, hi


def fmt_interval(lo, hi):
    return f"{'<' if lo is None else f'{lo:.2f}'}..{'>' if hi is None else f'{hi:.2f}'}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Example: bench/rig_compare.py --runs bench/rig_truth.s7/current-runs.jsonl "
                                        "--profiles bench/rig_truth.s6 --profiles bench/rig_truth.s5 "
                                        "--predictions bench/rig_truth.s7/predict.jsonl")
    ap.add_argument("--runs", required=True, help="runs.jsonl written by bench/rig_truth.sh truth")
    ap.add_argument("--profiles", required=True, action="append",
                    help="folder with predict-RIG.toml (bench/rig_truth.sh predict); may be given more than "
                         "once, the first folder holding a rig's profile wins")
    ap.add_argument("--seeds", type=int, default=60, help="simulated recordings per rate (default 60)")
    ap.add_argument("--streamdisk", default=os.environ.get("STREAMDISK", "build/cli/streamdisk"))
    ap.add_argument("--json", action="store_true", help="one JSON object per rig and buffer")
    ap.add_argument("--summary", action="store_true",
                    help="after the per-rig tables, one table of every rig and buffer: the truth at the "
                         "criterion with its interval, the prediction and its error, the calibration p")
    ap.add_argument("--predictions", help="predict.jsonl (bench/rig_truth.sh predict): say whether each "
                                          "prediction lies in the criterion truth's interval")
    a = ap.parse_args()
    predictions = {}
    if a.predictions:
        try:
            for line in open(a.predictions):
                if line.strip():
                    d = json.loads(line)
                    predictions[(d["rig"], d["buffer"])] = d["predicted_MBps"]
        except (OSError, json.JSONDecodeError, KeyError) as e:
            die(f"cannot read {a.predictions}: {e}: give the predict.jsonl of a bench/rig_truth.sh predict run")
    if not os.access(a.streamdisk, os.X_OK):
        die(f"{a.streamdisk} not found: build first (see README) or set STREAMDISK")
    if a.seeds < 1:
        die("--seeds must be at least 1")
    try:
        runs = [json.loads(line) for line in open(a.runs) if line.strip()]
    except (OSError, json.JSONDecodeError) as e:
        die(f"cannot read {a.runs}: {e}: give the runs.jsonl of a bench/rig_truth.sh truth run")

    groups = defaultdict(lambda: defaultdict(list))  # (rig, buffer, block, duration) -> rate -> [overran]
    # Runs started on a warm rig (truth.sh --start warm: random timer phases) are a
    # different experiment from runs on a fresh, idle one: their own rows, "RIG (warm)".
    for r in runs:
        label = r["rig"] + (" (warm)" if r.get("start") == "warm" else "")
        key = (label, r["buffer_bytes"], r["block_bytes"], r["duration_s"])
        groups[key][r["rate_Bps"]].append(r["overruns"] > 0)

    jobs = {}
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for key, rates in groups.items():
            rig, buffer, block, duration = key
            prof = next((p for p in (os.path.join(d, f"predict-{rig_of(rig)}.toml") for d in a.profiles)
                         if os.path.exists(p)), None)
            if prof is None:
                continue
            for rate in rates:
                jobs[(key, rate)] = pool.submit(model_p, a.streamdisk, prof, rate, buffer, block, duration, a.seeds)

    summary = []
    for key in sorted(groups, key=lambda k: (k[0], k[1])):
        rig, buffer, block, duration = key
        if not any(k == key for k, _ in jobs):
            print(f"{rig} {size_name(buffer)}: no predict-{rig_of(rig)}.toml in {', '.join(a.profiles)}: skipped",
                  file=sys.stderr)
            continue
        rows, ps, observed = [], [], 0
        for rate in sorted(groups[key]):
            outcomes = groups[key][rate]
            p = jobs[(key, rate)].result()
            k = sum(outcomes)
            rows.append({"rate_MBps": rate / 1e6, "runs": len(outcomes), "overran": k, "model_p": p})
            ps += [p] * len(outcomes)
            observed += k
        dist = poisson_binomial(ps)
        expected = sum(ps)
        fit = two_sided(dist, observed)
        c5, c_lo, c_hi = criterion_rate([(rate / 1e6, k) for rate in groups[key] for k in groups[key][rate]])
        pred = predictions.get((rig_of(rig), size_name(buffer)))
        verdict = None
        if pred is not None:
            verdict = "inside" if (c_lo is None or pred >= c_lo) and (c_hi is None or pred <= c_hi) else "outside"
        summary.append((rig, size_name(buffer), len(ps), c5, c_lo, c_hi, pred, verdict, fit))
        if a.json:
            print(json.dumps({"rig": rig, "buffer": size_name(buffer), "rows": rows, "runs": len(ps),
                              "observed_overran": observed, "expected_overran": expected,
                              "p_value": fit, "seeds": a.seeds,
                              "criterion_truth_MBps": c5, "criterion_truth_95pct": [c_lo, c_hi],
                              "predicted_MBps": pred, "prediction_in_interval": verdict}))
            continue
        print(f"## {rig}, {size_name(buffer)} ring, {block // 1024} KiB writes, {duration:.0f} s "
              f"(model: {a.seeds} seeds per rate)")
        print("| rate MB/s | runs | overran | observed | model P(>=1 overrun) |")
        print("|---|---|---|---|---|")
        for row in rows:
            print(f"| {row['rate_MBps']:.3f} | {row['runs']} | {row['overran']} | "
                  f"{row['overran'] / row['runs']:.2f} | {row['model_p']:.2f} |")
        print(f"\nexpected {expected:.1f} overran runs of {len(ps)}, observed {observed}: "
              f"p = {fit:.3f} ({'consistent' if fit >= 0.05 else 'NOT consistent'} with the model at 5 %)")
        print(f"truth at capacity's criterion, from the runs alone (P(>=1 overrun) = 5 %, logistic in "
              f"log rate): {c5:.2f} MB/s, 95 % interval {fmt_interval(c_lo, c_hi)}"
              + ("" if pred is None else f"; prediction {pred:.2f}: {verdict}") + "\n")
    if a.summary and not a.json:
        print(f"| rig | buffer | runs | truth at P(>=1 overrun) = 5 %, MB/s (95 % interval) | predicted MB/s "
              f"| error | in the interval | model's P vs the runs (p, {a.seeds} seeds) |")
        print("|---|---|---|---|---|---|---|---|")
        for rig, buf, n, c5, lo, hi, pred, verdict, fit in summary:
            err = "" if pred is None else f"{100 * (pred / c5 - 1):+.0f} %"
            print(f"| {rig} | {buf} | {n} | {c5:.2f} ({fmt_interval(lo, hi)}) | "
                  f"{'' if pred is None else f'{pred:.2f}'} | {err} | {verdict or ''} | {fit:.2f} |")


if __name__ == "__main__":
    main()
