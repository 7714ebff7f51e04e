# The kernel's vfat driver where the host kernel has none (this test machine's
# kernel is built without modules): Debian's user-mode-linux package is a
# Linux kernel (6.1) that runs as a program, with vfat as a module. The guest's
# root is the host's / (hostfs), so it runs the host's programs and writes
# into host directories. Source after mount_lib.bash ($WORK).
UML_MODULES=$(ls -d /usr/lib/uml/modules/*/kernel 2>/dev/null | head -1)
UML_VERSION=$(basename "$(dirname "$UML_MODULES")")  # the guest kernel's release, e.g. 6.1.176

# uml_vfat_available: 0 if linux.uml and its vfat module are installed.
uml_vfat_available() { command -v linux.uml >/dev/null && [ -f "$UML_MODULES/fs/fat/vfat.ko" ]; }

# uml_vfat IMAGE OUT CMD...: boots user-mode Linux with the FAT image IMAGE
# as its disk, mounts it with vfat (as root, umask 022, no options: what a
# plain `mount` gives) and runs CMD... MOUNTPOINT there, its stdout in OUT.
# Returns CMD's exit status, 125 if the guest booted but did not get to run
# it, or 126 if the guest never booted: its init never ran (user-mode Linux
# 6.1 aborts during its host checks on some host kernels, e.g. 6.18), which
# says nothing about vfat; the console's last lines go to stderr either way.
uml_vfat() {
  local img=$1 out=$2 g rc
  shift 2
  g=$(mktemp -d "$WORK/uml.XXXXXX")
  mkdir "$g/mnt"
  {
    echo '#!/bin/sh'
    echo 'export PATH=/usr/sbin:/usr/bin:/sbin:/bin; umask 022'
    echo "exec 2>'$g/guest.err'"
    echo 'mount -t proc proc /proc'
    for m in fs/fat/fat.ko fs/fat/vfat.ko fs/nls/nls_cp437.ko fs/nls/nls_iso8859-1.ko; do
      echo "insmod '$UML_MODULES/$m' || echo 'insmod $m failed' >&2"
    done
    echo "mount -t vfat /dev/ubda '$g/mnt' && cd '$g' && { $(printf '%q ' "$@") '$g/mnt' >'$out'; echo \$? >'$g/rc'; }"
    echo "cd /; umount '$g/mnt'"
    echo 'poweroff -f'
  } >"$g/init"
  chmod +x "$g/init"
  # The guest's memory is a file in TMPDIR: keep it off the disk; its pid file
  # and control socket go in uml_dir (not ~/.uml).
  TMPDIR=/dev/shm timeout -k 5 120 linux.uml mem=256M "uml_dir=$g" "ubd0=$img" root=/dev/root rootfstype=hostfs rootflags=/ rw \
    "init=$g/init" con=null </dev/null >"$g/console" 2>&1
  if ! read -r rc 2>/dev/null <"$g/rc"; then
    if [ ! -e "$g/guest.err" ]; then  # the init's first line creates it
      echo "user-mode Linux (guest $UML_VERSION) did not boot on this host (Linux $(uname -r)): $(tail -2 "$g/console" | tr '\n' ' ')" >&2
      return 126
    fi
    echo "user-mode Linux did not run the command: $(tail -3 "$g/console") $(cat "$g/guest.err")" >&2
    return 125
  fi
  return "$rc"
}
