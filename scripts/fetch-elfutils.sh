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

check_hash() {
  sum=$(sha256sum "$1" | cut -d' ' -f1)
  [ "$sum" = "$ELFUTILS_SHA256" ] ||
    die "$1: sha256 $sum, expected $ELFUTILS_SHA256 (elfutils.version); not the pristine $ELFUTILS_VERSION release"
}

if [ -f "$tarball" ]; then
  check_hash "$tarball"
  exit 0
fi

if [ -n "${ELFUTILS_TARBALL:-}" ]; then
  [ -f "$ELFUTILS_TARBALL" ] || die "ELFUTILS_TARBALL=$ELFUTILS_TARBALL: no such file"
  check_hash "$ELFUTILS_TARBALL"
  cp "$ELFUTILS_TARBALL" "$tarball.tmp"
  mv "$tarball.tmp" "$tarball"
  exit 0
fi

# The archive URIs this machine's apt already uses for Debian itself (not
# the security archive), from one-line .list files and deb822 .sources files.
archive_uris() {
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
  done
}
uris=$(archive_uris | grep '/debian/*$' | sort -u)
[ -n "$uris" ] ||
  die "no Debian archive URI in /etc/apt; set ELFUTILS_TARBALL=/path/to/elfutils-$ELFUTILS_VERSION.tar.bz2"

aptdir="$dest/apt"
mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$aptdir/parts"
: > "$aptdir/status"
: > "$aptdir/sources.list"
for uri in $uris; do
  for suite in $ELFUTILS_DEBIAN_SUITES; do
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
      >> "$aptdir/sources.list"
  done
done

# Run apt-get or apt-cache (first argument) on the private configuration.
apt_private() {
  tool=$1
  shift
  "$tool" -q \
    -o Dir::Etc::SourceList="$aptdir/sources.list" \
    -o Dir::Etc::SourceParts="$aptdir/parts" \
    -o Dir::State::Lists="$aptdir/lists" \
    -o Dir::State::status="$aptdir/status" \
    -o Dir::Cache="$aptdir/cache" \
    -o Debug::NoLocking=1 \
    "$@"
}

echo "fetch-elfutils: downloading elfutils $ELFUTILS_VERSION source from $(echo $uris)"
apt_private apt-get update >"$aptdir/update.log" 2>&1 ||
  die "apt-get update of the private source list failed (see $aptdir/update.log); set ELFUTILS_TARBALL=/path/to/elfutils-$ELFUTILS_VERSION.tar.bz2"
version=$(apt_private apt-cache showsrc elfutils 2>/dev/null |
          awk -v v="$ELFUTILS_VERSION" '$1 == "Version:" && index($2, v "-") == 1 { print $2; exit }')
[ -n "$version" ] ||
  die "no elfutils $ELFUTILS_VERSION in Debian suites $ELFUTILS_DEBIAN_SUITES; set ELFUTILS_TARBALL=/path/to/elfutils-$ELFUTILS_VERSION.tar.bz2"
(cd "$aptdir" && apt_private apt-get source --download-only "elfutils=$version" >"$aptdir/source.log" 2>&1) ||
  die "apt-get source elfutils=$version failed (see $aptdir/source.log)"
orig="$aptdir/elfutils_$ELFUTILS_VERSION.orig.tar.bz2"
[ -f "$orig" ] || die "apt-get source gave no $orig"
check_hash "$orig"
cp "$orig" "$tarball.tmp"
mv "$tarball.tmp" "$tarball"
echo "fetch-elfutils: $tarball (sha256 ok)"
