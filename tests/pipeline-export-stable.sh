#!/bin/sh
# The series goes through the pipeline unchanged.  A fresh tree made from
# the release tarball by scripts/prepare-tree.sh holds one commit per patch
# of patches/, with the same patch-ids, and scripts/export-series.sh (make
# series) exports it to patches/ byte for byte; so does the build tree,
# which fails while it has commits that were not exported.  Only clones
# and fresh trees in a temporary directory are used: the build tree is
# never touched.  TARBALL and TREE (as scripts/check.sh sets them) default
# to the layout of the Makefile.
# Usage: tests/pipeline-export-stable.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/elfutils.version"
tarball=${TARBALL:-$top/build/dl/elfutils-$ELFUTILS_VERSION.tar.bz2}
tree=${TREE:-$top/build/elfutils}
patches=$top/patches

fail() { echo "pipeline-export-stable: FAIL: $*" >&2; exit 1; }

[ -f "$tarball" ] || fail "no $tarball; run make first"
git -C "$tree" rev-parse -q --verify upstream > /dev/null || fail "$tree is not a build tree; run make first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

series_files() {
  for f in "$1"/[0-9]*.patch; do
    if [ -f "$f" ]; then basename "$f"; fi
  done
}

# Export the tree $1 into $tmp/export-$2, starting from the cover letter
# of patches/ as make series does, and compare the result with patches/.
export_matches() {
  out=$tmp/export-$2
  mkdir "$out"
  [ ! -f "$patches/0000-cover-letter.patch" ] || cp "$patches/0000-cover-letter.patch" "$out"
  "$top/scripts/export-series.sh" "$1" "$out" > /dev/null
  series_files "$patches" > "$out.want"
  series_files "$out" > "$out.got"
  diff -u --label patches/ --label "export of the $2 tree" "$out.want" "$out.got" || return 1
  for f in $(series_files "$patches"); do
    cmp -s "$patches/$f" "$out/$f" || { diff -u "$patches/$f" "$out/$f" | head -n 40; return 1; }
  done
}

count=$(series_files "$patches" | grep -vc '^0000-cover-letter\.patch$' || true)

"$top/scripts/prepare-tree.sh" "$tarball" "$tmp/fresh" > /dev/null
for f in $(series_files "$patches"); do
  git patch-id --stable < "$patches/$f" | cut -d' ' -f1
done > "$tmp/ids.series"
for c in $(git -C "$tmp/fresh" rev-list --reverse upstream..HEAD); do
  git -C "$tmp/fresh" show --binary --find-renames --diff-algorithm=myers -U3 \
      --src-prefix=a/ --dst-prefix=b/ "$c" | git patch-id --stable | cut -d' ' -f1
done > "$tmp/ids.fresh"
cmp -s "$tmp/ids.series" "$tmp/ids.fresh" ||
  fail "the tree prepare-tree made from patches/ has other patch-ids than patches/"
echo "pipeline-export-stable: prepare-tree applies the $count patches with their patch-ids"

export_matches "$tmp/fresh" fresh ||
  fail "exporting the tree made from patches/ does not reproduce patches/: the export is not stable"
echo "pipeline-export-stable: exporting that tree reproduces patches/ byte for byte"

git clone -q "$tree" "$tmp/build-tree"
export_matches "$tmp/build-tree" build ||
  fail "exporting $tree does not reproduce patches/: it has commits that were not exported (make series)"
echo "pipeline-export-stable: exporting $tree reproduces patches/ byte for byte"
