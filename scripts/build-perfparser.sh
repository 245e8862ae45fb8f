#!/bin/sh
# Fetch hotspot (scripts/fetch-perfparser.sh, into BUILDDIR/dl), make
# perfparser's trees (scripts/prepare-perfparser.sh: BUILDDIR/perfparser/src
# with clients/perfparser/'s patches, BUILDDIR/perfparser/src-upstream
# without), and build both against the elfutils build in OBJDIR (its
# source tree TREE): BUILDDIR/perfparser/patched and
# BUILDDIR/perfparser/unpatched, each with its autotests and
# perfparser-samples (clients/perfparser/CMakeLists.txt says what), -O2
# without debug information.  The programs are
# BUILDDIR/perfparser/{patched,unpatched}/bin/*.  Incremental: what is
# there and up to date is left as it is.  JOBS (default 2) is make's -j.
# Usage: scripts/build-perfparser.sh BUILDDIR TREE OBJDIR
set -eu

[ $# -eq 3 ] || { echo "usage: $0 BUILDDIR TREE OBJDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
builddir=$(cd "$1" && pwd)
tree=$(cd "$2" && pwd)
objdir=$(cd "$3" && pwd)
out=$builddir/perfparser
pptree=$out/src
jobs=${JOBS:-2}
. "$top/perfparser.version"

die() { echo "build-perfparser: $*" >&2; exit 1; }

[ -f "$objdir/libdw/libdw.so" ] || die "$objdir/libdw/libdw.so is missing; build elfutils first (make build)"
command -v cmake > /dev/null || die "cmake is missing; scripts/install-deps.sh installs it"

"$top/scripts/fetch-perfparser.sh" "$builddir/dl"
"$top/scripts/prepare-perfparser.sh" "$builddir/dl/hotspot_$HOTSPOT_VERSION.orig.tar.xz" "$pptree"

for kind in patched unpatched; do
  case $kind in
    patched) src=$pptree ;;
    unpatched) src=$pptree-upstream ;;
  esac
  [ -f "$src/app/perfsymboltable.cpp" ] || die "$src: no perfparser source tree"
  build=$out/$kind
  if [ ! -f "$build/Makefile" ]; then
    cmake -S "$top/clients/perfparser" -B "$build" -G "Unix Makefiles" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
      -DPERFPARSER_SOURCE_DIR="$src" -DELFUTILS_TREE="$tree" \
      -DELFUTILS_OBJDIR="$objdir" > "$out/$kind-cmake.log" 2>&1 ||
      { cat "$out/$kind-cmake.log" >&2; die "cmake for the $kind perfparser failed"; }
  fi
  nice make -s -C "$build" -j"$jobs" > "$out/$kind-build.log" 2>&1 ||
    { tail -n 40 "$out/$kind-build.log" >&2; die "building the $kind perfparser failed, see $out/$kind-build.log"; }
  echo "build-perfparser: $build/bin/perfparser"
done
