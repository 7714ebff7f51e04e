#!/usr/bin/env bash
# docs/profiles.md documents every parameter of the table and every built-in profile.
. "$(dirname "$0")/../lib.sh"
doc="$SD_SOURCE_DIR/docs/profiles.md"
# The lists come from the binary; empty lists would make the loops check nothing.
keys=$("$STREAMDISK" show --params | awk '/^  [a-z_]+ /{print $1}' | sort -u)
names=$("$STREAMDISK" profiles --json | python3 -c 'import json,sys; [print(r["name"]) for r in json.load(sys.stdin)]')
[ "$(wc -w <<<"$keys")" -ge 20 ] || fail "show --params listed $(wc -w <<<"$keys") parameters, expected 20 or more"
[ "$(wc -w <<<"$names")" -ge 20 ] || fail "profiles --json listed $(wc -w <<<"$names") profiles, expected 20 or more"
for key in $keys; do
  grep -q "\`$key\`" "$doc" || fail "docs/profiles.md does not document parameter '$key'"
done
for name in $names; do
  grep -q "$name" "$doc" || fail "docs/profiles.md does not mention built-in profile '$name'"
done
finish
