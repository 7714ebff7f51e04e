#!/usr/bin/env bash
# Build (once, when refrec.c changed) and run the reference recorder; see refrec.c.
# Example: tests/rig/refrec.sh /tmp/r1/mnt/rec.raw --rate 8MB/s --buffer 4MiB --duration 60s
# The binary goes to $REFREC_BUILD (default /tmp/streamdisk-rig-bin): nothing of
# streamdisk's build is used.
set -eu
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/refrec.c
bin=${REFREC_BUILD:-/tmp/streamdisk-rig-bin}/refrec
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
  mkdir -p "$(dirname "$bin")"
  cc -O2 -Wall -Wextra -pthread -o "$bin.tmp.$$" "$src" -lm || { echo "refrec.sh: compiling $src failed: install gcc (run.sh does)" >&2; exit 2; }
  mv -f "$bin.tmp.$$" "$bin"
fi
exec "$bin" "$@"
