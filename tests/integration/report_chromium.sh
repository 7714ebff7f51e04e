#!/usr/bin/env bash
# The report renders in a real browser: headless Chromium (no network, fresh
# profile) screenshots it, and the picture is not blank. Run by hand to look:
#   SD_KEEP_SCREENSHOT=/tmp/report.png tests/integration/report_chromium.sh
source "$(dirname "$0")/../lib.sh"
browser=$(command -v chromium || command -v chromium-browser) || { echo "chromium is not installed (./run.sh installs it)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$STREAMDISK" show samsung-960evo-250g --json >"$tmp/show.json" || fail "show --json failed"
"$STREAMDISK" report "$tmp/show.json" -o "$tmp/r.html" || fail "report failed"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$tmp/profile" \
  --hide-scrollbars --window-size=1100,1600 --screenshot="$tmp/shot.png" "file://$tmp/r.html" >/dev/null 2>&1
[ -s "$tmp/shot.png" ] || fail "chromium wrote no screenshot"
python3 - "$tmp/shot.png" <<'PY' || fail "the screenshot is blank or not a PNG"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IHDR":
        w, h = struct.unpack(">II", data[pos + 8:pos + 16])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
assert (w, h) == (1100, 1600), (w, h)
# A blank page compresses to almost nothing and has one colour; plots and text give many.
assert len(set(raw[i:i + 3] for i in range(0, len(raw), 997))) > 20, "too few distinct colours"
PY
[ -n "${SD_KEEP_SCREENSHOT:-}" ] && cp "$tmp/shot.png" "$SD_KEEP_SCREENSHOT"
finish
