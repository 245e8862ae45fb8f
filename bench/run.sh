#!/bin/bash
# Benchmark dwfl_report_elf_mmap against today's workarounds on the same
# pieces: make the inputs (a perf recording of a parallel build, the maps
# of every process, synthetic streams), run each contender on each, and
# write bench/RESULTS.md and bench/scaling.png (full) or check that every
# contender ran and (a) had no wrong bias (smoke).  Work files go to
# OUT (default build/bench/MODE).  TREE and OBJDIR as for the profiler.
# Usage: bench/run.sh full|smoke
set -eu

[ $# -eq 1 ] && { [ "$1" = full ] || [ "$1" = smoke ]; } ||
  { echo "usage: $0 full|smoke" >&2; exit 2; }
mode=$1
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/elfutils}
objdir=${OBJDIR:-$top/build/obj}
bindir=$top/build/bench
out=${OUT:-$bindir/$mode}

# The sizes of each mode.  Every libdwfl module holds an open file, and
# the hard limit on open files is what bounds N (see RESULTS.md).
if [ "$mode" = full ]; then
  runs=5; builds=5; total=1000000
  sizes="100 1000 10000 19000"; scale_sizes="100 300 1000 3000 10000 19000"
  grind_sizes="100 300 1000 3000 10000"; maps_sizes="100 1000"
  grind_known="1000 100000"
  # (b) reports a new module in time linear in the modules there are
  # (seconds per run at N = 10^4): one run, and callgrind up to 3000.
  slow_runs=1; slow_from=10000; slow_grind=3000
else
  runs=3; builds=1; total=20000
  sizes="100 1000"; scale_sizes="100 1000"; grind_sizes="100"; maps_sizes="100"
  grind_known="100 5000"
  slow_runs=1; slow_from=1000; slow_grind=100
fi

log() { echo "bench: $*" >&2; }

make -s -C "$top/bench" TREE="$tree" OBJDIR="$objdir" OUT="$bindir"
rm -rf "$out"
mkdir -p "$out/raw"
driver=$bindir/bench-driver
make_input=$bindir/make-input
results=$out/results.txt
: > "$results"

# Run the driver; digest its output into results.txt lines
#   TAG phase NAME pieces N ns MEDIAN-OF-RUNS
#   TAG mem NAME KB-ABOVE-START
#   TAG check MODULES WRONG UNKNOWN
# where TAG is "INPUT CONTENDER".
drive() {
  tag=$1; shift
  raw=$out/raw/$(echo "$tag" | tr ' ' '-').txt
  "$driver" "$@" > "$raw"
  awk -v tag="$tag" '
    /^run=/ && / phase=/ {
      split ($2, p, "="); split ($3, c, "="); split ($4, t, "=")
      ns[p[2]] = ns[p[2]] " " t[2]; pieces[p[2]] = c[2]
      if (!(p[2] in order)) { order[p[2]] = ++nph; names[nph] = p[2] }
    }
    /^mem / { split ($2, p, "="); split ($3, r, "="); split ($4, h, "=")
	      mem[p[2]] = h[2] - r[2] }
    /^check / { split ($2, m, "="); split ($3, w, "="); split ($4, u, "=")
		print tag, "check", m[2], w[2], u[2] }
    END {
      for (i = 1; i <= nph; i++) {
	name = names[i]; n = split (ns[name], v, " ")
	for (a = 1; a <= n; a++)	# insertion sort: a handful of runs
	  for (b = a; b > 1 && v[b] + 0 < v[b - 1] + 0; b--)
	    { x = v[b]; v[b] = v[b - 1]; v[b - 1] = x }
	med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	print tag, "phase", name, "pieces", pieces[name], "ns", med
	if (name in mem) print tag, "mem", name, mem[name]
      }
    }' "$raw" >> "$results"
}

# (1) A perf recording of parallel builds of perfsym, all maps (-d).
log "recording $builds parallel build(s) with perf record -a -d"
target=
[ "$mode" = smoke ] && target=$out/build/make-perfdata
perf record -q -a -d -o "$out/perf.data" -- sh -c '
  for i in $(seq '"$builds"'); do
    make -s -B -C "$1/profiler" -j2 TREE="$2" OBJDIR="$3" OUT="$4/build" '"$target"'
  done' sh "$top" "$tree" "$objdir" "$out" > "$out/record.log" 2>&1
perf script -i "$out/perf.data" --show-mmap-events 2> /dev/null |
  "$make_input" perf > "$out/perf.pieces"
# What perf records without -d: the executable pieces only.
awk '$5 ~ /x/' "$out/perf.pieces" > "$out/perf-exec.pieces"
"$make_input" truth < "$out/perf.pieces" > "$out/perf.truth"
# (2) The maps of every process now.
"$make_input" maps > "$out/maps.pieces"
"$make_input" truth < "$out/maps.pieces" > "$out/maps.truth"

log "real inputs: $(wc -l < "$out/perf.pieces") perf pieces,"\
" $(wc -l < "$out/maps.pieces") maps pieces"
for c in mmap report-elf proc-maps floor; do
  drive "perf $c" -r "$runs" -t "$out/perf.truth" $c "$out/perf.pieces"
  drive "perf-exec $c" -r "$runs" -t "$out/perf.truth" $c \
	"$out/perf-exec.pieces"
  drive "maps $c" -r "$runs" -b -t "$out/maps.truth" $c "$out/maps.pieces"
done

# (3) Synthetic streams: a handful of real libraries at N addresses.
libs=
for l in libc.so.6 libm.so.6 libz.so.1 libstdc++.so.6 libgcc_s.so.1 \
	 libzstd.so.1 liblzma.so.5 libcrypto.so.3; do
  f=/usr/lib/x86_64-linux-gnu/$l
  [ -e "$f" ] && libs="$libs $(readlink -f "$f")"
done
[ -n "$libs" ] || { log "no libraries for the synthetic streams"; exit 1; }
echo "libs$libs" >> "$results"

synth() {  # N TOTAL -> $out/synth-N[-TOTAL].pieces and .truth
  name=$out/synth-$1-$2
  [ -f "$name.pieces" ] ||
    "$make_input" synth "$1" "$2" "$name.truth" $libs > "$name.pieces"
}

for n in $sizes; do
  log "synthetic, $n modules, $total pieces"
  synth "$n" "$total"
  s=$out/synth-$n-$total
  for c in mmap report-elf floor; do
    r=$runs
    [ $c = report-elf ] && [ "$n" -ge "$slow_from" ] && r=$slow_runs
    drive "synth-$n $c" -r "$r" -t "$s.truth" $c "$s.pieces"
  done
  # (c) reports every mapping again for each piece: a few hundred each.
  case " $maps_sizes " in *" $n "*)
    drive "synth-$n proc-maps" -r 3 -k 300 -t "$s.truth" proc-maps \
	  "$s.pieces" ;;
  esac
done

# Scaling: the N modules' pieces, a dwfl_addrmodule after every report.
for n in $scale_sizes; do
  log "scaling, $n modules, lookups interleaved"
  synth "$n" 0
  s=$out/synth-$n-0
  for c in mmap report-elf floor; do
    r=3
    [ $c = report-elf ] && [ "$n" -ge "$slow_from" ] && r=$slow_runs
    drive "scale-$n $c" -r "$r" -l -p first,rest $c "$s.pieces"
  done
  case " $maps_sizes " in *" $n "*)
    drive "scale-$n proc-maps" -r 1 -l -p first,rest proc-maps \
	  "$s.pieces" ;;
  esac
done

# The same under callgrind: instructions inside run_phase only.
for n in $grind_sizes; do
  log "callgrind, $n modules"
  synth "$n" 0
  for c in mmap report-elf floor; do
    [ $c = report-elf ] && [ "$n" -gt "$slow_grind" ] && continue
    cg=$out/raw/callgrind-$n-$c.out
    valgrind -q --tool=callgrind --collect-atstart=no \
	     --toggle-collect=run_phase --callgrind-out-file="$cg" \
	     "$driver" -r 1 -l -p first,rest $c "$out/synth-$n-0.pieces" \
	     > /dev/null
    ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$cg")
    echo "grind-$n $c ir $ir" >> "$results"
  done
done
# Instructions per known piece, for (a) and the floor: a stream of N
# modules and known pieces after them, with and without its known phase.
set -- $grind_known
log "callgrind, known pieces of $1 modules"
synth "$1" "$2"
for c in mmap floor; do
  for phases in first,rest first,rest,known; do
    cg=$out/raw/callgrind-known-$c-$phases.out
    valgrind -q --tool=callgrind --collect-atstart=no \
	     --toggle-collect=run_phase --callgrind-out-file="$cg" \
	     "$driver" -r 1 -p $phases $c "$out/synth-$1-$2.pieces" > "$cg.txt"
    ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$cg")
    echo "grind-known $c ir $phases $ir $1" >> "$results"
  done
  known=$(awk '/ phase=known / { sub (/.*pieces=/, ""); print $1; exit }' "$cg.txt")
  echo "grind-known $c pieces $known" >> "$results"
done

for c in mmap report-elf; do
  n=${grind_sizes##* }
  [ $c = report-elf ] && n=$slow_grind
  callgrind_annotate --inclusive=no "$out/raw/callgrind-$n-$c.out" \
    2> /dev/null | head -30 > "$out/hot-$c.txt"
done

"$top/bench/summarize.sh" "$mode" "$out"
