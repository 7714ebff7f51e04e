#!/usr/bin/env bash
# Installs those of the given Debian packages that are not installed yet, with
# apt-get (as root, or through sudo), and says which on stderr. The one copy of
# this step, for run.sh and packaging/cross-sysroot.sh:
#   packaging/install-missing.sh NAME PACKAGE...   (NAME starts the message)
set -euo pipefail
name=${1:?usage: packaging/install-missing.sh NAME PACKAGE...}
shift
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
echo "$name: installing ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq || true   # an index that fails is reported by the install below
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
