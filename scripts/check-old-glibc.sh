#!/bin/sh
# The series on an older C library and compiler: Debian 11 (glibc 2.31,
# before stat became a function of its own in 2.33 and mallinfo2 was
# added; gcc 10; valgrind 3.16), as RHEL 8, SLES 15 and Ubuntu 20.04
# builders of elfutils have it.  In BUILDDIR/root, a Debian 11 chroot
# made by debootstrap from Debian's archive (once), the release TARBALL
# and the build tree TREE (prepared by make build: the series applied,
# configure made) are each configured, built and run through elfutils'
# whole make check.  It passes when the tests the series adds pass, and
# every test the release passes runs and passes with the series.  With
# --quick, only the series is built and only its own tests are run (make
# check's tests/old-glibc-smoke.sh).  As root (debootstrap, chroot).
# Usage: scripts/check-old-glibc.sh [--quick] TARBALL TREE BUILDDIR
set -eu

quick=false
[ "${1:-}" = --quick ] && { quick=true; shift; }
[ $# -eq 3 ] || { echo "usage: $0 [--quick] TARBALL TREE BUILDDIR" >&2; exit 2; }
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tree=$(cd "$2" && pwd)
mkdir -p "$3"
root=$(cd "$3" && pwd)/root
suite=bullseye
packages=gcc,g++,make,libc6-dev,zlib1g-dev,libbz2-dev,liblzma-dev,libzstd-dev,pkg-config,gawk,flex,bison,m4,bzip2,xz-utils,valgrind

die() { echo "check-old-glibc: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and chroot)"
[ -f "$tree/configure" ] || die "$tree has no configure: run make build first"

# The chroot is made again when the suite or its packages change.
made="$suite $packages"
if [ "$(cat "$root/.made" 2>/dev/null)" != "$made" ]; then
  command -v debootstrap > /dev/null ||
    die "debootstrap is missing (scripts/install-deps.sh installs it)"
  echo "check-old-glibc: debootstrap $suite in $root"
  rm -rf "$root"
  debootstrap --variant=minbase --include=$packages $suite "$root" \
    http://deb.debian.org/debian > "$root.log" 2>&1 ||
    die "debootstrap failed, see $root.log"
  echo "$made" > "$root/.made"
fi

mount -t proc proc "$root/proc"
trap 'umount "$root/proc"' EXIT
trap 'exit 1' HUP INT TERM

# The tests the series adds.
git -C "$tree" diff --name-only --diff-filter=A upstream HEAD -- \
    'tests/run-*.sh' | sed 's,^tests/,,' > "$root/added"
[ -s "$root/added" ] || die "$tree adds no tests/run-*.sh to its tag upstream"

# The release and the series (or the series alone, with its own tests),
# each configured and built afresh and run through make check; the
# results as lines "RESULT TEST".
rm -rf "$root/src"
mkdir -p "$root/src/series"
(cd "$tree" && tar -c --exclude=.git --exclude=autom4te.cache .) |
  tar -x -C "$root/src/series"
: > "$root/src/release.results"
trees="release series"
tests=
if $quick; then
  trees=series
  tests="TESTS='$(tr '\n' ' ' < "$root/added")'"
else
  tar -xjf "$tarball" -C "$root/src"
  mv "$root/src"/elfutils-* "$root/src/release"
fi
for which in $trees; do
  echo "check-old-glibc: $which: configure, make, make check"
  chroot "$root" sh -c "cd /src/$which && mkdir obj && cd obj &&
    ../configure --disable-debuginfod --disable-libdebuginfod \
      --disable-demangler > configure.log 2>&1 &&
    make -j$(nproc) > make.log 2>&1" ||
    die "$which did not build, see $root/src/$which/obj/*.log"
  chroot "$root" sh -c "cd /src/$which/obj && make -j$(nproc) check $tests" \
    > "$root/src/$which.check.log" 2>&1 || true
  sed -n 's/^\(PASS\|FAIL\|SKIP\|ERROR\|XFAIL\|XPASS\): /\1 /p' \
    "$root/src/$which.check.log" > "$root/src/$which.results"
  [ -s "$root/src/$which.results" ] ||
    die "$which ran no test, see $root/src/$which.check.log"
done

# The tests the series adds must pass; any other test that passes in the
# release must run and pass with the series.
awk 'FILENAME ~ /added$/ { added[$1] = 1; next }
     FILENAME ~ /release.results$/ { release[$2] = $1; next }
     { series[$2] = $1 }
     function bad(test, what) { print "check-old-glibc: " test ": " what; b = 1 }
     END {
       for (t in added)
         if (!(t in series))
           bad(t, "not run (the series adds it)")
         else if (series[t] != "PASS")
           bad(t, series[t] " (the series adds it)")
       for (t in series)
         if (!(t in added) && series[t] != "PASS" &&
             (!(t in release) || release[t] == "PASS"))
           bad(t, series[t] " with the series, " \
                  ((t in release) ? release[t] : "not run") " without")
       for (t in release)
         if (release[t] == "PASS" && !(t in series))
           bad(t, "passes without the series, not run with it")
       exit b
     }' "$root/added" "$root/src/release.results" "$root/src/series.results" ||
  die "see $root/src/series/obj/tests/*.log"
passed() { echo "$1 $(grep -c '^PASS ' "$root/src/$1.results") passed"; }
if $quick; then
  summary="$(passed series): the tests it adds"
else
  summary="$(passed release), $(passed series): the tests it adds, and"
  summary="$summary every test the release passes"
fi
echo "check-old-glibc: glibc $(chroot "$root" ldd --version | sed -n '1s/.* //p'): $summary"
