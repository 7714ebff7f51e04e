#!/usr/bin/env python3
"""characterize's profile with a refit's stall and catch-up keys in it (and its sustained rate
where that gave the catch-up back), as a file.

bench/fit_capacity.sh sets a refit's keys on characterize's profile with --set for one
capacity run; bench/rig_compare.py needs them in a profile file. Usage:
  merge_refit.py CHAR.toml REFIT.toml OUT.toml
REFIT is `streamdisk calibrate -o` output (one layer's keys under [params], or a whole
stack's under [LAYER.params]); its stall_* and catchup_ms lines replace those of CHAR's
[LAYER.params] (or join them).
"""
import re
import sys

char, refit, out = sys.argv[1:4]
# The refit's keys per layer: a one-layer profile has them under [params] (its layer
# named at the top), a whole stack under [LAYER.params].
keys, layer, section = {}, None, None
for line in open(refit):
    m = re.match(r'layer\s*=\s*"(\w+)"', line)
    if m and section is None:
        layer = m.group(1)
    if line.startswith("["):
        section = line.strip()
        continue
    m = re.match(r"(stall\w*|catchup_ms)\s*=", line)
    # The sustained rate too where the refit gave the catch-up back (session 35).
    m = m or re.match(r"(sustained_mbps)\s*=.*less the catch-up", line)
    if m and section:
        target = f"[{layer}.params]" if section == "[params]" else section
        keys.setdefault(target, {})[m.group(1)] = line if line.endswith("\n") else line + "\n"
if not keys:
    sys.exit(f"merge_refit.py: no stall keys in {refit}")
res, section, done = [], None, set()
def flush():
    if section in keys and section not in done:
        res.extend(v for k, v in keys[section].items() if (section, k) not in placed)
        done.add(section)
placed = set()
for line in open(char):
    if line.startswith("["):
        flush()
        section = line.strip()
        res.append(line)
        continue
    m = re.match(r"(\w+)\s*=", line)
    if section in keys and m and m.group(1) in keys[section]:
        res.append(keys[section][m.group(1)])
        placed.add((section, m.group(1)))
        continue
    res.append(line)
flush()
if set(keys) - done:
    sys.exit(f"merge_refit.py: no {', '.join(sorted(set(keys) - done))} section in {char}")
open(out, "w").write("".join(res))
