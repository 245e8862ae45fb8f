#!/bin/sh
# perfsym --folded against perf script.  Records the workload (ld.bfd,
# PIE) with frame-pointer call chains (perf record -g), then the whole
# system for a second (perf record -a -g) while dd and find run; collapses
# perf script's call chains into the folded format with awk, and
# requires of perfsym --folded that its counts add up to the samples, and
# that its stacks be those of perf: all of them for the workload, 95% of
# the samples' for the system, where some user frames differ for reasons
# of the address-space model, not of the format (frames of a process
# that is calling execve, the vdso, which perf record -N does not keep
# for perf script to read, addresses in data that perf does not name).
# The workload is recorded with a build-id cache of its own (HOME is a
# directory of the test), so that perf script names the vdso too.
# PERFSYM overrides build/profiler/perfsym.
# Usage: tests/profiler-folded.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
perfsym=${PERFSYM:-$top/build/profiler/perfsym}
work=$top/build/profiler-folded
min_system=95

fail() {
  echo "profiler-folded: FAIL: $*" >&2
  exit 1
}

[ -x "$perfsym" ] || fail "$perfsym is missing; make profiler builds it"
rm -rf "$work"
mkdir -p "$work/home"
"$top/workloads/build-workloads.sh" "$work" bfd-pie > "$work/build.log" \
  || fail "building the workload failed, see $work/build.log"
HOME=$work/home nice perf record --no-bpf-event -e cpu-clock -F 4000 -g \
  -o "$work/workload.data" -- "$work/bfd-pie/workload" 500 \
  > "$work/record.log" 2>&1 || fail "perf record failed, see $work/record.log"
nice perf record -a -g -N --no-bpf-event -e cpu-clock -F 1000 \
  -o "$work/system.data" -- sh -c \
  'dd if=/dev/zero of=/dev/null bs=512 count=50000 2> /dev/null
   find /usr/lib > /dev/null 2>&1; true' \
  > "$work/record-system.log" 2>&1 \
  || fail "perf record -a failed, see $work/record-system.log"

# Collapse perf script -F comm,ip,sym,dso: a line with the command, then
# "\tIP SYM (DSO)" per frame, innermost first, an empty line.  A frame
# is its symbol, or [FILE] for an address no symbol covers in FILE;
# ';' is written ':'.
collapse() {
  awk '
    function label(sym, dso,    base) {
      if (sym != "[unknown]")
        return sym
      if (dso ~ /^\[/)
        return dso
      base = dso
      if (dso !~ /^\/\//)
        sub(/.*\//, "", base)
      return "[" base "]"
    }
    function flush(    s, i) {
      if (!in_sample)
        return
      s = comm
      for (i = n; i >= 1; i--)
        s = s ";" frame[i]
      count[s]++
      in_sample = 0
    }
    /^\t/ {
      line = $0
      sub(/^\t */, "", line)
      split(line, f, " ")
      dso = substr(line, length(f[1]) + length(f[2]) + 3)
      sub(/^\(/, "", dso)
      sub(/\)$/, "", dso)
      frame[++n] = label(f[2], dso)
      gsub(/;/, ":", frame[n])
      next
    }
    /^$/ { flush(); next }
    {
      flush()
      comm = $0
      sub(/ +$/, "", comm)
      gsub(/;/, ":", comm)
      n = 0
      in_sample = 1
    }
    END {
      flush()
      for (s in count)
        print s, count[s]
    }'
}

# Compare the recording $1 (with HOME $2): prints "SAMPLES SUM SAME", the
# samples perf script shows, the sum of perfsym's counts, and the samples
# whose stacks both give alike.
compare() {
  HOME=$2 perf script --no-inline --no-demangle -F comm,ip,sym,dso \
    -i "$work/$1.data" 2> "$work/$1.perf.err" | collapse | LC_ALL=C sort \
    > "$work/$1.perf" || fail "perf script -i $work/$1.data failed"
  HOME=$2 "$perfsym" --folded --no-demangle -i "$work/$1.data" \
    2> "$work/$1.perfsym.err" | LC_ALL=C sort > "$work/$1.perfsym" \
    || fail "perfsym --folded -i $work/$1.data failed"
  awk '{ count = $NF; $NF = "" }
       FILENAME == ARGV[1] { perf[$0] += count; samples += count; next }
       { perfsym[$0] += count; sum += count }
       END {
         for (s in perf)
           same += perf[s] < perfsym[s] ? perf[s] : perfsym[s]
         print samples + 0, sum + 0, same + 0
       }' "$work/$1.perf" "$work/$1.perfsym"
}

status=0
result=$(compare workload "$work/home") || exit 1
# shellcheck disable=SC2086
set -- $result
echo "workload (-g): perf script has $1 samples, perfsym --folded counts $2, $3 with the same stack"
if [ "$1" -eq 0 ] || [ "$2" -ne "$1" ] || [ "$3" -ne "$1" ]; then
  echo "==== the stacks that differ (< perf, > perfsym):"
  diff "$work/workload.perf" "$work/workload.perfsym" | head -n 20 || true
  status=1
fi
result=$(compare system "$HOME") || exit 1
# shellcheck disable=SC2086
set -- $result
echo "system (-a -g): perf script has $1 samples, perfsym --folded counts $2, $3 with the same stack"
if [ "$1" -eq 0 ] || [ "$2" -ne "$1" ] ||
   [ $(($3 * 100)) -lt $(($1 * min_system)) ]; then
  echo "==== system: fewer than ${min_system}% alike; the stacks that differ (< perf, > perfsym):"
  diff "$work/system.perf" "$work/system.perfsym" | head -n 20 || true
  status=1
fi
[ $status -eq 0 ] || fail "perfsym --folded disagrees with perf; the files are in $work"
rm -rf "$work"
echo "profiler-folded: PASS"
