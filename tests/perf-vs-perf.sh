#!/bin/sh
# Does perf with libdw's unwinder on dwfl_report_elf_mmap give the call
# chains that Debian's perf (libunwind) gives?  Builds perf unpatched and
# patched (clients/perf/, scripts/build-perf.sh), the workload with
# ld.bfd, gold, lld and mold, PIE and not (workloads/build-workloads.sh),
# a plugin built by ld.bfd, lld and mold that a host loads in turn at the
# same addresses, and a loop around clock_gettime, in the vDSO
# (clients/perf/build-workloads.sh); records each with perf record -N
# --call-graph dwarf (cpu-clock at 4000 Hz), and two distro programs:
# python3, and a shell running ls, find, sort, gzip and grep (1000 Hz).
# Every recording goes through perf script with Debian's perf, the
# unpatched and the patched one, all with an empty HOME, as on a fresh
# machine (no build-ID cache: the vDSO has no file, no ~/.perfconfig),
# and their call chains are compared sample by sample, frame by frame
# (function and DSO: clients/perf/compare-chains.sh).  A sample in an
# unnamed stub, a PLT entry that lld gives no CFI, which libunwind steps
# through by its PLT rule and libdw by the frame pointer, skipping the
# caller, is counted apart ("stubs") and out of the percentages: libdw
# unwinds it so with or without the series.  Needed: 99.5% of
# the chains of the patched perf equal to Debian's perf's on the
# workloads, the plugins and the clock loop, and, on the distro programs
# (where libdw and libunwind differ on their own), 99.5% equal to the
# unpatched perf's or, where they differ, to Debian's (a kernel sample
# entered from the vDSO, which only the unpatched perf leaves out).  The other figures are shown.  The table goes to the output and to build/perf-agreement.txt;
# the recordings and the chains stay in build/perf-agreement/ when the
# test fails.  A machine where perf cannot sample fails the test.
# WORKLOAD_MSEC (default 500) is how long each workload runs.
# Usage: tests/perf-vs-perf.sh (TREE and OBJDIR in the environment)
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/elfutils}
objdir=${OBJDIR:-$top/build/obj}
out=$top/build/perf
msec=${WORKLOAD_MSEC:-500}
work=$top/build/perf-agreement
table=$top/build/perf-agreement.txt
min=99.5

fail() {
  echo "perf-vs-perf: FAIL: $*" >&2
  exit 1
}

start=$(date +%s)
"$top/scripts/build-perf.sh" "$top/build" "$tree" "$objdir" ||
  fail "building perf failed"
rm -rf "$work"
mkdir -p "$work/data"
"$top/workloads/check-perf.sh" "$work" || fail "perf cannot sample here"

built=$(date +%s)
"$top/workloads/build-workloads.sh" "$work/bin" > "$work/build.log" &&
  "$top/clients/perf/build-workloads.sh" "$work/perf-bin" >> "$work/build.log" ||
  fail "building the workloads failed, see $work/build.log"

# Record "$@" as $work/data/$1.data with --call-graph dwarf at $freq Hz.
record() {
  name=$1
  shift
  perf record -N --no-bpf-event -e cpu-clock -F "$freq" --call-graph dwarf \
    -o "$work/data/$name.data" -- "$@" > "$work/data/$name.log" 2>&1 ||
    { cat "$work/data/$name.log" >&2; fail "perf record of $name failed"; }
}
freq=4000
for dir in "$work"/bin/*/; do
  record "$(basename "$dir")" "$dir/workload" "$msec"
done
record plugins "$work/perf-bin/plugin-host" "$msec" 10 \
  "$work/perf-bin/plugin-bfd.so" "$work/perf-bin/plugin-lld.so" \
  "$work/perf-bin/plugin-mold.so"
record clock-loop "$work/perf-bin/clock-loop" "$msec"
freq=1000
record python3 python3 -c '
import json, re, time
end = time.process_time() + 0.3
while time.process_time() < end:
    s = json.dumps({str(i): [i, i * 2.5, "x" * (i % 7)] for i in range(2000)})
    re.findall(r"[0-9]+", s)'
record shell sh -c 'ls -lR /usr/share/doc > /dev/null
  find /usr/lib -name "*.so*" | sort | gzip -c > /dev/null
  grep -r -c elf /usr/include > /dev/null || :'
recorded=$(date +%s)

{
  echo "call chains of perf script, perf 6.1 with libdw's unwinder unpatched and patched, against $(perf --version) (libunwind),"
  echo "--call-graph dwarf, ${msec} ms of CPU a workload; chains equal, frame by frame; needed: ${min}% patched = Debian's,"
  echo "or on the distro programs patched = unpatched, or = Debian's where they differ (p = u|d)"
  echo "(stubs: chains of the patched perf in a PLT stub without CFI, out of the percentages)"
  printf '%-12s %7s %5s | %9s %7s | %9s %7s | %9s %7s | %s\n' recording chains \
    stubs unpatched percent patched percent 'p = u|d' percent result
} > "$work/table"

# The chains of $1 but those in stubs, how many of them $2 gives alike
# (or as $3 does, if given), and how many are in stubs.
agree() {
  "$top/clients/perf/compare-chains.sh" -n 10 ${3:+-a "$3"} "$1" "$2" \
    > "$2.$(basename "$1").compare"
  sed -n 's/^summary: chains=\([0-9]*\) equal=\([0-9]*\) .* stub=\([0-9]*\)$/\1 \2 \3/p' \
    "$2.$(basename "$1").compare" | awk '{ print $1 - $3, $2, $3 }'
}

status=0
mkdir -p "$work/home"
for data in "$work"/data/*.data; do
  name=$(basename "$data" .data)
  also=
  case $name in python3|shell) also=$work/$name.debian ;; esac
  for kind in debian unpatched patched; do
    case $kind in
      debian) perf=perf ;;
      *) perf=$out/$kind/perf ;;
    esac
    HOME=$work/home "$perf" script --no-demangle --no-inline -F pid,tid,time,ip,sym,dso \
      -i "$data" > "$work/$name.$kind" 2> "$work/$name.$kind.err" ||
      { cat "$work/$name.$kind.err" >&2; fail "perf script of $name with the $kind perf failed"; }
  done
  row=$( { agree "$work/$name.debian" "$work/$name.unpatched"
           agree "$work/$name.debian" "$work/$name.patched"
           agree "$work/$name.unpatched" "$work/$name.patched" $also; } |
    awk -v name="$name" -v min="$min" '
    function floor2(x) {
      return int(x * 100) / 100
    }
    { n[NR] = $1; eq[NR] = $2; st[NR] = $3; pct[NR] = $1 ? 100 * $2 / $1 : 0 }
    END {
      need = name == "python3" || name == "shell" ? 3 : 2
      ok = n[need] > 0 && pct[need] >= min
      # Percentages are shown rounded down: 99.498 fails, and shows 99.49.
      printf "%-12s %7d %5d | %9d %7.2f | %9d %7.2f | %9d %7.2f | %s\n", name,
        n[2] + st[2], st[2], eq[1], floor2(pct[1]), eq[2], floor2(pct[2]), eq[3],
        floor2(pct[3]), ok ? "ok" : "FAIL"
    }')
  echo "$row" >> "$work/table"
  case $row in
    *FAIL)
      status=1
      echo "==== $name: chains of the patched perf that differ"
      case $name in
        python3|shell) cat "$work/$name.patched.$name.unpatched.compare" ;;
        *) cat "$work/$name.patched.$name.debian.compare" ;;
      esac ;;
  esac
done
end=$(date +%s)
echo "time: $((built - start)) s to build perf, $((recorded - built)) s to build and record the workloads, $((end - recorded)) s to compare" >> "$work/table"

cp "$work/table" "$table"
echo "==== agreement of perf's call chains (also in $table)"
cat "$table"
[ $status -eq 0 ] || fail "the patched perf's chains differ; recordings and comparisons in $work"
rm -rf "$work"
echo "perf-vs-perf: PASS"
