#!/bin/sh
# Make perf's source trees from the linux-source-6.1 package: TREE, a git
# repository whose first commit, tagged 'upstream', is the pristine perf
# of the kernel tarball the package holds, with every patch of
# clients/perf/ applied on top by git am; and TREE-upstream, a worktree
# of the pristine commit, for the unpatched build beside it.  Only what
# perf's build reads is extracted: the entries of tools/perf/MANIFEST
# (what perf's own source tarball, make perf-tar-src-pkg, packs), and the
# kernel's top Makefile with the few files that its `make kernelversion`
# reads, which perf's version script runs in a git tree.
# When the patches have not changed since TREE was made, it is left as it
# is (with any work in progress); when they have, they are applied again,
# unless TREE holds commits that are not in clients/perf/.
#
# With --export, write TREE's commits upstream..HEAD to clients/perf/ as
# the patches instead (git format-patch, the same bytes for the same
# commits).
# Usage: scripts/prepare-perf.sh DEB TREE
#        scripts/prepare-perf.sh --export TREE
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
patchdir=$top/clients/perf
. "$top/perf.version"

die() { echo "prepare-perf: $*" >&2; exit 1; }

# Fixed identities and dates make the base commit and every applied patch
# the same commit on every machine, so exports are byte-stable.
export GIT_AUTHOR_NAME="linux release" GIT_AUTHOR_EMAIL="linux-release@invalid"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

patches() {
  find "$patchdir" -maxdepth 1 -name '[0-9]*.patch' | sort
}

series_hash() {
  # shellcheck disable=SC2046
  cat /dev/null $(patches) | sha256sum | cut -d' ' -f1
}

if [ "${1:-}" = --export ]; then
  [ $# -eq 2 ] || { echo "usage: $0 --export TREE" >&2; exit 2; }
  tree=$2
  git -C "$tree" rev-parse -q --verify upstream > /dev/null ||
    die "$tree: no tag 'upstream'; not a perf tree"
  [ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
    echo "prepare-perf: warning: $tree has uncommitted changes; they are not exported" >&2
  patches | xargs rm -f
  git -C "$tree" -c diff.noprefix=false -c diff.renames=true -c diff.algorithm=myers \
    -c format.signature= format-patch -q --zero-commit --no-signature --no-numbered \
    -o "$patchdir" upstream..HEAD
  echo "$(series_hash) $(git -C "$tree" rev-parse HEAD)" > "$tree/.git/series-applied"
  echo "prepare-perf: exported $(patches | wc -l) patches to $patchdir"
  exit 0
fi

[ $# -eq 2 ] || { echo "usage: $0 DEB TREE" >&2; exit 2; }
deb=$1
tree=$2
stamp="$tree/.git/series-applied"

make_base() {
  rm -rf "$tree" "$tree-upstream"
  mkdir -p "$tree"
  dir=$LINUX_SOURCE_PACKAGE
  # tools/perf/MANIFEST of 6.1, and what make kernelversion reads.
  dpkg-deb --fsys-tarfile "$deb" |
    tar -xO "./usr/src/$dir.tar.xz" |
    tar -xJ --no-same-owner --strip-components=1 -C "$tree" --wildcards \
      "$dir/tools/perf" "$dir/tools/arch" "$dir/tools/scripts" \
      "$dir/tools/build" "$dir/tools/include" "$dir/tools/lib" \
      "$dir/tools/bpf/bpftool" "$dir/scripts/bpf_doc.py" \
      "$dir/kernel/bpf/disasm.c" "$dir/kernel/bpf/disasm.h" \
      "$dir/Makefile" "$dir/arch/*/Makefile" "$dir/scripts/Kbuild.include" \
      "$dir/scripts/subarch.include" "$dir/scripts/Makefile.extrawarn" \
      "$dir/scripts/pahole-flags.sh" ||
    die "$deb: cannot extract perf from its $dir.tar.xz"
  [ -f "$tree/tools/perf/util/unwind-libdw.c" ] || die "$deb holds no tools/perf"
  git -C "$tree" init -q
  git -C "$tree" config core.autocrlf false
  git -C "$tree" add -A
  GIT_AUTHOR_DATE="2021-01-01T00:00:00Z" GIT_COMMITTER_DATE="2021-01-01T00:00:00Z" \
    git -C "$tree" commit -q -m "perf of $LINUX_SOURCE_PACKAGE $LINUX_SOURCE_VERSION"
  git -C "$tree" tag upstream
}

apply_series() {
  git -C "$tree" reset -q --hard upstream
  for p in $(patches); do
    git -C "$tree" am -q --committer-date-is-author-date "$p" ||
      { git -C "$tree" am --abort 2>/dev/null || true
        die "clients/perf/$(basename "$p") does not apply to perf of $LINUX_SOURCE_PACKAGE $LINUX_SOURCE_VERSION"; }
  done
  echo "$(series_hash) $(git -C "$tree" rev-parse HEAD)" > "$stamp"
  echo "prepare-perf: applied $(git -C "$tree" rev-list --count upstream..HEAD) patches to $tree"
}

if ! git -C "$tree" rev-parse -q --verify upstream > /dev/null 2>&1; then
  make_base
  apply_series
fi
if [ ! -d "$tree-upstream" ]; then
  git -C "$tree" worktree prune
  git -C "$tree" worktree add -q --detach "$(cd "$tree/.." && pwd)/$(basename "$tree")-upstream" upstream
fi

applied_hash=none applied_head=none
if [ -f "$stamp" ]; then
  read -r applied_hash applied_head < "$stamp"
fi
[ "$applied_hash" = "$(series_hash)" ] && exit 0

if [ "$(git -C "$tree" rev-parse HEAD)" = "$applied_head" ] &&
   [ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
  apply_series
else
  die "clients/perf/ changed, and $tree has commits or changes that are not in it.
Export them (scripts/prepare-perf.sh --export $tree) or remove $tree first."
fi
