#!/bin/sh
# The main job: build the workload (PIE, ld.bfd), record it with perf
# (with frame-pointer call chains), print the top 15 entries of perfsym's
# flat profile of it and write its flame graph, OUTDIR/flamegraph.svg.
# Everything it makes goes to OUTDIR; it fails, saying why, if any step
# does.
# Usage: workloads/main-job.sh PERFSYM OUTDIR
set -eu

[ $# -eq 2 ] || { echo "usage: $0 PERFSYM OUTDIR" >&2; exit 2; }
perfsym=$1
out=$2
src=$(cd "$(dirname "$0")" && pwd)

fail() {
  echo "main-job: $*" >&2
  exit 1
}

[ -x "$perfsym" ] || fail "$perfsym is missing; make profiler builds it"
"$src/build-workloads.sh" "$out" bfd-pie > /dev/null
if ! perf record -N --no-bpf-event -e cpu-clock -F 4000 -g \
     -o "$out/perf.data" -- "$out/bfd-pie/workload" > "$out/record.log" 2>&1
then
  cat "$out/record.log" >&2
  fail "perf record failed (kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown))"
fi
"$perfsym" -i "$out/perf.data" --flamegraph="$out/flamegraph.svg" \
  > "$out/profile.txt" || fail "$perfsym -i $out/perf.data failed"
echo "main-job: the top 15 of perfsym's profile of $out/bfd-pie/workload" \
  "(all of it in $out/profile.txt):"
grep -m 1 '^# Overhead' "$out/profile.txt" || true
grep -v -e '^#' -e '^$' "$out/profile.txt" | head -n 15
echo "main-job: its flame graph, to open in a web browser (click a frame" \
  "to zoom into it, search names at the top right): $out/flamegraph.svg"
