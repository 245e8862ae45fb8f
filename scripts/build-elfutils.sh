#!/bin/sh
# Configure and build the elfutils source TREE in OBJDIR.  autoreconf and
# configure run only when their inputs are newer than their outputs;
# maintainer mode makes the build regenerate Makefiles after a Makefile.am
# edit, so a rebuild after a change to the series is incremental.
# EXTRA_CONFIGURE_FLAGS adds configure options (e.g. --enable-valgrind).
# Usage: scripts/build-elfutils.sh TREE OBJDIR
set -eu

[ $# -eq 2 ] || { echo "usage: $0 TREE OBJDIR" >&2; exit 2; }
tree=$(cd "$1" && pwd)
mkdir -p "$2"
objdir=$(cd "$2" && pwd)
flags="--disable-debuginfod --disable-libdebuginfod --enable-maintainer-mode ${EXTRA_CONFIGURE_FLAGS:-}"

if [ ! -f "$tree/configure" ] || [ "$tree/configure.ac" -nt "$tree/configure" ]; then
  echo "build-elfutils: autoreconf"
  (cd "$tree" && autoreconf -fi > "$objdir/autoreconf.log" 2>&1) ||
    { echo "build-elfutils: autoreconf failed, see $objdir/autoreconf.log" >&2; exit 1; }
fi

if [ ! -f "$objdir/config.status" ] || [ "$tree/configure" -nt "$objdir/config.status" ] ||
   [ "$(cat "$objdir/configure-flags" 2>/dev/null)" != "$flags" ]; then
  echo "build-elfutils: configure $flags"
  # shellcheck disable=SC2086
  (cd "$objdir" && "$tree/configure" $flags > configure.log 2>&1) ||
    { echo "build-elfutils: configure failed, see $objdir/config.log" >&2; exit 1; }
  echo "$flags" > "$objdir/configure-flags"
fi

echo "build-elfutils: make -j$(nproc) in $objdir"
make -C "$objdir" -s -j"$(nproc)" > "$objdir/make.log" 2>&1 ||
  { tail -n 30 "$objdir/make.log" >&2
    echo "build-elfutils: make failed, see $objdir/make.log" >&2; exit 1; }
