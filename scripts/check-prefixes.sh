#!/bin/sh
# Does every patch of patches/ build and pass make check on its own?  In
# BUILDDIR/tree (scripts/prepare-tree.sh: the pristine release with the
# series applied) each prefix of the series, from the release alone to all
# but the last patch (the whole series is what make check checks), is
# checked out in turn, built incrementally in BUILDDIR/obj and run through
# elfutils' whole make check (scripts/check-tree.sh).  A prefix passes when
#   - every test that fails or skips there fails or skips on the release
#     too (a test listed in tests/known-flaky.txt is first run again, alone,
#     up to twice), and
#   - every test its last patch adds (tests/run-*.sh) passes.
# Each prefix's results stay in BUILDDIR/results-K; the summary goes to the
# output.  Takes about a make check per patch.  With FIRST, the prefixes
# before the one of FIRST patches are not checked again (results-0 of an
# earlier run stands for the release).
# Usage: scripts/check-prefixes.sh TARBALL BUILDDIR [FIRST]
set -eu

[ $# -eq 2 ] || [ $# -eq 3 ] ||
  { echo "usage: $0 TARBALL BUILDDIR [FIRST]" >&2; exit 2; }
first=${3:-0}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$2"
builddir=$(cd "$2" && pwd)
tree=$builddir/tree
objdir=$builddir/obj

"$top/scripts/prepare-tree.sh" "$1" "$tree"
tip=$(git -C "$tree" symbolic-ref -q --short HEAD || git -C "$tree" rev-parse HEAD)
commits="$(git -C "$tree" rev-parse upstream) $(git -C "$tree" rev-list --reverse upstream..HEAD~1)"
# The tree goes back to the whole series, as prepare-tree.sh left it.
trap 'git -C "$tree" checkout -q "$tip"' EXIT
trap 'exit 1' HUP INT TERM

# Run test $1 alone again, up to twice, if known-flaky.txt lists it;
# true if a rerun passes.
passes_rerun() {
  grep -q "^$1[ 	]" "$top/tests/known-flaky.txt" || return 1
  for try in 2 3; do
    make -s -C "$objdir/tests" check TEST_LOGS="$1.log" \
      TEST_SUITE_LOG=rerun-suite.log > /dev/null 2>&1 || true
    [ "$(sed -n 's/^:test-result: //p' "$objdir/tests/$1.trs")" != PASS ] ||
      { echo "check-prefixes: $1 passed on try $try (known flaky)"; return 0; }
  done
  return 1
}

status=0
k=0
[ "$first" -eq 0 ] || [ -f "$builddir/results-0" ] ||
  { echo "check-prefixes: no $builddir/results-0 of an earlier run" >&2; exit 2; }
for c in $commits; do
  [ "$k" -ge "$first" ] || { k=$((k + 1)); continue; }
  git -C "$tree" checkout -q --detach "$c"
  subject=$(git -C "$tree" log -1 --format=%s "$c")
  echo "check-prefixes: $k: $subject"
  "$top/scripts/check-tree.sh" "$tree" "$objdir" ||
    { echo "check-prefixes: $k: the build failed, see $objdir"; status=1; k=$((k + 1)); continue; }
  cp "$objdir/results" "$builddir/results-$k"
  bad=
  if [ "$k" -gt 0 ]; then
    for t in $(grep -E '^(FAIL|ERROR|SKIP) ' "$builddir/results-$k" |
               grep -vxF -f "$builddir/results-0" | cut -d' ' -f2); do
      passes_rerun "$t" || bad="$bad $t"
    done
    for t in $(git -C "$tree" diff --name-only --diff-filter=A "$c~1" "$c" -- 'tests/run-*.sh'); do
      t=$(basename "$t")
      grep -qx "PASS $t" "$builddir/results-$k" ||
	passes_rerun "$t" || bad="$bad $t(new)"
    done
  fi
  echo "check-prefixes: $k: $(grep -c '^PASS ' "$builddir/results-$k") passed, $(grep -vc '^PASS ' "$builddir/results-$k") not${bad:+; failing, not on the release:$bad}"
  [ -z "$bad" ] || status=1
  k=$((k + 1))
done
exit $status
