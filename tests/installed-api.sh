#!/bin/sh
# dwfl_report_elf_mmap as its users get it: the build's elfutils installed
# (make install DESTDIR=...), then tests/installed/user.c built against
# that installation alone, through pkg-config libdw, and run on it.  The
# installed libdw.so must export both new functions in the version node
# after the release's (readelf), and the program must run on the
# installed libdw (its dwfl_version), not the system's.  Then the issues
# users hit, each against truth from outside libdwfl:
#   - no find_elf callback (perf's unwinder) and dwfl_linux_proc_find_elf:
#     every object of this process's /proc/self/maps gets the file and
#     the load address that dl_iterate_phdr gives, its functions the
#     names of the compiler and of dladdr, and a function of the program
#     and one of libc (its DWARF apart, libc6-dbg) addr2line's lines;
#   - a child's mappings from /proc/PID/maps, without and with find_elf:
#     dwfl_getthread_frames unwinds its stack through the child's own
#     calls, from libc's read to _start;
#   - a library rebuilt with one name changed and identical program
#     headers (readelf -l), renamed over the mapped one, with and without
#     a build ID: the first build's function is named before, and the
#     module refuses the new file after (not the new build's name);
#   - one descriptor for 2000 mappings under RLIMIT_NOFILE 64: one
#     duplicate while they live, none after;
#   - a file replaced under its name 2000 times, one module alive at a
#     time: the heap and the descriptors stay flat;
#   - a library opened once as an Elf and unlinked, reported through
#     dwfl_report_elf_mmap_elf in 8 Dwfls and given back: each names its
#     function (readelf -s) under its own bias;
#   - bad mappings: each refused with the error the header gives it.
# Usage: tests/installed-api.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
objdir=${OBJDIR:-$top/build/obj}
work=$(dirname "$objdir")/installed-api
rm -rf "$work"
mkdir -p "$work"
root=$work/root
failed=0
fail() { echo "installed-api: $*"; failed=1; }

make -C "$objdir" install DESTDIR="$root" > "$work/install.log" 2>&1 ||
  { tail -n 20 "$work/install.log"; echo "installed-api: make install failed"; exit 1; }
# Where configure put the libraries and libdw.pc, under DESTDIR.
libdir=$root$(PKG_CONFIG_PATH=$objdir/config pkg-config --variable=libdir libdw)
pcdir=$libdir/pkgconfig

. "$top/elfutils.version"
node=ELFUTILS_${ELFUTILS_VERSION%.*}.$((${ELFUTILS_VERSION#*.} + 1))
for f in dwfl_report_elf_mmap dwfl_report_elf_mmap_elf; do
  readelf --dyn-syms -W "$libdir/libdw.so" | grep -q " $f@@$node\$" ||
    fail "the installed libdw.so does not export $f@@$node"
done

PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$pcdir \
  pkg-config --cflags --libs libdw > "$work/flags"
# shellcheck disable=SC2046
gcc -std=gnu11 -g -O2 -Wall -Wextra -Werror -o "$work/user" \
  "$top/tests/installed/user.c" $(cat "$work/flags") -Wl,-rpath,"$libdir"
version=$("$work/user" version)
[ "$version" = "$ELFUTILS_VERSION" ] ||
  fail "the program runs on libdw $version, not the installed $ELFUTILS_VERSION"

for callbacks in none proc; do
  out=$("$work/user" self $callbacks) || fail "self, find_elf $callbacks"
  echo "self, find_elf $callbacks: $out"
  # Each source line as binutils' addr2line finds it (it finds libc's
  # DWARF by build ID, in libc6-dbg).
  echo "$out" | while read -r what file addr line; do
    [ "$what" = line ] || continue
    want=$(addr2line -e "$file" "$addr" | sed 's/ (discriminator [0-9]*)$//')
    [ "$line" = "$(basename "$want")" ] ||
      { echo "installed-api: self, find_elf $callbacks: $file $addr is $line, addr2line says $want"; exit 1; }
  done || failed=1
done

# The names are the program's own calls, innermost first; libc's read
# is below them and its start code above.
for callbacks in none proc; do
  out=$("$work/user" unwind $callbacks) || fail "unwind, find_elf $callbacks"
  echo "unwind, find_elf $callbacks: $out"
  case " $out " in
    *?" child_innermost child_middle child_outer unwind main "*" _start ") ;;
    *) fail "unwind, find_elf $callbacks: not the child's calls" ;;
  esac
done

# Two builds of a library that differ in one name only: their program
# headers must be the same, else the case is not the one tested.
for id in sha1 none; do
  for n in first second; do
    echo "int built_$n (int x) { return x * 7 + 3; }" > "$work/$n.c"
    gcc -shared -fPIC -O2 -Wl,--build-id=$id -o "$work/$n-$id.so" "$work/$n.c"
    readelf -lW "$work/$n-$id.so" | sed -n '/^Program Headers/,/^$/p' > "$work/$n-$id.phdrs"
  done
  cmp -s "$work/first-$id.phdrs" "$work/second-$id.phdrs" ||
    fail "build ID $id: the two builds' program headers differ"
  for callbacks in none proc; do
    cp "$work/first-$id.so" "$work/lib.so"
    cp "$work/second-$id.so" "$work/new.so"
    out=$("$work/user" rebuilt $callbacks "$work/lib.so" "$work/new.so") ||
      fail "rebuilt, build ID $id, find_elf $callbacks"
    echo "rebuilt, build ID $id, find_elf $callbacks: $(echo "$out" | paste -sd' ')"
    want="before: built_first
after: ELF file is not the one that was mapped, (none)"
    [ "$out" = "$want" ] ||
      fail "rebuilt, build ID $id, find_elf $callbacks: got
$out
want
$want"
  done
done

out=$("$work/user" fd "$work/first-sha1.so" 2000) || fail "fd"
echo "$out"
[ "$out" = "2000 mappings by one descriptor: +1 descriptors, +0 after them" ] ||
  fail "fd: not one duplicate while the modules live, and none after"

out=$("$work/user" rebuilds "$work/first-sha1.so" 2000) || fail "rebuilds"
echo "$out"
heap=$(echo "$out" | sed -n 's/.*heap \([-+0-9]*\) bytes.*/\1/p')
# With the state kept for a file never freed, it grew by 1,296,000.
[ "${heap:-999999}" -le 16384 ] || fail "rebuilds: the heap grew by $heap bytes"
case $out in *", +0 descriptors"*) ;; *) fail "rebuilds: descriptors grew" ;; esac

cp "$work/first-sha1.so" "$work/gone.so"
value=$(readelf -sW "$work/gone.so" | awk '$8 == "built_first" { print $2; exit }')
out=$("$work/user" elf "$work/gone.so" 8 "$value") || fail "elf"
echo "$out"

echo "not ELF" > "$work/text"
out=$("$work/user" bad "$work/first-sha1.so" "$work/text") || fail "bad"
echo "$out"
want="no file name: Invalid argument
length 0: Invalid argument
range wraps: Invalid argument
offset wraps: Invalid argument
not PROT bits: Invalid argument
no such file: No such file or directory
not ELF: not a valid ELF file
no segment there: no matching address range
a gap of no module: no matching address range"
[ "$out" = "$want" ] || fail "bad: got
$out
want
$want"
exit $failed
