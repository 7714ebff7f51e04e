#!/usr/bin/env bash
# Every command in docs/tutorials/*.md runs and prints what the page says.
# After a deliberate change: python3 tests/tools/tutorial.py update docs/tutorials/*.md
source "$(dirname "$0")/../lib.sh"
python3 "$(dirname "$0")/../tools/tutorial.py" check $(ls "$SD_SOURCE_DIR"/docs/tutorials/*.md | grep -v /README.md) || fail "tutorials drifted"
finish
