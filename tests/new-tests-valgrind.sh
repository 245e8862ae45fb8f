#!/bin/sh
# The series' new elfutils tests pass under valgrind: memcheck with
# --leak-check=full, and no file descriptor left open at exit
# (scripts/check-new-tests.sh valgrind), in make check's own build,
# OBJDIR as scripts/check.sh sets it; TREE and OBJDIR default to the
# Makefile's.
# Usage: tests/new-tests-valgrind.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/elfutils}
objdir=${OBJDIR:-$top/build/obj}
exec "$top/scripts/check-new-tests.sh" valgrind "$tree" "$objdir"
