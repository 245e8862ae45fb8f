#!/bin/sh
# perf's own tests that go through libdw or the code the patches of
# clients/perf/ change, on perf unpatched and patched for
# dwfl_report_elf_mmap, both built with libdw's unwinder against the
# series (scripts/build-perf.sh, as make perf does): "Test dwarf unwind"
# (unwinds a sample of perf's own stack with unwind-libdw.c), the uprobe
# test that perf probe places with the DWARF of a two-CU program (its
# script has lost its mode in Debian's tarball, so it is run with bash),
# the probe of libc's inet_pton, and the tests of the maps and threads
# (whose struct maps now holds the Dwfl), the JIT ELF writer and
# perf inject.  Each runs in the build's source tree, with that perf
# first in PATH for the shell tests.  The DWARF unwind and uprobe tests
# must pass in both builds, and every test must give the same result in
# both; the ones that fail in both are shown (the inet_pton test expects
# a ping that calls it through getaddrinfo; bookworm's does not).  The
# results are in build/perf/own-tests/.
# Usage: tests/perf-own-tests.sh (TREE and OBJDIR in the environment)
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/elfutils}
objdir=${OBJDIR:-$top/build/obj}
out=$top/build/perf
work=$out/own-tests

fail() {
  echo "perf-own-tests: FAIL: $*" >&2
  exit 1
}

"$top/scripts/build-perf.sh" "$top/build" "$tree" "$objdir" ||
  fail "building perf failed"
rm -rf "$work"
mkdir -p "$work"

required="Test dwarf unwind|test perf probe of function from different CU"

# Run the tests with build $1 (sources in $2); "RESULT DESCRIPTION" lines
# in $work/$1.results, sorted by description.
run_tests() {
  (cd "$2/tools/perf" && PATH="$out/$1:$PATH" "$out/$1/perf" test \
     "Test dwarf unwind" "Lookup mmap thread" "Share thread maps" \
     "maps__merge_in" "Test jit_write_elf" "pipe recording and injection" \
     "probe libc's inet_pton" > "$work/$1.out" 2>&1) || true
  # "NN: Description : Ok", "FAILED!" or "Skip (reason)".
  sed -n 's/^ *[0-9][0-9.]*: \(.*[^ ]\) *: \([A-Za-z]*\).*/\2 \1/p' \
    "$work/$1.out" > "$work/$1.results"
  if (cd "$2/tools/perf" && PATH="$out/$1:$PATH" \
      bash tests/shell/test_uprobe_from_different_cu.sh > "$work/$1.uprobe.out" 2>&1); then
    result=Ok
  else
    result=FAILED
  fi
  echo "$result test perf probe of function from different CU" >> "$work/$1.results"
  sort -k2 -o "$work/$1.results" "$work/$1.results"
}

run_tests unpatched "$out/src-upstream"
run_tests patched "$out/src"

echo "==== perf's tests: unpatched, patched"
[ -s "$work/unpatched.results" ] && [ -s "$work/patched.results" ] ||
  fail "perf test ran no test; see $work"
awk -v required="$required" '
  { result = $1; sub(/^[^ ]+ /, ""); r[FILENAME == ARGV[1], $0] = result; names[$0] = 1 }
  END {
    n = split(required, req, "|")
    for (i = 1; i <= n; i++)
      names[req[i]] = 1
    for (name in names) {
      u = (1, name) in r ? r[1, name] : "missing"
      p = (0, name) in r ? r[0, name] : "missing"
      need = 0
      for (i = 1; i <= n; i++)
        need = need || req[i] == name
      verdict = u != p ? "FAIL: not the same" : need && p != "Ok" ? "FAIL: must pass" : p == "Ok" ? "ok" : "fails in both"
      bad = bad || verdict ~ /^FAIL/
      printf "%-50s %-8s %-8s %s\n", name, u, p, verdict
    }
    exit bad
  }' "$work/unpatched.results" "$work/patched.results" > "$work/table" && status=0 || status=1
sort "$work/table"
[ $status -eq 0 ] || fail "see $work for perf test's output"
echo "perf-own-tests: PASS"
