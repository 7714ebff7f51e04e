# Sourced by truth.sh and probe.sh: start a recording on a "warm" rig, with the
# journal's commit timer and the kernel flushers' wake-ups at random phases (as on a
# disk something else already writes to), instead of both starting from the recorder's
# first write on an idle rig.
#   warm_up MNT    a ticker rewrites 4 KiB of MNT/ticker every 0.2 s; after 10 s and a
#                  random 0-5 s a `sync -f` restarts the commit timer; after another
#                  random 0-5 s the flushers are woken (vm.dirty_writeback_centisecs
#                  written with its value minus one, then its value: machine-wide,
#                  restored at once); after a third random 0-5 s it returns. Sets
#                  WARM_DELAYS to the three delays as a JSON array.
#   warm_down      stop the ticker (and its dd or sleep, which would keep the rig's
#                  mount busy); vm.dirty_writeback_centisecs as it was, if warm_up
#                  touched it (idempotent).
warm_wb_orig=$(cat /proc/sys/vm/dirty_writeback_centisecs)
warm_ticker= warm_touched=
WARM_DELAYS=null
warm_up() {
  local mnt=$1 a b c
  # Three uniform 0-5 s delays from /dev/urandom (an awk seed from "$RANDOM$RANDOM"
  # overflowed to one value whenever it passed 2^31: 3 of session 9's 48 warm runs
  # got the same delays).
  read -r a b c < <(od -An -N6 -tu2 /dev/urandom | awk '{ printf "%.3f %.3f %.3f", 5 * $1 / 65536, 5 * $2 / 65536, 5 * $3 / 65536 }')
  ( while :; do dd if=/dev/urandom of="$mnt/ticker" bs=4096 count=1 conv=notrunc status=none; sleep 0.2; done ) &
  warm_ticker=$!
  sleep 10; sleep "$a"
  sync -f "$mnt"
  sleep "$b"
  if [ "$warm_wb_orig" -gt 1 ]; then
    warm_touched=1
    echo $((warm_wb_orig - 1)) >/proc/sys/vm/dirty_writeback_centisecs
    echo "$warm_wb_orig" >/proc/sys/vm/dirty_writeback_centisecs
  fi
  sleep "$c"
  WARM_DELAYS="[$a,$b,$c]"
}
warm_down() {
  if [ -n "$warm_ticker" ]; then
    kill "$warm_ticker" 2>/dev/null; pkill -P "$warm_ticker" 2>/dev/null
    wait "$warm_ticker" 2>/dev/null; warm_ticker=
  fi
  if [ -n "$warm_touched" ]; then echo "$warm_wb_orig" >/proc/sys/vm/dirty_writeback_centisecs; warm_touched=; fi
}
