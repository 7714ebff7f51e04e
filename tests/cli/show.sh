#!/usr/bin/env bash
# profiles and show: every built-in profile shows, JSON parses and agrees with the text.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$STREAMDISK" profiles > "$tmp/list" || fail "profiles failed"
for group in "composite" "host:" "filesystem:" "device:"; do
  grep -q "^$group" "$tmp/list" || fail "profiles: no '$group' group"
done
"$STREAMDISK" profiles --json > "$tmp/list.json" || fail "profiles --json failed"
python3 - "$tmp/list.json" <<'PY' || fail "profiles --json is not the expected JSON"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) >= 20, len(rows)
assert {r["layer"] for r in rows} == {"host", "filesystem", "device", "composite"}
assert all(r["summary"] and not r["summary"].startswith("BROKEN") for r in rows)
PY

# Every built-in shows (layers other than devices with a device under them).
python3 -c 'import json,sys; [print(r["name"], r["layer"]) for r in json.load(open(sys.argv[1]))]' "$tmp/list.json" |
while read -r name layer; do
  spec=$name
  [ "$layer" = host ] || [ "$layer" = filesystem ] && spec="$name+samsung-960evo-250g"
  "$STREAMDISK" show "$spec" > "$tmp/out" 2> "$tmp/err" || fail "show $spec failed: $(cat "$tmp/err")"
  grep -q "Predicted write rate" "$tmp/out" || fail "show $spec: no prediction table"
done

# Text and JSON agree; the 960 EVO's cliff is visible.
"$STREAMDISK" show samsung-960evo-250g > "$tmp/show.txt"
grep -q "full after 8.9 s" "$tmp/show.txt" || fail "show: burst duration line missing"
"$STREAMDISK" show samsung-960evo-250g --json > "$tmp/show.json"
python3 - "$tmp/show.json" <<'PY' || fail "show --json content"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["format"] == "streamdisk-show" and j["format_version"] == 1
p = j["layers"]["device"]["params"]
assert p["burst_bytes"]["value"] == 13e9 and p["burst_bytes"]["source"]
assert p["seek_penalty_us"]["origin"] == "default"
assert p["recover_mbps"]["estimate"] is True
rates = {r["block_bytes"]: r for r in j["write_rates"]}
assert len(rates) == 15 and min(rates) == 512 and max(rates) == 8 * 1048576
assert 1400 < rates[8 * 1048576]["burst_direct_mbps"] < 1500
assert 295 < rates[8 * 1048576]["sustained_direct_mbps"] <= 300
assert 8 < j["burst"]["seconds_at_full_speed"] < 10
PY
# --set shows up as an override.
"$STREAMDISK" show samsung-960evo-250g --set device.sustained_mbps=250 --json |
  python3 -c 'import json,sys; p=json.load(sys.stdin)["layers"]["device"]["params"]["sustained_mbps"]; assert p["value"]==250 and p["origin"]=="--set", p' ||
  fail "--set not reflected"
# --help has examples for every subcommand.
for cmd in profiles show; do
  "$STREAMDISK" $cmd --help | grep -q "Examples:" || fail "$cmd --help has no examples"
done
"$STREAMDISK" show --params | grep -q "sustained_mbps" || fail "show --params"
finish
