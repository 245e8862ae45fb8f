#!/bin/sh
# Fetch linux-source-6.1 (scripts/fetch-perf.sh, into BUILDDIR/dl), make
# perf's trees (scripts/prepare-perf.sh: BUILDDIR/perf/src with
# clients/perf/'s patches, BUILDDIR/perf/src-upstream without), and build
# both against the elfutils build in OBJDIR (its source tree TREE):
# BUILDDIR/perf/patched/perf and BUILDDIR/perf/unpatched/perf.  perf
# unwinds with libdw (NO_LIBUNWIND=1); the optional features that this
# work does not need are off.  elfutils is not installed: its public
# headers are linked in the installed layout in BUILDDIR/perf/elfutils,
# and perf links with OBJDIR's libdw.so and libelf.so, found at run time
# through the rpath, so that it always runs the current build of the
# series.  Incremental: what is there and up to date is left as it is.
# JOBS (default 2) is make's -j.
# Usage: scripts/build-perf.sh BUILDDIR TREE OBJDIR
set -eu

[ $# -eq 3 ] || { echo "usage: $0 BUILDDIR TREE OBJDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
builddir=$(cd "$1" && pwd)
tree=$(cd "$2" && pwd)
objdir=$(cd "$3" && pwd)
out=$builddir/perf
jobs=${JOBS:-2}
. "$top/perf.version"

die() { echo "build-perf: $*" >&2; exit 1; }

[ -f "$objdir/libdw/libdw.so" ] || die "$objdir/libdw/libdw.so is missing; build elfutils first (make build)"

"$top/scripts/fetch-perf.sh" "$builddir/dl"
"$top/scripts/prepare-perf.sh" \
  "$builddir/dl/${LINUX_SOURCE_PACKAGE}_${LINUX_SOURCE_VERSION}_all.deb" "$out/src"

# elfutils' public headers and libraries where perf's feature tests and
# build look for them: -I and -L reach every feature test (LIBDW_DIR
# reaches only libdw-dwarf-unwind's, not dwarf's).
eu=$out/elfutils
mkdir -p "$eu/include/elfutils" "$eu/lib"
for h in libdw/libdw.h libdwfl/libdwfl.h libdwelf/libdwelf.h libdw/known-dwarf.h \
         libelf/elf-knowledge.h; do
  ln -sf "$tree/$h" "$eu/include/elfutils/"
done
ln -sf "$objdir/version.h" "$eu/include/elfutils/"
for h in libdw/dwarf.h libelf/libelf.h libelf/gelf.h libelf/nlist.h; do
  ln -sf "$tree/$h" "$eu/include/"
done
ln -sf "$objdir/libdw/libdw.so" "$objdir/libelf/libelf.so" "$eu/lib/"

# make's arguments, one a line: perf's optional features are off unless
# needed; libiberty (libiberty-dev) demangles C++ as Debian's perf does.
flags="EXTRA_CFLAGS=-O2 -I$eu/include
prefix=/usr
$(for f in LIBUNWIND LIBPYTHON LIBPERL LIBBPF JEVENTS SLANG GTK2 LIBNUMA \
           LIBCRYPTO LIBBABELTRACE LIBAUDIT LIBCAP LIBBFD LIBDEBUGINFOD; do
    echo "NO_$f=1"
  done)"

for kind in patched unpatched; do
  case $kind in
    patched) src=$out/src ;;
    unpatched) src=$out/src-upstream ;;
  esac
  [ -f "$src/tools/perf/util/unwind-libdw.c" ] || die "$src: no perf source tree"
  # perf's make takes 20 s to find nothing to do: the commit built and
  # the flags are enough to know, when the tree has no changes.
  stamp="$(git -C "$src" rev-parse HEAD) $(echo "$flags" | sha256sum | cut -c1-16)"
  if [ -x "$out/$kind/perf" ] && [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] &&
     [ "$(cat "$out/$kind/.built" 2>/dev/null)" = "$stamp" ]; then
    echo "build-perf: $out/$kind/perf (up to date)"
    continue
  fi
  rm -f "$out/$kind/.built"
  mkdir -p "$out/$kind"
  # LDFLAGS from the environment: perf's makefiles add to it.
  old_ifs=$IFS
  IFS='
'
  # shellcheck disable=SC2086
  LDFLAGS="-L$eu/lib -Wl,-rpath,$objdir/libdw:$objdir/libelf" \
  nice make -C "$src/tools/perf" O="$out/$kind" -j"$jobs" $flags \
    > "$out/$kind-build.log" 2>&1 ||
    { tail -n 40 "$out/$kind-build.log" >&2; die "building the $kind perf failed, see $out/$kind-build.log"; }
  IFS=$old_ifs
  "$out/$kind/perf" version --build-options 2>/dev/null | grep -q 'libdw-dwarf-unwind: \[ on' ||
    die "the $kind perf was built without libdw's DWARF unwinding, see $out/$kind-build.log"
  echo "$stamp" > "$out/$kind/.built"
  echo "build-perf: $out/$kind/perf"
done
