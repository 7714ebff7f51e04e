#!/usr/bin/env bash
# The lesson page (web/, built with -DSD_LESSON=ON) in headless Chromium from
# file:// with no network: it loads, a slider move re-simulates (verdict and
# plot change), and for a handful of settings its numbers equal `streamdisk
# simulate --json` run with the command the page prints. Prints the page's
# re-simulation time for 1.5 h x 48 channels next to the native run's.
source "$(dirname "$0")/../lib.sh"
page="${SD_BUILD_DIR:?}/web/streamdisk-lesson.html"
[ "${SD_LESSON:-OFF}" = ON ] || skip "the lesson page is not built here (cmake -DSD_LESSON=ON, as ./run.sh test does)"
[ -s "$page" ] || { fail "SD_LESSON is ON but $page was not built"; finish; }
browser=$(command -v chromium || command -v chromium-browser) || { echo "chromium is not installed (./run.sh installs it)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$(dirname "$0")/lesson_driver.py" "$browser" "$page" "$STREAMDISK" "$tmp" || fail "the lesson page (see above)"
finish
