#!/bin/sh
# The series for the 0.192 release (patches/) and for elfutils master
# (patches-master/) must be one change: patch by patch the same
# messages, the same files added and changed, the same lines added and
# removed.  What may differ is what the two bases number differently:
# NEWS (a 0.193 section there, 0.197 here), libdw/libdw.map (a new node
# there, the existing ELFUTILS_0.197 node here) and the ChangeLog
# entries that name them; the cover letters, which say what each
# series is based on; and the patches after the common ones that only
# master can have, named below (and so the count in "[PATCH i/N]").  Context lines and hunk positions are
# not compared: they are the bases'.
# Usage: tests/series-drift.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
release=$top/patches
master=$top/patches-master
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# What patch $1 says and changes, without the base's context and the
# differences allowed.
changes() {
  # A header folded onto the next line is unfolded first: format-patch
  # folds the subject where "[PATCH i/N]" leaves room, which depends on
  # N.
  awk 'body { print; next }
       /^$/ { if (held != "") print held; held = ""; body = 1; print; next }
       /^[ \t]/ { held = held $0; next }
       { if (held != "") print held; held = $0 }
       END { if (held != "") print held }' "$1" |
  awk '
    function allowed (f) { return f == "NEWS" || f == "libdw/libdw.map" }
    /^diff --git / { file = $4; sub (/^b\//, "", file); skip = allowed(file)
                     print "file " file; next }
    file == "" {
      # The message: no date, no diffstat, no ChangeLog entry of an
      # allowed file.
      if (/^(From |Date: )/) next
      sub (/^Subject: \[PATCH [0-9]+\/[0-9]+\] /, "Subject: ")
      if (/^---$/) { stat = 1; next }
      if (stat) next
      if (/^\t\* /) { entry = $2; sub (/:$/, "", entry); drop = allowed(entry) }
      else if (!/^\t[^(]/) drop = 0
      if (!drop) print
      next
    }
    skip || /^(index |@@|--- |\+\+\+ | )/ { next }
    { print }'
}

# The patches only master has: its process tracker and eu-stackprof are
# not in 0.192.
master_only='libdwfl_stacktrace: Test dwfl_report_elf_mmap with a process tracker
stackprof: Report MMAP2 events with dwfl_report_elf_mmap'

n_release=$(ls "$release"/[0-9]*.patch | grep -vc /0000-cover-letter.patch)
n_master=$(ls "$master"/[0-9]*.patch | grep -vc /0000-cover-letter.patch)
[ "$n_release" -le "$n_master" ] ||
  { echo "series-drift: $n_release patches in patches/, only $n_master in patches-master/"; exit 1; }
for q in $(ls "$master"/[0-9]*.patch | grep -v /0000-cover-letter.patch |
	   tail -n +$((n_release + 1))); do
  subject=$(git mailinfo /dev/null /dev/null < "$q" | sed -n 's/^Subject: //p')
  printf '%s\n' "$master_only" | grep -qxF "$subject" ||
    { echo "series-drift: ${q##*/} is only in patches-master/ and not one of the patches only master may have"; exit 1; }
done

status=0
for p in "$release"/[0-9]*.patch; do
  name=${p##*/}
  case $name in 0000-cover-letter.patch) continue ;; esac
  q=$(ls "$master/${name%%-*}"-*.patch)
  changes "$p" > "$tmp/release"
  changes "$q" > "$tmp/master"
  if ! diff -u "$tmp/release" "$tmp/master" > "$tmp/diff"; then
    echo "series-drift: ${name} and ${q##*/} differ:"
    head -n 40 "$tmp/diff"
    status=1
  fi
done
[ $status -eq 0 ] && echo "series-drift: the $n_release patches of both series are the same change"
exit $status
