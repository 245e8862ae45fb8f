#!/bin/sh
# What eu-stackprof reports of the workload's shared library before and
# after the master series' last patch: BEFORE and AFTER are the two
# stackprof binaries, LIBDIR the directories of the libdw and libelf they
# run with (the master series' build, as LD_LIBRARY_PATH).  The workload
# (workloads/build-workloads.sh, in OUT/bin) runs under each as
# `stackprof -v -g -- workload 500`, for each linker as a PIE; a line a
# run: the samples, stackprof's warnings, whether the library's build id
# is among the binaries it saw, and the library's three hottest functions
# in its gmon output (gprof -b -p), or "-" when it has none.
# Usage: clients/stackprof/before-after.sh BEFORE AFTER LIBDIR OUT
set -eu

[ $# -eq 4 ] || { echo "usage: $0 BEFORE AFTER LIBDIR OUT" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$4
mkdir -p "$out"
"$top/workloads/build-workloads.sh" "$out/bin" bfd-pie gold-pie lld-pie mold-pie > /dev/null

# The three hottest functions of gmon output $1 of the file it names.
hottest() {
  gprof -b -p "${1%.out}.exe" "$1" 2>/dev/null |
    awk 'NR > 5 && NF > 0 { printf "%s%s", sep, $NF; sep = " "; if (++n == 3) exit }'
}

printf '%-9s %-6s %7s %8s %-7s %s\n' build stackprof samples warnings library "library's hottest"
for build in bfd-pie gold-pie lld-pie mold-pie; do
  for which in before after; do
    case $which in before) stackprof=$1 ;; after) stackprof=$2 ;; esac
    dir=$out/$build-$which
    rm -rf "$dir"
    mkdir -p "$dir"
    LD_LIBRARY_PATH=$3 timeout 60 "$stackprof" -v -g -o "$dir" -- \
      "$out/bin/$build/workload" 500 > "$dir/log" 2>&1
    samples=$(sed -n 's/.* workload -- .*received \([0-9]*\) samples.*/\1/p' "$dir/log")
    seen=no
    hot=-
    for exe in "$dir"/gmon.*.exe; do
      [ "$(basename "$(readlink "$exe")")" = libworkload.so ] || continue
      seen=yes
      hot=$(hottest "${exe%.exe}.out")
    done
    printf '%-9s %-6s %7s %8s %-7s %s\n' "$build" "$which" "$samples" \
      "$(grep -c WARNING "$dir/log" || true)" "$seen" "${hot:--}"
  done
done
