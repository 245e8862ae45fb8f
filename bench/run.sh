#!/bin/bash
# Benchmark dwfl_report_elf_mmap against today's workarounds on the same
# pieces: make the inputs (perf recordings of a parallel build, the maps
# of every process, synthetic streams), run each contender on each, count
# the system calls of a piece, time perfsym against perf on the
# recordings, and write bench/RESULTS.md and bench/scaling.png (full) or
# check that every contender ran, that (a) had no wrong bias and that its
# modules hold no descriptor, or one per file given by FD (smoke).
# Work files go to OUT (default build/bench/MODE).  TREE and OBJDIR as
# for the profiler; PRISTINE_OBJDIR is an elfutils built without the
# series, for contender (e) (default build/pristine-obj, else one this
# script builds in build/bench/pristine-obj from the release tarball in
# a full run; a smoke run without one skips (e) on it and says so);
# PERFSYM is the profiler (default build/profiler/perfsym).  With
# PERF_REPORT=1, a full run also runs bench/perf-report.sh (perf's own
# libdw unwinder, patched and not) and RESULTS.md shows its section.
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
perfsym=${PERFSYM:-$top/build/profiler/perfsym}
. "$top/elfutils.version"
tarball=${ELFUTILS_TARBALL:-$top/build/dl/elfutils-$ELFUTILS_VERSION.tar.bz2}

# The machine is shared: every program of the run is niced.
renice -n 10 -p $$ > /dev/null 2>&1 || true

# The sizes of each mode.  Modules of dwfl_report_elf_mmap hold no file,
# so N goes to 10^5; those of dwfl_report_elf (b) hold one each, and the
# hard limit on open files caps (b) at B_CAP modules (see NOTES.md).
b_cap=$(( $(ulimit -Hn) - 1000 ))
if [ "$mode" = full ]; then
  runs=3; total=1000000
  sizes="100 1000 10000 19000 100000"
  scale_sizes="100 300 1000 3000 10000 19000 30000 100000"
  grind_sizes="100 300 1000 3000 10000 30000 100000"
  maps_sizes="100 1000"; grind_known="1000 100000"
  # (b) reports a new module in time linear in the modules there are
  # (seconds per run at N = 10^4): one run, and callgrind up to 3000.
  slow_runs=1; slow_from=10000; slow_grind=3000
  # (e) on all pieces makes overlapping modules; today's libdwfl is
  # quadratic on them and on executable pieces alone, the series is not.
  # The largest N and callgrind N of each.
  e_all_max=100000; e_all_grind=30000; e_pristine_all_max=1000
  e_pristine_all_grind=300; e_exec_grind=30000
  e_pristine_exec_max=10000; e_pristine_exec_grind=3000
  newfiles=1000; newfile_rounds=9
  record_freq=1000
else
  runs=3; total=20000
  sizes="100 1000"; scale_sizes="100 1000"; grind_sizes="100"
  maps_sizes="100"; grind_known="100 5000"
  slow_runs=1; slow_from=1000; slow_grind=100
  e_all_max=300; e_all_grind=100; e_pristine_all_max=300
  e_pristine_all_grind=100; e_exec_grind=100
  e_pristine_exec_max=1000; e_pristine_exec_grind=100
  newfiles=100; newfile_rounds=3
  record_freq=250
fi

log() { echo "bench: $(date -u +%H:%M:%S) $*" >&2; }

# What is measured is a copy of OBJDIR's libdw and libelf, taken when
# both are whole and have not changed for a few seconds: the build tree
# may be rebuilt while this runs.  The drivers are linked against the
# copy, perfsym is run on it (LD_LIBRARY_PATH: its runpath is OBJDIR's).
snap=$bindir/lib-$mode
# The programs too, built for each mode: a smoke run (make check) may
# run while a full one does.
progs=$bindir/bin-$mode
lib_stable() {
  sums=$(cat "$objdir/libdw/libdw.so" "$objdir/libelf/libelf.so" \
	   2> /dev/null | sha256sum) || return 1
  readelf -h "$objdir/libdw/libdw.so" > /dev/null 2>&1 &&
    readelf -h "$objdir/libelf/libelf.so" > /dev/null 2>&1 || return 1
  sleep 3
  [ "$sums" = "$(cat "$objdir/libdw/libdw.so" "$objdir/libelf/libelf.so" \
		   2> /dev/null | sha256sum)" ]
}
tries=0
until lib_stable; do
  tries=$((tries + 1))
  [ "$tries" -lt 100 ] ||
    { log "$objdir/libdw/libdw.so keeps changing, or is not whole"; exit 1; }
  [ "$tries" = 1 ] && log "waiting for $objdir's libdw and libelf to stay put"
done
rm -rf "$snap"
mkdir -p "$snap/libdw" "$snap/libelf"
cp "$objdir/libdw/libdw.so" "$snap/libdw/libdw.so"
cp "$objdir/libelf/libelf.so" "$snap/libelf/libelf.so"
ln -s libdw.so "$snap/libdw/libdw.so.1"
ln -s libelf.so "$snap/libelf/libelf.so.1"
cp "$objdir/version.h" "$snap/version.h"
series=$(git -C "$tree" log -1 --format='%h %s' 2> /dev/null || echo unknown)
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no 2> /dev/null)" ] ||
  series="$series, with changes not committed"
perfsym_cmd=(env "LD_LIBRARY_PATH=$snap/libdw:$snap/libelf" "$perfsym")

make -s -C "$top/bench" TREE="$tree" OBJDIR="$snap" OUT="$progs"
rm -rf "$out"
mkdir -p "$out/raw"
driver=$progs/bench-driver
make_input=$progs/make-input
results=$out/results.txt
: > "$results"
started=$(date +%s)

# The load of the machine, for the reader of the results.
note_load() {
  echo "load $1 $(cut -d' ' -f1-3 /proc/loadavg)" >> "$results"
}
note_load start
echo "series $series" >> "$results"
echo "libdw $(sha256sum < "$snap/libdw/libdw.so" | cut -c1-12)" >> "$results"

# An elfutils without the series for contender (e): given, the project's,
# or built here from the release tarball as scripts/build-elfutils.sh
# builds the patched one (full runs only: it takes minutes).
pristine_obj=${PRISTINE_OBJDIR:-}
if [ -z "$pristine_obj" ]; then
  for d in "$top/build/pristine-obj" "$bindir/pristine-obj"; do
    [ -f "$d/libdw/libdw.so" ] && { pristine_obj=$d; break; }
  done
fi
if [ -z "$pristine_obj" ] && [ "$mode" = full ]; then
  log "no elfutils without the series: building one in $bindir/pristine-obj"
  src=$bindir/elfutils-$ELFUTILS_VERSION
  [ -f "$src/configure" ] || { mkdir -p "$src"
    tar xjf "$tarball" --no-same-owner --strip-components=1 -C "$src"; }
  "$top/scripts/build-elfutils.sh" "$src" "$bindir/pristine-obj"
  pristine_obj=$bindir/pristine-obj
fi
driver_p=
if [ -n "$pristine_obj" ] && [ -f "$pristine_obj/libdw/libdw.so" ]; then
  pristine_tree=$(sed -n 's/^abs_top_srcdir = //p' "$pristine_obj/Makefile")
  make -s -C "$top/bench" pristine TREE="$tree" OBJDIR="$snap" \
       OUT="$progs" PRISTINE_TREE="$pristine_tree" \
       PRISTINE_OBJDIR="$pristine_obj"
  driver_p=$progs/bench-driver-pristine
  echo "pristine $pristine_obj" >> "$results"
else
  log "SKIP: contender (e) on elfutils without the series: none built" \
      "(no build/pristine-obj; a full run builds one)"
  echo "pristine none" >> "$results"
fi

# Run a driver, appending its output to RAW.  A driver that fails (a
# contender crashed inside libdwfl) is a result, not the end of the run:
# "crash NAME STATUS" goes to results.txt, and the rest of the run goes
# on.  Usage: run_driver BIN RAW ARGS
run_driver() {
  bin=$1; raw=$2; shift 2
  st=0
  "$bin" "$@" >> "$raw" 2>> "$raw.err" || st=$?
  if [ "$st" -ne 0 ]; then
    log "FAILED (status $st): $(basename "$bin") $* (see $raw.err)"
    echo "crash $(basename "$raw" .txt) $st" >> "$results"
  fi
}

# Digest a driver's output into results.txt lines
#   TAG phase NAME pieces N ns MEDIAN-OF-RUNS
#   TAG mem NAME KB-ABOVE-START HEAP-BYTES FDS OWN-FDS
#   TAG check MODULES WRONG UNKNOWN
#   TAG hits LOOKUPS-THAT-FOUND-A-MODULE
#   TAG fail PIECES-REFUSED OF-THOSE-FOR-WANT-OF-A-DESCRIPTOR (first run)
#   TAG pmed NAME MEDIAN-OF-RUNS-OF-THE-MEDIAN-PIECE-NS (driver's -m)
# where TAG is "INPUT CONTENDER".
# With a third argument, the first run of each driver is a warm-up.
digest() {
  tag=$1; raw=$2; warm=${3:-}
  awk -v tag="$tag" -v warm="$warm" '
    warm != "" && /^run=1 / { next }
    function median(list,   v, n, a, b, x) {
      n = split (list, v, " ")
      for (a = 1; a <= n; a++)	# insertion sort: a handful of runs
	for (b = a; b > 1 && v[b] + 0 < v[b - 1] + 0; b--)
	  { x = v[b]; v[b] = v[b - 1]; v[b - 1] = x }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    /^run=/ && / phase=/ {
      split ($2, p, "="); split ($3, c, "="); split ($4, t, "=")
      ns[p[2]] = ns[p[2]] " " t[2]; pieces[p[2]] = c[2]
      if (!(p[2] in order)) { order[p[2]] = ++nph; names[nph] = p[2] }
      if ($5 ~ /^median_piece_ns=/) { split ($5, m, "="); pm[p[2]] = pm[p[2]] " " m[2] }
    }
    /^run=[0-9]* lookup_hits=/ { split ($2, h, "="); hits = h[2] }
    /^run=[0-9]* failures=/ && fail == "" { split ($2, f, "="); split ($3, e, "=")
					      fail = f[2] " " e[2] }
    /^mem / { split ($2, p, "="); split ($3, r, "="); split ($4, h, "=")
	      split ($5, hb, "="); split ($6, fd, "="); split ($7, own, "=")
	      mem[p[2]] = (h[2] - r[2]) " " hb[2] " " fd[2] " " own[2] }
    /^check / { split ($2, m, "="); split ($3, w, "="); split ($4, u, "=")
		print tag, "check", m[2], w[2], u[2] }
    END {
      for (i = 1; i <= nph; i++) {
	name = names[i]
	print tag, "phase", name, "pieces", pieces[name], "ns", median(ns[name])
	if (name in mem) print tag, "mem", name, mem[name]
	if (name in pm) print tag, "pmed", name, median(pm[name])
      }
      if (hits != "") print tag, "hits", hits
      if (fail != "") print tag, "fail", fail
    }' "$raw" >> "$results"
}

# Run the driver BIN on one input and digest it.  Usage: drive TAG BIN ARGS
drive() {
  tag=$1; bin=$2; shift 2
  raw=$out/raw/$(echo "$tag" | tr ' ' '-').txt
  : > "$raw"
  run_driver "$bin" "$raw" "$@"
  digest "$tag" "$raw"
}

# Instructions inside run_phase under callgrind.  Usage: grind TAG BIN ARGS
grind() {
  tag=$1; bin=$2; shift 2
  cg=$out/raw/callgrind-$(echo "$tag" | tr ' ' '-').out
  st=0
  valgrind -q --tool=callgrind --collect-atstart=no \
	   --toggle-collect=run_phase --callgrind-out-file="$cg" \
	   "$bin" "$@" > "$cg.txt" 2> "$cg.err" || st=$?
  if [ "$st" -ne 0 ]; then
    log "FAILED under callgrind (status $st): $tag (see $cg.err)"
    echo "crash callgrind-$(echo "$tag" | tr ' ' '-') $st" >> "$results"
    return
  fi
  echo "$tag ir $(awk '/^(summary|totals):/ { print $2; exit }' "$cg")" \
       >> "$results"
}

# The system calls of COMMAND, from perf stat's counts of the syscall
# tracepoints: all of them, and those that learning a file takes (the
# stat family, openat, pread64, close, and fcntl, which duplicates a
# descriptor).  Appends "TAG sys total T stat S open O pread P close C
# fcntl F".  Usage: count_syscalls TAG COMMAND...
sys_events=raw_syscalls:sys_enter,syscalls:sys_enter_newfstatat,\
syscalls:sys_enter_newfstat,syscalls:sys_enter_newstat,\
syscalls:sys_enter_statx,syscalls:sys_enter_openat,\
syscalls:sys_enter_pread64,syscalls:sys_enter_close,syscalls:sys_enter_fcntl
count_syscalls() {
  tag=$1; shift
  st=$out/raw/sys-$(echo "$tag" | tr ' ' '-').txt
  perf stat -x, -o "$st" -e "$sys_events" -- "$@" > /dev/null 2> "$st.err" ||
    { log "FAILED under perf stat: $tag (see $st.err)"
      echo "crash sys-$(echo "$tag" | tr ' ' '-') 1" >> "$results"; return; }
  awk -F, -v tag="$tag" '
    /^#/ || NF < 3 { next }
    { n = $1 + 0 }
    $3 ~ /raw_syscalls/ { t = n } $3 ~ /stat/ { s += n }
    $3 ~ /openat/ { o = n } $3 ~ /pread64/ { p = n }
    $3 ~ /_close$/ { c = n } $3 ~ /fcntl/ { f = n }
    END { print tag, "sys total", t + 0, "stat", s + 0, "open", o + 0,
	  "pread", p + 0, "close", c + 0, "fcntl", f + 0 }' "$st" >> "$results"
}

# Time COMMAND (wall seconds, peak RSS) with its output thrown away:
#   perfsym REC TOOL wall SECONDS rss KB status STATUS
# Usage: time_tool REC TOOL COMMAND...
time_tool() {
  rec=$1; tool=$2; shift 2
  st=0
  /usr/bin/time -f '%e %M' -o "$out/raw/time-$rec-$tool.txt" "$@" \
    > "$out/raw/out-$rec-$tool.txt" 2> "$out/raw/err-$rec-$tool.txt" || st=$?
  # A profile's output is kept for the smoke's check: its first lines.
  head -c 200000 "$out/raw/out-$rec-$tool.txt" > "$out/raw/head-$rec-$tool.txt"
  rm -f "$out/raw/out-$rec-$tool.txt"
  read -r wall rss < <(tail -n 1 "$out/raw/time-$rec-$tool.txt")
  echo "perfsym $rec $tool wall $wall rss $rss status $st" >> "$results"
}

# (1) perf recordings of a parallel build, system-wide: one with every
# mapping (-d) and one with call chains (-g), made at the same time of
# the same build, one perf inside the other.  Full: lib/ and libelf/ of
# the elfutils release, make -j4 in a scratch build directory configured
# once (configure is not recorded).  Smoke: one build of perfsym.
if [ "$mode" = full ]; then
  scratch=$bindir/scratch-obj
  src=$bindir/elfutils-$ELFUTILS_VERSION
  if [ ! -f "$scratch/config.status" ]; then
    log "configuring the elfutils release in $scratch (once)"
    [ -f "$src/configure" ] || { mkdir -p "$src"
      tar xjf "$tarball" --no-same-owner --strip-components=1 -C "$src"; }
    mkdir -p "$scratch"
    (cd "$scratch" && "$src/configure" --disable-debuginfod \
       --disable-libdebuginfod > configure.log 2>&1) ||
      { log "configure failed, see $scratch/config.log"; exit 1; }
  fi
  make -s -C "$scratch/lib" clean > /dev/null
  make -s -C "$scratch/libelf" clean > /dev/null
  workload="make -s -j4 -C '$scratch/lib' && make -s -j4 -C '$scratch/libelf'"
else
  workload="make -s -B -C '$top/profiler' -j2 TREE='$tree' OBJDIR='$objdir' OUT='$out/build' '$out/build/make-perfdata'"
fi
# What came before (building elfutils 0.192, configuring the scratch
# build) is done once, not in every run.
echo "setup $(( $(date +%s) - started ))" >> "$results"
started=$(date +%s)
log "recording a parallel build with perf record -a -d and -a -g at $record_freq Hz"
note_load record
# Files modified from now on are left out of the real inputs (make-input).
rec_start=$(date +%s)
perf record -q -a -g -F "$record_freq" -o "$out/perf-g.data" -- \
  perf record -q -a -d -F "$record_freq" -o "$out/perf.data" -- \
  sh -c "$workload" > "$out/record.log" 2>&1 ||
  { tail -n 20 "$out/record.log" >&2; log "recording failed"; exit 1; }
perf script -i "$out/perf.data" --show-mmap-events --show-task-events \
  2> /dev/null > "$out/perf.script"
"$make_input" perf "$rec_start" < "$out/perf.script" > "$out/perf.pieces"
# What each recording holds: perf's counts of its events, and the
# processes (a fork to a new pid) and execs that the -d one saw.
for rec in perf perf-g; do
  perf report -i "$out/$rec.data" --stats 2> /dev/null | awk -v rec=$rec '
    $2 == "events:" && !($1 in n) { n[$1] = $3 }
    END { printf "recording %s samples %d forks %d comms %d mmaps %d\n", rec,
	    n["SAMPLE"], n["FORK"], n["COMM"], n["MMAP2"] + n["MMAP"] }' \
    >> "$results"
done
awk '/ PERF_RECORD_FORK\(/ { s = $0; sub (/.*PERF_RECORD_FORK\(/, "", s)
       split (s, f, /[():]+/); if (f[1] != f[3]) procs++ }
     / PERF_RECORD_COMM exec:/ { execs++ }
     END { printf "processes %d execs %d\n", procs, execs }' \
  "$out/perf.script" >> "$results"
echo "workload $workload" >> "$results"
echo "freq $record_freq" >> "$results"
rm -f "$out/perf.script"
# What perf records without -d: the executable pieces only.
awk '$5 ~ /x/' "$out/perf.pieces" > "$out/perf-exec.pieces"
"$make_input" truth < "$out/perf.pieces" > "$out/perf.truth"
# (2) The maps of every process now.
"$make_input" maps "$rec_start" > "$out/maps.pieces"
"$make_input" truth < "$out/maps.pieces" > "$out/maps.truth"

# perfsym against perf on both recordings: the same flat profile
# (perf report --stdio as perfsym prints it), and perf script.
log "perfsym, perf report and perf script on the recordings"
note_load perfsym
for rec in perf perf-g; do
  f=$out/$rec.data
  time_tool $rec perfsym "${perfsym_cmd[@]}" -i "$f"
  time_tool $rec report perf report --stdio --no-children -n \
    --sort comm,dso,sym -g none -i "$f"
  time_tool $rec script perf script -i "$f"
done
# The system calls that learning files takes, perfsym against perf
# report, on the -a -d recording (issue 19: at most 2x).
count_syscalls "perfsym perf perfsym" "${perfsym_cmd[@]}" -i "$out/perf.data"
count_syscalls "perfsym perf report" perf report --stdio --no-children -n \
  --sort comm,dso,sym -g none -i "$out/perf.data"
# Where perfsym's time goes: perf record -g of it on the -a -d recording.
perf record -q -g -F 499 -o "$out/perfsym-prof.data" -- \
  "${perfsym_cmd[@]}" -i "$out/perf.data" > /dev/null \
  2> "$out/raw/perfsym-prof.err" ||
  log "perf record of perfsym failed"
perf report -i "$out/perfsym-prof.data" --stdio --no-children \
  --sort dso,sym 2> /dev/null | awk '/^ +[0-9.]+%/ { print; if (++n == 15) exit }' \
  > "$out/perfsym-profile.txt"
rm -f "$out/perfsym-prof.data"

log "real inputs: $(wc -l < "$out/perf.pieces") perf pieces,"\
" $(wc -l < "$out/maps.pieces") maps pieces"
note_load real
# The (process, file) pairs and the files of each input: a module
# reported by FD may share a descriptor with the others of its file in
# its process's Dwfl, and no more.
pairs() {  # TAG PIECES
  awk -v tag="$1" '!/^@/ { path = $0; sub (/^([^ ]+ ){5}/, "", path)
			    if (!(($1, path) in p)) { p[$1, path]; np++ }
			    if (!(path in f)) { f[path]; nf++ } }
		   END { print tag, "pairs", np + 0, nf + 0 }' "$2" >> "$results"
}
pairs "perf mmap-fd" "$out/perf.pieces"
pairs "perf-exec mmap-fd" "$out/perf-exec.pieces"
pairs "maps mmap-fd" "$out/maps.pieces"
for c in mmap mmap-fd mmap-elf report-elf proc-maps module floor floor-open; do
  drive "perf $c" "$driver" -r "$runs" -t "$out/perf.truth" $c \
	"$out/perf.pieces"
  drive "perf-exec $c" "$driver" -r "$runs" -t "$out/perf.truth" $c \
	"$out/perf-exec.pieces"
  drive "maps $c" "$driver" -r "$runs" -b -t "$out/maps.truth" $c \
	"$out/maps.pieces"
done
if [ -n "$driver_p" ]; then
  drive "perf module-pristine" "$driver_p" -r "$runs" module "$out/perf.pieces"
  drive "perf-exec module-pristine" "$driver_p" -r "$runs" module \
	"$out/perf-exec.pieces"
  drive "maps module-pristine" "$driver_p" -r "$runs" -b module \
	"$out/maps.pieces"
fi

# The maps again in the orders a profiler may get a process's pieces in:
# reversed, executable pieces first, three random orders.  (a) against
# (b), the bias rule in the caller, judged by the same truth.
reorder() {  # ORDER < PIECES > PIECES, each process's pieces in ORDER
  awk -v order="$1" '
    BEGIN { if (order ~ /^random-/) srand (substr (order, 8)) }
    { key = order == "reverse" ? -NR : order == "exec-first" ? ($5 !~ /x/) * 1e9 + NR : rand ()
      print $1, key, $0 }' | sort -s -k1,1n -k2,2g | cut -d' ' -f3-
}
maps_orders="reverse exec-first random-1 random-2 random-3"
echo "orders $maps_orders" >> "$results"
for order in $maps_orders; do
  reorder "$order" < "$out/maps.pieces" > "$out/maps-$order.pieces"
  for c in mmap report-elf; do
    drive "maps-$order $c" "$driver" -r 1 -b -t "$out/maps.truth" $c \
	  "$out/maps-$order.pieces"
  done
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
echo "cap $b_cap" >> "$results"

synth() {  # N TOTAL -> $out/synth-N-TOTAL.pieces and .truth
  name=$out/synth-$1-$2
  [ -f "$name.pieces" ] ||
    "$make_input" synth "$1" "$2" "$name.truth" $libs > "$name.pieces"
}
# The same stream's executable pieces: what perf record keeps without -d.
synth_exec() {  # N -> $out/synth-N-exec.pieces
  synth "$1" 0
  [ -f "$out/synth-$1-exec.pieces" ] ||
    awk '/^@/ || $5 ~ /x/' "$out/synth-$1-0.pieces" > "$out/synth-$1-exec.pieces"
}

note_load synthetic
for n in $sizes; do
  log "synthetic, $n modules, $total pieces"
  synth "$n" "$total"
  s=$out/synth-$n-$total
  pairs "synth-$n mmap-fd" "$s.pieces"
  # (e) is in the scaling runs only: on these streams its cost per
  # piece grows with N (seconds per piece at N = 1000 with the series).
  for c in mmap mmap-fd mmap-elf report-elf floor; do
    r=$runs
    # Judging a module's bias opens its file (dwfl_module_getelf): only
    # up to the open file limit.
    t="-t $s.truth"
    [ "$n" -gt "$b_cap" ] && t=
    [ $c = report-elf ] && [ "$n" -gt "$b_cap" ] && continue
    [ $c = report-elf ] && [ "$n" -ge "$slow_from" ] && r=$slow_runs
    drive "synth-$n $c" "$driver" -r "$r" $t $c "$s.pieces"
  done
  # (c) reports every mapping again for each piece: a few hundred each.
  case " $maps_sizes " in *" $n "*)
    drive "synth-$n proc-maps" "$driver" -r 3 -k 300 -t "$s.truth" \
	  proc-maps "$s.pieces"
    # (m), every kind of report in one Dwfl: its biases judged here, its
    # scaling below.
    drive "synth-$n mixed" "$driver" -r "$runs" -t "$s.truth" mixed \
	  "$s.pieces" ;;
  esac
done

# The first piece of a new file: a stream of NEWFILES modules, each of a
# file of its own (hard links to copies of the libraries, in one
# directory), (a) against the floor of opening the file and reading its
# headers, run in turn so that both see the same load; each driver's
# first run, slower for every contender (a new process), is a warm-up.
log "synthetic, $newfiles new files"
files=$bindir/newfiles
mkdir -p "$files"
newlibs=
i=0
for l in $libs; do
  cmp -s "$l" "$files/lib$i.so" || cp "$l" "$files/lib$i.so"
  i=$((i + 1))
done
for k in $(seq 0 $((newfiles - 1))); do
  f=$files/new-$k.so
  [ "$f" -ef "$files/lib$((k % i)).so" ] || ln -f "$files/lib$((k % i)).so" "$f"
  newlibs="$newlibs $f"
done
"$make_input" synth "$newfiles" 0 "$out/newfiles.truth" $newlibs \
  > "$out/newfiles.pieces"
newfile_cs="mmap mmap-fd mmap-elf floor-open floor-libelf floor report-elf"
echo "newfile_rounds $newfile_rounds" >> "$results"
for c in $newfile_cs; do
  : > "$out/raw/newfiles-$c.txt"
done
for r in $(seq "$newfile_rounds"); do
  for c in $newfile_cs; do
    run_driver "$driver" "$out/raw/newfiles-$c.txt" -r 2 -m -p first \
	       $( [ "$r" = 1 ] && echo "-t $out/newfiles.truth" ) $c \
	       "$out/newfiles.pieces"
  done
done
for c in $newfile_cs; do
  digest "newfiles $c" "$out/raw/newfiles-$c.txt" warm
done

# The system calls of a piece, counted, not timed: of the first piece of
# a new file (a run of the new-file stream: two runs less one, so that
# the start and the end of a run are counted and the driver's own calls
# are not), of a known piece (a stream with and without its known
# phase), and of a piece of the -a -d recording (with and without its
# pieces).
log "system calls per piece"
note_load syscalls
for c in mmap mmap-fd mmap-elf floor-open floor-libelf; do
  for r in 1 2; do
    count_syscalls "sys-newfiles $c $r" "$driver" -r $r -p first $c \
		   "$out/newfiles.pieces"
  done
done
set -- $grind_known
synth "$1" "$2"
for c in mmap mmap-fd mmap-elf floor; do
  for phases in first,rest first,rest,known; do
    count_syscalls "sys-known $c $phases" "$driver" -r 1 -p $phases $c \
		   "$out/synth-$1-$2.pieces"
  done
done
echo "sys-known pieces $(sed -n '/^@phase known/,$p' \
  "$out/synth-$1-$2.pieces" | grep -c '^[^@]')" >> "$results"
for c in mmap mmap-fd mmap-elf floor-open; do
  for phases in none all; do
    count_syscalls "sys-perf $c $phases" "$driver" -r 1 -p $phases $c \
		   "$out/perf.pieces"
  done
done

# Scaling: the N modules' pieces, a dwfl_addrmodule after every report.
note_load scaling
for n in $scale_sizes; do
  log "scaling, $n modules, lookups interleaved"
  synth "$n" 0
  synth_exec "$n"
  s=$out/synth-$n-0
  for c in mmap mixed report-elf floor; do
    r=3
    [ $c = report-elf ] && [ "$n" -gt "$b_cap" ] && continue
    [ $c = report-elf ] && [ "$n" -ge "$slow_from" ] && r=$slow_runs
    drive "scale-$n $c" "$driver" -r "$r" -l -p first,rest $c "$s.pieces"
  done
  case " $maps_sizes " in *" $n "*)
    drive "scale-$n proc-maps" "$driver" -r 1 -l -p first,rest proc-maps \
	  "$s.pieces" ;;
  esac
  # (e): all pieces and executable pieces, with the series and without.
  [ "$n" -le "$e_all_max" ] &&
    drive "scale-$n module" "$driver" -r 1 -l -p first,rest module "$s.pieces"
  drive "xscale-$n module" "$driver" -r 1 -l -p first,rest module \
	"$out/synth-$n-exec.pieces"
  if [ -n "$driver_p" ]; then
    [ "$n" -le "$e_pristine_all_max" ] &&
      drive "scale-$n module-pristine" "$driver_p" -r 1 -l -p first,rest \
	    module "$s.pieces"
    [ "$n" -le "$e_pristine_exec_max" ] &&
      drive "xscale-$n module-pristine" "$driver_p" -r 1 -l -p first,rest \
	    module "$out/synth-$n-exec.pieces"
  fi
done

# The same under callgrind: instructions inside run_phase only.
note_load callgrind
for n in $grind_sizes; do
  log "callgrind, $n modules"
  synth "$n" 0
  synth_exec "$n"
  s=$out/synth-$n-0.pieces
  x=$out/synth-$n-exec.pieces
  for c in mmap mixed report-elf floor; do
    [ $c = report-elf ] && [ "$n" -gt "$slow_grind" ] && continue
    grind "grind-$n $c" "$driver" -r 1 -l -p first,rest $c "$s"
  done
  [ "$n" -le "$e_all_grind" ] &&
    grind "grind-$n module" "$driver" -r 1 -l -p first,rest module "$s"
  [ "$n" -le "$e_exec_grind" ] &&
    grind "xgrind-$n module" "$driver" -r 1 -l -p first,rest module "$x"
  if [ -n "$driver_p" ]; then
    [ "$n" -le "$e_pristine_all_grind" ] &&
      grind "grind-$n module-pristine" "$driver_p" -r 1 -l -p first,rest \
	    module "$s"
    [ "$n" -le "$e_pristine_exec_grind" ] &&
      grind "xgrind-$n module-pristine" "$driver_p" -r 1 -l -p first,rest \
	    module "$x"
  fi
done
# Instructions per known piece, for (a), (a-elf) and the floor: a stream
# of N modules and known pieces after them, with and without its known
# phase.
set -- $grind_known
log "callgrind, known pieces of $1 modules"
synth "$1" "$2"
for c in mmap mmap-elf floor; do
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

for t in "grind-${grind_sizes##* } mmap" "grind-${grind_sizes##* } mixed" \
	 "grind-$slow_grind report-elf" "grind-$e_all_grind module"; do
  cg=$out/raw/callgrind-$(echo "$t" | tr ' ' '-').out
  [ -f "$cg" ] || continue
  callgrind_annotate --inclusive=no "$cg" 2> /dev/null | head -30 \
    > "$out/hot-${t#* }.txt"
done

note_load end
echo "elapsed $(( $(date +%s) - started ))" >> "$results"

# ---- Hook: perf's own libdw unwinder (issue 21, bench/perf-report.sh,
# not this script's): with PERF_REPORT=1, a full run runs it after the
# rest, and summarize.sh puts its section, build/bench/perf-results.md,
# in RESULTS.md (only one written by this run).
if [ "$mode" = full ] && [ "${PERF_REPORT:-0}" = 1 ]; then
  log "perf report with perf's libdw unwinder: bench/perf-report.sh"
  rm -f "$bindir/perf-results.md"
  "$top/bench/perf-report.sh" ||
    log "bench/perf-report.sh failed: RESULTS.md goes without its section"
  [ -f "$bindir/perf-results.md" ] &&
    cp "$bindir/perf-results.md" "$out/perf-results.md"
fi
# ---- end of the hook.

"$top/bench/summarize.sh" "$mode" "$out"
