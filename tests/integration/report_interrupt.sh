#!/usr/bin/env bash
# Ctrl-C (or SIGTERM) while `report --svg DIR` writes its plots removes what
# the run made: the plots already in place, the temporary file, and the
# directories --svg made (innermost first, each only while empty), as a
# failed run does. A directory the user put a file into stays, with the file.
# The plots are written into a mount whose writes to the second plot take
# 3 s (a delay fault), so the signal comes while report is inside them.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

"$STREAMDISK" show samsung-960evo-250g --json >"$WORK/show.json" || fail "show --json"
start_mount -p samsung-960evo-250g --backing "$BACK" --fault 'delay=3s:any,file=*02-*,for=forever'

# run SIG [USER-FILE]: report into $MNT/new/plots (both directories new);
# signals it once the second plot's temporary file exists.
run() {
  local sig=$1 user=${2:-}
  rm -rf "$MNT/new" "$WORK/r.html"
  "$STREAMDISK" report "$WORK/show.json" --svg "$MNT/new/plots" -o "$WORK/r.html" >"$WORK/out" 2>"$WORK/err" &
  local pid=$! ok=""
  for _ in $(seq 400); do
    compgen -G "$MNT/new/plots/.02-*.tmp" >/dev/null && { ok=1; break; }
    kill -0 $pid 2>/dev/null || break
    sleep 0.02
  done
  [ -n "$ok" ] || { fail "SIG$sig: the second plot's temporary file never appeared ($(cat "$WORK/err"))"; kill -KILL $pid; wait $pid; return; }
  [ -n "$user" ] && printf 'mine\n' >"$MNT/new/$user"
  kill -$sig $pid
  wait $pid; local rc=$?
  local want=$([ "$sig" = INT ] && echo 130 || echo 143)
  [ "$rc" -eq "$want" ] || fail "SIG$sig: exit $rc, expected $want ($(cat "$WORK/err"))"
  [ ! -e "$WORK/r.html" ] || fail "SIG$sig: the page was written"
}

run INT
[ ! -e "$MNT/new" ] || fail "SIGINT: left $(find "$MNT/new" | tr '\n' ' ')"
run TERM
[ ! -e "$MNT/new" ] || fail "SIGTERM: left $(find "$MNT/new" | tr '\n' ' ')"
# A file of the user's in the outer directory: that directory stays, with it;
# the plots and the inner directory go.
run INT user.txt
[ "$(cat "$MNT/new/user.txt" 2>/dev/null)" = mine ] || fail "SIGINT: the user's file in a made directory is gone"
[ "$(ls -A "$MNT/new")" = user.txt ] || fail "SIGINT with a user's file: left $(find "$MNT/new" | tr '\n' ' ')"
finish
