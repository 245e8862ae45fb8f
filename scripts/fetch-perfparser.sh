#!/bin/sh
# Fetch the pinned hotspot release tarball, which carries perfparser in
# 3rdparty/perfparser, into DESTDIR and check its hash.  It comes from
# Debian's source archive as elfutils does (scripts/debian-source.sh);
# only the upstream tarball is wanted (the Debian packaging tarball beside
# it need not download).  HOTSPOT_TARBALL=/path/to/hotspot_VERSION.orig.tar.xz
# uses that file instead.
# Usage: scripts/fetch-perfparser.sh DESTDIR
set -eu

[ $# -eq 1 ] || { echo "usage: $0 DESTDIR" >&2; exit 2; }
mkdir -p "$1"
dest=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/perfparser.version"
orig=hotspot_$HOTSPOT_VERSION.orig.tar.xz
tarball="$dest/$orig"

die() { echo "fetch-perfparser: $*" >&2; exit 1; }

. "$top/scripts/debian-source.sh"
check_hash() {
  check_sha256 "$1" "$HOTSPOT_SHA256" "(perfparser.version); not the pristine hotspot $HOTSPOT_VERSION release"
}

use_local "$tarball" HOTSPOT_TARBALL "${HOTSPOT_TARBALL:-}" && exit 0

aptdir="$dest/apt-hotspot"
debian_orig fetch-perfparser "$aptdir" hotspot "$HOTSPOT_VERSION" \
  "$HOTSPOT_DEBIAN_SUITES" "$orig" "set HOTSPOT_TARBALL=/path/to/$orig"
check_hash "$aptdir/$orig"
install_file "$aptdir/$orig" "$tarball"
echo "fetch-perfparser: $tarball (sha256 ok)"
