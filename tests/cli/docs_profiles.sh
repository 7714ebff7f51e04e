#!/usr/bin/env bash
# docs/profiles.md documents every parameter of the table and every built-in profile.
. "$(dirname "$0")/../lib.sh"
doc="$SD_SOURCE_DIR/docs/profiles.md"
for key in $("$STREAMDISK" show --params | awk '/^  [a-z_]+ /{print $1}' | sort -u); do
  grep -q "\`$key\`" "$doc" || fail "docs/profiles.md does not document parameter '$key'"
done
for name in $("$STREAMDISK" profiles --json | python3 -c 'import json,sys; [print(r["name"]) for r in json.load(sys.stdin)]'); do
  grep -q "$name" "$doc" || fail "docs/profiles.md does not mention built-in profile '$name'"
done
finish
