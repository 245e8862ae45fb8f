#!/bin/bash
# Time perf report --stdio of --call-graph dwarf recordings with three
# perfs side by side in one run: Debian's perf (libunwind), and perf 6.1
# with libdw's unwinder built against the series, unpatched and patched
# (clients/perf/, scripts/build-perf.sh).  The recordings: the workload
# built by each linker, PIE and not, and the plugins loaded in turn at
# the same addresses (as tests/perf-vs-perf.sh records them, MSEC of CPU
# each, default 1000), and a system-wide recording of a parallel build
# (lib/ and libelf/ of the elfutils release, make -j2, in a scratch
# build directory configured once in build/bench/perf-scratch; at FREQ
# Hz, default 100).  Each perf reads each recording RUNS times (default
# 3), the perfs in turn; the CPU time (user + system) and the peak RSS
# shown are the medians.  EXTRA_PERFS="NAME=PATH ..." adds perfs to the
# run (a build of the first patch alone, say).  The perfs built here run
# on a copy of OBJDIR's libdw and libelf taken at the start, so that the
# series' build may change under a run of the best part of an hour.
# Writes a markdown section to build/bench/perf-results.md; work files
# go to build/bench/perf/.  Needs root (perf record -a).
# Usage: bench/perf-report.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/elfutils}
objdir=${OBJDIR:-$top/build/obj}
out=$top/build/bench/perf
results=$top/build/bench/perf-results.md
msec=${MSEC:-1000}
freq=${FREQ:-100}
runs=${RUNS:-3}
. "$top/elfutils.version"
tarball=$top/build/dl/elfutils-$ELFUTILS_VERSION.tar.bz2

log() { echo "perf-report: $*" >&2; }
die() { log "$*"; exit 1; }

"$top/scripts/build-perf.sh" "$top/build" "$tree" "$objdir" >&2 ||
  die "building perf failed"
command -v /usr/bin/time > /dev/null || die "/usr/bin/time is missing (package time)"
perfs="debian=$(command -v perf) unpatched=$top/build/perf/unpatched/perf patched=$top/build/perf/patched/perf ${EXTRA_PERFS:-}"
rm -rf "$out/data" "$out/lib"
mkdir -p "$out/data" "$out/lib"
# The copy: the rpath of the perfs is a RUNPATH, which LD_LIBRARY_PATH
# overrides.  A build in progress can leave a library cut short: try again.
for _ in 1 2 3 4 5 6; do
  cp "$objdir/libdw/libdw.so" "$out/lib/libdw.so.1" &&
    cp "$objdir/libelf/libelf.so" "$out/lib/libelf.so.1" &&
    LD_LIBRARY_PATH=$out/lib "$top/build/perf/patched/perf" version > /dev/null 2>&1 &&
    break
  sleep 30
done
LD_LIBRARY_PATH=$out/lib "$top/build/perf/patched/perf" version > /dev/null ||
  die "no working copy of $objdir's libdw and libelf"
"$top/workloads/check-perf.sh" "$out" || die "perf cannot sample here"

# The recordings.
"$top/workloads/build-workloads.sh" "$out/bin" > "$out/build.log"
"$top/clients/perf/build-workloads.sh" "$out/perf-bin" >> "$out/build.log"
record() {
  name=$1
  shift
  perf record -N --no-bpf-event -e cpu-clock -F 4000 --call-graph dwarf \
    -o "$out/data/$name.data" -- "$@" > "$out/data/$name.log" 2>&1 ||
    die "perf record of $name failed, see $out/data/$name.log"
}
for dir in "$out"/bin/*/; do
  record "$(basename "$dir")" "$dir/workload" "$msec"
done
record plugins "$out/perf-bin/plugin-host" "$msec" 10 "$out/perf-bin/plugin-bfd.so" \
  "$out/perf-bin/plugin-lld.so" "$out/perf-bin/plugin-mold.so"
record python3 python3 -c '
import json, re, time
end = time.process_time() + 0.3
while time.process_time() < end:
    s = json.dumps({str(i): [i, i * 2.5, "x" * (i % 7)] for i in range(2000)})
    re.findall(r"[0-9]+", s)'
record shell sh -c 'ls -lR /usr/share/doc > /dev/null
  find /usr/lib -name "*.so*" | sort | gzip -c > /dev/null
  grep -r -c elf /usr/include > /dev/null || :'

scratch=$top/build/bench/perf-scratch
src=$scratch/elfutils-$ELFUTILS_VERSION
if [ ! -f "$scratch/obj/config.status" ]; then
  log "configuring the elfutils release in $scratch (once)"
  mkdir -p "$src" "$scratch/obj"
  [ -f "$src/configure" ] || tar xjf "$tarball" --no-same-owner --strip-components=1 -C "$src"
  (cd "$scratch/obj" && "$src/configure" --disable-debuginfod \
     --disable-libdebuginfod > configure.log 2>&1) ||
    die "configure failed, see $scratch/obj/config.log"
fi
make -s -C "$scratch/obj/lib" clean > /dev/null
make -s -C "$scratch/obj/libelf" clean > /dev/null
log "recording make -j2 of the elfutils release's lib/ and libelf/, system-wide, --call-graph dwarf at $freq Hz"
perf record -q -a -N --no-bpf-event -F "$freq" --call-graph dwarf -m 16M \
  -o "$out/data/system-build.data" -- \
  sh -c "make -s -j2 -C '$scratch/obj/lib' && make -s -j2 -C '$scratch/obj/libelf'" \
  > "$out/data/system-build.log" 2>&1 || die "recording the build failed, see $out/data/system-build.log"

# Each perf reads each recording RUNS times, in turn, as perf report
# does by default and with --no-inline (perf 6.1 without libbfd names
# inlined functions through addr2line processes, the same work for the
# three perfs, which takes most of the time on the build): "MODE
# RECORDING PERF SECONDS KB" lines.
: > "$out/times"
: > "$out/sizes"
for data in "$out"/data/*.data; do
  name=$(basename "$data" .data)
  echo "$name samples $(perf script -F pid -i "$data" 2> /dev/null | wc -l) MiB $(( $(stat -c %s "$data") / 1048576 ))" >> "$out/sizes"
  for mode in default no-inline; do
    opts=
    [ $mode = default ] || opts=--$mode
    log "perf report $opts of $name"
    for _ in $(seq "$runs"); do
      for p in $perfs; do
        # shellcheck disable=SC2086
        lib=$out/lib
        [ "${p%%=*}" != debian ] || lib=
        LD_LIBRARY_PATH=$lib /usr/bin/time -f "%U %S %M" -o "$out/time" "${p#*=}" report --stdio $opts \
          -i "$data" > /dev/null 2> "$out/report.err" ||
          die "${p%%=*} perf report of $name failed, see $out/report.err"
        awk -v m=$mode -v r="$name" -v p="${p%%=*}" \
          'END { printf "%s %s %s %.2f %d\n", m, r, p, $1 + $2, $3 }' \
          "$out/time" >> "$out/times"
      done
    done
  done
done

# The medians, and the markdown section: a table for each mode.
names=$(for p in $perfs; do printf '%s ' "${p%%=*}"; done)
{
  echo "## perf report of --call-graph dwarf recordings: perf on dwfl_report_elf_mmap"
  echo
  echo "\`perf report --stdio\` (which unwinds every sample) of each recording by Debian's"
  echo "$(perf --version) (libunwind), and by perf 6.1.192 with libdw's unwinder built"
  echo "against the series, unpatched and patched (\`clients/perf/\`); CPU time (user +"
  echo "system, with the addr2line processes perf runs) and peak RSS, the median of $runs"
  echo "runs, the perfs in turn (\`bench/perf-report.sh\`, $(date -u +%Y-%m-%d), $(nproc) cores,"
  echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end).  The workloads ran ${msec} ms of CPU each, recorded at"
  echo "4000 Hz, python3 and the shell at 1000 Hz; the build was recorded system-wide at ${freq} Hz."
} > "$results"
for mode in default no-inline; do
  {
    echo
    if [ $mode = default ]; then
      echo "### perf report --stdio"
    else
      echo "### perf report --stdio --no-inline"
    fi
    echo
  } >> "$results"
  awk -v m=$mode '$1 == m { print $2, $3, $4, $5 }' "$out/times" |
  sort -k1,1 -k2,2 -k3,3n | awk -v names="$names" -v sizes="$out/sizes" '
  BEGIN {
    while ((getline line < sizes) > 0) {
      split(line, f, " ")
      samples[f[1]] = f[3]
      mib[f[1]] = f[5]
      order[++nrec] = f[1]
    }
    np = split(names, perf, " ")
  }
  { t[$1, $2, ++n[$1, $2]] = $3; m[$1, $2, n[$1, $2]] = $4 }
  function median(a, r, p,    k, i, j, v, x) {
    k = n[r, p]
    for (i = 1; i <= k; i++)
      v[i] = a[r, p, i]
    for (i = 2; i <= k; i++)
      for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
        x = v[j]; v[j] = v[j - 1]; v[j - 1] = x
      }
    return v[int((k + 1) / 2)]
  }
  END {
    printf "| recording | samples | MiB |"
    for (i = 1; i <= np; i++)
      printf " %s |", perf[i]
    printf " patched / unpatched: CPU | RSS |\n|---|---:|---:|"
    for (i = 1; i <= np; i++)
      printf "---:|"
    printf "---:|---:|\n"
    for (k = 1; k <= nrec; k++) {
      r = order[k]
      printf "| %s | %d | %d |", r, samples[r], mib[r]
      for (i = 1; i <= np; i++) {
        ct[r, perf[i]] = median(t, r, perf[i])
        cm[r, perf[i]] = median(m, r, perf[i])
        printf " %.2f s, %.0f MiB |", ct[r, perf[i]], cm[r, perf[i]] / 1024
        if (r != "system-build") {
          sum_t[perf[i]] += ct[r, perf[i]]
          if (cm[r, perf[i]] > max_m[perf[i]])
            max_m[perf[i]] = cm[r, perf[i]]
        }
      }
      printf " %.2fx | %.2fx |\n", ct[r, "patched"] / ct[r, "unpatched"],
        cm[r, "patched"] / cm[r, "unpatched"]
    }
    printf "| all but the build (sum; largest RSS) | | |"
    for (i = 1; i <= np; i++)
      printf " %.2f s, %.0f MiB |", sum_t[perf[i]], max_m[perf[i]] / 1024
    printf " %.2fx | %.2fx |\n\n", sum_t["patched"] / sum_t["unpatched"],
      max_m["patched"] / max_m["unpatched"]
    w = sum_t["patched"] / sum_t["unpatched"]
    b = ct["system-build", "patched"] / ct["system-build", "unpatched"]
    printf "Patched / unpatched CPU time: %.2fx on the recordings of single programs, %.2fx on the system-wide build:", w, b
    printf " goal (<= 1.0x) %s, moonshot (<= 0.3x) %s.\n",
      w <= 1 && b <= 1 ? "met" : "not met", w <= 0.3 && b <= 0.3 ? "met" : "not met"
  }' >> "$results"
done
cat "$results"
