#!/bin/sh
# Check patches-master/ on elfutils master, from a local clone of
# elfutils' git repository, GIT (CI cannot reach one, so CI does not run
# this).  In BUILDDIR:
#   1. git am of the series onto the commit that elfutils-master.version
#      records, and onto GIT's newest main (reported, not required);
#   2. master at the recorded commit, without and with the series, each
#      built and run through its whole make check: a test that fails or
#      skips with the series must fail or skip without it;
#   3. the series' new tests under valgrind (scripts/check-new-tests.sh).
# Usage: scripts/check-master.sh GIT BUILDDIR
set -eu

[ $# -eq 2 ] || { echo "usage: $0 GIT BUILDDIR" >&2; exit 2; }
git_repo=$(cd "$1" && pwd)
mkdir -p "$2"
builddir=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/elfutils-master.version"
base=$ELFUTILS_MASTER_COMMIT

die() { echo "check-master: $*" >&2; exit 1; }

export GIT_AUTHOR_NAME=dwfl_report_elf_mmap GIT_AUTHOR_EMAIL=dwfl-mmap@invalid
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
patches=$(for p in "$top"/patches-master/[0-9]*.patch; do
            case $p in */0000-cover-letter.patch) ;; *) echo "$p" ;; esac
          done)

# A fresh tree of GIT at COMMIT in DIR, tagged upstream there.
make_tree() {
  rm -rf "$1"
  git clone -q --shared --no-checkout "$git_repo" "$1"
  git -C "$1" checkout -q --detach "$2"
  git -C "$1" tag upstream
}

echo "check-master: git am onto $base"
make_tree "$builddir/series" "$base"
# shellcheck disable=SC2086
git -C "$builddir/series" am -q $patches ||
  die "the series does not apply to $base"

newest=$(git -C "$git_repo" rev-parse main)
make_tree "$builddir/series-main" "$newest"
# shellcheck disable=SC2086
if git -C "$builddir/series-main" am -q $patches; then
  echo "check-master: the series applies to main ($newest) too"
else
  git -C "$builddir/series-main" am --abort
  echo "check-master: warning: the series does not apply to main ($newest)"
fi
rm -rf "$builddir/series-main"

make_tree "$builddir/base" "$base"

"$top/scripts/check-tree.sh" "$builddir/base" "$builddir/base-obj"
"$top/scripts/check-tree.sh" "$builddir/series" "$builddir/series-obj"

new_bad=$(grep -E '^(FAIL|ERROR|SKIP) ' "$builddir/series-obj/results" |
          grep -vxF -f "$builddir/base-obj/results" || true)
echo "check-master: $(grep -c '^PASS ' "$builddir/series-obj/results") tests pass with the series, $(grep -c '^PASS ' "$builddir/base-obj/results") without"
if [ -n "$new_bad" ]; then
  echo "check-master: with the series, and not without it:"
  echo "$new_bad"
  status=1
else
  echo "check-master: no test fails or skips with the series that does not without it"
  status=0
fi

"$top/scripts/check-new-tests.sh" valgrind "$builddir/series" \
  "$builddir/series-obj" || status=1
exit $status
