#!/usr/bin/env python3
"""Writes against the rig's pauses (session 27, bench/rig_truth.md).

writer.py PATH RATE_Bps BLOCK SECONDS LOG 1 writes BLOCK-byte buffered write()s (RATE 0:
flat out) and logs "start end Dirty_kB Writeback_kB" per write (CLOCK_MONOTONIC, as the
rig's events.log). This prints, for each pause in events.log inside a log, the writes
longer than 50 ms near it: start relative to the pause's start, end relative to its end.
Usage: align.py events.log flat.log [paced72.log ...]
"""
import sys

ev = [l.split() for l in open(sys.argv[1])]
pauses, cur = [], None
for e in ev:
    if e[1] == 'pause':
        cur = float(e[0])
    elif e[1] == 'resume' and cur is not None:
        pauses.append((cur, float(e[0])))
        cur = None
for name in sys.argv[2:]:
    w = [[float(x) for x in l.split()] for l in open(name)]
    t0, t1 = w[0][0], w[-1][1]
    print(f"== {name}: {len(w)} writes")
    for ps, pe in pauses:
        if not t0 <= ps <= t1:
            continue
        held = [x for x in w if x[1] > ps - 0.6 and x[0] < pe + 1.5 and x[1] - x[0] > 0.05]
        level = [x[2:] for x in w if x[0] <= ps][-1:]
        print(f" pause at {ps - t0:7.2f} s, {pe - ps:.2f} s; Dirty+Writeback before it {level} kB")
        for x in held:
            print(f"   write {x[1] - x[0]:.2f} s: start {x[0] - ps:+.2f} s from the pause's start, "
                  f"end {x[1] - pe:+.2f} s from its end")
