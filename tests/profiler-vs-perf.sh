#!/bin/sh
# Does perfsym name the samples as perf does?  Builds the workload with
# ld.bfd, gold, lld and mold, PIE and not (workloads/build-workloads.sh),
# records each build with perf: exec maps only, all maps (-d) and
# --call-graph dwarf (workloads/record.sh), then the whole system for a
# second (perf record -a -g) while the workload, dd and find run, and
# compares perfsym -s with perf script on every recording
# (workloads/compare-with-perf.sh, which says what agreeing means).  In
# each recording at least 99.5% of the user-space samples and 99.5% of
# the kernel samples that perf resolves to a symbol must agree, and in the
# dwarf ones at least 95% of their call chains; the system-wide one must
# have kernel samples.  The table of figures goes to the output and to
# build/profiler-agreement.txt; the recordings and the disagreements stay
# in build/profiler-agreement/ when the test fails.
# A machine where perf cannot sample fails the test: nothing is shown.
# PERFSYM overrides build/profiler/perfsym; WORKLOAD_MSEC (default 1000) is
# how long each recording runs.
# Usage: tests/profiler-vs-perf.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
perfsym=${PERFSYM:-$top/build/profiler/perfsym}
msec=${WORKLOAD_MSEC:-1000}
work=$top/build/profiler-agreement
table=$top/build/profiler-agreement.txt
min_samples=99.5
min_kernel=99.5
min_chains=95

fail() {
  echo "profiler-vs-perf: FAIL: $*" >&2
  exit 1
}

[ -x "$perfsym" ] || fail "$perfsym is missing; make profiler builds it"
rm -rf "$work"
mkdir -p "$work"
"$top/workloads/check-perf.sh" "$work" || fail "perf cannot sample here"

start=$(date +%s)
"$top/workloads/build-workloads.sh" "$work/bin" > "$work/build.log" \
  || fail "building the workloads failed, see $work/build.log"
"$top/workloads/record.sh" -t "$msec" "$work/bin" "$work/data" \
  > "$work/record.log" || fail "recording failed, see $work/record.log"
busy="'$work/bin/bfd-pie/workload' 500 > /dev/null &
      dd if=/dev/zero of=/dev/null bs=512 count=100000 2> /dev/null
      find /usr/lib > /dev/null 2>&1
      wait"
nice perf record -a -g -N --no-bpf-event -e cpu-clock -F 1000 \
  -o "$work/data/system-a.data" -- sh -c "$busy" > "$work/system.log" 2>&1 \
  || fail "perf record -a failed, see $work/system.log"
recorded=$(date +%s)

{
  echo "perfsym against $(perf --version), cpu-clock at 4000 Hz, ${msec} ms of CPU each"
  echo "needed: ${min_samples}% of the user samples perf resolves, ${min_kernel}% of the kernel ones, ${min_chains}% of dwarf chains"
  printf '%-7s %-6s %-6s %7s %7s %7s %7s %7s %8s %7s %8s %7s %7s %8s %s\n' \
    linker pie mode samples perfsym resolved agree aliases percent chains \
    percent kernel agree percent result
} > "$work/table"

# Compare recording $1 made in mode $2; add its row to the table, and
# print its disagreements if it fails.
compare() {
  g=
  [ "$2" = dwarf ] && g=-g
  # shellcheck disable=SC2086
  "$top/workloads/compare-with-perf.sh" $g -n 10 "$work/data/$1.data" \
    "$perfsym" > "$work/$1.compare" || fail "comparing $1 failed"
  row=$(grep '^summary: ' "$work/$1.compare" | awk -v name="$1" -v mode="$2" \
          -v min_samples="$min_samples" -v min_chains="$min_chains" \
          -v min_kernel="$min_kernel" '
  function floor2(x) {
    return int(x * 100) / 100
  }
  {
    for (i = 2; i <= NF; i++) {
      split($i, kv, "=")
      v[kv[1]] = kv[2]
    }
    split(name, part, "-")
    if (mode == "-a") {
      part[1] = "system"
      part[2] = "-"
    }
    pct = v["resolved"] ? 100 * v["agree"] / v["resolved"] : 0
    ok = v["resolved"] > 0 && pct >= min_samples
    chains = chains_agree = "-"
    if (mode == "dwarf") {
      chains_agree = v["chains_agree"]
      cpct = v["chains"] ? 100 * v["chains_agree"] / v["chains"] : 0
      ok = ok && v["chains"] > 0 && cpct >= min_chains
      chains = sprintf("%.2f", floor2(cpct))
    }
    # Kernel samples are few where the workload alone runs: those there
    # are must agree.
    kpct = "-"
    if (v["kernel_resolved"] > 0) {
      k = 100 * v["kernel_agree"] / v["kernel_resolved"]
      ok = ok && k >= min_kernel
      kpct = sprintf("%.2f", floor2(k))
    } else if (mode == "-a")
      ok = 0
    # Percentages are shown rounded down: 99.498 fails, and shows 99.49.
    printf "%-7s %-6s %-6s %7d %7d %7d %7d %7d %8.2f %7s %8s %7d %7d %8s %s\n",
      part[1], part[2], mode, v["samples"], v["perfsym_samples"],
      v["resolved"], v["agree"], v["aliases"], floor2(pct), chains_agree,
      chains, v["kernel_resolved"], v["kernel_agree"], kpct,
      ok ? "ok" : "FAIL"
  }')
  echo "$row" >> "$work/table"
  case $row in
    *FAIL)
      status=1
      echo "==== $1: disagreements (at most 10 of each kind)"
      grep -v '^summary: ' "$work/$1.compare" || true ;;
  esac
}

status=0
for dir in "$work"/bin/*/; do
  for mode in exec all dwarf; do
    compare "$(basename "$dir")-$mode" "$mode"
  done
done
compare system-a -a
end=$(date +%s)
echo "time: $((recorded - start)) s to build and record, $((end - recorded)) s to compare" >> "$work/table"

cp "$work/table" "$table"
echo "==== agreement of perfsym with perf script (also in $table)"
cat "$table"
if [ $status -ne 0 ]; then
  fail "perfsym disagrees with perf; recordings and comparisons in $work"
fi
rm -rf "$work"
echo "profiler-vs-perf: PASS"
