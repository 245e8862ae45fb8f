#!/bin/sh
# Build the workloads of perf's agreement test and benchmark beside the
# project's own (workloads/build-workloads.sh), in OUTDIR: plugin.c as a
# plugin linked by each of ld.bfd, lld and mold (plugin-LINKER.so) and
# plugin-host, which loads them in turn at the same addresses; and
# clock-loop, which spends its time in the vDSO.  -g and frame pointers
# as for the project's workload.
# Usage: clients/perf/build-workloads.sh OUTDIR
set -eu

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")" && pwd)
out=$1
cc=${CC:-gcc}
cflags="-O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror"

mkdir -p "$out"
for linker in bfd lld mold; do
  # shellcheck disable=SC2086
  $cc $cflags -fpic -shared -fuse-ld="$linker" -o "$out/plugin-$linker.so" \
    "$src/plugin.c"
done
# shellcheck disable=SC2086
$cc $cflags -o "$out/plugin-host" "$src/plugin-host.c" -ldl
# shellcheck disable=SC2086
$cc $cflags -o "$out/clock-loop" "$src/clock-loop.c"
echo "build-workloads: $out/plugin-host with plugins of ld.bfd, lld and mold; $out/clock-loop"
