#!/bin/sh
# Fetch the pinned linux-source-6.1 package, whose kernel tarball holds
# perf's source, into DESTDIR and check its hash (perf.version).  It
# comes from the Debian archive this machine's apt uses, with
# apt-get download (the package lists must know the version: apt-get
# update).  PERF_DEB=/path/to/linux-source-6.1_VERSION_all.deb uses that
# file instead.
# Usage: scripts/fetch-perf.sh DESTDIR
set -eu

[ $# -eq 1 ] || { echo "usage: $0 DESTDIR" >&2; exit 2; }
mkdir -p "$1"
dest=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/perf.version"
name=${LINUX_SOURCE_PACKAGE}_${LINUX_SOURCE_VERSION}_all.deb
deb="$dest/$name"

die() { echo "fetch-perf: $*" >&2; exit 1; }

. "$top/scripts/debian-source.sh"
check_hash() {
  check_sha256 "$1" "$LINUX_SOURCE_SHA256" "(perf.version); not Debian's $LINUX_SOURCE_PACKAGE $LINUX_SOURCE_VERSION"
}

use_local "$deb" PERF_DEB "${PERF_DEB:-}" && exit 0

echo "fetch-perf: downloading $LINUX_SOURCE_PACKAGE $LINUX_SOURCE_VERSION (139 MB) with apt-get"
tmp="$dest/apt-perf"
rm -rf "$tmp"
mkdir -p "$tmp"
# As root, apt would hand the download to its _apt user, who may not
# write here.
(cd "$tmp" && apt-get -q -o APT::Sandbox::User=root download \
   "$LINUX_SOURCE_PACKAGE=$LINUX_SOURCE_VERSION" > "$tmp/download.log" 2>&1) ||
  die "apt-get download $LINUX_SOURCE_PACKAGE=$LINUX_SOURCE_VERSION failed (see $tmp/download.log); run apt-get update, or set PERF_DEB=/path/to/$name"
[ -f "$tmp/$name" ] || die "apt-get download gave no $tmp/$name"
check_hash "$tmp/$name"
mv "$tmp/$name" "$deb"
rm -rf "$tmp"
echo "fetch-perf: $deb (sha256 ok)"
