#!/bin/bash
# Turn the results.txt of bench/run.sh into RESULTS.md and the plot of the
# scaling curves, in OUT; after a full run, copy them to bench/.  After a
# smoke run, check that every contender ran on every input, that (a), in
# each of its ways, and (m) got no bias wrong, that modules of (a) held
# no descriptor (by FD: one per file and process at most), that (e)
# found the same modules with the series as without it, and that perfsym
# and perf ran on both recordings; timings are not checked.
# Usage: bench/summarize.sh full|smoke OUT
set -eu

[ $# -eq 2 ] || { echo "usage: $0 full|smoke OUT" >&2; exit 2; }
mode=$1
out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
results=$out/results.txt
[ -f "$results" ] || { echo "summarize: no $results" >&2; exit 1; }

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
series=$(git -C "${TREE:-$top/build/elfutils}" log -1 --format='%h %s' 2>/dev/null || echo unknown)
nofile=$(ulimit -Hn)
profile=$out/perfsym-profile.txt
[ -f "$profile" ] || : > "$profile"

awk -v cpu="$cpu" -v cores="$(nproc)" -v kernel="$(uname -r)" \
    -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v series="$series" \
    -v nofile="$nofile" -v mode="$mode" -v dat="$out/scaling.dat" \
    -v profile="$profile" -v perfv="$(perf --version 2>/dev/null)" '
function ns_per(input, c, phase,   k) {
  k = input SUBSEP c SUBSEP phase
  return (k in ns) && pieces[k] > 0 ? ns[k] / pieces[k] : -1
}
function fmt(x, unit) {
  if (x < 0 || x == "") return "–"
  if (unit == "us") return sprintf ("%.1f", x / 1000)
  return sprintf (x < 10 ? "%.1f" : "%.0f", x)
}
function ratio(x, y) { return x < 0 || y <= 0 || x == "" || y == "" ? "–" : sprintf ("%.2f", x / y) }
# Least squares slope of log(cost) against log(N) over the sizes with
# data for KEY (a contender, with "x:" for the executable pieces) in
# table KIND; NLOGN fits N log N over the same sizes instead.
function exponent(kind, key, nlogn,   i, n, k, x, y, sx, sy, sxx, sxy, m) {
  m = 0
  for (i = 1; i <= nscale; i++) {
    n = scale[i]; k = n SUBSEP key
    if (kind == "wall") { if (!(k in wall)) continue; y = wall[k] }
    else { if (!(k in ir)) continue; y = ir[k] }
    if (y <= 0) continue
    if (nlogn) y = n * log (n)
    x = log (n); y = log (y); m++
    sx += x; sy += y; sxx += x * x; sxy += x * y
  }
  if (m < 2) return -1
  return (m * sxy - sx * sy) / (m * sxx - sx * sx)
}
function efmt(e) { return e < 0 ? "–" : sprintf ("%.2f", e) }
# The sizes KEY has data for in KIND, as "100–10000".
function span(kind, key,   i, n, lo, hi) {
  lo = hi = ""
  for (i = 1; i <= nscale; i++) {
    n = scale[i]
    if (kind == "wall" ? !((n SUBSEP key) in wall) : !((n SUBSEP key) in ir)) continue
    if (lo == "") lo = n
    hi = n
  }
  return lo == "" ? "–" : lo "–" hi
}
# "met" when the fitted exponent is within 0.1 of N log N over the same N.
function nlogn_goal(kind, key,   e, f) {
  e = exponent(kind, key, 0); f = exponent(kind, key, 1)
  if (e < 0) return "not measured"
  return sprintf ("**%s** (k = %.2f over N = %s; N log N there fits %.2f)",
		  e <= f + 0.1 ? "met" : "not met", e, span(kind, key), f)
}
function add_scale(n) {
  if (!(n in seen_scale)) { seen_scale[n] = 1; scale[++nscale] = n }
}
function mb(kb) { return kb == "" ? "–" : sprintf ("%.0f", kb / 1024) }
# System calls of KIND per piece: the difference of two runs of TAG and
# C, WITH and WITHOUT, over PIECES; -1 if not counted.
function sys_per(tag, c, with, without, kind, n,   a, b) {
  a = tag SUBSEP c SUBSEP with SUBSEP kind; b = tag SUBSEP c SUBSEP without SUBSEP kind
  if (!(a in sysv) || !(b in sysv) || n <= 0) return -1
  return (sysv[a] - sysv[b]) / n
}
function sfmt(x) { return x < 0 ? "–" : sprintf ("%.2f", x) }
# A row of the system call table: LABEL, then each kind per piece.
function sys_row(label, tag, c, with, without, n,   i, line) {
  line = "| " label
  for (i = 1; i <= nsk; i++)
    line = line " | " sfmt(sys_per(tag, c, with, without, SK[i], n))
  print line " |"
}

$1 == "libs" { libs = $0; sub (/^libs /, "", libs); next }
$1 == "cap" { cap = $2; next }
$1 == "load" { load[$2] = $3 " " $4 " " $5; next }
$1 == "libdw" { libdw_sum = $2; next }
$1 == "series" { series = $0; sub (/^series /, "", series); next }
$1 == "elapsed" { elapsed = $2; next }
$1 == "setup" { setup = $2; next }
$1 == "pristine" { pristine = $2; next }
$1 == "freq" { freq = $2; next }
$1 == "newfile_rounds" { newfile_rounds = $2; next }
$1 == "crash" { crash_of[$2] = $3; crashes = crashes sprintf ("%s `%s` (status %d%s)", crashes == "" ? "" : ",", $2, $3, $3 == 139 ? ", SIGSEGV" : $3 == 134 ? ", SIGABRT" : ""); next }
$1 == "orders" { orders = $0; sub (/^orders /, "", orders); next }
$1 == "workload" { workload = $0; sub (/^workload /, "", workload); next }
$1 == "recording" { rec_samples[$2] = $4; rec_forks[$2] = $6
		    rec_mmaps[$2] = $10; next }
$1 == "processes" { processes = $2; execs = $4; next }
# System calls: "TAG ARG ARG sys total N stat N open N pread N close N
# fcntl N", a run of a driver (or perfsym and perf report, TAG perfsym).
$4 == "sys" { k = $1 SUBSEP $2 SUBSEP $3
	      for (i = 5; i < NF; i += 2) sysv[k SUBSEP $i] = $(i + 1); next }
$1 == "sys-known" && $2 == "pieces" { sys_known_pieces = $3; next }
$3 == "pairs" { npairs[$1 SUBSEP $2] = $4; nfiles[$1 SUBSEP $2] = $5; next }
$1 == "perfsym" { tw[$2 SUBSEP $3] = $5; trss[$2 SUBSEP $3] = $7
		  tst[$2 SUBSEP $3] = $9; next }
$3 == "phase" {
  k = $1 SUBSEP $2 SUBSEP $4; ns[k] = $8; pieces[k] = $6
  if ($1 ~ /^scale-/) {
    n = substr ($1, 7); wall[n SUBSEP $2] += $8 / 1e6; add_scale(n)
  }
  if ($1 ~ /^xscale-/) {
    n = substr ($1, 8); wall[n SUBSEP "x:" $2] += $8 / 1e6; add_scale(n)
  }
  if ($1 ~ /^synth-/ && !(($1) in seen_synth)) {
    seen_synth[$1] = 1; synth[++nsynth] = substr ($1, 7)
  }
  next
}
$3 == "mem" { mem[$1 SUBSEP $2 SUBSEP $4] = $5; heap[$1 SUBSEP $2 SUBSEP $4] = $6
	      fds[$1 SUBSEP $2 SUBSEP $4] = $7; ownfds[$1 SUBSEP $2 SUBSEP $4] = $8
	      next }
$3 == "check" { mods[$1 SUBSEP $2] = $4; wrong[$1 SUBSEP $2] = $5
		unknown[$1 SUBSEP $2] = $6; next }
$3 == "hits" { hits[$1 SUBSEP $2] = $4; next }
$3 == "fail" { failed[$1 SUBSEP $2] = $4; emfile[$1 SUBSEP $2] = $5; next }
$3 == "pmed" { pmed[$1 SUBSEP $2 SUBSEP $4] = $5; next }
$1 == "grind-known" && $3 == "ir" { kir[$2 SUBSEP $4] = $5; known_n = $6; next }
$1 == "grind-known" && $3 == "pieces" { kpieces[$2] = $4; next }
$3 == "ir" && $1 ~ /^grind-/ { n = substr ($1, 7); ir[n SUBSEP $2] = $4; add_scale(n); next }
$3 == "ir" && $1 ~ /^xgrind-/ { n = substr ($1, 8); ir[n SUBSEP "x:" $2] = $4; add_scale(n); next }

END {
  cname["mmap"] = "(a)"; cname["mmap-fd"] = "(a-fd)"; cname["mmap-elf"] = "(a-elf)"
  cname["mixed"] = "(m)"; cname["report-elf"] = "(b)"; cname["proc-maps"] = "(c)"
  cname["floor"] = "(d)"
  split ("mmap mmap-fd mmap-elf", A3, " ")
  # The sizes in order.
  for (i = 1; i <= nscale; i++)
    for (j = i; j > 1 && scale[j] + 0 < scale[j - 1] + 0; j--)
      { x = scale[j]; scale[j] = scale[j - 1]; scale[j - 1] = x }

  print "# Benchmark results"
  print ""
  printf "Generated by `bench/run.sh %s` on %s: %s, %d cores, Linux %s, %s.  ",
	 mode, date, cpu, cores, kernel, perfv
  printf "Series at `%s`; what is measured is a copy of its libdw.so (sha256 %s…) and libelf.so taken at the start.  Times are medians of repeated runs.  ", series, libdw_sum
  if (setup > 60)
    printf "The run took %.1f minutes after %.1f minutes of setup done once (building or configuring elfutils 0.192), niced, on", elapsed / 60, setup / 60
  else
    printf "The run took %.1f minutes, niced, on", elapsed / 60
  printf " a machine of 2 cores shared with other work (builds, fuzzers): load average (1, 5, 15 min) %s at the start, %s while recording, %s during the synthetic streams, %s while counting system calls, %s under callgrind, %s at the end.\n\n",
    load["start"], load["record"], load["synthetic"], load["syscalls"],
    load["callgrind"], load["end"]
  print "Contenders, fed the same pieces (start, len, pgoff, prot, file):"
  print "(a) `dwfl_report_elf_mmap` by file name, one report session per piece;"
  print "(a-fd) the same with a descriptor the caller opens once per file, for"
  print "all processes, and passes with every piece of the file; (a-elf)"
  print "`dwfl_report_elf_mmap_elf` with an Elf the caller makes once per file"
  print "(`elf_begin (ELF_C_READ)` on such a descriptor), shared by every"
  print "process'\''s Dwfl (the caller'\''s open and `elf_begin` are timed with"
  print "the piece that needs them);"
  print "(m) every kind of report in one Dwfl: of each ten modules, one"
  print "`dwfl_report_elf` (bias worked out as (b) does), four `dwfl_report_module`"
  print "over the module'\''s span, five `dwfl_report_elf_mmap` of every piece;"
  print "(b) the workaround: bias from the phdrs in the caller, remembered per"
  print "file and process, one `dwfl_report_elf` per module, overlaps replaced"
  print "by `dwfl_report_begin` and re-reporting the rest;"
  print "(c) `dwfl_linux_proc_maps_report` of the process'\''s maps text, all"
  print "of it again for each piece (each process once for /proc maps);"
  print "(d) the floor: the parse and one hash lookup per piece; (d+) the"
  print "same, and the first piece of each file in each process opens it,"
  print "reads its ELF header and program headers with `pread` and closes it;"
  print "(d+elf) the same read through libelf, as v3 reads it (one `pread`"
  print "of the first 4 KiB, `elf_memory`, `elf_getphdrnum`, `gelf_getphdr`,"
  print "`elf_end`);"
  print "(e) what eu-stackprof 0.196 does with each MMAP2 event:"
  print "`dwfl_report_begin_add`, `dwfl_report_module (file, start, start + len)`,"
  print "`dwfl_report_end`, with the series and with elfutils 0.192 as released"
  printf "(\"today\", %s).\n", pristine == "none" ? "not built: skipped" : "`" pristine "`"
  print "Every figure includes the parse of the piece'\''s text."
  print ""

  print "## perfsym against perf on system-wide recordings of a parallel build"
  print ""
  printf "Recorded: `%s`, under `perf record -a -d` and `perf record -a -g` at once (one inside the other), both at %s Hz.  ",
    workload, freq
  printf "The -d recording saw %d processes (forks to a new pid), %d execs, %d mmap events; the -g one %d mmap events (executable maps only).\n\n",
    processes, execs, rec_mmaps["perf"], rec_mmaps["perf-g"]
  print "perfsym prints its flat profile (`perfsym -i F`); perf report the same profile, `perf report --stdio --no-children -n --sort comm,dso,sym -g none -i F`; perf script its default (one line per sample, the call chain with -g)."
  print "Wall time and peak RSS from `/usr/bin/time`, one run each, output to a file."
  print ""
  print "| recording | samples | perfsym s | perf report s | perf script s | perfsym / report | perfsym / script | perfsym MB | report MB | script MB |"
  print "|---|---|---|---|---|---|---|---|---|---|"
  split ("perf perf-g", R, " ")
  rdesc["perf"] = "`-a -d`"; rdesc["perf-g"] = "`-a -g`"
  perfsym_goal = ""
  for (i = 1; i <= 2; i++) {
    r = R[i]
    printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", rdesc[r],
      rec_samples[r], tw[r SUBSEP "perfsym"], tw[r SUBSEP "report"],
      tw[r SUBSEP "script"], ratio(tw[r SUBSEP "perfsym"], tw[r SUBSEP "report"]),
      ratio(tw[r SUBSEP "perfsym"], tw[r SUBSEP "script"]),
      mb(trss[r SUBSEP "perfsym"]), mb(trss[r SUBSEP "report"]),
      mb(trss[r SUBSEP "script"])
    pr[r] = ratio(tw[r SUBSEP "perfsym"], tw[r SUBSEP "report"])
    for (t in tst) if (tst[t] != 0) bad_tool = bad_tool " " t
  }
  print ""
  # What learning files takes: stat, open and pread, the calls issue 19
  # counts, of the whole processes.
  split ("perfsym report", T, " ")
  for (i = 1; i <= 2; i++) {
    k = "perfsym" SUBSEP "perf" SUBSEP T[i]
    fsys[T[i]] = (k SUBSEP "stat" in sysv) ? sysv[k SUBSEP "stat"] + sysv[k SUBSEP "open"] + sysv[k SUBSEP "pread"] : -1
    asys[T[i]] = (k SUBSEP "total" in sysv) ? sysv[k SUBSEP "total"] : -1
  }
  print "System calls on the -a -d recording (perf stat of the syscall tracepoints, whole processes, libraries included):"
  print ""
  print "| tool | stat family | openat | pread64 | close | all system calls |"
  print "|---|---|---|---|---|---|"
  for (i = 1; i <= 2; i++) {
    k = "perfsym" SUBSEP "perf" SUBSEP T[i]
    printf "| %s | %s | %s | %s | %s | %s |\n", T[i] == "report" ? "perf report" : "perfsym",
      sysv[k SUBSEP "stat"], sysv[k SUBSEP "open"], sysv[k SUBSEP "pread"],
      sysv[k SUBSEP "close"], sysv[k SUBSEP "total"]
  }
  print ""
  print "Where perfsym'\''s time goes: `perf record -g` of `perfsym -i` on the -a -d recording, `perf report --no-children --sort dso,sym`, top 15:"
  print ""
  print "```"
  while ((getline line < profile) > 0) print line
  print "```"
  print ""

  print "## Real inputs: ns per piece and modules with a wrong bias"
  print ""
  print "| input | pieces | (a) ns | (b) ns | (c) ns | (e) ns | (e) today ns | (d) ns | a/b | a/d | modules a/b/c | no truth a/b/c | wrong a | wrong b | wrong c |"
  print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  split ("perf perf-exec maps", I, " ")
  desc["perf"] = "the perf record -a -d above"
  desc["perf-exec"] = "same, executable pieces only"
  desc["maps"] = "/proc/*/maps, all processes"
  for (i = 1; i <= 3; i++) {
    in_ = I[i]
    a = ns_per(in_, "mmap", "all"); b = ns_per(in_, "report-elf", "all")
    c = ns_per(in_, "proc-maps", "all"); d = ns_per(in_, "floor", "all")
    e = ns_per(in_, "module", "all"); ep = ns_per(in_, "module-pristine", "all")
    printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d/%d | %d/%d/%d | %d | %d | %d |\n",
      desc[in_], pieces[in_ SUBSEP "floor" SUBSEP "all"], fmt(a), fmt(b),
      fmt(c), fmt(e), fmt(ep), fmt(d), ratio(a, b), ratio(a, d),
      mods[in_ SUBSEP "mmap"], mods[in_ SUBSEP "report-elf"],
      mods[in_ SUBSEP "proc-maps"], unknown[in_ SUBSEP "mmap"],
      unknown[in_ SUBSEP "report-elf"], unknown[in_ SUBSEP "proc-maps"],
      wrong[in_ SUBSEP "mmap"],
      wrong[in_ SUBSEP "report-elf"], wrong[in_ SUBSEP "proc-maps"]
    if (wrong[in_ SUBSEP "mmap"] > 0) wrong_a = 1
    sdesc["perf"] = "the -a -d recording'\''s pieces"
    sdesc["perf-exec"] = "their executable pieces"
    sdesc["maps"] = "the /proc maps"
    if (emfile[in_ SUBSEP "report-elf"] > 0)
      b_short = b_short (b_short == "" ? " " : " and ") sdesc[in_] " (" emfile[in_ SUBSEP "report-elf"] " pieces refused)"
  }
  print ""
  if (crash_of["perf-report-elf"] != "")
    printf "(b) crashed on the -a -d recording'\''s pieces (status %s), inside libdwfl (see the notes), and has no figures there.\n\n", crash_of["perf-report-elf"]
  if (b_short != "")
    printf "(b) keeps a descriptor open for each module of every process: on%s it ran out at the hard limit on open files (%s); every later piece of a new module failed at once, so its time per piece there is too low.\n\n",
      b_short, nofile

  print "The three ways of naming the file to (a) on the same inputs.  After the last piece: the bytes malloc handed out per module, and the descriptors libdwfl held (of (a-fd): its duplicates of the caller'\''s, at most one per file and process), beside the (process, file) pairs and the files of the input (the caller of (a-fd) and (a-elf) holds one descriptor per file besides).  Refused: the pieces libdwfl refused (gaps without a module among them), and of those, the ones refused for want of a descriptor (EMFILE, at the hard limit of " nofile "):"
  print ""
  print "| input | (a) ns | (a-fd) ns | (a-elf) ns | (d) ns | a-elf/d | modules a/a-fd/a-elf | no truth a/a-fd/a-elf | wrong a/a-fd/a-elf | heap bytes / module a/a-fd/a-elf | libdwfl fds a/a-fd/a-elf | process–file pairs | files | refused a/a-fd/a-elf | of those EMFILE |"
  print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for (i = 1; i <= 3; i++) {
    in_ = I[i]
    a = ns_per(in_, "mmap", "all"); af = ns_per(in_, "mmap-fd", "all")
    ae = ns_per(in_, "mmap-elf", "all"); d = ns_per(in_, "floor", "all")
    kf = in_ SUBSEP "mmap-fd" SUBSEP "all"
    hb = ""
    for (j = 1; j <= 3; j++) {
      c = A3[j]; k = in_ SUBSEP c SUBSEP "all"
      hb = hb (j > 1 ? "/" : "") (mods[in_ SUBSEP c] > 0 && (k in heap) ? sprintf ("%.0f", heap[k] / mods[in_ SUBSEP c]) : "–")
    }
    printf "| %s | %s | %s | %s | %s | %s | %d/%d/%d | %d/%d/%d | %d/%d/%d | %s | %s/%s/%s | %s | %s | %s/%s/%s | %s/%s/%s |\n",
      desc[in_], fmt(a), fmt(af), fmt(ae), fmt(d), ratio(ae, d),
      mods[in_ SUBSEP "mmap"], mods[in_ SUBSEP "mmap-fd"], mods[in_ SUBSEP "mmap-elf"],
      unknown[in_ SUBSEP "mmap"], unknown[in_ SUBSEP "mmap-fd"], unknown[in_ SUBSEP "mmap-elf"],
      wrong[in_ SUBSEP "mmap"], wrong[in_ SUBSEP "mmap-fd"], wrong[in_ SUBSEP "mmap-elf"],
      hb, fds[in_ SUBSEP "mmap" SUBSEP "all"], fds[kf],
      fds[in_ SUBSEP "mmap-elf" SUBSEP "all"],
      npairs[in_ SUBSEP "mmap-fd"], nfiles[in_ SUBSEP "mmap-fd"],
      failed[in_ SUBSEP "mmap"], failed[in_ SUBSEP "mmap-fd"], failed[in_ SUBSEP "mmap-elf"],
      emfile[in_ SUBSEP "mmap"], emfile[in_ SUBSEP "mmap-fd"], emfile[in_ SUBSEP "mmap-elf"]
    if (wrong[in_ SUBSEP "mmap-fd"] > 0 || wrong[in_ SUBSEP "mmap-elf"] > 0) wrong_a = 1
    if (fds[in_ SUBSEP "mmap" SUBSEP "all"] != 0 || fds[in_ SUBSEP "mmap-elf" SUBSEP "all"] != 0)
      real_fds_bad = real_fds_bad " " in_
    if (!(kf in fds) || fds[kf] > npairs[in_ SUBSEP "mmap-fd"])
      real_fd_bad = real_fd_bad " " in_
    real_fd_text = real_fd_text sprintf ("%s%s: %d for %d pairs", real_fd_text == "" ? "" : "; ", sdesc[in_], fds[kf], npairs[in_ SUBSEP "mmap-fd"])
    if (emfile[in_ SUBSEP "mmap-fd"] > 0)
      fd_emfile = fd_emfile sprintf ("%s%s: %d pieces refused with EMFILE, %d pairs against a limit of %s", fd_emfile == "" ? "" : "; ", sdesc[in_], emfile[in_ SUBSEP "mmap-fd"], npairs[in_ SUBSEP "mmap-fd"], nofile)
    for (j = 1; j <= 3; j++) {
      k = in_ SUBSEP A3[j] SUBSEP "all"
      if (mods[in_ SUBSEP A3[j]] > 0 && (k in heap))
        real_heap[A3[j]] = real_heap[A3[j]] sprintf ("%s%s %.0f", real_heap[A3[j]] == "" ? "" : ", ", sdesc[in_], heap[k] / mods[in_ SUBSEP A3[j]])
      if (mods[in_ SUBSEP A3[j]] > 0 && (k in heap) && heap[k] / mods[in_ SUBSEP A3[j]] > 4096)
        real_heap_over = real_heap_over (real_heap_over == "" ? " " : ", ") cname[A3[j]] " on " sdesc[in_]
    }
  }
  print ""

  print "## The /proc maps in other orders: modules given a wrong bias"
  print ""
  print "Each process'\''s pieces of the /proc maps above in another order, as a profiler may get them; (b) is the bias rule in the caller.  Modules with a truth, wrong ones, and those without a truth (no module, or not judged):"
  print ""
  print "| order | (a) modules | (a) wrong | (a) no truth | (b) modules | (b) wrong | (b) no truth |"
  print "|---|---|---|---|---|---|---|"
  n = split ("maps " orders, O, " ")
  for (i = 1; i <= n; i++) {
    in_ = O[i] == "maps" ? "maps" : "maps-" O[i]
    printf "| %s | %d | %d | %d | %d | %d | %d |\n",
      O[i] == "maps" ? "maps order" : O[i], mods[in_ SUBSEP "mmap"],
      wrong[in_ SUBSEP "mmap"], unknown[in_ SUBSEP "mmap"],
      mods[in_ SUBSEP "report-elf"], wrong[in_ SUBSEP "report-elf"],
      unknown[in_ SUBSEP "report-elf"]
    if (wrong[in_ SUBSEP "mmap"] > 0) wrong_a = 1
  }
  print ""

  print "## Memory and descriptors of modules before their first use"
  print ""
  printf "After the `first` and `rest` phases of a synthetic stream of N modules of 8 files in one process (every piece reported, no module used): growth of peak RSS and of the bytes malloc handed out, per module, and the descriptors open beyond those at the start, those the caller holds itself not counted: for (a-fd) and (a-elf) the caller holds one per file, and its table of files and their Elfs are in the figures.  (b) stops at N = %d: each of its modules holds an open file, and the hard limit on open files is %s.\n\n", cap, nofile
  print "| N | files | (a) KB / module | (a) heap bytes / module | (a) fds | (a-fd) KB / module | (a-fd) heap bytes / module | (a-fd) fds | (a-elf) KB / module | (a-elf) heap bytes / module | (a-elf) fds | (b) KB / module | (b) heap bytes / module | (b) fds |"
  print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  mem_ok = 1; fds_ok = 1; fd_ok = 1; reached = ""
  split ("mmap mmap-fd mmap-elf", A, " ")
  for (i = 1; i <= nsynth; i++) {
    n = synth[i] + 0; in_ = "synth-" n
    kb = in_ SUBSEP "report-elf" SUBSEP "rest"
    if (!((in_ SUBSEP "mmap" SUBSEP "rest") in mem)) continue
    line = sprintf ("| %d | %s", n, nfiles[in_ SUBSEP "mmap-fd"])
    for (j = 1; j <= 3; j++) {
      ka = in_ SUBSEP A[j] SUBSEP "rest"
      if (!(ka in mem)) { line = line " | – | – | –"; continue }
      if (n >= 100000) reached = reached (reached == "" ? "" : ", ") cname[A[j]]
      if (mem[ka] / n > 4) { mem_ok = 0; mem_over[n] = 1 }
      if (A[j] == "mmap-fd") { if (fds[ka] > nfiles[in_ SUBSEP "mmap-fd"]) fd_ok = 0 }
      else if (fds[ka] != 0) fds_ok = 0
      mem_kb[A[j] SUBSEP n] = mem[ka] / n; mem_heap[A[j] SUBSEP n] = heap[ka] / n
      mem_fds[A[j] SUBSEP n] = fds[ka]
      line = line sprintf (" | %.2f | %.0f | %d", mem[ka] / n, heap[ka] / n, fds[ka])
    }
    line = line sprintf (" | %s | %s | %s |",
      (kb in mem) ? sprintf ("%.1f", mem[kb] / n) : "–",
      (kb in mem) ? sprintf ("%.0f", heap[kb] / n) : "–", (kb in mem) ? fds[kb] : "–")
    print line
  }
  print ""

  print "## Synthetic streams: N modules, then known pieces up to the total"
  print ""
  print "| N | known piece ns (a) | (a-fd) | (a-elf) | (b) | (c) | (d) | a/d | a-elf/d | a/b | first piece µs (a) | (a-fd) | (a-elf) | (b) | (c) | (d) | first/known (a) |"
  print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  known_met = ""; known_missed = ""; known_elf_met = ""; known_elf_missed = ""
  reopen_ok = 1
  split ("mmap mmap-fd mmap-elf report-elf proc-maps floor mixed", C, " ")
  for (i = 1; i <= nsynth; i++) {
    n = synth[i]; in_ = "synth-" n
    for (j = 1; j <= 7; j++) {
      K[C[j]] = ns_per(in_, C[j], "known"); F[C[j]] = ns_per(in_, C[j], "first")
    }
    if (K["mmap"] > 2 * K["floor"]) known_missed = known_missed " " n
    else known_met = known_met " " n
    if (K["mmap-elf"] > 2 * K["floor"]) known_elf_missed = known_elf_missed " " n
    else known_elf_met = known_elf_met " " n
    if (F["mmap"] < 10 * K["mmap"]) reopen_ok = 0
    printf "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
      n, fmt(K["mmap"]), fmt(K["mmap-fd"]), fmt(K["mmap-elf"]),
      fmt(K["report-elf"]), fmt(K["proc-maps"]),
      fmt(K["floor"]), ratio(K["mmap"], K["floor"]), ratio(K["mmap-elf"], K["floor"]),
      ratio(K["mmap"], K["report-elf"]), fmt(F["mmap"], "us"),
      fmt(F["mmap-fd"], "us"), fmt(F["mmap-elf"], "us"),
      fmt(F["report-elf"], "us"), fmt(F["proc-maps"], "us"),
      fmt(F["floor"], "us"), ratio(F["mmap"], K["mmap"])
    for (j = 1; j <= 7; j++)
      if (wrong[in_ SUBSEP C[j]] > 0)
	synth_wrong = synth_wrong " " cname[C[j]] "@" n "=" wrong[in_ SUBSEP C[j]]
    if ((in_ SUBSEP "mixed") in mods)
      mixed_checked = mixed_checked sprintf ("%sN = %d: %d modules, %d wrong, %d without truth",
	mixed_checked == "" ? "" : "; ", n, mods[in_ SUBSEP "mixed"],
	wrong[in_ SUBSEP "mixed"], unknown[in_ SUBSEP "mixed"])
  }
  print "(b) has no row above N = " cap " (its open files); the 8 libraries make every first piece above the eighth one of a file the Dwfl knows.  (m), every kind of report in one Dwfl, judged by the same truth: " (mixed_checked == "" ? "not run" : mixed_checked) "."
  print ""

  print "## First piece of a new file"
  print ""
  newfiles_n = pieces["newfiles" SUBSEP "floor" SUBSEP "first"]
  printf "A stream of %d modules, each of a file of its own (hard links to copies of the 8 libraries): the first piece of each, µs.  The contenders run in turn, %s times each, two runs per process of which the first is a warm-up; each run times every piece.  The median piece is the median over the runs of each run'\''s median piece; the mean piece, the median over the runs of the run'\''s time over its pieces, takes in whatever the scheduler gave other work on this shared machine during the run.  (d+) reads the headers with `pread`, as the series'\''s v2 did with a reader of its own; (d+elf) through libelf, as v3 does.\n\n", newfiles_n, newfile_rounds
  print "| first piece | (a) µs | (a-fd) µs | (a-elf) µs | (d+) pread µs | (d+elf) libelf µs | (d) µs | (b) µs | a / (d+) | a / (d+elf) | (d+elf) / (d+) |"
  print "|---|---|---|---|---|---|---|---|---|---|---|"
  split ("mmap mmap-fd mmap-elf floor-open floor-libelf floor report-elf", NC, " ")
  for (j = 1; j <= 7; j++) {
    k = "newfiles" SUBSEP NC[j] SUBSEP "first"
    NM[NC[j]] = (k in pmed) ? pmed[k] : -1
    NA[NC[j]] = ns_per("newfiles", NC[j], "first")
  }
  printf "| median piece | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
    fmt(NM["mmap"], "us"), fmt(NM["mmap-fd"], "us"), fmt(NM["mmap-elf"], "us"),
    fmt(NM["floor-open"], "us"), fmt(NM["floor-libelf"], "us"),
    fmt(NM["floor"], "us"), fmt(NM["report-elf"], "us"),
    ratio(NM["mmap"], NM["floor-open"]), ratio(NM["mmap"], NM["floor-libelf"]),
    ratio(NM["floor-libelf"], NM["floor-open"])
  printf "| mean piece | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n\n",
    fmt(NA["mmap"], "us"), fmt(NA["mmap-fd"], "us"), fmt(NA["mmap-elf"], "us"),
    fmt(NA["floor-open"], "us"), fmt(NA["floor-libelf"], "us"),
    fmt(NA["floor"], "us"), fmt(NA["report-elf"], "us"),
    ratio(NA["mmap"], NA["floor-open"]), ratio(NA["mmap"], NA["floor-libelf"]),
    ratio(NA["floor-libelf"], NA["floor-open"])
  na = NM["mmap"]; nf = NM["floor-open"]; nfe = NM["floor-libelf"]
  split ("mmap mmap-fd mmap-elf", A, " ")
  for (j = 1; j <= 3; j++)
    if (wrong["newfiles" SUBSEP A[j]] > 0)
      synth_wrong = synth_wrong " " cname[A[j]] "@newfiles=" wrong["newfiles" SUBSEP A[j]]

  print "## System calls per piece"
  print ""
  print "Counted, not timed (`perf stat` of the syscall tracepoints of the driver): the first piece of a new file (the stream above: a run of it, start and end included, less the driver'\''s own calls), a known piece (a stream of " known_n " modules with and without its " sys_known_pieces " known pieces), and a piece of the -a -d recording (with and without its pieces: each process has a Dwfl of its own).  The stat family is `newfstatat` (glibc'\''s `stat` and `fstat`); fcntl duplicates a descriptor."
  print ""
  nsk = split ("total stat open pread close fcntl", SK, " ")
  print "| piece | contender | all | stat | openat | pread64 | close | fcntl |"
  print "|---|---|---|---|---|---|---|---|"
  split ("mmap mmap-fd mmap-elf floor-open floor-libelf", NC, " ")
  split ("(a) (a-fd) (a-elf) (d+) (d+elf)", NL, " ")
  for (j = 1; j <= 5; j++)
    sys_row("first of a new file | " NL[j], "sys-newfiles", NC[j], 2, 1, newfiles_n)
  split ("mmap mmap-fd mmap-elf floor", NC, " ")
  split ("(a) (a-fd) (a-elf) (d)", NL, " ")
  for (j = 1; j <= 4; j++)
    sys_row("known | " NL[j], "sys-known", NC[j], "first,rest,known", "first,rest", sys_known_pieces)
  perf_n = pieces["perf" SUBSEP "floor" SUBSEP "all"]
  split ("mmap mmap-fd mmap-elf floor-open", NC, " ")
  split ("(a) (a-fd) (a-elf) (d+)", NL, " ")
  for (j = 1; j <= 4; j++)
    sys_row("-a -d recording | " NL[j], "sys-perf", NC[j], "all", "none", perf_n)
  print ""
  known_elf_sys = sys_per("sys-known", "mmap-elf", "first,rest,known", "first,rest", "total", sys_known_pieces)

  print "## Scaling: N modules reported piece by piece, a lookup after each"
  print ""
  print "(m) is every kind of report in one Dwfl (see the contenders above): 10% `dwfl_report_elf`, 40% `dwfl_report_module`, 50% `dwfl_report_elf_mmap`."
  print ""
  print "| N | (a) ms | (m) ms | (b) ms | (c) ms | (d) ms | a/b | a/d | m/d | (a) Mi instr | (m) Mi instr | (b) Mi instr | (d) Mi instr |"
  print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  ns_ = split ("mmap report-elf proc-maps floor module module-pristine x:module x:module-pristine mixed", S, " ")
  for (i = 1; i <= nscale; i++) {
    n = scale[i]
    for (j = 1; j <= ns_; j++) {
      W[S[j]] = (n SUBSEP S[j]) in wall ? wall[n SUBSEP S[j]] : -1
      Q[S[j]] = (n SUBSEP S[j]) in ir ? ir[n SUBSEP S[j]] / 1e6 : -1
    }
    if (W["mmap"] >= 0 || Q["mmap"] >= 0)
      printf "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", n,
	fmt(W["mmap"]), fmt(W["mixed"]), fmt(W["report-elf"]), fmt(W["proc-maps"]),
	fmt(W["floor"]), ratio(W["mmap"], W["report-elf"]),
	ratio(W["mmap"], W["floor"]), ratio(W["mixed"], W["floor"]),
	fmt(Q["mmap"]), fmt(Q["mixed"]), fmt(Q["report-elf"]), fmt(Q["floor"])
    line = n
    for (j = 1; j <= ns_; j++) line = line " " W[S[j]]
    for (j = 1; j <= ns_; j++) line = line " " Q[S[j]]
    print line > dat
  }
  print ""
  printf "Fitted exponent k of total cost ∝ N^k (least squares on log-log): "
  printf "instructions (a) %s over N = %s, (m) %s over %s, (b) %s over %s, (d) %s; ",
    efmt(exponent("ir", "mmap")), span("ir", "mmap"),
    efmt(exponent("ir", "mixed")), span("ir", "mixed"),
    efmt(exponent("ir", "report-elf")), span("ir", "report-elf"),
    efmt(exponent("ir", "floor"))
  printf "wall time (a) %s over N = %s, (m) %s over %s, (b) %s over %s, (c) %s.  ",
    efmt(exponent("wall", "mmap")), span("wall", "mmap"),
    efmt(exponent("wall", "mixed")), span("wall", "mixed"),
    efmt(exponent("wall", "report-elf")), span("wall", "report-elf"),
    efmt(exponent("wall", "proc-maps"))
  printf "N log N over N = %s fits k = %s.\n\n", span("ir", "mmap"),
    efmt(exponent("ir", "mmap", 1))

  print "## Contender (e): dwfl_report_module per piece, a lookup after each"
  print ""
  print "The same streams as for scaling: all the loader'\''s pieces (the whole span first, then each segment over it, so the modules overlap), and their executable pieces alone (what `perf record` keeps without -d: no overlaps).  \"today\" is elfutils 0.192 as released."
  print ""
  print "| N | all: series ms | today ms | series Mi instr | today Mi instr | exec: series ms | today ms | series Mi instr | today Mi instr |"
  print "|---|---|---|---|---|---|---|---|---|"
  for (i = 1; i <= nscale; i++) {
    n = scale[i]
    for (j = 5; j <= 8; j++) {
      W[S[j]] = (n SUBSEP S[j]) in wall ? wall[n SUBSEP S[j]] : -1
      Q[S[j]] = (n SUBSEP S[j]) in ir ? ir[n SUBSEP S[j]] / 1e6 : -1
    }
    printf "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", n,
      fmt(W["module"]), fmt(W["module-pristine"]), fmt(Q["module"]),
      fmt(Q["module-pristine"]), fmt(W["x:module"]),
      fmt(W["x:module-pristine"]), fmt(Q["x:module"]),
      fmt(Q["x:module-pristine"])
  }
  print ""
  printf "Fitted exponents, instructions (wall time): all pieces, series %s (%s) over N = %s, today %s (%s) over %s; executable pieces, series %s (%s) over N = %s, today %s (%s) over %s.\n\n",
    efmt(exponent("ir", "module")), efmt(exponent("wall", "module")),
    span("ir", "module"),
    efmt(exponent("ir", "module-pristine")), efmt(exponent("wall", "module-pristine")),
    span("ir", "module-pristine"),
    efmt(exponent("ir", "x:module")), efmt(exponent("wall", "x:module")),
    span("ir", "x:module"),
    efmt(exponent("ir", "x:module-pristine")), efmt(exponent("wall", "x:module-pristine")),
    span("ir", "x:module-pristine")
  for (k in hits) {
    split (k, hk, SUBSEP)
    kp = hk[1] SUBSEP "module-pristine"
    if (hk[2] == "module" && (kp in hits) && hits[k] != hits[kp])
      hits_differ = hits_differ " " hk[1]
  }
  printf "Lookups that found a module, series against today: %s.\n\n",
    hits_differ == "" ? "the same on every stream both ran" : "differ on" hits_differ

  print "## Goals (issue 19)"
  print ""
  for (i = 1; i <= 2; i++) {
    r = R[i]
    printf "- perfsym ≤ 1.0× `perf report --stdio`, %s: **%s** (%s s against %s s, %s×; perf script %s s).\n",
      rdesc[r], (pr[r] != "–" && pr[r] <= 1.0) ? "met" : "not met",
      tw[r SUBSEP "perfsym"], tw[r SUBSEP "report"], pr[r], tw[r SUBSEP "script"]
  }
  for (i = 1; i <= 2; i++) {
    r = R[i]
    printf "- Moonshot: perfsym ≤ 0.5× `perf report --stdio`, %s: **%s** (%s×).\n",
      rdesc[r], (pr[r] != "–" && pr[r] <= 0.5) ? "met" : "not met", pr[r]
  }
  printf "- System calls that learn files (stat family, openat, pread64) of perfsym ≤ 2× those of `perf report`, `-a -d`, whole processes: **%s** (%s against %s, %s×).\n",
    (fsys["perfsym"] >= 0 && fsys["report"] > 0 && fsys["perfsym"] <= 2 * fsys["report"]) ? "met" : fsys["perfsym"] < 0 ? "not measured" : "not met",
    fsys["perfsym"] < 0 ? "–" : fsys["perfsym"], fsys["report"] < 0 ? "–" : fsys["report"],
    ratio(fsys["perfsym"], fsys["report"])
  mem_met = mem_missed = ""
  for (i = 1; i <= nsynth; i++)
    if (("mmap" SUBSEP synth[i]) in mem_kb) {
      if (synth[i] in mem_over) mem_missed = mem_missed " " synth[i]
      else mem_met = mem_met " " synth[i]
    }
  printf "- Memory per module before first use ≤ 4 KB, (a), (a-fd) and (a-elf): **%s**",
    mem_missed == "" ? "met" : mem_met == "" ? "not met" : "partly met"
  if (mem_met != "" && mem_missed != "")
    printf ", at N =%s, not at N =%s (where what a process pays once weighs most)", mem_met, mem_missed
  sep = " ("
  for (i = 1; i <= nsynth; i++) {
    n = synth[i]
    if (!(("mmap" SUBSEP n) in mem_kb)) continue
    printf "%sN = %d: %.2f / %.2f / %.2f KB RSS, %.0f / %.0f / %.0f heap bytes", sep, n,
      mem_kb["mmap" SUBSEP n], mem_kb["mmap-fd" SUBSEP n], mem_kb["mmap-elf" SUBSEP n],
      mem_heap["mmap" SUBSEP n], mem_heap["mmap-fd" SUBSEP n], mem_heap["mmap-elf" SUBSEP n]
    sep = "; "
  }
  print sep == "; " ? ")." : "."
  printf "  On the real inputs (many processes, a Dwfl each), heap bytes per module after the last piece: (a) %s; (a-fd) %s; (a-elf) %s%s.\n",
    real_heap["mmap"], real_heap["mmap-fd"], real_heap["mmap-elf"],
    real_heap_over == "" ? "" : ": **over 4 KB** for" real_heap_over
  printf "- No descriptor held by a module never used, (a) and (a-elf): **%s** (synthetic streams%s).\n",
    fds_ok && real_fds_bad == "" ? "met" : "not met",
    real_fds_bad == "" ? " and real inputs: none" : "; held on" real_fds_bad
  printf "- Modules reported by FD, (a-fd): at most one descriptor per file (and process): **%s** (synthetic, one process:", fd_ok && real_fd_bad == "" ? "met" : "not met"
  sep = " "
  for (i = 1; i <= nsynth; i++) {
    n = synth[i]
    if (!(("mmap-fd" SUBSEP n) in mem_fds)) continue
    printf "%sN = %d: %d for %d files", sep, n, mem_fds["mmap-fd" SUBSEP n], nfiles["synth-" n SUBSEP "mmap-fd"]
    sep = ", "
  }
  printf "; real inputs, descriptors for (process, file) pairs: %s)", real_fd_text
  if (fd_emfile != "")
    printf ".  But one per file and process is one per file in each process'\''s Dwfl: %s", fd_emfile
  print "."
  printf "- The synthetic stream reaches N = 100,000 modules: **%s** (%s; (b) capped at %d by its open files).\n",
    reached != "" ? "met" : "not met", reached == "" ? "none" : "by " reached, cap
  printf "- Scaling of (a) ≈ N log N in callgrind instructions: %s.\n", nlogn_goal("ir", "mmap")
  printf "- Mixed report kinds in one Dwfl (m) ≈ N log N in callgrind instructions: %s; wall time k = %s over N = %s.\n",
    nlogn_goal("ir", "mixed"), efmt(exponent("wall", "mixed")), span("wall", "mixed")
  printf "- (e) with the series ≈ N log N, executable pieces: %s; today: k = %s.\n",
    nlogn_goal("ir", "x:module"), efmt(exponent("ir", "x:module-pristine"))
  printf "- (e) with the series ≈ N log N, all pieces (overlapping modules): %s; today: k = %s.\n",
    nlogn_goal("ir", "module"), efmt(exponent("ir", "module-pristine"))
  printf "- First piece of a new file ≤ 2× open + ELF header and program headers + close (d+), median pieces: **%s** (%s µs against %s µs, %s×; against the same through libelf, (d+elf) %s µs: %s×).\n",
    (na > 0 && nf > 0 && na <= 2 * nf) ? "met" : "not met", fmt(na, "us"), fmt(nf, "us"), ratio(na, nf),
    fmt(nfe, "us"), ratio(na, nfe)
  printf "- libelf no more than 1.2× the `pread` reader per first piece, (d+elf) against (d+), median pieces: **%s** (%s µs against %s µs, %s×).\n",
    (nfe > 0 && nf > 0 && nfe <= 1.2 * nf) ? "met" : "not met", fmt(nfe, "us"), fmt(nf, "us"), ratio(nfe, nf)
  printf "- No wrong bias for (a), (a-fd) and (a-elf) on the real inputs: **%s**.\n", wrong_a ? "not met" : "met"
  printf "- No wrong bias for (m) on the synthetic streams: **%s**.\n",
    mixed_checked == "" ? "not measured" : synth_wrong ~ /\(m\)/ ? "not met" : "met"
  if (synth_wrong != "")
    printf "- Wrong biases on the synthetic streams:%s.\n", synth_wrong
  print ""
  print "Earlier goals, kept as a check:"
  print ""
  printf "- Known piece of (a) within 2× of the floor (d), wall time: **%s**",
    known_missed == "" ? "met" : known_met == "" ? "not met" : "partly met"
  if (known_met != "" && known_missed != "")
    printf " (met at N =%s; not at N =%s)", known_met, known_missed
  print "."
  printf "- Known piece of (a-elf) within 2× of the floor (d), wall time: **%s**",
    known_elf_missed == "" ? "met" : known_elf_met == "" ? "not met" : "partly met"
  if (known_elf_met != "" && known_elf_missed != "")
    printf " (met at N =%s; not at N =%s)", known_elf_met, known_elf_missed
  print "."
  ka = kpieces["mmap"] > 0 ? (kir["mmap" SUBSEP "first,rest,known"] - kir["mmap" SUBSEP "first,rest"]) / kpieces["mmap"] : -1
  kd = kpieces["floor"] > 0 ? (kir["floor" SUBSEP "first,rest,known"] - kir["floor" SUBSEP "first,rest"]) / kpieces["floor"] : -1
  printf "- Known piece of (a) within 2× of the floor (d), instructions (callgrind, N = %d): **%s** (%s against %s, %s×).\n",
    known_n, (ka >= 0 && kd > 0 && ka <= 2 * kd) ? "met" : "not met",
    fmt(ka), fmt(kd), ratio(ka, kd)
  ke = kpieces["mmap-elf"] > 0 ? (kir["mmap-elf" SUBSEP "first,rest,known"] - kir["mmap-elf" SUBSEP "first,rest"]) / kpieces["mmap-elf"] : -1
  printf "- Known piece of (a-elf) within 2× of the floor (d), instructions (callgrind, N = %d): **%s** (%s against %s, %s×).\n",
    known_n, (ke >= 0 && kd > 0 && ke <= 2 * kd) ? "met" : "not met",
    fmt(ke), fmt(kd), ratio(ke, kd)
  printf "- A known piece of (a-elf) makes no system call: **%s** (%s a piece).\n",
    known_elf_sys < 0 ? "not measured" : known_elf_sys < 0.01 ? "met" : "not met", sfmt(known_elf_sys)
  printf "- Known piece of (a) at least 10× cheaper than its first piece: **%s**.\n",
    reopen_ok ? "met" : "not met"
  if (bad_tool != "")
    printf "- A tool failed on a recording:%s (see raw/err-*.txt).\n", bad_tool
  if (crashes != "")
    printf "- **A driver failed**, its figures are missing:%s (see `raw/NAME.txt.err`, and NOTES below).\n", crashes
  print ""
  printf "Synthetic libraries: %s.  Hard limit on open files: %s.\n", libs,
    nofile
}' "$results" > "$out/RESULTS.body.md"

# The notes on method are kept in bench/NOTES.md, after the numbers;
# before them, perf's own unwinder when run.sh ran bench/perf-report.sh
# (its section, as that script writes it).
perf_section=
[ -f "$out/perf-results.md" ] && perf_section=$out/perf-results.md
cat "$out/RESULTS.body.md" $perf_section "$top/bench/NOTES.md" \
  > "$out/RESULTS.md"
rm -f "$out/RESULTS.body.md"

# Columns of scaling.dat: N, wall ms of mmap report-elf proc-maps floor
# module module-pristine x:module x:module-pristine mixed, then the same
# in millions of instructions.
# (A smoke run has one callgrind size: gnuplot warns of an empty range.)
gnuplot 2> >(grep -v 'empty x range' >&2) <<EOF
set terminal pngcairo size 1500,480 noenhanced
set output "$out/scaling.png"
set multiplot layout 1,3 title "N modules reported piece by piece, dwfl_addrmodule after each piece"
set logscale xy
set key top left
set grid
set xlabel "N modules"
set datafile missing "-1"
set ylabel "total wall time, ms"
plot "$out/scaling.dat" using 1:(\$2>0?\$2:1/0) with linespoints title "(a) dwfl_report_elf_mmap", \
     "" using 1:(\$3>0?\$3:1/0) with linespoints title "(b) dwfl_report_elf workaround", \
     "" using 1:(\$4>0?\$4:1/0) with linespoints title "(c) dwfl_linux_proc_maps_report", \
     "" using 1:(\$5>0?\$5:1/0) with linespoints title "(d) floor", \
     "" using 1:(\$10>0?\$10:1/0) with linespoints title "(m) every kind in one Dwfl"
set ylabel "instructions (callgrind), millions"
plot "$out/scaling.dat" using 1:(\$11>0?\$11:1/0) with linespoints title "(a) dwfl_report_elf_mmap", \
     "" using 1:(\$12>0?\$12:1/0) with linespoints title "(b) dwfl_report_elf workaround", \
     "" using 1:(\$14>0?\$14:1/0) with linespoints lc 4 title "(d) floor", \
     "" using 1:(\$19>0?\$19:1/0) with linespoints lc 5 title "(m) every kind in one Dwfl"
set ylabel "instructions (callgrind), millions"
set title "(e) dwfl_report_module per piece"
plot "$out/scaling.dat" using 1:(\$15>0?\$15:1/0) with linespoints title "(e) all pieces, series", \
     "" using 1:(\$16>0?\$16:1/0) with linespoints title "(e) all pieces, 0.192", \
     "" using 1:(\$17>0?\$17:1/0) with linespoints title "(e) exec pieces, series", \
     "" using 1:(\$18>0?\$18:1/0) with linespoints title "(e) exec pieces, 0.192"
unset multiplot
EOF

if [ "$mode" = full ]; then
  cp "$out/RESULTS.md" "$top/bench/RESULTS.md"
  cp "$out/scaling.png" "$top/bench/scaling.png"
  echo "summarize: wrote bench/RESULTS.md and bench/scaling.png"
  exit 0
fi

# Smoke: every contender ran on every input, (a) in each of its ways and
# (m) got every bias right, modules of (a) held no descriptor (by FD, one
# per file and process at most), (e) found what today's libdwfl finds,
# perfsym and perf ran on both recordings.
fail=0
pristine=$(awk '$1 == "pristine" { print $2 }' "$results")
for input in perf perf-exec maps synth-100 scale-100 xscale-100 newfiles; do
  case $input in
    synth-*) cs="mmap mmap-fd mmap-elf report-elf proc-maps floor mixed" ;;
    scale-*) cs="mmap mixed module" ;;
    xscale-*) cs="module" ;;
    newfiles) cs="mmap mmap-fd mmap-elf floor-open floor-libelf floor report-elf" ;;
    *) cs="mmap mmap-fd mmap-elf report-elf proc-maps floor floor-open module" ;;
  esac
  for c in $cs; do
    grep -q "^$input $c phase " "$results" ||
      { echo "summarize: FAIL: $c did not run on $input" >&2; fail=1; }
  done
  for c in mmap mmap-fd mmap-elf mixed; do
    awk -v input="$input" -v c=$c '$1 == input && $2 == c && $3 == "check" && $5 != 0 { bad = 1 }
				   END { exit bad }' "$results" ||
      { echo "summarize: FAIL: $c got wrong biases on $input" >&2; fail=1; }
  done
done
awk '$1 == "crash" { print "summarize: FAIL: a driver failed: " $2 " (status " $3 ")"; bad = 1 }
     END { exit bad }' "$results" >&2 || fail=1
grep -q '^grind-100 mixed ir ' "$results" ||
  { echo "summarize: FAIL: (m) did not run under callgrind" >&2; fail=1; }
for s in sys-newfiles sys-known sys-perf; do
  grep -q "^$s mmap-elf [^ ]* sys total [1-9]" "$results" ||
    { echo "summarize: FAIL: no system calls counted for $s" >&2; fail=1; }
done
for input in perf perf-exec maps scale-100 xscale-100; do
  [ "$pristine" = none ] || grep -q "^$input module-pristine phase " "$results" ||
    { echo "summarize: FAIL: (e) on elfutils 0.192 did not run on $input" >&2; fail=1; }
done
grep -q '^newfiles mmap phase first ' "$results" &&
  grep -q '^newfiles floor-open phase first ' "$results" ||
  { echo "summarize: FAIL: the new-file stream did not run" >&2; fail=1; }
awk '($2 == "mmap" || $2 == "mmap-elf") && $3 == "mem" && $7 != 0 { print; bad = 1 }
     END { exit bad }' "$results" >&2 ||
  { echo "summarize: FAIL: modules of (a) held descriptors before their first use" >&2; fail=1; }
# By FD: no more than the (process, file) pairs of the input.
awk '$3 == "pairs" { p[$1] = $4 }
     $2 == "mmap-fd" && $3 == "mem" && ($1 in p) && $7 > p[$1] { print; bad = 1 }
     END { exit bad }' "$results" >&2 ||
  { echo "summarize: FAIL: modules of (a-fd) held more than a descriptor per file" >&2; fail=1; }
awk '$3 == "hits" { h[$1 " " $2] = $4 }
     END { for (k in h) { split (k, p, " ")
	     kp = p[1] " module-pristine"
	     if (p[2] == "module" && (kp in h) && h[k] != h[kp]) {
	       print "differ: " k; bad = 1 } }
	   exit bad }' "$results" >&2 ||
  { echo "summarize: FAIL: (e) found other modules with the series than without" >&2; fail=1; }
for rec in perf perf-g; do
  for tool in perfsym report script; do
    awk -v r=$rec -v t=$tool '$1 == "perfsym" && $2 == r && $3 == t && $9 == 0 { ok = 1 }
			       END { exit !ok }' "$results" ||
      { echo "summarize: FAIL: $tool failed or did not run on $rec.data" >&2; fail=1; }
  done
  [ -s "$out/raw/head-$rec-perfsym.txt" ] ||
    { echo "summarize: FAIL: perfsym printed nothing for $rec.data" >&2; fail=1; }
done
[ -s "$profile" ] ||
  { echo "summarize: FAIL: no profile of perfsym" >&2; fail=1; }
grep -q '^| ' "$out/RESULTS.md" && [ -s "$out/scaling.png" ] ||
  { echo "summarize: FAIL: no table or no plot" >&2; fail=1; }
[ "$pristine" = none ] &&
  echo "summarize: (e) on elfutils 0.192 skipped: no build of it (a full run makes one)"
[ "$fail" -eq 0 ] && echo "summarize: smoke passed, results in $out/RESULTS.md"
exit "$fail"
