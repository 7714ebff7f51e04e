#!/usr/bin/env bash
# How fast the lesson page loads: the page's own performance timeline (from
# navigation start to its first recording simulated and drawn), phase by
# phase, median of N fresh loads from file://, in headless Chromium and
# headless Firefox (whichever is installed). Prints the load average beside
# the figures: on a shared machine they scale with it.
# Usage: bench/lesson_load.sh [BUILD_DIR] [LOADS]   (BUILD_DIR configured with
# -DSD_LESSON=ON, as ./run.sh lesson does; LOADS defaults to 9; about 1 minute)
set -euo pipefail
BUILD=${1:-build}
LOADS=${2:-9}
[[ "$LOADS" =~ ^[1-9][0-9]*$ ]] || { echo "lesson_load.sh: LOADS '$LOADS' must be a whole number of loads, e.g. 9" >&2; exit 2; }
page=$(realpath "$BUILD/web/streamdisk-lesson.html" 2>/dev/null) || {
  echo "lesson_load.sh: $BUILD/web/streamdisk-lesson.html is missing: build it with ./run.sh lesson" >&2; exit 2; }
sd=$(realpath "$BUILD/cli/streamdisk")
driver="$(dirname "$0")/../tests/integration/lesson_driver.py"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "$(uptime)"
ran=0
for b in chromium:chromium firefox:firefox-esr; do
  bin=$(command -v "${b#*:}") || { echo "${b%%:*}: not installed, skipped"; continue; }
  python3 "$driver" --load-only --loads "$LOADS" "${b%%:*}" "$bin" "$page" "$sd" "$tmp"
  ran=1
done
[ "$ran" = 1 ] || { echo "lesson_load.sh: neither chromium nor firefox-esr is installed (./run.sh installs them)" >&2; exit 2; }
