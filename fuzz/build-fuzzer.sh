#!/bin/sh
# Build the libFuzzer harness SOURCE (fuzz/fuzz-*.c) as OUT, linked with
# the sanitized libdw and libelf of OBJDIR (fuzz/build-sanitized.sh) and
# using the headers and testfiles of TREE.  libFuzzer is linked by hand:
# with -fsanitize=fuzzer, clang 14 puts libstdc++ before the shared ASan
# runtime, which then refuses to start.
# Usage: fuzz/build-fuzzer.sh TREE OBJDIR SOURCE OUT
set -eu

[ $# -eq 4 ] || { echo "usage: $0 TREE OBJDIR SOURCE OUT" >&2; exit 2; }
tree=$(cd "$1" && pwd)
objdir=$(cd "$2" && pwd)
mkdir -p "$(dirname "$4")"
rtdir=$(clang -print-runtime-dir)

clang -O1 -g -fno-omit-frame-pointer -std=gnu11 -Wall -Wextra -Werror \
  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
  -shared-libasan \
  -DTESTFILES_DIR="\"$tree/tests\"" \
  -I"$tree/libdwfl" -I"$tree/libdw" -I"$tree/libdwelf" -I"$tree/libelf" \
  -o "$4" "$3" "$rtdir/libclang_rt.fuzzer-x86_64.a" \
  -L"$objdir/libdw" -L"$objdir/libelf" -ldw -lelf -lbz2 -lstdc++ -lm \
  -Wl,-rpath,"$objdir/libdw:$objdir/libelf:$rtdir"
