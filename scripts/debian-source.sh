# shellcheck shell=sh
# Fetching an upstream tarball from Debian's source archive, shared by
# fetch-elfutils.sh and fetch-perfparser.sh (sourced, not run).  apt-get
# runs on a private configuration under APTDIR (its own source list,
# lists, cache and empty status), so that the machine's own setup is
# untouched; the archive is the one this machine's apt already uses for
# Debian itself.  The caller defines die() (prints its arguments and
# exits 1) and check_hash() (dies unless file $1 is the pinned tarball)
# before calling these.

# The archive URIs this machine's apt already uses for Debian itself (not
# the security archive), from one-line .list files and deb822 .sources files.
archive_uris() {
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
  done
}

# The sha256 of file $1 must be $2; else die with $3 (what to say about it).
check_sha256() {
  sum=$(sha256sum "$1" | cut -d' ' -f1)
  [ "$sum" = "$2" ] || die "$1: sha256 $sum, expected $2 $3"
}

# Put file $1 at $2, whole or not at all.
install_file() {
  cp "$1" "$2.tmp"
  mv "$2.tmp" "$2"
}

# Whether the tarball $1 is in place: kept if it is there, else copied
# from $3, the user's own copy named by variable $2, when that is set.
# Either is checked with the caller's check_hash.
use_local() {
  if [ -f "$1" ]; then
    check_hash "$1"
    return 0
  fi
  [ -n "$3" ] || return 1
  [ -f "$3" ] || die "$2=$3: no such file"
  check_hash "$3"
  install_file "$3" "$1"
}

# Run apt-get or apt-cache (first argument) on the private configuration
# in $aptdir.
apt_private() {
  tool=$1
  shift
  "$tool" -q \
    -o Dir::Etc::SourceList="$aptdir/sources.list" \
    -o Dir::Etc::SourceParts="$aptdir/parts" \
    -o Dir::State::Lists="$aptdir/lists" \
    -o Dir::State::status="$aptdir/status" \
    -o Dir::Cache="$aptdir/cache" \
    -o Debug::NoLocking=1 \
    "$@"
}

# debian_orig PROG APTDIR PACKAGE VERSION SUITES ORIG HINT
# Download the source package PACKAGE of upstream VERSION (the first
# Debian version VERSION-* in SUITES, a blank-separated list of suites
# tried in order) into APTDIR, where it leaves APTDIR/ORIG, the upstream
# tarball; the caller checks its hash.  PROG prefixes the progress
# message; HINT ends the messages of the failures that a local tarball
# would avoid.  The other files of the source package need not download:
# an upstream tarball that did is enough.
debian_orig() {
  prog=$1 aptdir=$2 package=$3 upstream=$4 suites=$5 orig=$6 hint=$7
  uris=$(archive_uris | grep '/debian/*$' | sort -u)
  [ -n "$uris" ] || die "no Debian archive URI in /etc/apt; $hint"
  mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$aptdir/parts"
  : > "$aptdir/status"
  : > "$aptdir/sources.list"
  for uri in $uris; do
    for suite in $suites; do
      echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
        >> "$aptdir/sources.list"
    done
  done

  # shellcheck disable=SC2086,SC2116
  echo "$prog: downloading $package $upstream source from $(echo $uris)"
  apt_private apt-get update >"$aptdir/update.log" 2>&1 ||
    die "apt-get update of the private source list failed (see $aptdir/update.log); $hint"
  version=$(apt_private apt-cache showsrc "$package" 2>/dev/null |
            awk -v v="$upstream" '$1 == "Version:" && index($2, v "-") == 1 { print $2; exit }')
  [ -n "$version" ] ||
    die "no $package $upstream in Debian suites $suites; $hint"
  (cd "$aptdir" && apt_private apt-get source --download-only "$package=$version" >"$aptdir/source.log" 2>&1) ||
    [ -f "$aptdir/$orig" ] ||
    die "apt-get source $package=$version failed (see $aptdir/source.log)"
  [ -f "$aptdir/$orig" ] || die "apt-get source gave no $aptdir/$orig"
}
