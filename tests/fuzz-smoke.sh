#!/bin/sh
# Both fuzzers for 60 seconds each (fuzz/run-all.sh, as make fuzz-smoke):
# no crash, leak, sanitizer report or broken invariant from their seeds
# and what they find in a minute.  Builds the clang ASan+UBSan tree in
# asan-obj next to OBJDIR first.  TREE and OBJDIR as scripts/check.sh
# sets them.
# Usage: tests/fuzz-smoke.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/elfutils}
objdir=${OBJDIR:-$top/build/obj}
exec "$top/fuzz/run-all.sh" "$tree" "$(dirname "$objdir")" 60
