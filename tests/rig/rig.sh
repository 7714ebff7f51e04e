#!/usr/bin/env bash
# Build and tear down slow test devices from tools nobody on this project wrote:
#   nbdkit memory plugin + filters pause, noparallel, delay, rate
#     -> nbdfuse DIR/nbd/disk (nbdkit runs as its subprocess)
#     -> a loop device (direct I/O onto the FUSE file, so no second page cache)
#     -> mkfs + a real filesystem driver (ext4, ext2, exfat-fuse, ntfs-3g, vfat, xfs, btrfs) at DIR/mnt
#   with vm.dirty_bytes / vm.dirty_background_bytes set for the rig, and a controller
#   (rigctl.py) that turns nbdkit's rate-file into a write cache and its pause socket
#   into stalls. See tests/rig/README.md for the rigs and what they emulate.
#
# Usage (as root):
#   rig.sh up NAME DIR [KEY=VALUE ...]   build rig NAME (tests/rig/rigs/NAME.conf) in DIR
#   rig.sh down DIR                      tear it down; restores vm.dirty_*; idempotent
#   rig.sh status DIR                    print the rig's parameters and state
#   rig.sh list                          the rigs and their one-line descriptions
# Example:
#   tests/rig/rig.sh up stalls /tmp/r1 && dd if=/dev/urandom of=/tmp/r1/mnt/f bs=1M count=50
#   tests/rig/rig.sh down /tmp/r1
# `up` prints the mount point. vm.dirty_* are machine-wide: two rigs may be up at once
# only if they ask for the same values (else `up` refuses, exit 2). The original values
# are saved in /run/streamdisk-rig/dirty.orig (and DIR/dirty.orig) and restored when
# the last rig goes down.
set -u
RIG_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REG=/run/streamdisk-rig

die() { echo "rig.sh: $*" >&2; exit 2; }
note() { echo "rig.sh: $*" >&2; }

# --- machine-wide vm.dirty_* bookkeeping -------------------------------------------
dirty_read() {  # prints "bytes bg_bytes ratio bg_ratio"
  echo "$(cat /proc/sys/vm/dirty_bytes) $(cat /proc/sys/vm/dirty_background_bytes)" \
       "$(cat /proc/sys/vm/dirty_ratio) $(cat /proc/sys/vm/dirty_background_ratio)"
}
dirty_restore() {  # $1 = "bytes bg_bytes ratio bg_ratio" as saved by dirty_read
  local b bg r bgr; read -r b bg r bgr <<<"$1"
  # Writing *_bytes zeroes *_ratio and the other way round: write the one in use.
  if [ "$b" != 0 ]; then echo "$b" >/proc/sys/vm/dirty_bytes; else echo "$r" >/proc/sys/vm/dirty_ratio; fi
  if [ "$bg" != 0 ]; then echo "$bg" >/proc/sys/vm/dirty_background_bytes
  else echo "$bgr" >/proc/sys/vm/dirty_background_ratio; fi
}
dirty_acquire() {  # DIR DIRTY_BYTES DIRTY_BG_BYTES
  local dir=$1 want="$2 $3" key other
  mkdir -p "$REG/active"
  exec 9>"$REG/lock"; flock 9
  for other in "$REG"/active/*; do  # drop entries of rigs whose directory is gone
    [ -e "$other" ] || continue
    [ -e "$(cut -d' ' -f1 "$other")/rig.env" ] || rm -f "$other"
  done
  local waited=0 me="$REG/waiting/$(echo -n "$dir" | md5sum | cut -c1-16)" mine
  mkdir -p "$REG/waiting"
  mine="$(date +%s%N) $$ $want"
  while :; do
    local clash= w odir=another
    for other in "$REG"/active/*; do
      [ -e "$other" ] || continue
      read -r odir ob obg <"$other"
      [ "$ob $obg" = "$want" ] || clash="rig in $odir is up with vm.dirty_bytes=$ob dirty_background_bytes=$obg; this rig needs $want"
    done
    # Fairness: a rig that waits for other vm.dirty_* values goes first once the
    # rigs up now are down; rigs arriving later (any values) wait behind it.
    for w in "$REG"/waiting/*; do
      [ -e "$w" ] && [ "$w" != "$me" ] || continue
      read -r wt wpid wb wbg <"$w"
      kill -0 "$wpid" 2>/dev/null || { rm -f "$w"; continue; }
      [ "$wb $wbg" != "$want" ] && [[ $wt < ${mine%% *} ]] && clash="${clash:-a rig waits for vm.dirty_bytes=$wb}"
    done
    [ -z "$clash" ] && break
    # RIG_WAIT_S: wait that long for the other rigs to go down instead of refusing.
    [ "$waited" -lt "${RIG_WAIT_S:-0}" ] || { rm -f "$me" "$dir/rig.env"; flock -u 9; die "$clash: take that rig down first (rig.sh down $odir), run rigs with equal DIRTY_* together, or set RIG_WAIT_S"; }
    echo "$mine" >"$me"
    flock -u 9; sleep 2; waited=$((waited + 2)); flock 9
  done
  rm -f "$me"
  if ! compgen -G "$REG/active/*" >/dev/null; then
    dirty_read >"$REG/dirty.orig"
  fi
  cp "$REG/dirty.orig" "$dir/dirty.orig"
  key=$(echo -n "$dir" | md5sum | cut -c1-16)
  echo "$dir $want" >"$REG/active/$key"
  echo "$3" >/proc/sys/vm/dirty_background_bytes
  echo "$2" >/proc/sys/vm/dirty_bytes
  flock -u 9
}
dirty_release() {  # DIR
  local dir=$1 key
  [ -d "$REG/active" ] || return 0
  exec 9>"$REG/lock"; flock 9
  key=$(echo -n "$dir" | md5sum | cut -c1-16)
  if [ -e "$REG/active/$key" ]; then
    rm -f "$REG/active/$key"
    if ! compgen -G "$REG/active/*" >/dev/null && [ -s "$REG/dirty.orig" ]; then
      dirty_restore "$(cat "$REG/dirty.orig")"
      rm -f "$REG/dirty.orig"
    fi
  fi
  flock -u 9
}

# --- state ---------------------------------------------------------------------------
state_set() { echo "$1=$2" >>"$DIR/rig.env"; }
state_get() { sed -n "s/^$1=//p" "$DIR/rig.env" 2>/dev/null | tail -1; }
# Whether something is mounted on $1 (also a dead FUSE mount, where `mountpoint` fails).
# (/proc/self/mounts writes a space in a path as \040, a tab as \011)
is_mounted() { awk -v m="$1" 'BEGIN { gsub(/ /, "\\040", m); gsub(/\t/, "\\011", m) } $2 == m { f = 1 } END { exit !f }' /proc/self/mounts; }
pid_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
# A kernel filesystem made on LOOP and mounted at DIR/mnt: kernel_fs FS PACKAGE LOOP [mkfs
# options...], where PACKAGE is the Debian package with mkfs.FS (run.sh installs it).
kernel_fs() {
  local fs=$1 pkg=$2 dev=$3; shift 3
  grep -qw "$fs" /proc/filesystems || { note "this kernel has no $fs driver"; return 1; }
  command -v "mkfs.$fs" >/dev/null || { note "mkfs.$fs not found: install $pkg (run.sh does)"; return 1; }
  "mkfs.$fs" "$@" "$dev" >/dev/null && mount -t "$fs" "$dev" "$DIR/mnt"
}
# A pid from this rig's pid files that is still this rig's process (pids get reused).
ours() { pid_alive "$1" && { tr '\0' ' ' <"/proc/$1/cmdline"; echo; } 2>/dev/null | grep -qF -e "$DIR/" -e "$DIR "; }
wait_gone() {  # PID SECONDS
  local i; for ((i = 0; i < $2 * 10; i++)); do pid_alive "$1" || return 0; sleep 0.1; done; return 1
}

rig_down() {
  [ -d "$DIR" ] || return 0
  local ctl loop nbdfuse nbdkit mnt i
  ctl=$(cat "$DIR/ctl.pid" 2>/dev/null); nbdfuse=$(cat "$DIR/nbdfuse.pid" 2>/dev/null)
  nbdkit=$(cat "$DIR/nbdkit.pid" 2>/dev/null); loop=$(state_get LOOP); mnt=$DIR/mnt
  # 1. Stop the controller (it resumes a held pause on exit), then let the device run
  #    at full speed so unmounting flushes quickly.
  if ours "$ctl"; then
    kill -TERM "$ctl"; wait_gone "$ctl" 5 || kill -KILL "$ctl" 2>/dev/null
  fi
  if [ -S "$DIR/pause.sock" ] && ours "$nbdkit"; then
    timeout 5 python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"r"); s.recv(1)' \
      "$DIR/pause.sock" 2>/dev/null
  fi
  echo 800000000000 >"$DIR/rate.tmp" 2>/dev/null && mv -f "$DIR/rate.tmp" "$DIR/rate" 2>/dev/null
  # 2. Unmount the filesystem (a FUSE driver flushes and exits on unmount).
  if is_mounted "$mnt"; then
    for i in 1 2 3 4 5 6 7 8 9 10; do umount "$mnt" 2>/dev/null && break; sleep 1; done
    is_mounted "$mnt" && { note "umount $mnt failed; detaching it lazily"; umount -l "$mnt"; }
  fi
  # 3. Detach the loop device, only if it still points at this rig's file (its bdi's
  #    min_ratio back first: loop devices outlive the rig).
  if [ -n "$loop" ] && losetup "$loop" 2>/dev/null | grep -q "$DIR/nbd/disk"; then
    local orig; orig=$(state_get BDI_MIN_RATIO_ORIG)
    [ -n "$orig" ] && echo "$orig" >"/sys/block/${loop#/dev/}/bdi/min_ratio" 2>/dev/null
    for i in 1 2 3 4 5; do losetup -d "$loop" 2>/dev/null && break; sleep 1; done
    for i in $(seq 50); do losetup "$loop" >/dev/null 2>&1 || break; sleep 0.1; done
  fi
  # 4. Unmount nbdfuse; nbdkit (--exit-with-parent) goes with it.
  if is_mounted "$DIR/nbd"; then
    fusermount3 -u "$DIR/nbd" 2>/dev/null || umount -l "$DIR/nbd"
  fi
  ours "$nbdfuse" && { wait_gone "$nbdfuse" 5 || kill -TERM "$nbdfuse"; wait_gone "$nbdfuse" 3 || kill -KILL "$nbdfuse" 2>/dev/null; }
  ours "$nbdkit" && { kill -TERM "$nbdkit"; wait_gone "$nbdkit" 3 || kill -KILL "$nbdkit" 2>/dev/null; }
  # 5. vm.dirty_* back when the last rig is down.
  dirty_release "$DIR"
  rm -f "$DIR/ctl.pid" "$DIR/nbdfuse.pid" "$DIR/nbdkit.pid" "$DIR/ctl.ready" "$DIR/rate" "$DIR/rate.tmp"
  mv -f "$DIR/rig.env" "$DIR/rig.env.down" 2>/dev/null
  return 0
}

rig_up() {
  local name=$1 conf="$RIG_SRC/rigs/$1.conf" kv
  [ -r "$conf" ] || die "unknown rig '$name': choose one of $(cd "$RIG_SRC/rigs" && ls *.conf | sed 's/\.conf//' | tr '\n' ' ')"
  [ "$(id -u)" -eq 0 ] || die "building a rig needs root (losetup, mount, vm.dirty_*): run it as root"
  for t in nbdkit nbdfuse losetup python3 fusermount3; do
    command -v "$t" >/dev/null || die "$t not found: install the packages listed in run.sh"
  done
  [ -e "$DIR/rig.env" ] && die "a rig is already up in $DIR: take it down first (rig.sh down $DIR)"
  mkdir -p "$DIR/nbd" "$DIR/mnt" || die "cannot create $DIR"
  is_mounted "$DIR/mnt" && die "$DIR/mnt is already a mount point: unmount it first"
  rm -f "$DIR/events.log" "$DIR"/*.log
  # Resolved parameters: the rig file, then KEY=VALUE overrides from the command line.
  { echo "NAME=$name"; grep -v '^#' "$conf"; for kv in "${@:2}"; do echo "$kv"; done; } >"$DIR/rig.env"
  for kv in "${@:2}"; do [[ $kv =~ ^[A-Z_]+=.+$ ]] || { rm -f "$DIR/rig.env"; die "bad override '$kv': use KEY=VALUE, e.g. RATE_MBPS=12"; }; done
  # shellcheck disable=SC1091
  source "$DIR/rig.env"
  trap 'note "building the rig failed; tearing it down"; rig_down; exit 1' ERR INT TERM
  set -E

  dirty_acquire "$DIR" "$DIRTY_BYTES" "$DIRTY_BG_BYTES"
  # nbdkit starts unthrottled (mkfs runs fast); the controller sets the rig's rate.
  echo 800000000000 >"$DIR/rate"
  local filters=(--filter=pause --filter=noparallel) fargs=(pause-control="$DIR/pause.sock")
  if [ "${DELAY_MS:-0}" != 0 ]; then filters+=(--filter=delay); fargs+=(wdelay="${DELAY_MS}ms"); fi
  filters+=(--filter=rate); fargs+=(rate=800000000000 rate-file="$DIR/rate" burstiness="${BURSTINESS:-0.25}")
  setsid nbdfuse -P "$DIR/nbdfuse.pid" "$DIR/nbd/disk" \
    [ nbdkit --exit-with-parent -P "$DIR/nbdkit.pid" "${filters[@]}" memory "$SIZE" "${fargs[@]}" ] \
    </dev/null >"$DIR/nbdfuse.log" 2>&1 &
  local i
  for i in $(seq 100); do [ -s "$DIR/nbdfuse.pid" ] && break; sleep 0.1; done
  [ -s "$DIR/nbdfuse.pid" ] || { note "nbdfuse did not come up: $(tail -3 "$DIR/nbdfuse.log")"; false; }

  local loop; loop=$(losetup -f --show --direct-io=on "$DIR/nbd/disk")
  state_set LOOP "$loop"
  # The kernel gives each device a share of the dirty thresholds by its recent writeout
  # (bdi min_ratio/max_ratio, Documentation/ABI/testing/sysfs-class-bdi): a machine
  # whose own disk is busy (a build) shrinks the rig's share, and background writeback
  # then starts early on the rig, as it would not on a recorder with the machine to
  # itself. min_ratio keeps the rig's share nearly whole (99 %, the most the kernel
  # allows; 49 % if another device already holds a minimum); restored on `down`.
  local bdi=/sys/block/${loop#/dev/}/bdi/min_ratio r
  if [ -w "$bdi" ]; then
    state_set BDI_MIN_RATIO_ORIG "$(cat "$bdi")"
    for r in 99 49; do echo "$r" >"$bdi" 2>/dev/null && break; done
    [ "$(cat "$bdi")" -ge 49 ] || note "could not give the rig's device a minimum share of the dirty limits: results depend on this machine's other writes"
  fi
  case "$FS" in
    ext4)  kernel_fs ext4 e2fsprogs "$loop" -q -F -E lazy_itable_init=0,lazy_journal_init=0 ;;
    ext2)  kernel_fs ext2 e2fsprogs "$loop" -q -F -E lazy_itable_init=0 ;;
    exfat) mkfs.exfat "$loop" >/dev/null; mount.exfat-fuse "$loop" "$DIR/mnt" >/dev/null ;;
    ntfs)  mkfs.ntfs -Q -F -q "$loop" 2>/dev/null; ntfs-3g -o big_writes "$loop" "$DIR/mnt" ;;
    vfat)  kernel_fs vfat dosfstools "$loop" -F 32 ;;
    xfs)   kernel_fs xfs xfsprogs "$loop" -q -f ;;
    btrfs) kernel_fs btrfs btrfs-progs "$loop" -q -f ;;
    *) note "unknown FS=$FS (ext4, ext2, exfat, ntfs, vfat, xfs, btrfs)"; false ;;
  esac
  chmod 1777 "$DIR/mnt" 2>/dev/null || true
  sync -f "$DIR/mnt"

  setsid python3 "$RIG_SRC/rigctl.py" "$DIR" </dev/null >"$DIR/ctl.log" 2>&1 &
  echo $! >"$DIR/ctl.pid"
  for i in $(seq 100); do [ -e "$DIR/ctl.ready" ] && break; sleep 0.1; done
  [ -e "$DIR/ctl.ready" ] || { note "controller did not start: $(tail -3 "$DIR/ctl.log")"; false; }
  trap - ERR INT TERM
  echo "$DIR/mnt"
}

rig_status() {
  [ -e "$DIR/rig.env" ] || { echo "no rig up in $DIR"; return 1; }
  cat "$DIR/rig.env"
  echo "mounted: $(findmnt -n -o SOURCE,FSTYPE "$DIR/mnt" 2>/dev/null)"
  echo "vm.dirty: bytes=$(cat /proc/sys/vm/dirty_bytes) background_bytes=$(cat /proc/sys/vm/dirty_background_bytes)"
}

cmd=${1:-}
case "${1:-}" in -h|--help|help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;; esac
case "$cmd" in
  up)   [ $# -ge 3 ] || die "usage: rig.sh up NAME DIR [KEY=VALUE ...]"
        DIR=$(realpath -m "$3"); rig_up "$2" "${@:4}" ;;
  down) [ $# -eq 2 ] || die "usage: rig.sh down DIR"
        DIR=$(realpath -m "$2"); rig_down ;;
  status) [ $# -eq 2 ] || die "usage: rig.sh status DIR"
        DIR=$(realpath -m "$2"); rig_status ;;
  list) for f in "$RIG_SRC"/rigs/*.conf; do echo "$(basename "$f" .conf): $(head -1 "$f" | sed 's/^# *//')"; done ;;
  *) die "usage: rig.sh up NAME DIR [KEY=VALUE ...] | down DIR | status DIR | list" ;;
esac
