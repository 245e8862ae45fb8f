#!/bin/sh
# The series' own tests on glibc 2.31 and gcc 10 (scripts/check-old-glibc.sh
# --quick, in the Debian 11 chroot it makes in build/old-glibc the first
# time, from Debian's archive): the tests must build and pass where stat
# is an inline call of __xstat and there is no mallinfo2, as on the older
# distributions that build elfutils.  make check-old-glibc runs the release
# and the series through every test there.  TARBALL and TREE as
# scripts/check.sh sets them.
# Usage: tests/old-glibc-smoke.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/elfutils.version"
tarball=${TARBALL:-$top/build/dl/elfutils-$ELFUTILS_VERSION.tar.bz2}
tree=${TREE:-$top/build/elfutils}
exec "$top/scripts/check-old-glibc.sh" --quick "$tarball" "$tree" \
  "$top/build/old-glibc"
