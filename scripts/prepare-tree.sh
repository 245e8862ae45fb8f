#!/bin/sh
# Make the build tree: a git repository whose first commit, tagged
# 'upstream', is the pristine elfutils release, with every patch of
# patches/ applied on top by git am.  When patches/ has not changed since
# the tree was made, the tree is left as it is (with any work in progress);
# when it has, the series is applied again, unless the tree holds commits
# that were never exported.
# Usage: scripts/prepare-tree.sh TARBALL TREE
set -eu

[ $# -eq 2 ] || { echo "usage: $0 TARBALL TREE" >&2; exit 2; }
tarball=$1
tree=$2
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/elfutils.version"
stamp="$tree/.git/series-applied"

die() { echo "prepare-tree: $*" >&2; exit 1; }

# Fixed identities and dates make the base commit and every applied patch
# the same commit on every machine, so exports are byte-stable.
export GIT_AUTHOR_NAME="elfutils release" GIT_AUTHOR_EMAIL="elfutils-devel@sourceware.org"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"

series_hash() {
  cat /dev/null "$top"/patches/[0-9]*.patch 2>/dev/null | sha256sum | cut -d' ' -f1
}

# Each commit's diff as export-series.sh writes it (binary files included),
# whatever the configuration, so that its patch-id is the patch file's.
patch_ids_of_tree() {
  for c in $(git -C "$tree" rev-list --reverse upstream..HEAD); do
    git -C "$tree" show --binary --find-renames --diff-algorithm=myers -U3 \
        --src-prefix=a/ --dst-prefix=b/ "$c" | git patch-id --stable | cut -d' ' -f1
  done
}

patch_ids_of_series() {
  for f in "$top"/patches/[0-9]*.patch; do
    [ -f "$f" ] || continue
    git patch-id --stable < "$f" | cut -d' ' -f1
  done
}

make_base() {
  rm -rf "$tree"
  mkdir -p "$tree"
  tar xjf "$tarball" --no-same-owner --strip-components=1 -C "$tree"
  git -C "$tree" init -q
  git -C "$tree" config core.autocrlf false
  cp "$top/elfutils.generated" "$tree/.git/info/exclude"
  git -C "$tree" add -A
  GIT_AUTHOR_DATE="2024-10-18T00:00:00Z" GIT_COMMITTER_DATE="2024-10-18T00:00:00Z" \
    git -C "$tree" commit -q -m "elfutils $ELFUTILS_VERSION release"
  git -C "$tree" tag upstream
}

apply_series() {
  git -C "$tree" reset -q --hard upstream
  for p in "$top"/patches/[0-9]*.patch; do
    [ -f "$p" ] || continue
    grep -q '^diff --git' "$p" || continue   # the cover letter
    git -C "$tree" am -q --committer-date-is-author-date "$p" ||
      { git -C "$tree" am --abort 2>/dev/null || true
        die "patches/$(basename "$p") does not apply to elfutils $ELFUTILS_VERSION"; }
  done
  echo "$(series_hash) $(git -C "$tree" rev-parse HEAD)" > "$stamp"
  echo "prepare-tree: applied $(git -C "$tree" rev-list --count upstream..HEAD) patches to $tree"
}

if ! git -C "$tree" rev-parse -q --verify upstream > /dev/null 2>&1; then
  make_base
  apply_series
  exit 0
fi

[ -f "$stamp" ] && read -r applied_hash applied_head < "$stamp" ||
  { applied_hash=none; applied_head=none; }
[ "$applied_hash" = "$(series_hash)" ] && exit 0

head=$(git -C "$tree" rev-parse HEAD)
if [ "$(patch_ids_of_tree)" = "$(patch_ids_of_series)" ]; then
  # The tree is what patches/ holds: it was just exported.
  echo "$(series_hash) $head" > "$stamp"
elif [ "$head" = "$applied_head" ] &&
     [ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
  apply_series
else
  die "patches/ changed, and $tree has commits or changes that are not in patches/.
Export them (make series) or drop them (make reset-tree) first."
fi
