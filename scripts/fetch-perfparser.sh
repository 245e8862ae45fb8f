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

if [ -f "$tarball" ]; then
  check_hash "$tarball"
  exit 0
fi

if [ -n "${HOTSPOT_TARBALL:-}" ]; then
  [ -f "$HOTSPOT_TARBALL" ] || die "HOTSPOT_TARBALL=$HOTSPOT_TARBALL: no such file"
  check_hash "$HOTSPOT_TARBALL"
  cp "$HOTSPOT_TARBALL" "$tarball.tmp"
  mv "$tarball.tmp" "$tarball"
  exit 0
fi

aptdir="$dest/apt-hotspot"
debian_orig fetch-perfparser "$aptdir" hotspot "$HOTSPOT_VERSION" \
  "$HOTSPOT_DEBIAN_SUITES" "$orig" "set HOTSPOT_TARBALL=/path/to/$orig"
check_hash "$aptdir/$orig"
cp "$aptdir/$orig" "$tarball.tmp"
mv "$tarball.tmp" "$tarball"
echo "fetch-perfparser: $tarball (sha256 ok)"
