#!/bin/sh
# Fetch the pinned elfutils release tarball into DESTDIR and check its hash.
# It comes from Debian's source archive through apt-get, with a private apt
# configuration under DESTDIR so that the machine's own setup is untouched.
# ELFUTILS_TARBALL=/path/to/elfutils-VERSION.tar.bz2 uses that file instead.
# Usage: scripts/fetch-elfutils.sh DESTDIR
set -eu

[ $# -eq 1 ] || { echo "usage: $0 DESTDIR" >&2; exit 2; }
mkdir -p "$1"
dest=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/elfutils.version"
tarball="$dest/elfutils-$ELFUTILS_VERSION.tar.bz2"

die() { echo "fetch-elfutils: $*" >&2; exit 1; }

. "$top/scripts/debian-source.sh"
check_hash() {
  check_sha256 "$1" "$ELFUTILS_SHA256" "(elfutils.version); not the pristine $ELFUTILS_VERSION release"
}

use_local "$tarball" ELFUTILS_TARBALL "${ELFUTILS_TARBALL:-}" && exit 0

hint="set ELFUTILS_TARBALL=/path/to/elfutils-$ELFUTILS_VERSION.tar.bz2"
aptdir="$dest/apt"
orig=elfutils_$ELFUTILS_VERSION.orig.tar.bz2
debian_orig fetch-elfutils "$aptdir" elfutils "$ELFUTILS_VERSION" \
  "$ELFUTILS_DEBIAN_SUITES" "$orig" "$hint"
check_hash "$aptdir/$orig"
install_file "$aptdir/$orig" "$tarball"
echo "fetch-elfutils: $tarball (sha256 ok)"
