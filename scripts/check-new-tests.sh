#!/bin/sh
# Build the elfutils source TREE in OBJDIR for MODE and run there only the
# tests the series adds (the tests/run-*.sh that TREE's commits add to the
# tag upstream), one at a time, printing PASS or FAIL for each.  A test
# that fails, skips or leaves a report in its logs fails; so does the
# script then.  The logs of TEST are in OBJDIR/new-tests-logs/TEST/.
# NEW_TESTS, if set, names the tests to run instead (e.g. just one).
#
# valgrind: every program a test runs goes under elfutils' valgrind
#   command (memcheck, --leak-check=full) with --track-fds=yes and a log
#   file per process.  configure's --enable-valgrind does no more than
#   set that command in tests/Makefile, and the command given to make
#   does the same, so OBJDIR may be any build of TREE (make check's own:
#   no second build).  A test's own result is
#   not enough: testrun_compare ignores the program's exit status and
#   fails only when valgrind's messages change its output, and valgrind
#   3.19 does not count a descriptor left open as an error.  So a log
#   with errors fails the test, and so does a descriptor that a test
#   program (OBJDIR/tests/*) leaves open at exit and did not inherit
#   (valgrind lists its own log file among the inherited, as fd 3).  The
#   tools in src/ are not held to that: the tests cut their output short
#   (readelf | awk '{ ...; exit }'), and SIGPIPE kills them with the file
#   open.  --soname-synonyms=somalloc=nouserintercepts lets the allocator
#   of dwfl-report-elf-mmap-nomem, which makes allocations fail, stand in
#   front of valgrind's instead of being replaced by it.
# sanitize: gcc with --enable-sanitize-address and
#   --enable-sanitize-undefined, which both abort on the first error;
#   LeakSanitizer reports leaks at exit.  Reports go to log files, and any
#   report fails the test, whatever the test made of the program's status.
#
# Checked with a copy of tests/dwfl-report-elf-mmap.c that leaves an
# open () or a malloc () at the end of main, put in OBJDIR/tests in place
# of the test program, and NEW_TESTS=run-dwfl-report-elf-mmap.sh: the
# test still passes by its own result, and this script fails it, with
# "Open file descriptor 4: /etc/hostname" or "10 bytes in 1 blocks are
# definitely lost" in the valgrind logs, "Direct leak of 10 byte(s)"
# from LeakSanitizer.
# Usage: scripts/check-new-tests.sh valgrind|sanitize TREE OBJDIR
set -eu

[ $# -eq 3 ] || { echo "usage: $0 valgrind|sanitize TREE OBJDIR" >&2; exit 2; }
mode=$1
here=$(cd "$(dirname "$0")" && pwd)
case $mode in
  valgrind)
    build_env=
    flags= ;;
  sanitize)
    build_env="CC=gcc CXX=g++"
    flags="--enable-sanitize-address --enable-sanitize-undefined" ;;
  *) echo "check-new-tests: unknown mode $mode" >&2
     echo "usage: $0 valgrind|sanitize TREE OBJDIR" >&2; exit 2 ;;
esac
tree=$(cd "$2" && pwd)

tests=${NEW_TESTS:-$(git -C "$tree" diff --name-only --diff-filter=A upstream HEAD -- 'tests/run-*.sh' |
                    sed 's,^tests/,,')}
[ -n "$tests" ] || { echo "check-new-tests: the series in $tree adds no tests/run-*.sh" >&2; exit 1; }

# build-elfutils.sh reconfigures when its configure flags change, but
# objects built with other compiler flags, or from another TREE, stay:
# start a sanitizer build of another tree, or of unknown origin, in a
# clean OBJDIR.
if [ "$mode" = sanitize ] && [ -d "$3" ] &&
   [ "$(cat "$3/new-tests-build" 2>/dev/null)" != "$mode $tree" ]; then
  echo "check-new-tests: $3 is not a $mode build of $tree, removing it"
  rm -rf "$3"
fi
mkdir -p "$3"
[ "$mode" != sanitize ] || echo "$mode $tree" > "$3/new-tests-build"
objdir=$(cd "$3" && pwd)

# shellcheck disable=SC2086
env $build_env EXTRA_CONFIGURE_FLAGS="$flags" "$here/build-elfutils.sh" "$tree" "$objdir"
# configure falls back silently to a plain build when a compiler lacks
# a sanitizer.
if [ "$mode" = sanitize ]; then
  printf '%s\n' "gcc undefined behaviour sanitizer" "gcc address sanitizer" |
  while read -r what; do
    grep -q "$what *: yes" "$objdir/configure.log" ||
      { echo "check-new-tests: configure did not enable \"$what\", see $objdir/config.log" >&2
        exit 1; }
  done
fi
echo "check-new-tests: building the test programs"
make -C "$objdir" -j"$(nproc)" check TESTS= > "$objdir/new-tests-build.log" 2>&1 ||
  { tail -n 30 "$objdir/new-tests-build.log" >&2
    echo "check-new-tests: make check failed, see $objdir/new-tests-build.log" >&2; exit 1; }

# Print what is wrong in valgrind log $1: the whole log if it counts
# errors or has no summary, else the descriptors a test program left
# open; nothing when it is clean.
valgrind_findings() {
  awk -v tests="$objdir/tests/" '
    { all = all $0 "\n"; line = $0; sub (/^==[0-9]+== ?/, "", line) }
    line ~ /^Command: / { command = line; check_fds = index (substr (line, 10), tests) == 1 }
    line ~ /^ERROR SUMMARY: / { summary = 1; if (line !~ /^ERROR SUMMARY: 0 errors/) errors = 1 }
    line ~ /^ *$/ { in_fd = 0 }
    line ~ /^Open file descriptor / { held = $0; next }
    held != "" && line !~ /<inherited from parent>/ && check_fds { fds = fds held "\n"; in_fd = 1 }
    { held = "" }
    in_fd { fds = fds $0 "\n" }
    END { if (errors || !summary) printf "%s", all
          else if (fds != "") printf "%s\n%s", command, fds }' "$1"
}

logs=$objdir/new-tests-logs
rm -rf "$logs"
failed=0 count=0
for t in $tests; do
  count=$((count + 1))
  dir=$logs/$t
  mkdir -p "$dir"
  rm -f "$objdir/tests/$t.log" "$objdir/tests/$t.trs"
  start=$(date +%s)
  case $mode in
    valgrind)
      make -C "$objdir/tests" check TESTS="$t" \
        valgrind_cmd="valgrind --leak-check=full --error-exitcode=1 --track-fds=yes --soname-synonyms=somalloc=nouserintercepts --log-file=$dir/valgrind.%p" ;;
    sanitize)
      ASAN_OPTIONS=detect_leaks=1:log_path=$dir/asan \
      UBSAN_OPTIONS=print_stacktrace=1:log_path=$dir/ubsan \
        make -C "$objdir/tests" check TESTS="$t" ;;
  esac > "$dir/make.log" 2>&1 || true
  result=$(sed -n 's/^:test-result: //p' "$objdir/tests/$t.trs" 2>/dev/null)
  : > "$dir/findings"
  for log in "$dir"/valgrind.* "$dir"/asan.* "$dir"/ubsan.*; do
    [ -f "$log" ] || continue
    case $log in
      */valgrind.*) valgrind_findings "$log" ;;
      *) cat "$log" ;;
    esac > "$dir/findings.tmp"
    if [ -s "$dir/findings.tmp" ]; then
      { echo "--- $log"; cat "$dir/findings.tmp"; } >> "$dir/findings"
    fi
  done
  rm -f "$dir/findings.tmp"
  if [ "$result" = PASS ] && [ ! -s "$dir/findings" ]; then
    echo "PASS: $t ($(($(date +%s) - start)) s)"
  else
    failed=$((failed + 1))
    echo "FAIL: $t (test result: ${result:-none}, logs in $dir)"
    [ "$result" = PASS ] || tail -n 20 "$objdir/tests/$t.log" 2>/dev/null || tail -n 20 "$dir/make.log"
    head -n 40 "$dir/findings"
  fi
done

if [ "$failed" -ne 0 ]; then
  echo "check-new-tests: $failed of $count new tests failed under $mode"
  exit 1
fi
echo "check-new-tests: all $count new tests pass under $mode"
