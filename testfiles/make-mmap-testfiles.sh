#!/bin/bash
# Build the ELF objects for the dwfl_report_elf_mmap tests with each linker
# on this machine, load them with the real dynamic loader under perf record,
# and write down how they were mapped: OUTDIR/NAME.bz2 (the object),
# NAME.phdrs (readelf -lW), NAME.pieces (load bias, perf events, maps lines),
# runs/ (everything each run printed) and FACTS.txt (check-mmap-facts.sh).
# See README in this directory.
set -eu

usage="usage: $0 OUTDIR"
if [ $# -ne 1 ]; then
  echo "$usage" >&2
  exit 2
fi

me=make-mmap-testfiles
die () { echo "$me: $*" >&2; exit 1; }

srcdir=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
case $out in *[[:space:]]*) die "OUTDIR must not contain spaces: $out" ;; esac
cd "$out"

CC=${CC:-gcc}
CFLAGS="-O2 -g"

for tool in "$CC" ld.bfd ld.gold ld.lld mold perf readelf bzip2; do
  command -v "$tool" > /dev/null || die "$tool not found"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! perf record -q -e cpu-clock -o "$tmp/check.data" true 2> "$tmp/check.err"
then
  cat "$tmp/check.err" >&2
  die "perf record -e cpu-clock does not work here" \
      "(perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid))"
fi

# Layouts: NAME|SOURCE|FLAGS|DESCRIPTION.  Libraries are built with
# $CC $CFLAGS -fPIC -shared, executables with $CC $CFLAGS.
libs='
bfd|mmap-lib.c|-fuse-ld=bfd|ld.bfd, default -z separate-code
bfd-noseparate|mmap-lib.c|-fuse-ld=bfd -Wl,-z,noseparate-code|ld.bfd -z noseparate-code
gold|mmap-lib.c|-fuse-ld=gold|gold
gold-unlikely|mmap-lib.c|-fuse-ld=gold -Wl,-z,text-unlikely-segment|gold -z text-unlikely-segment
lld|mmap-lib.c|-fuse-ld=lld|lld
lld-tiny|mmap-lib.c|-DTINY -fuse-ld=lld|lld, tiny
mold|mmap-lib.c|-fuse-ld=mold|mold
mold-tiny|mmap-lib.c|-DTINY -fuse-ld=mold|mold, tiny
bfd-2m|mmap-lib.c|-fuse-ld=bfd -Wl,-z,max-page-size=0x200000|ld.bfd -z max-page-size=0x200000
'
exes='
pie-bfd|mmap-probe.c|-fPIE -pie -fuse-ld=bfd|ld.bfd PIE
pie-lld|mmap-probe.c|-fPIE -pie -fuse-ld=lld|lld PIE
pie-mold|mmap-probe.c|-fPIE -pie -fuse-ld=mold|mold PIE
nopie-bfd|mmap-probe.c|-fno-PIE -no-pie -fuse-ld=bfd|ld.bfd ET_EXEC
nopie-lld|mmap-probe.c|-fno-PIE -no-pie -fuse-ld=lld|lld ET_EXEC
pie-bfd-2m|mmap-probe.c|-fPIE -pie -fuse-ld=bfd -Wl,-z,max-page-size=0x200000|ld.bfd PIE -z max-page-size=0x200000 (holes, the kernel maps it)
'

# Build in OUTDIR from copies of the sources, with relative names: gold
# writes the output file name into the objects (as the VERDEF base name
# when there is no soname), and the DWARF names the source, so absolute
# paths would make the layout depend on where this runs.
cp "$srcdir/mmap-lib.c" "$srcdir/mmap-probe.c" .

# The description line of each object, for its .pieces file.
declare -A desc

build ()
{
  local kind=$1 name=$2 src=$3 flags=$4 what=$5
  local file=testfile-mmap-$name
  local cmd="$CC $CFLAGS${kind:+ $kind} $flags -o $file $src"
  echo "$me: $cmd"
  # shellcheck disable=SC2086
  $CC $CFLAGS $kind $flags -o "$file" "$src"
  readelf -lW "$file" > "$file.phdrs"
  desc[$file]="$what: $cmd"
}

while IFS='|' read -r name src flags what; do
  [ -n "$name" ] || continue
  build "-fPIC -shared" "$name" "$src" "$flags" "shared library, $what"
done <<< "$libs"
while IFS='|' read -r name src flags what; do
  [ -n "$name" ] || continue
  build "" "$name" "$src" "$flags" "executable, $what"
done <<< "$exes"

# Make sure the layouts are what their names say.
loads ()
{
  # OFFSET FLAGS, e.g. "0x001000 RE".
  awk '$1 == "LOAD" { f = ""; for (i = 7; i < NF; i++) f = f $i;
		      print $2, f }' "$1.phdrs"
}
n=$(loads testfile-mmap-gold-unlikely | awk '$2 ~ /E/' | wc -l)
[ "$n" -eq 2 ] \
  || die "gold -z text-unlikely-segment made $n executable segments, not 2"
for t in lld-tiny mold-tiny; do
  n=$(loads testfile-mmap-$t | awk 'strtonum($1) < 0x1000' | wc -l)
  [ "$n" -ge 3 ] || die "testfile-mmap-$t has only $n PT_LOADs in page 0"
done

# Run every executable with every library, under two perf records at
# once: the outer one without -d (by default perf records only executable
# mappings), the inner one with -d (all mappings).  Both see the same
# process, so the addresses of both and of the probe's output agree.
liblist=()
while IFS='|' read -r name src flags what; do
  [ -n "$name" ] || continue
  liblist+=("$out/testfile-mmap-$name")
done <<< "$libs"

# Print the MMAP2 events of process PID in perf.data FILE as
# "START-END PERMS PGOFF PATH", in event order.
mmap_events ()
{
  local file=$1 pid=$2 start len pgoff perms path
  perf script -i "$file" --show-mmap-events 2> /dev/null \
    | sed -n "s|^.* PERF_RECORD_MMAP2 $pid/$pid: \[0x\([0-9a-f]*\)(0x\([0-9a-f]*\)) @ \(0x\)\{0,1\}\([0-9a-f]*\) [^]]*\]: \([-rwxsp]*\) \(.*\)\$|\1 \2 \4 \5 \6|p" \
    | while read -r start len pgoff perms path; do
        printf '%08x-%08x %s %08x %s\n' $((0x$start)) $((0x$start + 0x$len)) \
	  "$perms" $((0x$pgoff)) "$path"
      done
}

mkdir -p runs
while IFS='|' read -r name src flags what; do
  [ -n "$name" ] || continue
  exe=testfile-mmap-$name
  echo "$me: recording $exe"
  if ! perf record -q -e cpu-clock -o "$tmp/exec.data" -- \
	 perf record -q -d -e cpu-clock -o "$tmp/d.data" -- \
	   "$out/$exe" "${liblist[@]}" > "runs/$exe.out" 2> "$tmp/err"
  then
    cat "$tmp/err" >&2
    die "$exe failed"
  fi
  pid=$(awk '$1 == "pid" { print $2 }' "runs/$exe.out")
  [ -n "$pid" ] || die "$exe printed no pid"
  mmap_events "$tmp/d.data" "$pid" > "runs/$exe.perf-d"
  mmap_events "$tmp/exec.data" "$pid" > "runs/$exe.perf"
  [ -s "runs/$exe.perf-d" ] || die "no MMAP2 events for $exe"
done <<< "$exes"

# NAME.pieces for each object, from the run of RUN.
pieces ()
{
  local file=$1 run=$2 path=$out/$1 bias
  bias=$(awk -v p="$path" '$1 == "bias" && $2 == p { print $3 }' \
	   "runs/$run.out")
  [ -n "$bias" ] || die "no load bias for $file in the run of $run"
  {
    echo "# $file: ${desc[$file]}"
    echo "# recorded in one run of $run"
    printf 'bias %08x\n' $((bias))
    echo "# perf record -d events, in event order"
    awk -v p="$path" '$4 == p { print "perf", $1, $2, $3 }' "runs/$run.perf-d"
    echo "# perf record (no -d) events, in event order"
    awk -v p="$path" '$4 == p { print "perf-exec", $1, $2, $3 }' \
      "runs/$run.perf"
    echo "# /proc/PID/maps, in address order"
    awk -v p="$path" '$1 == "maps" && $7 == p { print "maps", $2, $3, $4 }' \
      "runs/$run.out"
  } > "$file.pieces"
  grep -q '^perf ' "$file.pieces" || die "no perf events for $file"
  grep -q '^maps ' "$file.pieces" || die "no maps lines for $file"
}

first_exe=$(awk -F'|' 'NF > 1 { print "testfile-mmap-" $1; exit }' <<< "$exes")
while IFS='|' read -r name src flags what; do
  [ -n "$name" ] || continue
  pieces "testfile-mmap-$name" "$first_exe"
done <<< "$libs"
while IFS='|' read -r name src flags what; do
  [ -n "$name" ] || continue
  pieces "testfile-mmap-$name" "testfile-mmap-$name"
done <<< "$exes"

for f in testfile-mmap-*.phdrs; do
  bzip2 -9 -f -k "${f%.phdrs}"
done

"$srcdir/check-mmap-facts.sh" "$out" > FACTS.txt
cat FACTS.txt
echo "$me: done, in $out"
