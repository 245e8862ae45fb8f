#!/bin/sh
# The benchmark's smoke run (bench/run.sh smoke, under a minute): every
# contender runs on every kind of input (contender (e) on elfutils 0.192
# too when build/pristine-obj is there), dwfl_report_elf_mmap gets no
# load bias wrong and its modules hold no descriptor before their first
# use, (e) finds the same modules with the series as without it, perfsym,
# perf report and perf script run on both recordings, and the results
# table and plot are made.  Timings are not checked.  Needs perf record
# -a (root), as the main job does.  TREE and OBJDIR as scripts/check.sh
# sets them.
# Usage: tests/bench-smoke.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
objdir=${OBJDIR:-$top/build/obj}
[ -f "$objdir/libdw/libdw.so" ] ||
  { echo "bench-smoke: no $objdir/libdw/libdw.so; run make first" >&2; exit 1; }
perfsym=${PERFSYM:-$(dirname "$objdir")/profiler/perfsym}
[ -x "$perfsym" ] ||
  { echo "bench-smoke: no $perfsym; run make first" >&2; exit 1; }
TREE=${TREE:-$top/build/elfutils} OBJDIR=$objdir PERFSYM=$perfsym \
  OUT=$(dirname "$objdir")/bench/smoke exec "$top/bench/run.sh" smoke
