#!/bin/sh
# eu-stackprof's libdwfl calls for MMAP2 events, before and after the
# master series' last patch made it use dwfl_report_elf_mmap
# (clients/stackprof/stackprof-calls.c), on the executable pieces perf
# records of the series' real-loader testfiles.  After, every
# function's address must name the function; before is reported, with
# the figures, in BUILDDIR/stackprof-calls.txt.  The truth is the bias
# the loader gave each file (dl_iterate_phdr, in its .pieces file) plus
# the symbol's value (readelf -s).
# Usage: tests/stackprof-calls.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/elfutils}
objdir=${OBJDIR:-$top/build/obj}
builddir=$(dirname "$objdir")
work=$builddir/stackprof-calls
rm -rf "$work"
mkdir -p "$work"

# Built as perfsym is, against the build's libdw.
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$builddir/profiler/include" \
  -I"$tree/libelf" -I"$tree/libdw" \
  -o "$work/stackprof-calls" "$top/clients/stackprof/stackprof-calls.c" \
  -L"$objdir/libdw" -L"$objdir/libelf" -ldw -lelf \
  -Wl,-rpath,"$objdir/libdw" -Wl,-rpath,"$objdir/libelf"

report=$builddir/stackprof-calls.txt
echo "layout: the function at the loader's address as named before / after, modules before / after" > "$report"
failed=0
for layout in bfd lld mold gold pie-bfd pie-lld pie-mold; do
  file=$work/testfile-mmap-$layout
  bunzip2 -c "$tree/tests/testfile-mmap-$layout.bz2" > "$file"
  pieces=$tree/tests/testfile-mmap-$layout.pieces
  sed -n 's/^perf-exec //p' "$pieces" > "$work/$layout.exec"
  bias=$(sed -n 's/^bias //p' "$pieces")
  fn=$(readelf -sW "$file" | awk '$8 == "mmap_lib_work" || $8 == "main" { print $8, $2; exit }')
  name=${fn% *}
  addr=$(printf '%x' $((0x$bias + 0x${fn#* })))
  before=$("$work/stackprof-calls" before "$file" "$work/$layout.exec" "$addr")
  after=$("$work/stackprof-calls" after "$file" "$work/$layout.exec" "$addr")
  echo "$layout: $name at $addr: ${before% *} / ${after% *}, ${before#* } / ${after#* }" >> "$report"
  if [ "${after% *}" != "$name" ]; then
    echo "stackprof-calls: $layout: after, $addr is ${after% *}, not $name"
    failed=1
  fi
done
cat "$report"
exit $failed
