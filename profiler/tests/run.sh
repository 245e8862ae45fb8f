#!/bin/sh
# perfsym's unit tests.  Each test writes a small perf.data file with
# make-perfdata from a description (see tests/make-perfdata.c), runs
# perfsym on it and compares its output, or its error message, with the
# text expected; the last ones record real programs with perf record.
# The mappings point into make-perfdata itself, an ELF file with symbols:
# its executable PT_LOAD segment is mapped at BASE, so that main+0x10 is
# at BASE + main + 0x10 (BASE is 0 if it is not a PIE).
# Prints a line per test and "N passed, N failed"; exits 1 on a failure.
# Usage: profiler/tests/run.sh BUILDDIR   (where perfsym, make-perfdata and
#                                          check-filesyms are)
set -eu

[ $# -eq 1 ] || { echo "usage: $0 BUILDDIR" >&2; exit 2; }
bin=$(cd "$1" && pwd)
perfsym=$bin/perfsym
gen=$bin/make-perfdata
check_filesyms=$bin/check-filesyms
for f in "$perfsym" "$gen" "$check_filesyms"; do
  [ -x "$f" ] || { echo "$0: no $f; run make profiler first" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

pass() {
  echo "PASS: $1"
  passed=$((passed + 1))
}

fail() {
  echo "FAIL: $1"
  failed=$((failed + 1))
}

# make NAME: write $tmp/NAME.data from the description on standard input.
make_data() {
  "$gen" "$tmp/$1.data"
}

# expect NAME [ARG...]: perfsym ARG... -i $tmp/NAME.data exits 0 and
# prints what standard input holds.
expect() {
  name=$1
  shift
  cat > "$tmp/expected"
  if "$perfsym" "$@" -i "$tmp/$name.data" > "$tmp/out" 2> "$tmp/err" &&
     cmp -s "$tmp/expected" "$tmp/out"; then
    pass "$name $*"
  else
    fail "$name $*"
    diff -u "$tmp/expected" "$tmp/out" || true
    cat "$tmp/err"
  fi
}

# expect_error NAME MESSAGE [ARG...]: perfsym ARG... -i $tmp/NAME.data
# exits 1 with MESSAGE on standard error, and prints what standard input
# holds (nothing, unless --partial).
expect_error() {
  name=$1
  message=$2
  shift 2
  cat > "$tmp/expected"
  status=0
  "$perfsym" "$@" -i "$tmp/$name.data" > "$tmp/out" 2> "$tmp/err" || status=$?
  if [ "$status" -eq 1 ] && [ "$(cat "$tmp/err")" = "$message" ] &&
     cmp -s "$tmp/expected" "$tmp/out"; then
    pass "$name $* (error)"
  else
    fail "$name $* (error)"
    echo "exit status $status; expected message: $message; got:"
    cat "$tmp/err"
    diff -u "$tmp/expected" "$tmp/out" || true
  fi
}

# perfsym's symbol tables name every address as dwfl_module_addrinfo
# does: in its own files and the libraries it loads (with a symbol
# table of locals, sizeless labels, aliases, a separate debug file when
# one is installed), and in the compiler.
set -- "$perfsym" "$gen" $(ldd "$perfsym" | awk '$3 ~ /^\// { print $3 }')
cc1=$(cc -print-prog-name=cc1 2> /dev/null || true)
[ -f "$cc1" ] && set -- "$@" "$cc1"
if "$check_filesyms" "$@" > "$tmp/filesyms" 2>&1; then
  pass "symbol tables: $# files named as by dwfl_module_addrinfo"
else
  fail "symbol tables: not as dwfl_module_addrinfo names them"
  grep -v ': same$' "$tmp/filesyms" | head -20
fi

# The executable segment of make-perfdata, and where its pieces go.
elf=$gen
case $(readelf -hW "$elf" | awk '$1 == "Type:" { print $2 }') in
  DYN) base=$((0x555500000000)) ;;
  *) base=0 ;;
esac
set -- $(readelf -lW "$elf" |
	 awk '$1 == "LOAD" && $7 == "R" && $8 == "E" { print $2, $3, $5 }')
pgoff=$(($1 & ~0xfff))
start=$((base + ($2 & ~0xfff)))
len=$((($1 + $3 - pgoff + 0xfff) & ~0xfff))
main=0x$(nm "$elf" | awk '$2 == "T" && $3 == "main" { print $1 }')
ip=$(printf '%x' $((base + main + 0x10)))
text="start=$start len=$len pgoff=$pgoff file=$elf"
# The same file mapped again 1 GiB higher.
start2=$((start + 0x40000000))
ip2=$(printf '%x' $((base + 0x40000000 + main + 0x10)))
text2="start=$start2 len=$len pgoff=$pgoff file=$elf"

# Samples in a module, in the kernel, in the vdso, in anonymous memory
# (named as perf names it when it is executable, for a JIT compiler's
# map file) and nowhere; the profile weighs them by their period.
make_data basic <<EOF
attr sample_type=ip,tid,time,period id_all
comm pid=100 name=prog exec time=1
mmap2 pid=100 $text prot=r-x time=2
mmap2 pid=100 start=0x7fff00000000 len=0x2000 pgoff=0 prot=r-x file=[vdso] time=2
mmap2 pid=100 start=0x7ffe00000000 len=0x1000 pgoff=0 prot=rwx file=//anon time=2
mmap2 pid=100 start=0x7ffe00001000 len=0x1000 pgoff=0 prot=rw- file=//anon time=2
sample pid=100 ip=0x$ip time=1000000003 period=5
sample pid=100 ip=0xffffffff81000000 time=1000000004 kernel
sample pid=100 ip=0x7fff00000010 time=2000000005
sample pid=100 ip=0x7ffe00000010 time=2000000006
sample pid=100 ip=0x7ffe00001010 time=2000000007
sample pid=100 tid=101 ip=0x1234 time=2000001008
round
EOF
expect basic -s <<EOF
100 100 1.000000 $ip $elf main+0x10
100 100 1.000000 ffffffff81000000 [kernel] [unknown]
100 100 2.000000 7fff00000010 [vdso] [unknown]
100 100 2.000000 7ffe00000010 /tmp/perf-100.map [unknown]
100 100 2.000000 7ffe00001010 //anon [unknown]
100 101 2.000001 1234 [unknown] [unknown]
EOF
expect basic <<EOF
# Samples: 6 of event 'cpu-clock'
# Event count (approx.): 10
#
# Overhead       Samples  Command  Shared Object  Symbol
# ........  ............  .......  .............  ......
#
    50.00%             1  prog     make-perfdata  [.] main
    10.00%             1  :101     [unknown]      [.] [unknown]
    10.00%             1  prog     //anon         [.] [unknown]
    10.00%             1  prog     perf-100.map   [.] [unknown]
    10.00%             1  prog     [kernel]       [k] [unknown]
    10.00%             1  prog     [vdso]         [.] [unknown]
EOF

# MMAP records are executable mappings (PROT_EXEC), or of unknown
# protection with the data flag; an MMAP2 PROT_NONE piece is a gap that
# makes no module.
make_data prot <<EOF
attr sample_type=ip,tid,time id_all
mmap pid=200 $text time=1
mmap pid=201 $text data time=1
mmap2 pid=202 $text prot=--- time=1
sample pid=200 ip=0x$ip time=2000
sample pid=201 ip=0x$ip time=3000
sample pid=202 ip=0x$ip time=4000
EOF
expect prot -s <<EOF
200 200 0.000002 $ip $elf main+0x10
201 201 0.000003 $ip $elf main+0x10
202 202 0.000004 $ip [unknown] [unknown]
EOF

# A child process inherits its parent's mappings, a new thread shares
# them and its parent's name; exec starts an empty address space; the
# process ends when its leader and its last thread exited.
make_data process <<EOF
attr sample_type=ip,tid,time id_all
comm pid=300 name=parent time=1000
mmap2 pid=300 $text prot=r-x time=2000
fork pid=301 ppid=300 tid=301 ptid=300 time=3000
fork pid=300 ppid=300 tid=302 ptid=300 time=4000
sample pid=301 ip=0x$ip time=5000
sample pid=300 tid=302 ip=0x$ip time=6000
comm pid=301 name=child exec time=7000
sample pid=301 ip=0x$ip time=8000
mmap2 pid=301 $text2 prot=r-x time=9000
sample pid=301 ip=0x$ip2 time=10000
exit pid=300 ppid=1 tid=300 ptid=1 time=11000
sample pid=300 tid=302 ip=0x$ip time=12000
exit pid=300 ppid=1 tid=302 ptid=300 time=13000
sample pid=300 tid=302 ip=0x$ip time=14000
EOF
expect process -s <<EOF
301 301 0.000005 $ip $elf main+0x10
300 302 0.000006 $ip $elf main+0x10
301 301 0.000008 $ip [unknown] [unknown]
301 301 0.000010 $ip2 $elf main+0x10
300 302 0.000012 $ip $elf main+0x10
300 302 0.000014 $ip [unknown] [unknown]
EOF
expect process <<EOF
# Samples: 6 of event 'cpu-clock'
# Event count (approx.): 6
#
# Overhead       Samples  Command  Shared Object  Symbol
# ........  ............  .......  .............  ......
#
    50.00%             3  parent   make-perfdata  [.] main
    16.67%             1  child    make-perfdata  [.] main
    16.67%             1  child    [unknown]      [.] [unknown]
    16.67%             1  parent   [unknown]      [.] [unknown]
EOF

# Records are taken in time order as perf takes them: sorted within the
# queue, and at the end of a round only up to the latest time queued
# when the round before ended.  The sample at 30 comes before the mmap
# at 20 in the file, but after it in time; the one at 15 of the second
# round still comes before the mmap, and the one at 5, which comes after
# that was delivered, is late.  Records without a time go at once.
make_data order <<EOF
attr sample_type=ip,tid,time id_all
sample pid=400 ip=0x$ip time=30000
mmap2 pid=400 $text prot=r-x time=20000
sample pid=400 ip=0x$ip time=10000
round
sample pid=400 ip=0x$ip time=15000
round
sample pid=400 ip=0x$ip time=5000
comm pid=400 name=late
round
EOF
expect order -s <<EOF
400 400 0.000010 $ip [unknown] [unknown]
400 400 0.000015 $ip [unknown] [unknown]
400 400 0.000030 $ip $elf main+0x10
400 400 0.000005 $ip $elf main+0x10
EOF

# Two events whose samples differ: the sample id (PERF_SAMPLE_IDENTIFIER)
# tells which.  The callchain's context markers only set the mode of the
# frames after them; the first frame, the sample's own address, is not
# repeated.  A sample of an unknown id is skipped, with a warning.  The
# profile has a part for each event.
make_data attrs <<EOF
attr sample_type=identifier,ip,tid,time id_all ids=11
attr sample_type=identifier,ip,tid,time,period,callchain id_all ids=22,23 type=0 config=1
mmap2 pid=500 $text prot=r-x time=1 id=11
sample attr=0 id=11 pid=500 ip=0x$ip time=1000
sample attr=1 id=23 pid=500 ip=0x$ip time=2000 period=7 callchain=0xffffffffffffff80,0xffffffff81000010,0xfffffffffffffe00,0x$ip,0x$ip2
sample attr=0 id=99 pid=500 ip=0x$ip time=3000
EOF
expect attrs -s -g <<EOF
500 500 0.000001 $ip $elf main+0x10
500 500 0.000002 $ip $elf main+0x10
	ffffffff81000010 [unknown] ([kernel])
	$ip main+0x10 ($elf)
	$ip2 [unknown] ([unknown])
EOF
expect attrs <<EOF
# Samples: 1 of event 'cpu-clock'
# Event count (approx.): 1
#
# Overhead       Samples  Command  Shared Object  Symbol
# ........  ............  .......  .............  ......
#
   100.00%             1  :500     make-perfdata  [.] main

# Samples: 1 of event 'instructions'
# Event count (approx.): 7
#
# Overhead       Samples  Command  Shared Object  Symbol
# ........  ............  .......  .............  ......
#
   100.00%             1  :500     make-perfdata  [.] main
EOF
"$perfsym" -s -i "$tmp/attrs.data" 2>&1 > /dev/null |
  grep -qx "perfsym: warning: 1 samples of unknown events skipped" &&
  pass "attrs (warning)" || fail "attrs (warning)"

# Records of types perfsym does not use are skipped by their size, also
# those perf follows with data of their own (PERF_RECORD_AUXTRACE); the
# samples around them are read, whatever else they carry (raw data,
# period, cpu, weight, ...).
make_data skip <<EOF
attr sample_type=ip,tid,time,cpu,period,raw,weight id_all
mmap2 pid=600 $text prot=r-x time=1
record type=99 payload=24
sample pid=600 ip=0x$ip time=1000 raw=12
record type=73 payload=16
record type=71 payload=40 extra=64
record type=0 payload=8
sample pid=600 ip=0x$ip time=2000 raw=4
record type=80 payload=1000
EOF
expect skip -s <<EOF
600 600 0.000001 $ip $elf main+0x10
600 600 0.000002 $ip $elf main+0x10
EOF

# Every field a sample can have up to the user stack, and one after, is
# skipped by its size: group read values, raw data, branches with their
# hardware index, user registers and stack.
make_data fields <<EOF
attr sample_type=identifier,ip,tid,time,addr,id,stream_id,cpu,period,read,callchain,raw,branch_stack,regs_user,stack_user,weight id_all ids=3 read_format=0x1f branch_type=0x20000 regs_user=0x7 stack_user=32
mmap2 pid=650 $text prot=r-x time=1 id=3
sample pid=650 tid=651 ip=0x$ip time=3000 id=3 period=9 group=3 callchain=0xfffffffffffffe00,0x$ip raw=12 branches=2 regs=1,2,3 stack=32
sample pid=650 tid=652 ip=0x$ip2 time=4000 id=3 period=9 group=1 raw=4 branches=0 stack=0
EOF
expect fields -s <<EOF
650 651 0.000003 $ip $elf main+0x10
650 652 0.000004 $ip2 [unknown] [unknown]
EOF

# perf's pipe format, from a file and from standard input.
make_data pipe <<EOF
pipe
attr sample_type=ip,tid,time id_all ids=7
mmap2 pid=700 $text prot=r-x time=1
sample pid=700 ip=0x$ip time=1000
EOF
expect pipe -s <<EOF
700 700 0.000001 $ip $elf main+0x10
EOF
if "$perfsym" -s -i - < "$tmp/pipe.data" > "$tmp/out" 2>&1 &&
   [ "$(cat "$tmp/out")" = "700 700 0.000001 $ip $elf main+0x10" ]; then
  pass "pipe -i -"
else
  fail "pipe -i -"
  cat "$tmp/out"
fi

# An attribute of the first version (size 64: no sample_regs_user) and
# one larger than perfsym knows are read by their size.
make_data oldattr <<EOF
attr sample_type=ip,tid,time id_all size=64
header attr_size=80
mmap2 pid=800 $text prot=r-x time=1
sample pid=800 ip=0x$ip time=1000
EOF
expect oldattr -s <<EOF
800 800 0.000001 $ip $elf main+0x10
EOF
make_data newattr <<EOF
attr sample_type=ip,tid,time id_all size=256
header attr_size=272
mmap2 pid=800 $text prot=r-x time=1
sample pid=800 ip=0x$ip time=1000
EOF
expect newattr -s <<EOF
800 800 0.000001 $ip $elf main+0x10
EOF

# A file perf record did not finish has a data size of 0: its records
# are read to the end of the file.
make_data unfinished <<EOF
attr sample_type=ip,tid,time id_all
header data_size=0
mmap2 pid=900 $text prot=r-x time=1
sample pid=900 ip=0x$ip time=1000
EOF
expect unfinished -s <<EOF
900 900 0.000001 $ip $elf main+0x10
EOF

# The build ids of the recording (feature HEADER_BUILD_ID): a file that
# is not the one recorded is read all the same, with a warning, unless
# perf's build-id cache ($HOME/.debug/.build-id/XX/YYY/elf, or vdso for
# the vdso) has the one recorded: that is read instead, under the name
# of the recorded file.
bid=$(readelf -n "$elf" | awk '$1 == "Build" && $2 == "ID:" { print $3 }')
other_id=0123456789abcdef0123456789abcdef01234567
make_data buildid <<EOF
attr sample_type=ip,tid,time id_all
mmap2 pid=1200 $text prot=r-x time=1
sample pid=1200 ip=0x$ip time=1000
buildid file=$elf id=$bid
EOF
expect buildid -s <<EOF
1200 1200 0.000001 $ip $elf main+0x10
EOF
[ ! -s "$tmp/err" ] && pass "buildid (no warning)" || fail "buildid (no warning)"
sed "s/id=$bid/id=$other_id/" <<EOF | make_data buildid2
attr sample_type=ip,tid,time id_all
mmap2 pid=1200 $text prot=r-x time=1
sample pid=1200 ip=0x$ip time=1000
buildid file=$elf id=$bid
EOF
expect buildid2 -s <<EOF
1200 1200 0.000001 $ip $elf main+0x10
EOF
grep -qx "perfsym: warning: 1 mappings of files whose build id is not the one recorded (the files changed since?)" "$tmp/err" &&
  pass "buildid2 (warning)" || fail "buildid2 (warning)"
cache=$tmp/home/.debug/.build-id/01/23456789abcdef0123456789abcdef01234567
mkdir -p "$cache"
cp "$elf" "$cache/elf"
cp "$elf" "$cache/vdso"
make_data cached <<EOF
attr sample_type=ip,tid,time id_all
mmap2 pid=1300 start=$start len=$len pgoff=$pgoff file=/nonexistent/prog prot=r-x time=1
mmap2 pid=1300 start=$start2 len=$len pgoff=$pgoff file=[vdso] prot=r-x time=1
sample pid=1300 ip=0x$ip time=1000
sample pid=1300 ip=0x$ip2 time=2000
buildid file=/nonexistent/prog id=$other_id
buildid file=[vdso] id=$other_id
EOF
home=$HOME
HOME=$tmp/home
export HOME
expect cached -s <<EOF
1300 1300 0.000001 $ip /nonexistent/prog main+0x10
1300 1300 0.000002 $ip2 [vdso] main+0x10
EOF
HOME=$home

# The identity an MMAP2 record gives its file when it was mapped
# (device, inode): a file of the name that no longer has it (replaced
# since) is read all the same, as perf reads it, with a warning, unless
# the recording has the build id of the file, which tells better.  Each
# file is opened once, for every process (--stats), also one that is not
# ELF; a path that is now a fifo is not waited on.
set -- $(stat -L -c '%d %i' "$elf")
maj=$(($1 >> 8 & 0xfff))
min=$((($1 & 0xff) | ($1 >> 12 & 0xfff00)))
ino=$2
echo 'not ELF' > "$tmp/notelf"
make_data identity <<EOF
attr sample_type=ip,tid,time id_all
mmap2 pid=1400 $text prot=r-x maj=$maj min=$min ino=$ino time=1
mmap2 pid=1400 start=0x10000 len=0x1000 pgoff=0 prot=r-- file=$tmp/notelf time=1
mmap2 pid=1401 $text prot=r-x maj=$maj min=$min ino=$ino time=1
mmap2 pid=1401 start=0x10000 len=0x1000 pgoff=0 prot=r-- file=$tmp/notelf time=1
sample pid=1400 ip=0x$ip time=1000
sample pid=1401 ip=0x$ip time=2000
EOF
expect identity -s --stats <<EOF
1400 1400 0.000001 $ip $elf main+0x10
1401 1401 0.000002 $ip $elf main+0x10
EOF
grep -qx "perfsym: 2 files opened, 1 of them not ELF" "$tmp/err" &&
  ! grep -q warning "$tmp/err" &&
  pass "identity (each file opened once, no warning)" ||
  { fail "identity (each file opened once, no warning)"; cat "$tmp/err"; }
make_data identity2 <<EOF
attr sample_type=ip,tid,time id_all
mmap2 pid=1400 $text prot=r-x maj=$maj min=$min ino=$((ino + 1)) time=1
sample pid=1400 ip=0x$ip time=1000
EOF
expect identity2 -s <<EOF
1400 1400 0.000001 $ip $elf main+0x10
EOF
grep -qx "perfsym: warning: 1 mappings of files that are not the ones mapped (another device or inode: replaced since?), read all the same" "$tmp/err" &&
  pass "identity2 (warning)" || fail "identity2 (warning)"
make_data identity3 <<EOF
attr sample_type=ip,tid,time id_all
mmap2 pid=1400 $text prot=r-x maj=$maj min=$min ino=$((ino + 1)) time=1
sample pid=1400 ip=0x$ip time=1000
buildid file=$elf id=$bid
EOF
expect identity3 -s <<EOF
1400 1400 0.000001 $ip $elf main+0x10
EOF
[ ! -s "$tmp/err" ] && pass "identity3 (build id, no warning)" ||
  fail "identity3 (build id, no warning)"
mkfifo "$tmp/fifo"
make_data fifo <<EOF
attr sample_type=ip,tid,time id_all
mmap2 pid=1400 start=0x10000 len=0x1000 pgoff=0 prot=r-- file=$tmp/fifo time=1
EOF
if timeout 20 "$perfsym" --stats -i "$tmp/fifo.data" > /dev/null \
     2> "$tmp/err" && grep -q "not read: 1 (not an ELF file 1)" "$tmp/err"; then
  pass "fifo (not waited on)"
else
  fail "fifo (not waited on)"
fi

# Kernel addresses are named from a kallsyms file as perf names them:
# the maps are those of the recording's kernel mmap records (the kernel,
# [kernel.kallsyms]_text at its _text; a module, named after its file
# with '-' as '_'), the symbols those of types T, W, D, B, each reaching
# the next (the kernel's last one page on, not across to the modules).
# Of the symbols of one address perf keeps the last in the file, the only
# one it gives a size: _text, and weak_one over local_one.  A module
# without a map ([__builtin__ftrace]) names nothing.  Once the symbols
# are read the kernel's map is where its symbols are: up to the end of
# last_kernel, 0xffffffff81002000, not the 1 MiB of the record.
cat > "$tmp/kallsyms" <<EOF
ffffffff81000000 T srso_alias_untrain_ret
ffffffff81000000 T _stext
ffffffff81000000 T _text
ffffffff81000100 t local_one
ffffffff81000100 W weak_one
ffffffff81000200 T do_work
ffffffff81000300 r some_rodata
ffffffff81000400 T last_kernel
ffffffffc0000000 t my_init	[my_mod]
ffffffffc0000100 T my_func	[my_mod]
ffffffffc0100000 t ftrace_tramp	[__builtin__ftrace]
EOF
kmaps="mmap pid=-1 start=0xffffffff81000000 len=0x100000 pgoff=0xffffffff81000000 file=[kernel.kallsyms]_text kernel time=1
mmap pid=-1 start=0xffffffffc0000000 len=0x10000 pgoff=0 file=/lib/modules/6.1/kernel/my-mod.ko.xz kernel time=1"
make_data kernel <<EOF
attr sample_type=ip,tid,time,callchain id_all
comm pid=1400 name=prog exec time=1
$kmaps
sample pid=1400 ip=0xffffffff81000010 time=1000 kernel
sample pid=1400 ip=0xffffffff81000108 time=2000 kernel
sample pid=1400 ip=0xffffffff81000350 time=3000 kernel
sample pid=1400 ip=0xffffffff81000450 time=4000 kernel
sample pid=1400 ip=0xffffffff81002010 time=5000 kernel
sample pid=1400 ip=0xffffffffc0000108 time=6000 kernel callchain=0xffffffffffffff80,0xffffffffc0000108,0xffffffff81000210
sample pid=1400 ip=0xffffffffc0100010 time=7000 kernel
EOF
expect kernel -s -g --kallsyms="$tmp/kallsyms" <<EOF
1400 1400 0.000001 ffffffff81000010 [kernel.kallsyms] _text+0x10
1400 1400 0.000002 ffffffff81000108 [kernel.kallsyms] weak_one+0x8
1400 1400 0.000003 ffffffff81000350 [kernel.kallsyms] do_work+0x150
1400 1400 0.000004 ffffffff81000450 [kernel.kallsyms] last_kernel+0x50
1400 1400 0.000005 ffffffff81002010 [unknown] [unknown]
1400 1400 0.000006 ffffffffc0000108 [my_mod] my_func+0x8
	ffffffff81000210 do_work+0x10 ([kernel.kallsyms])
1400 1400 0.000007 ffffffffc0100010 [unknown] [unknown]
EOF
expect kernel --kallsyms="$tmp/kallsyms" <<EOF
# Samples: 7 of event 'cpu-clock'
# Event count (approx.): 7
#
# Overhead       Samples  Command  Shared Object      Symbol
# ........  ............  .......  .................  ......
#
    28.57%             2  prog     [unknown]          [k] [unknown]
    14.29%             1  prog     [kernel.kallsyms]  [k] _text
    14.29%             1  prog     [kernel.kallsyms]  [k] do_work
    14.29%             1  prog     [kernel.kallsyms]  [k] last_kernel
    14.29%             1  prog     [kernel.kallsyms]  [k] weak_one
    14.29%             1  prog     [my_mod]           [k] my_func
EOF
# A kallsyms of a boot that put the kernel 256 MiB lower: its symbols move
# to where the recording's _text says the kernel was; modules do not.
make_data kaslr <<EOF
attr sample_type=ip,tid,time id_all
mmap pid=-1 start=0xffffffff91000000 len=0x100000 pgoff=0xffffffff91000000 file=[kernel.kallsyms]_text kernel time=1
sample pid=1500 ip=0xffffffff91000108 time=1000 kernel
EOF
expect kaslr -s --kallsyms="$tmp/kallsyms" <<EOF
1500 1500 0.000001 ffffffff91000108 [kernel.kallsyms] weak_one+0x8
EOF
# Without --kallsyms: a recorded kernel that is not the running one is
# named from perf's build-id cache, else not, with one warning.
make_data kcache <<EOF
attr sample_type=ip,tid,time id_all
$kmaps
sample pid=1600 ip=0xffffffff81000210 time=1000 kernel
sample pid=1600 ip=0xffffffff81000220 time=2000 kernel
buildid file=[kernel.kallsyms] id=$other_id
EOF
expect kcache -s <<EOF
1600 1600 0.000001 ffffffff81000210 [kernel.kallsyms] [unknown]
1600 1600 0.000002 ffffffff81000220 [kernel.kallsyms] [unknown]
EOF
[ "$(cat "$tmp/err")" = "perfsym: warning: kernel addresses are not named: the recorded kernel (build id $other_id) is not the running one, and perf's build-id cache has no kallsyms of it" ] &&
  pass "kcache (warning)" || { fail "kcache (warning)"; cat "$tmp/err"; }
mkdir -p "$tmp/home/.debug/[kernel.kallsyms]/$other_id"
cp "$tmp/kallsyms" "$tmp/home/.debug/[kernel.kallsyms]/$other_id/kallsyms"
HOME=$tmp/home
expect kcache -s <<EOF
1600 1600 0.000001 ffffffff81000210 [kernel.kallsyms] do_work+0x10
1600 1600 0.000002 ffffffff81000220 [kernel.kallsyms] do_work+0x20
EOF
HOME=$home
# Folded stacks: the command, then the frames from the outermost, each
# by its symbol or [FILE] (code in anonymous memory is named after the
# JIT's map file, as perf names it); one line per distinct stack, with
# its count; ';' in a name becomes ':'.
make_data folded <<EOF
attr sample_type=ip,tid,time,callchain id_all
comm pid=1700 name=a;b exec time=1
$kmaps
mmap2 pid=1700 $text prot=r-x time=1
mmap2 pid=1700 start=0x7ffe00000000 len=0x1000 pgoff=0 prot=r-x file=//anon time=1
sample pid=1700 ip=0xffffffff81000210 time=1000 kernel callchain=0xffffffffffffff80,0xffffffff81000210,0xffffffff81000110,0xfffffffffffffe00,0x$ip,0x7ffe00000010
sample pid=1700 ip=0xffffffff81000220 time=2000 kernel callchain=0xffffffffffffff80,0xffffffff81000220,0xffffffff81000120,0xfffffffffffffe00,0x$ip,0x7ffe00000010
sample pid=1700 ip=0x$ip time=3000 callchain=0xfffffffffffffe00,0x$ip,0x7ffe00000020
sample pid=1700 ip=0x$ip time=4000
EOF
expect folded --folded --kallsyms="$tmp/kallsyms" <<EOF
a:b;[perf-1700.map];main 1
a:b;[perf-1700.map];main;weak_one;do_work 2
a:b;main 1
EOF

# Bad files: the message names the file, the byte offset and the
# problem; nothing is printed, unless --partial asks for what came
# before the problem.  In these files the data section starts at 248
# (0xf8), after a 104-byte header and one 144-byte attribute; the MMAP2
# record of GOOD takes 104 bytes (72 of fields, 16 of file name, 16 of
# sample_id), its sample 32: the data section ends at 384.
good="attr sample_type=ip,tid,time id_all
mmap2 pid=1000 start=0x1000 len=0x1000 prot=r-x file=/nonexistent/x time=1
sample pid=1000 ip=0x1010 time=1000"
printf 'PERFILE2xyz' > "$tmp/short.data"
expect_error short "perfsym: $tmp/short.data: offset 0 (0x0): file too short for a perf.data header (11 bytes)" < /dev/null
printf '%s\nheader magic=PERFILE3\n' "$good" | make_data magic
expect_error magic "perfsym: $tmp/magic.data: offset 0 (0x0): not a perf.data file: wrong magic (expected \"PERFILE2\")" < /dev/null
printf '%s\nheader size=96\n' "$good" | make_data hsize
expect_error hsize "perfsym: $tmp/hsize.data: offset 8 (0x8): unknown header size 96 (expected 104, 72, or 16 for pipe mode)" < /dev/null
printf 'attr sample_type=ip size=40\n' | make_data attrsize
expect_error attrsize "perfsym: $tmp/attrsize.data: offset 104 (0x68): event attribute of unknown size 40 (at least 64, a multiple of 8, at most 128 here)" < /dev/null
printf 'attr sample_type=ip size=136\n' | make_data attrbig
expect_error attrbig "perfsym: $tmp/attrbig.data: offset 104 (0x68): event attribute of unknown size 136 (at least 64, a multiple of 8, at most 128 here)" < /dev/null
printf 'attr sample_type=ip\nheader attr_size=20\n' | make_data attrstride
expect_error attrstride "perfsym: $tmp/attrstride.data: offset 16 (0x10): unknown attribute size 20 in the header" < /dev/null
printf '%s\nrecord type=9 size=0\n' "$good" | make_data size0
expect_error size0 "perfsym: $tmp/size0.data: offset 384 (0x180): record of type 9 has size 0, less than its 8-byte header" < /dev/null
expect_error size0 "perfsym: $tmp/size0.data: offset 384 (0x180): record of type 9 has size 0, less than its 8-byte header" -s --partial <<EOF
1000 1000 0.000001 1010 [unknown] [unknown]
EOF
printf '%s\nrecord type=3 size=64 payload=8\n' "$good" | make_data pastend
expect_error pastend "perfsym: $tmp/pastend.data: offset 384 (0x180): record of type 3 and size 64 runs past the end of the data section at 400" < /dev/null
printf '%s\ntruncate 10\n' "$good" | make_data truncated
expect_error truncated "perfsym: $tmp/truncated.data: offset 352 (0x160): record of type 9 and size 32 is cut off by the end of the file at 374 (the header says the data ends at 384: truncated file?)" < /dev/null
printf '%s\ntruncate 32\n' "$good" | make_data truncated2
expect_error truncated2 "perfsym: $tmp/truncated2.data: offset 352 (0x160): the file ends here, but its header says the data section ends at 384 (truncated file?)" -s --partial < /dev/null
printf 'attr sample_type=ip,tid,callchain\nsample pid=1 ip=1 callchain=1,2 nr=100\n' | make_data chain
expect_error chain "perfsym: $tmp/chain.data: offset 248 (0xf8): sample of size 48 is too small for its callchain (sample_type 0x23)" < /dev/null
# In pipe mode a record belongs to the attribute its id names when it is
# read: this sample, read while there is one attribute, is that one's
# (too small for its callchain), also after another attribute came.
# The check and a --partial run, which decodes it later, agree (found by
# fuzz/fuzz-perf-data.c: --partial skipped it as of an unknown id).
printf 'pipe\nattr sample_type=identifier,ip,tid,time,callchain ids=1\nsample id=5 pid=1 ip=1 time=100 callchain=1,2 nr=100\nattr sample_type=identifier,ip,tid,time ids=2\n' | make_data lateattr
for opts in "" "-s --partial"; do
  # shellcheck disable=SC2086
  expect_error lateattr "perfsym: $tmp/lateattr.data: offset 160 (0xa0): sample of size 64 is too small for its callchain (sample_type 0x10027)" $opts < /dev/null
done
printf 'attr sample_type=ip,tid,time id_all\nmmap2 pid=1 start=0x1000 len=0x1000 file=/x noterm\n' | make_data noterm
expect_error noterm "perfsym: $tmp/noterm.data: offset 248 (0xf8): MMAP2 record of size 90: its name is not terminated" < /dev/null
expect_error nonexistent "perfsym: $tmp/nonexistent.data: cannot open: No such file or directory" < /dev/null
mkdir "$tmp/dir.data"
expect_error dir "perfsym: $tmp/dir.data: is a directory (perf record --threaded directories are not supported)" < /dev/null

# Corrupt files never crash perfsym nor hang it: every byte of a file
# with records of each kind is set to 0 and to 0xff in turn; perfsym
# must exit with 0 or 1.
mkdir "$tmp/variants"
make_data corrupt <<EOF
attr sample_type=identifier,ip,tid,time,period,callchain,regs_user,stack_user id_all ids=5 regs_user=0x1ff stack_user=64
comm pid=1100 name=c exec time=1 id=5
mmap pid=1100 $text time=2 id=5
mmap2 pid=1100 $text2 prot=r-x time=3 id=5
fork pid=1101 ppid=1100 time=4 id=5
sample pid=1101 ip=0x$ip time=5 id=5 callchain=0xfffffffffffffe00,0x$ip regs=1,2,3,4,5,6,7,0x7ff000,0x$ip stack=64
round
exit pid=1101 ppid=1100 time=6 id=5
record type=71 payload=40 extra=8
variants $tmp/variants
EOF
crashes=0
n=0
for f in "$tmp"/variants/*.data; do
  status=0
  timeout 10 "$perfsym" -s -g -i "$f" > /dev/null 2>&1 || status=$?
  if [ "$status" -gt 1 ]; then
    echo "$(basename "$f" .data) (byte-value): exit status $status"
    crashes=$((crashes + 1))
  fi
  n=$((n + 1))
done
if [ "$crashes" -eq 0 ]; then
  pass "corrupt: $n variants"
else
  fail "corrupt: $crashes of $n variants crash or hang"
fi

# Real recordings, without perf's build-id cache (-N) nor its side-band
# thread.  perf_event_open must be allowed: the test fails, not skips,
# when it is not.  A program that calls clock_gettime, whose
# samples are in the vdso, is recorded without perf's build-id cache
# (-N): perfsym must name its samples in the vdso as perf does (with
# this machine's copy of the vdso).  perf script names them only from
# a build-id cache that has the vdso: a second recording, without -N,
# gives it one of the test's own (its HOME), which perfsym does not see.
cat > "$tmp/clock.c" <<EOF
#include <time.h>
int
main (void)
{
  struct timespec start, now;
  clock_gettime (CLOCK_MONOTONIC, &start);
  do
    clock_gettime (CLOCK_MONOTONIC, &now);
  while ((now.tv_sec - start.tv_sec) * 1000000000L
	 + now.tv_nsec - start.tv_nsec < 300000000L);
  return 0;
}
EOF
if ! cc -O2 -o "$tmp/clock" "$tmp/clock.c" 2> "$tmp/cc.log"; then
  fail "vdso: cannot compile a test program"
  cat "$tmp/cc.log"
elif ! perf record -q -N --no-bpf-event -e cpu-clock -F 2000 \
       -o "$tmp/clock.data" -- "$tmp/clock" > "$tmp/record.log" 2>&1; then
  fail "vdso: perf record cannot record here:"
  cat "$tmp/record.log"
elif ! mkdir "$tmp/vdso-home" ||
     ! HOME=$tmp/vdso-home perf record -q --no-bpf-event -e cpu-clock \
       -o "$tmp/clock-cached.data" -- "$tmp/clock" > "$tmp/record.log" 2>&1 ||
     ! HOME=$tmp/vdso-home perf buildid-list -i "$tmp/clock.data" \
       2> /dev/null | grep -q ' \[vdso\]$' ||
     [ -z "$(find "$tmp/vdso-home/.debug" -path '*vdso*' -type f)" ]; then
  fail "vdso: perf record did not keep the vdso in its build-id cache:"
  cat "$tmp/record.log"
else
  HOME=$tmp/vdso-home perf script -F ip,sym,dso -G -i "$tmp/clock.data" \
    2> /dev/null | grep ' (\[vdso\])$' > "$tmp/vdso" || true
  n=$(wc -l < "$tmp/vdso")
  named=$(grep -c -v '\[unknown\]' "$tmp/vdso" || true)
  got=$("$perfsym" -s -i "$tmp/clock.data" | grep -c ' \[vdso\] [^[]' || true)
  if [ "$got" -eq "$named" ] && [ "$named" -gt 0 ]; then
    pass "vdso: $got of $n samples in the vdso named, as by perf"
  else
    fail "vdso: perf names $named samples in the vdso, perfsym $got"
  fi
fi

workload='i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done'
for mode in fp dwarf; do
  case $mode in
    fp) opts=-g ;;
    dwarf) opts="--call-graph dwarf" ;;
  esac
  data=$tmp/record-$mode.data
  # shellcheck disable=SC2086
  if ! perf record -q -N --no-bpf-event -e cpu-clock -F 2000 $opts -o "$data" \
       -- sh -c "$workload" > "$tmp/record.log" 2>&1; then
    fail "perf record ($mode): perf record cannot record here:"
    cat "$tmp/record.log"
    continue
  fi
  if ! "$perfsym" -i "$data" > "$tmp/profile" 2> "$tmp/err" ||
     ! "$perfsym" -s -g --stats -i "$data" > "$tmp/samples" 2> "$tmp/stats"; then
    fail "perf record ($mode): perfsym failed:"
    cat "$tmp/err" "$tmp/stats"
    continue
  fi
  n=$(perf script -F ip -G -i "$data" 2> /dev/null | wc -l)
  got=$(grep -c -v '^	' "$tmp/samples" || true)
  bad=$(grep -v '^	' "$tmp/samples" |
	grep -c -v -E '^-?[0-9]+ -?[0-9]+ [0-9]+\.[0-9]{6} [0-9a-f]+ [^ ]+ [^ ].*$' || true)
  resolved=$(grep -c -E '^[^	]* /[^ ]+ [^[]' "$tmp/samples" || true)
  if [ "$n" -gt 0 ] && [ "$got" -eq "$n" ] && [ "$bad" -eq 0 ] &&
     [ "$resolved" -gt 0 ] && grep -q "^# Samples: $n of event 'cpu-clock'\$" "$tmp/profile"; then
    pass "perf record ($mode): $n samples, $resolved named in files"
  else
    fail "perf record ($mode): perf script has $n samples, perfsym $got, $bad badly formed, $resolved named"
    head -20 "$tmp/samples"
  fi
  if [ "$mode" = dwarf ]; then
    if grep -q "perfsym: [1-9][0-9]* samples unwound" "$tmp/stats"; then
      pass "perf record ($mode): unwound"
    else
      fail "perf record ($mode): nothing unwound"
      cat "$tmp/stats"
    fi
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
