#!/bin/sh
# Build the sanitized tree and both fuzzers, then run each for SECONDS
# from its seeds: fuzz-report-elf-mmap (dwfl_report_elf_mmap, in
# BUILDDIR/fuzz) and fuzz-perf-data (perfsym's perf.data reader, in
# BUILDDIR/fuzz-perf-data).  The sanitized build is BUILDDIR/asan-obj;
# what breaks goes to BUILDDIR/fuzz-artifacts and
# BUILDDIR/fuzz-perf-data-artifacts.  Both run even if the first fails.
# The inputs of known-bugs/ are checked first: each must still show its
# bug, whose check is then off for fuzz-report-elf-mmap.
# Usage: fuzz/run-all.sh TREE BUILDDIR SECONDS
set -eu

[ $# -eq 3 ] || { echo "usage: $0 TREE BUILDDIR SECONDS" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tree=$1 builddir=$2 seconds=$3

"$here/build-sanitized.sh" "$tree" "$builddir/asan-obj"
"$here/build-fuzzer.sh" "$tree" "$builddir/asan-obj" \
  "$here/fuzz-report-elf-mmap.c" "$builddir/fuzz/fuzz-report-elf-mmap"
"$here/build-perf-data-fuzzer.sh" "$tree" "$builddir/asan-obj" \
  "$builddir/fuzz-perf-data"

# The bugs known and not fixed (known-bugs/README.md): each input there
# must still break an invariant, and pass with these checks off, which
# are off for the fuzzing.
known_bugs=
status=0
for input in "$here"/known-bugs/*; do
  case $input in *.md) continue ;; esac
  if FUZZ_KNOWN_BUGS= "$builddir/fuzz/fuzz-report-elf-mmap" "$input" \
       > "$builddir/fuzz/known-bug.log" 2>&1; then
    echo "run-all: $input breaks no invariant now: fixed?  Make it a fixed-* seed (known-bugs/README.md)" >&2
    status=1
  elif ! FUZZ_KNOWN_BUGS=$known_bugs "$builddir/fuzz/fuzz-report-elf-mmap" \
       "$input" > "$builddir/fuzz/known-bug.log" 2>&1; then
    cat "$builddir/fuzz/known-bug.log" >&2
    echo "run-all: $input breaks an invariant that FUZZ_KNOWN_BUGS=$known_bugs leaves on" >&2
    status=1
  else
    echo "run-all: known bug still there: $(basename "$input") ($known_bugs)"
  fi
done
FUZZ_KNOWN_BUGS=$known_bugs \
  "$here/run-fuzzer.sh" "$builddir/fuzz/fuzz-report-elf-mmap" "$seconds" \
  "$here/corpus-report-elf-mmap" "$builddir/fuzz" \
  "$builddir/fuzz-artifacts" || status=1
FUZZ_MAX_LEN=65536 "$here/run-fuzzer.sh" \
  "$builddir/fuzz-perf-data/fuzz-perf-data" "$seconds" \
  "$here/corpus-perf-data" "$builddir/fuzz-perf-data" \
  "$builddir/fuzz-perf-data-artifacts" || status=1
exit $status
