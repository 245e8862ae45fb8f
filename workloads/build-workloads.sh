#!/bin/sh
# Build the profiler workload (workload.c) and its shared library
# (workload-lib.c) with each linker, ld.bfd, gold, lld and mold, as a PIE
# and as a non-PIE executable: OUTDIR/LINKER-pie and OUTDIR/LINKER-nopie,
# each holding workload and the libworkload.so linked with the same
# linker, found through the rpath $ORIGIN.  -g and frame pointers are kept
# so that both DWARF and frame-pointer unwinding work.
# Usage: workloads/build-workloads.sh OUTDIR [LINKER-PIE...]
#   e.g. workloads/build-workloads.sh build/workloads bfd-pie lld-nopie
set -eu

[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [LINKER-PIE...]" >&2; exit 2; }
src=$(cd "$(dirname "$0")" && pwd)
out=$1
shift
builds=${*:-bfd-pie bfd-nopie gold-pie gold-nopie lld-pie lld-nopie mold-pie mold-nopie}

cc=${CC:-gcc}
cflags="-O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror"

for build in $builds; do
  linker=${build%-*}
  case $linker in
    bfd) tool=ld.bfd ;;
    gold) tool=ld.gold ;;
    lld) tool=ld.lld ;;
    mold) tool=mold ;;
    *) echo "$0: unknown linker in $build" >&2; exit 2 ;;
  esac
  case ${build#*-} in
    pie) pie="-fpie -pie" ;;
    nopie) pie="-fno-pie -no-pie" ;;
    *) echo "$0: $build is neither LINKER-pie nor LINKER-nopie" >&2; exit 2 ;;
  esac
  command -v "$tool" > /dev/null \
    || { echo "$0: $tool not found; scripts/install-deps.sh installs it" >&2; exit 1; }
  dir=$out/$build
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  $cc $cflags -fpic -shared -fuse-ld="$linker" \
    -o "$dir/libworkload.so" "$src/workload-lib.c"
  # shellcheck disable=SC2086
  $cc $cflags $pie -fuse-ld="$linker" -o "$dir/workload" "$src/workload.c" \
    -L"$dir" -lworkload -lm -Wl,-rpath,"\$ORIGIN"
  echo "build-workloads: $dir/workload ($tool, ${build#*-})"
done
