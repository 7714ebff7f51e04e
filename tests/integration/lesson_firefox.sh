#!/usr/bin/env bash
# The lesson page in headless Firefox (firefox-esr, driven over Marionette):
# the checks of lesson_chromium.sh but the network log, which Marionette does
# not give (the page's Content-Security-Policy forbids every request, and its
# resource timeline must stay empty).
source "$(dirname "$0")/../lib.sh"
page="${SD_BUILD_DIR:?}/web/streamdisk-lesson.html"
[ "${SD_LESSON:-OFF}" = ON ] || skip "the lesson page is not built here (cmake -DSD_LESSON=ON, as ./run.sh test does)"
[ -s "$page" ] || { fail "SD_LESSON is ON but $page was not built"; finish; }
browser=$(command -v firefox-esr || command -v firefox) || { echo "firefox-esr is not installed (./run.sh installs it)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$(dirname "$0")/lesson_driver.py" firefox "$browser" "$page" "$STREAMDISK" "$tmp" || fail "the lesson page in Firefox (see above)"
finish
