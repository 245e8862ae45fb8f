#!/bin/sh
# Build the elfutils tree TREE in OBJDIR (scripts/build-elfutils.sh) and run
# its whole make check there, its output in OBJDIR/check.log.  The result of
# each test, "RESULT NAME" a line, sorted, goes to OBJDIR/results; a test
# that make check never ran has no line.  The exit status is that of the
# build: failing tests are results, not errors.
# Usage: scripts/check-tree.sh TREE OBJDIR
set -eu

[ $# -eq 2 ] || { echo "usage: $0 TREE OBJDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)

"$top/scripts/build-elfutils.sh" "$1" "$2"
echo "check-tree: make check in $2"
rm -f "$2"/tests/*.trs "$2"/tests/*.log
make -C "$2" -j"$(nproc)" check > "$2/check.log" 2>&1 || true
for trs in "$2"/tests/*.trs; do
  [ -f "$trs" ] || continue
  printf '%s %s\n' "$(sed -n 's/^:test-result: //p' "$trs")" \
    "$(basename "$trs" .trs)"
done | sort > "$2/results"
