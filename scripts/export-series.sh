#!/bin/sh
# Export the build tree's commits upstream..HEAD as the series in PATCHDIR:
# numbered patches and a cover letter, 0000-cover-letter.patch, replacing
# the numbered patches there.  The cover letter keeps the subject and blurb
# of the one it replaces.  The output depends on the commits alone, so an
# unchanged series exports byte for byte the same: no system or global git
# configuration, the settings that change format-patch output pinned, zero
# commit hashes, no signature, and the cover letter from and dated as the
# last patch.
# Usage: scripts/export-series.sh TREE PATCHDIR
set -eu

[ $# -eq 2 ] || { echo "usage: $0 TREE PATCHDIR" >&2; exit 2; }
tree=$1
patchdir=$2

die() { echo "export-series: $*" >&2; exit 1; }

git -C "$tree" rev-parse -q --verify upstream > /dev/null ||
  die "$tree: no tag 'upstream'; not a build tree (see scripts/prepare-tree.sh)"
gitdir=$(git -C "$tree" rev-parse --absolute-git-dir)
if [ -d "$gitdir/rebase-merge" ] || [ -d "$gitdir/rebase-apply" ]; then
  die "$tree: a rebase or git am is in progress; finish it first"
fi
if git -C "$tree" log --format=%s upstream..HEAD | grep -Eq '^(fixup|squash|amend)! '; then
  die "$tree has fixup!/squash! commits; squash them first: git rebase -i --autosquash upstream"
fi
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
  echo "export-series: warning: $tree has uncommitted changes; they are not exported" >&2

old=$(find "$patchdir" -maxdepth 1 -name '[0-9]*.patch' 2>/dev/null | wc -l)
count=$(git -C "$tree" rev-list --count upstream..HEAD)
if [ "$count" -eq 0 ]; then
  rm -f "$patchdir"/[0-9]*.patch
  echo "export-series: no commits in upstream..HEAD: the series is empty; removed $old files from $patchdir"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$patchdir" "$tmp/out"

# The subject (unfolded, without "[PATCH 0/N] ", 00/N from ten patches
# on) and the blurb (the body up to the shortlog, whose "Name (K):"
# groups add up to N) of the current cover letter; git's placeholders
# when there is none.
cover=$patchdir/0000-cover-letter.patch
if [ -f "$cover" ]; then
  LC_ALL=C awk -v subjectfile="$tmp/subject" -v blurbfile="$tmp/blurb" '
    !body && $0 == "" { body = 1; next }
    !body && /^[ \t]/ { if (field == "subject") subj = subj $0; next }
    !body { field = tolower ($1) == "subject:" ? "subject" : ""
            if (field == "subject") subj = substr ($0, 10); next }
    { line[++n] = $0 }
    END {
      if (!match (subj, /^\[[^]]* 0+\/[0-9]+\] /))
        { print "no \"[PATCH 0/N] \" subject" > "/dev/stderr"; exit 1 }
      total = substr (subj, RSTART, RLENGTH); sub (/^.*\//, "", total); total += 0
      for (i = 2; i <= n && !start; i++)
        {
          if (line[i - 1] != "" || line[i] !~ /^[^ ].* \([0-9]+\):$/) continue
          sum = 0
          for (j = i; line[j] ~ /^[^ ].* \([0-9]+\):$/; j++)
            {
              k = line[j]; sub (/^.* \(/, "", k); sum += k + 0
              while (line[j + 1] ~ /^  /) j++
              if (line[j + 1] == "") j++
            }
          if (sum == total) start = i
        }
      if (!start)
        { print "no shortlog of " total " patches" > "/dev/stderr"; exit 1 }
      print substr (subj, RLENGTH + 1) > subjectfile
      for (last = start - 1; last > 0 && line[last] == ""; last--) ;
      for (i = 1; i <= last; i++) print line[i] > blurbfile
    }' "$cover" || die "cannot read the subject and blurb of $cover"
  if LC_ALL=C grep -q '^=?\|[^ -~]' "$tmp/subject"; then
    die "$cover: the subject is not plain ASCII; write it so"
  fi
else
  echo '*** SUBJECT HERE ***' > "$tmp/subject"
  echo '*** BLURB HERE ***' > "$tmp/blurb"
fi

# format-patch signs and dates the cover letter as the committer: let that
# be the author of the last patch, at its date.
last=$(git -C "$tree" rev-parse HEAD)
GIT_COMMITTER_NAME=$(git -C "$tree" log -1 --format=%an "$last")
GIT_COMMITTER_EMAIL=$(git -C "$tree" log -1 --format=%ae "$last")
GIT_COMMITTER_DATE=$(git -C "$tree" log -1 --format=%ad --date=raw "$last")
export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE

# Options override the tree's configuration where format-patch has them;
# -c does for the other settings that change its output.
GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
git -C "$tree" -c core.abbrev=12 -c core.quotePath=true \
    -c diff.mnemonicPrefix=false -c diff.noprefix=false \
    -c diff.suppressBlankEmpty=false -c i18n.commitEncoding=UTF-8 \
    -c i18n.logOutputEncoding=UTF-8 -c format.encodeEmailHeaders=true \
  format-patch -q --zero-commit --no-signature --cover-letter --numbered \
    --cover-from-description=none --subject-prefix=PATCH --no-signoff \
    --no-base --no-to --no-cc --no-add-header --no-thread --no-attach \
    --suffix=.patch --filename-max-length=64 --no-relative --find-renames \
    --diff-algorithm=myers --indent-heuristic -U3 --inter-hunk-context=0 \
    --src-prefix=a/ --dst-prefix=b/ -O/dev/null --stat=72 --summary \
    -o "$tmp/out" upstream..HEAD > /dev/null

LC_ALL=C awk -v subjectfile="$tmp/subject" -v blurbfile="$tmp/blurb" '
  /^Subject: / && !done_subject++ {
    getline subject < subjectfile
    i = index ($0, "*** SUBJECT HERE ***")
    if (i) $0 = substr ($0, 1, i - 1) subject
  }
  $0 == "" && !done_headers++ && !mime {
    if (subject blurb_text() ~ /[\200-\377]/)
      print "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit"
  }
  /^Content-Type: / && !done_headers { mime = 1 }
  $0 == "*** BLURB HERE ***" { printf "%s", blurb_text(); next }
  { print }
  function blurb_text (  l) {
    if (!read_blurb++)
      while ((getline l < blurbfile) > 0) text = text l "\n"
    return text
  }' "$tmp/out/0000-cover-letter.patch" > "$tmp/cover"
mv "$tmp/cover" "$tmp/out/0000-cover-letter.patch"

rm -f "$patchdir"/[0-9]*.patch
mv "$tmp/out"/*.patch "$patchdir"/
[ "$count" -eq 1 ] && s= || s=es
echo "export-series: the cover letter and $count patch$s of upstream..HEAD in $patchdir (replacing $old files)"
if grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$patchdir/0000-cover-letter.patch"; then
  echo "export-series: write the subject and blurb of $patchdir/0000-cover-letter.patch; the next export keeps them"
fi
