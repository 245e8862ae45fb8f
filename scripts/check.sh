#!/bin/sh
# Run every test of the built tree and print a summary: elfutils' own make
# check in OBJDIR (its output in OBJDIR/check.log, results from each
# test-suite.log), then the project's tests/*.sh (exit 0 pass, 77 skip,
# anything else fail; their output in OBJDIR/project-tests/), which find
# the build through TARBALL, TREE and OBJDIR in their environment.  A skip
# fails unless tests/known-skips.txt lists the test.  An elfutils test
# that tests/known-flaky.txt lists runs up to twice more when it fails, and
# passes if a rerun does.  The summary ends with
# "N passed, N failed, N skipped"; the exit status is 1 on any failure.
# Usage: scripts/check.sh TARBALL TREE OBJDIR
set -eu

[ $# -eq 3 ] || { echo "usage: $0 TARBALL TREE OBJDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tree=$(cd "$2" && pwd)
objdir=$(cd "$3" && pwd)
logdir=$objdir/project-tests
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every result goes to $tmp/results as a line "RESULT NAME LOG", or
# "PASSED COUNT" for that many passes with no name.
record() {
  echo "$*" >> "$tmp/results"
}
: > "$tmp/results"

# Why tests/$1 lists test $2; false if it does not.
listed() {
  awk -v t="$2" '$1 == t { sub (/^[^#]*#[ \t]*/, ""); print; found = 1 }
                 END { exit !found }' "$top/tests/$1"
}

# elfutils: counts from the "# PASS:" lines at the head of each
# test-suite.log, the other tests by name from its "SKIP: name" section
# titles.  Old logs (and old reruns' tries) go first, so a make check that
# stops early leaves none.
find "$objdir" \( -name test-suite.log -o -name rerun-suite.log \
  -o -name '*.try[0-9].log' -o -name '*.try[0-9].trs' \) -exec rm -f {} +
# An elfutils test works in ${TMPDIR:-/var/tmp}/elfutils-test-PID, and a
# test that fails can leave files there (backtrace-native-core.sh leaves
# its core); a later test whose process gets the same PID then fails to
# remove the directory.  Start without any.
rm -rf "${TMPDIR:-/var/tmp}"/elfutils-test-*
echo "check: make check -j$(nproc) in $objdir, output in $objdir/check.log"
: > "$tmp/suites"
status=0
make -C "$objdir" -j"$(nproc)" check > "$objdir/check.log" 2>&1 || status=$?
suites=$(find "$objdir" -name test-suite.log | sort)
for suite in $suites; do
  dir=$(dirname "$suite")
  awk -v name="elfutils/${dir#"$objdir"/}/" -v dir="$dir/" '
    /^# [A-Z]+: +[0-9]+$/ && !seen[$2]++ { n[$2] = $3 }
    /^=+$/ && length ($0) == length (prev) && prev ~ /^(FAIL|XPASS|ERROR|SKIP): / {
      split (prev, f, ": ")
      print f[1], name f[2], dir f[2] ".log"
    }
    { prev = $0 }
    END { print "PASSED", n["PASS:"] + n["XFAIL:"] }' "$suite" >> "$tmp/results"
  awk -v suite="$suite" '/^# [A-Z]+: +[0-9]+$/ && !seen[$2]++ { printf "%s %s ", $2, $3 }
                         END { print "in " suite }' "$suite" >> "$tmp/suites"
done
if [ "$status" -ne 0 ] && ! grep -q '^\(FAIL\|XPASS\|ERROR\) ' "$tmp/results"; then
  record ERROR "elfutils-make-check" "$objdir/check.log"
fi

# A known-flaky test that failed runs again, alone, up to twice; it passes
# if a rerun passes.  Before each rerun overwrites its .log and .trs, they
# are copied to NAME.tryN.log and .trs and appended to check.log, so every
# failed try can still be read.  The rerun names the test by its log
# (TEST_LOGS, as automake's manual allows: it works for any kind of test)
# and its suite log has a name of its own: test-suite.log stays that of
# the whole run.
: > "$tmp/reruns"
while read -r result name log; do
  t=$(basename "$name")
  case $result in
    FAIL|ERROR) why=$(listed known-flaky.txt "$t") ||
                  { echo "$result $name $log"; continue; } ;;
    *) echo "$result $name $log"; continue ;;
  esac
  dir=$(dirname "$log")
  try=1
  while :; do
    cp "$log" "$dir/$t.try$try.log" 2>/dev/null || true
    cp "${log%.log}.trs" "$dir/$t.try$try.trs" 2>/dev/null || true
    { echo
      echo "==== check.sh: $name, try $try: $result; its log, kept as $t.try$try.log:"
      cat "$log" 2>&1 || true; } >> "$objdir/check.log"
    [ "$try" -lt 3 ] || break
    try=$((try + 1))
    echo "check: $name: $result, known flaky; try $try of 3" >&2
    make -s -C "$dir" check TEST_LOGS="$(basename "$log")" \
      TEST_SUITE_LOG=rerun-suite.log < /dev/null >> "$objdir/check.log" 2>&1 || true
    result=$(sed -n 's/^:global-test-result: //p' "${log%.log}.trs" 2>/dev/null)
    result=${result:-ERROR}
    [ "$result" != PASS ] || break
  done
  echo "$result $name $log"
  if [ "$result" = PASS ]; then
    echo "rerun: $name passed on try $try of 3 (known flaky: $why)"
  else
    echo "rerun: $name failed all 3 tries, see $dir/$t.try1.log to .try3.log"
  fi >> "$tmp/reruns"
done < "$tmp/results" > "$tmp/results.reran"
mv "$tmp/results.reran" "$tmp/results"

mkdir -p "$logdir"
for t in "$top"/tests/*.sh; do
  [ -f "$t" ] || continue
  log=$logdir/$(basename "$t" .sh).log
  rc=0
  if [ -x "$t" ]; then
    TARBALL=$tarball TREE=$tree OBJDIR=$objdir "$t" < /dev/null > "$log" 2>&1 || rc=$?
  else
    echo "$t is not executable" > "$log"
    rc=1
  fi
  case $rc in
    0) result=PASS ;;
    77) result=SKIP ;;
    *) result=FAIL ;;
  esac
  echo "$result: tests/$(basename "$t")"
  record "$result" "tests/$(basename "$t")" "$log"
done

passed=0 failed=0 skipped=0
: > "$tmp/failed"
: > "$tmp/known"
while read -r result name log; do
  case $result in
    PASSED) passed=$((passed + name)) ;;
    PASS) passed=$((passed + 1)) ;;
    SKIP)
      if why=$(listed known-skips.txt "$(basename "$name")"); then
        skipped=$((skipped + 1))
        echo "known skip: $name ($why)" >> "$tmp/known"
      else
        failed=$((failed + 1))
        echo "$name SKIP-not-in-tests/known-skips.txt $log" >> "$tmp/failed"
      fi ;;
    *)
      failed=$((failed + 1))
      echo "$name $result $log" >> "$tmp/failed" ;;
  esac
done < "$tmp/results"

while read -r name result log; do
  echo
  echo "==== $name: $result; the end of $log:"
  tail -n 15 "$log" 2>/dev/null || true
done < "$tmp/failed"

echo
echo "==== summary"
sed 's/^/elfutils: /' "$tmp/suites"
cat "$tmp/known"
cat "$tmp/reruns"
while read -r name result log; do
  echo "failed: $name ($result), see $log"
done < "$tmp/failed"
echo "known flaky: $(wc -l < "$tmp/reruns") needed a rerun," \
     "$(grep -c 'passed on try' "$tmp/reruns") passed on one"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
