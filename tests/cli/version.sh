#!/usr/bin/env bash
# --version names the version and the commit (cmake/version.cmake): from git in
# a checkout, from export-subst in a `git archive` tarball, "unknown" otherwise.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
src=${SD_SOURCE_DIR:?}

line=$("$STREAMDISK" --version) || fail "--version failed"
version=$(sed -n 's/^project(streamdisk VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || fail "no VERSION in CMakeLists.txt's project()"
[[ $line =~ ^streamdisk\ ${version//./\\.}\ \(commit\ ([0-9a-f]{12}(-dirty)?|unknown)\)$ ]] ||
  fail "--version: '$line' is not 'streamdisk $version (commit HASH)'"
if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
  head=$(git -C "$src" rev-parse --short=12 HEAD)
  [[ $line == *"commit $head"* ]] || fail "--version: '$line' does not name HEAD $head (rebuild?)"
fi
# The same line in the package description (cmake/packaging.cmake reads version.txt).
commit=${line##*commit }
[ "$(sed -n 2p "${SD_BUILD_DIR:?}/version.txt")" = "${commit%)}" ] ||
  fail "build/version.txt ($(tr '\n' ' ' < "$SD_BUILD_DIR/version.txt")) disagrees with '$line'"

# The generator alone, on source trees without .git.
gen() {  # gen DIR -> prints the line it writes
  cmake -DSRC_DIR="$1" -DVERSION=9.8.7 -DOUT="$tmp/v.cpp" -P "$src/cmake/version.cmake" >/dev/null 2>&1 ||
    { fail "version.cmake failed on $1"; return; }
  sed -n 's/.*return "\(.*\)";.*/\1/p' "$tmp/v.cpp"
}
mkdir -p "$tmp/copied/cmake" && cp "$src/cmake/commit.txt" "$tmp/copied/cmake/"
got=$(gen "$tmp/copied")
# A plain copy of a checkout keeps the unsubstituted $Format placeholder.
[ "$got" = "streamdisk 9.8.7 (commit unknown)" ] || fail "plain copy: '$got', expected commit unknown"
mkdir -p "$tmp/bare"
got=$(gen "$tmp/bare")
[ "$got" = "streamdisk 9.8.7 (commit unknown)" ] || fail "no commit.txt: '$got', expected commit unknown"
if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
  mkdir -p "$tmp/tarball"
  git -C "$src" archive HEAD cmake/commit.txt | tar -x -C "$tmp/tarball" || fail "git archive failed"
  got=$(gen "$tmp/tarball")
  [ "$got" = "streamdisk 9.8.7 (commit $head)" ] || fail "git archive tarball: '$got', expected commit $head"
fi
finish
