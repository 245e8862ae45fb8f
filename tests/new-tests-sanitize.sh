#!/bin/sh
# The series' new elfutils tests pass with gcc's AddressSanitizer,
# LeakSanitizer and UndefinedBehaviorSanitizer
# (scripts/check-new-tests.sh sanitize).  The build is in san-obj next
# to OBJDIR, as scripts/check.sh sets it; TREE defaults to the Makefile's.
# Usage: tests/new-tests-sanitize.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/elfutils}
objdir=${OBJDIR:-$top/build/obj}
exec "$top/scripts/check-new-tests.sh" sanitize "$tree" "$(dirname "$objdir")/san-obj"
