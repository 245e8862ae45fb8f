#!/bin/sh
# perfparser's own autotests (tests/auto: addresscache, elfmap, kallsyms,
# perfdata, perfstdin) on perfparser patched for dwfl_report_elf_mmap
# (clients/perfparser/) and on the unpatched one, both against the
# series' libdw: every test function, and every data row of one, that
# passes unpatched must pass patched, and each build must run the same
# ones.  Tests that fail in both are listed (they fail for reasons of
# this machine, as their messages say).  tst_perfdata's output for each of
# its recordings (*.actual.txt beside them) is compared between the two
# builds, and the differences shown.  Builds perfparser first if needed
# (scripts/build-perfparser.sh, as make perfparser does).  The results are
# in build/perfparser/autotests/.
# Usage: tests/perfparser-autotests.sh (TREE and OBJDIR in the environment)
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/elfutils}
objdir=${OBJDIR:-$top/build/obj}
pp=$top/build/perfparser
work=$pp/autotests

fail() {
  echo "perfparser-autotests: FAIL: $*" >&2
  exit 1
}

"$top/scripts/build-perfparser.sh" "$top/build" "$tree" "$objdir" \
  || fail "building perfparser failed"
rm -rf "$work"
mkdir -p "$work"

# Run every autotest of build $1 (whose sources are in $2), each in its
# source directory as ctest does; one line "RESULT NAME" per test
# function or data row in $work/$1.results.
run_tests() {
  : > "$work/$1.results"
  for t in addresscache elfmap kallsyms perfdata perfstdin; do
    find "$2/tests/auto/$t" -name '*.actual.txt' -exec rm -f {} +
    (cd "$2/tests/auto/$t" && "$pp/$1/bin/tst_$t" -o "$work/$1-$t.txt,txt" \
       > "$work/$1-$t.out" 2>&1) || true
    [ -s "$work/$1-$t.txt" ] || fail "tst_$t of the $1 build wrote no results, see $work/$1-$t.out"
    # QtTest's lines "PASS   : Class::function(row)", "FAIL!  : ...",
    # "XFAIL  :" (an expected failure: a pass), "XPASS  :", "SKIP   :";
    # a function fails if any of its lines says FAIL! or XPASS.
    awk '/^(PASS|FAIL!|XFAIL|XPASS|SKIP) +: / {
           result = $1 == "FAIL!" || $1 == "XPASS" ? "FAIL" : $1 == "XFAIL" ? "PASS" : $1
           name = $0
           sub(/^[A-Z!]+ +: /, "", name)
           sub(/\) .*$/, ")", name)
           gsub(/[ \t]/, "_", name)
           if (!(name in r)) {
             order[++n] = name
             r[name] = result
           } else if (result == "FAIL")
             r[name] = result
         }
         END { for (i = 1; i <= n; i++) print r[order[i]], order[i] }' \
      "$work/$1-$t.txt" >> "$work/$1.results"
  done
}

run_tests unpatched "$pp/src-upstream"
run_tests patched "$pp/src"

status=0
sort -k2 "$work/unpatched.results" > "$work/unpatched.sorted"
sort -k2 "$work/patched.results" > "$work/patched.sorted"
join -1 2 -2 2 -a 1 -a 2 -e MISSING -o 0,1.1,2.1 \
  "$work/unpatched.sorted" "$work/patched.sorted" > "$work/both"
awk '{ n[$2 " " $3]++ } END { for (k in n) print n[k], k }' "$work/both" |
  sort -k2 | awk '{ printf "%4d unpatched %-7s patched %s\n", $1, $2, $3 }' > "$work/counts"
passed=$(awk '$2 == "PASS" && $3 == "PASS"' "$work/both" | wc -l)
[ "$passed" -gt 0 ] || fail "no autotest passed, unpatched or patched; see $work"

echo "==== perfparser's autotests, unpatched and patched (functions and data rows)"
cat "$work/counts"
if awk '$2 == "PASS" && $3 != "PASS" { bad = 1; print "regression: " $1 " passes unpatched, " $3 " patched" } END { exit !bad }' \
     "$work/both"; then
  status=1
fi
if awk '$2 == "MISSING" || $3 == "MISSING" { bad = 1; print "not run by both builds: " $0 } END { exit !bad }' \
     "$work/both"; then
  status=1
fi
awk '$2 != "PASS" && $2 == $3 { print "fails in both (" $2 "): " $1 }' "$work/both"
for t in addresscache elfmap kallsyms perfdata perfstdin; do
  grep -h -A3 '^\(FAIL!\|XPASS\) ' "$work/unpatched-$t.txt" | sed 's/^/  unpatched: /' || true
done

echo "==== tst_perfdata's output for its recordings, unpatched against patched"
for expected in $(cd "$pp/src/tests/auto/perfdata" && find . -name '*.expected.txt' | sort); do
  actual=${expected%.expected.txt}.actual.txt
  a=$pp/src-upstream/tests/auto/perfdata/$actual
  b=$pp/src/tests/auto/perfdata/$actual
  if [ ! -f "$a" ] || [ ! -f "$b" ]; then
    echo "${actual#./}: not written by both builds"
  elif cmp -s "$a" "$b"; then
    echo "${actual#./}: the same ($(wc -l < "$b") lines)"
  else
    echo "${actual#./}: differs:"
    diff -u "$a" "$b" | head -n 40 || true
  fi
done

[ $status -eq 0 ] || fail "an autotest that passes unpatched does not pass patched; results in $work"
echo "perfparser-autotests: PASS"
