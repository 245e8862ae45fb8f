#!/bin/sh
# perfsym's unit tests (profiler/tests/run.sh): perf.data files made for
# each case of the reader, the time order and the process model, bad
# files, and real recordings of perf record.  The profiler is built by
# make (make profiler) next to OBJDIR, as scripts/check.sh sets it.
# Usage: tests/profiler-unit.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
objdir=${OBJDIR:-$top/build/obj}
bindir=$(dirname "$objdir")/profiler
[ -x "$bindir/perfsym" ] ||
  { echo "profiler-unit: no $bindir/perfsym; run make first" >&2; exit 1; }
exec "$top/profiler/tests/run.sh" "$bindir"
