#!/bin/sh
# Record each workload built by build-workloads.sh in BINDIR with perf, as
# OUTDIR/BUILD-MODE.data, in three modes: exec (perf record's default,
# only executable mappings), all (-d, every mapping) and dwarf
# (--call-graph dwarf).  The workload runs for MSEC milliseconds of CPU time
# (default 1000), sampled by cpu-clock at 4000 Hz.  Each perf record's
# output goes to OUTDIR/BUILD-MODE.log.
# Usage: workloads/record.sh [-t MSEC] BINDIR OUTDIR [BUILD...]
set -eu

usage() {
  echo "usage: $0 [-t MSEC] BINDIR OUTDIR [BUILD...]" >&2
  exit 2
}
msec=1000
while getopts t: opt; do
  case $opt in
    t) msec=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage
bindir=$1
out=$2
shift 2
if [ $# -eq 0 ]; then
  for dir in "$bindir"/*/; do
    set -- "$@" "$(basename "$dir")"
  done
fi
mkdir -p "$out"

for build in "$@"; do
  for mode in exec all dwarf; do
    case $mode in
      exec) opts= ;;
      all) opts=-d ;;
      dwarf) opts="--call-graph dwarf" ;;
    esac
    name=$build-$mode
    # -N: leave ~/.debug alone, perf script reads the binaries in place;
    # --no-bpf-event: no side-band thread, which costs a second at exit.
    # shellcheck disable=SC2086
    if ! perf record -N --no-bpf-event -e cpu-clock -F 4000 $opts \
         -o "$out/$name.data" -- "$bindir/$build/workload" "$msec" \
         > "$out/$name.log" 2>&1; then
      cat "$out/$name.log" >&2
      echo "$0: perf record of $build ($mode) failed" >&2
      exit 1
    fi
    echo "record: $out/$name.data"
  done
done
