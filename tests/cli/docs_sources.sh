#!/usr/bin/env bash
# Every built-in profile's sources resolve in docs/sources.md, and nothing in the
# repository points readers to a path outside it (issue 12 §8).
. "$(dirname "$0")/../lib.sh"
out=$(python3 - "$SD_SOURCE_DIR" <<'PY'
import glob, os, re, sys, tomllib
root = sys.argv[1]
doc = open(os.path.join(root, "docs/sources.md")).read()
sections = set(re.findall(r"^## Document (\d{3})$", doc, re.M))
keys = re.findall(r"^\| `([^`]+)` \|", doc, re.M)
bad = []
def sources(node, where):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "source" and isinstance(v, str):
                yield where, v
            else:
                yield from sources(v, where + "." + k)
for path in sorted(glob.glob(os.path.join(root, "data/profiles/**/*.toml"), recursive=True)):
    name = os.path.relpath(path, root)
    with open(path, "rb") as f:
        data = tomllib.load(f)
    for where, s in sources(data, name):
        for d in re.findall(r"document (\d{3})", s):
            if d not in sections:
                bad.append(f"{where}: cites document {d}, which docs/sources.md does not describe")
        for cite in re.findall(r"docs/sources\.md: ([^;()]+)", s):
            if not any(cite.startswith(k) for k in keys):
                bad.append(f"{where}: cites docs/sources.md: '{cite.strip()}', not a key of its table")
        if re.search(r"research/|seeds/|\.\./shared", s):
            bad.append(f"{where}: points outside the repository: {s}")
        if not re.search(r"document \d{3}|docs/sources\.md: |estimate|fitted|docs/[a-z]+\.md|product name", s):
            bad.append(f"{where}: source names nothing docs/sources.md can resolve: {s}")
print("\n".join(bad))
PY
) || fail "docs_sources check did not run"
[ -z "$out" ] || fail "$out"
# No tracked file refers readers to the team's workspace outside the repository.
hits=$(cd "$SD_SOURCE_DIR" && git ls-files -z 2>/dev/null | xargs -0 grep -lE '\.\./shared|shared/(seeds|research)|seeds/FACTS|research/(devices|formats)' -- 2>/dev/null | grep -v '^tests/cli/docs_sources.sh$' || true)
[ -z "$hits" ] || fail "these files point to ../shared, which users of the repository do not have: $hits"
# Nor to the machine it was written on (a results folder copied from /work/...).
hits=$(cd "$SD_SOURCE_DIR" && git ls-files -z 2>/dev/null | xargs -0 grep -lE '(^|[ "=(])/(work|home)/[a-z]' -- 2>/dev/null | grep -v '^tests/cli/docs_sources.sh$' || true)
[ -z "$hits" ] || fail "these files name a path on the machine they were made on, not in the repository: $hits"
finish
