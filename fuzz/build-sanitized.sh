#!/bin/sh
# Build the elfutils source TREE in OBJDIR with clang, AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage instrumentation,
# for the fuzzers in fuzz/.  elfutils' own --enable-sanitize-* options
# are used (--enable-sanitize-undefined also turns off its deliberate
# unaligned accesses), but with clang they need the shared sanitizer
# runtime: libdw.so is linked with -z defs, and clang leaves the static
# runtime's symbols undefined in a shared library.  The sanitizers are
# in CFLAGS from the start too, as the coverage instrumentation needs
# their runtime to link configure's first test program.
# Maintainer mode, which build-elfutils.sh turns on, is turned off again:
# its rules regenerate libcpu/*_dis.h in TREE with a generator that
# clang's UBSan aborts (pointer arithmetic on NULL in glibc's
# obstack_finish).  `make` keeps TREE's generated files current.
# Usage: fuzz/build-sanitized.sh TREE OBJDIR
set -eu

[ $# -eq 2 ] || { echo "usage: $0 TREE OBJDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
command -v clang++ > /dev/null ||
  { echo "build-sanitized: clang and clang++ are needed" >&2; exit 1; }

rtdir=$(clang -print-runtime-dir)
CC=clang
CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined"
CFLAGS="$CFLAGS -fsanitize=fuzzer-no-link -shared-libasan"
CXX=clang++
CXXFLAGS=$CFLAGS
LDFLAGS="-shared-libasan -Wl,-rpath,$rtdir"
export CC CFLAGS CXX CXXFLAGS LDFLAGS
EXTRA_CONFIGURE_FLAGS="--enable-sanitize-address --enable-sanitize-undefined"
EXTRA_CONFIGURE_FLAGS="$EXTRA_CONFIGURE_FLAGS --disable-maintainer-mode"
export EXTRA_CONFIGURE_FLAGS

# build-elfutils.sh reconfigures when its configure flags change, not
# when the compiler flags do: start over in a clean OBJDIR then.
env="CC=$CC CXX=$CXX CFLAGS=$CFLAGS LDFLAGS=$LDFLAGS"
if [ -d "$2" ] && [ "$(cat "$2/sanitize-env" 2>/dev/null)" != "$env" ]; then
  echo "build-sanitized: compiler flags changed, removing $2"
  rm -rf "$2"
fi
mkdir -p "$2"
echo "$env" > "$2/sanitize-env"

"$here/../scripts/build-elfutils.sh" "$1" "$2"

# Without these, configure falls back silently to an unsanitized build.
for what in "undefined behaviour" "address"; do
  grep -q "$what sanitizer *: yes" "$2/configure.log" ||
    { echo "build-sanitized: configure did not enable the $what sanitizer, see $2/config.log" >&2
      exit 1; }
done
