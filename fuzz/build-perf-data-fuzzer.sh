#!/bin/sh
# Build fuzz-perf-data, the libFuzzer harness of perfsym's perf.data
# reader, as OUTDIR/fuzz-perf-data: fuzz/fuzz-perf-data.c with every
# profiler/*.c but perfsym.c (its command line), compiled with the
# sanitizers and coverage of build-sanitized.sh and linked with the
# sanitized libdw and libelf of OBJDIR.  The profiler includes the public
# headers as installed (<elfutils/libdwfl.h>): OUTDIR/include has them
# as symlinks into TREE and OBJDIR.  It is linked as profiler/Makefile
# links perfsym (libiberty for C++ names), and libFuzzer by hand, as in
# build-fuzzer.sh.
# Usage: fuzz/build-perf-data-fuzzer.sh TREE OBJDIR OUTDIR
set -eu

[ $# -eq 3 ] || { echo "usage: $0 TREE OBJDIR OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd)
objdir=$(cd "$2" && pwd)
mkdir -p "$3/include/elfutils" "$3/obj"
out=$(cd "$3" && pwd)
rtdir=$(clang -print-runtime-dir)

ln -sf "$tree/libdwfl/libdwfl.h" "$tree/libdw/libdw.h" \
  "$tree/libdwelf/libdwelf.h" "$objdir/version.h" "$out/include/elfutils/"

cflags="-O1 -g -fno-omit-frame-pointer -std=gnu11 -Wall -Wextra -Werror
  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
  -shared-libasan"
objects=
for src in "$here"/../profiler/*.c "$here/fuzz-perf-data.c"; do
  [ "$(basename "$src")" = perfsym.c ] && continue
  obj=$out/obj/$(basename "$src" .c).o
  # shellcheck disable=SC2086
  clang $cflags -I"$out/include" -I"$tree/libelf" -I"$tree/libdw" \
    -I"$here/../profiler" -DTESTFILES_DIR="\"$tree/tests\"" \
    -c -o "$obj" "$src"
  objects="$objects $obj"
done
# shellcheck disable=SC2086
clang $cflags -o "$out/fuzz-perf-data" $objects \
  "$rtdir/libclang_rt.fuzzer-x86_64.a" \
  -L"$objdir/libdw" -L"$objdir/libelf" -ldw -lelf -liberty -lbz2 \
  -lstdc++ -lm \
  -Wl,-rpath,"$objdir/libdw:$objdir/libelf:$rtdir"
echo "build-perf-data-fuzzer: $out/fuzz-perf-data"
