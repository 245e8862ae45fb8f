#!/bin/sh
# Write the seeds of fuzz-perf-data into OUTDIR: small perf.data files
# made by perfsym's test generator MAKE_PERFDATA (build/profiler/
# make-perfdata, see profiler/tests/make-perfdata.c), one for each kind
# of record and field the reader knows; and with REAL set, tiny
# recordings of /bin/true by perf record (root or a low
# kernel.perf_event_paranoid needed), which are never made twice alike.
# The mappings of the generated files are of /usr/bin/true and the C
# library, files the fuzzer reads under their own names: their
# executable segments at 0x555555556000 and 0x7ffff7df6000, as
# readelf -lW shows them on the machine the seeds were made on (Debian
# 12, x86_64):
#   /usr/bin/true  LOAD 0x002000 0x2000 ... 0x003d59 R E
#   libc.so.6      LOAD 0x026000 0x26000 ... 0x1550fc R E
# Usage: fuzz/make-perf-data-corpus.sh MAKE_PERFDATA OUTDIR [REAL]
set -eu

[ $# -eq 2 ] || [ $# -eq 3 ] ||
  { echo "usage: $0 MAKE_PERFDATA OUTDIR [REAL]" >&2; exit 2; }
gen=$1 out=$2 real=${3:-}
mkdir -p "$out"

true_text="start=0x555555556000 len=0x4000 pgoff=0x2000 file=/usr/bin/true"
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
libc_text="start=0x7ffff7df6000 len=0x156000 pgoff=0x26000 file=$libc"
ip=0x555555556100
libc_ip=0x7ffff7e00000

# seed NAME: write OUTDIR/NAME.data from the description on standard input.
seed() {
  "$gen" "$out/$1.data"
}

seed basic <<END
attr sample_type=ip,tid,time,period id_all
comm pid=100 name=prog exec time=1
mmap2 pid=100 $true_text prot=r-x time=2
mmap2 pid=100 $libc_text prot=r-x time=2
mmap2 pid=100 start=0x7fff00000000 len=0x2000 pgoff=0 prot=r-x file=[vdso] time=2
mmap2 pid=100 start=0x7ffe00000000 len=0x1000 pgoff=0 prot=rwx file=//anon time=2
sample pid=100 ip=$ip time=1000000003 period=5
sample pid=100 ip=$libc_ip time=1000000004 period=5
sample pid=100 ip=0xffffffff81000000 time=1000000004 kernel
sample pid=100 ip=0x7fff00000010 time=2000000005
sample pid=100 ip=0x7ffe00000010 time=2000000006
sample pid=100 tid=101 ip=0x1234 time=2000001008
round
END

# Kernel maps (the kernel's, a module's) and kernel samples and frames,
# named from the fuzzer's small kallsyms file.
seed kernel <<END
attr sample_type=ip,tid,time,callchain id_all
comm pid=150 name=prog exec time=1
mmap pid=-1 start=0xffffffff81000000 len=0x100000 pgoff=0xffffffff81000000 file=[kernel.kallsyms]_text kernel time=1
mmap pid=-1 start=0xffffffffc0000000 len=0x10000 pgoff=0 file=/lib/modules/6.1/kernel/module.ko kernel time=1
mmap2 pid=150 $true_text prot=r-x time=2
sample pid=150 ip=0xffffffff81000108 time=1000 kernel callchain=0xffffffffffffff80,0xffffffff81000108,0xffffffffc0000010,0xfffffffffffffe00,$ip
sample pid=150 ip=0xffffffffc0000010 time=2000 kernel
END

seed prot <<END
attr sample_type=ip,tid,time id_all
mmap pid=200 $true_text time=1
mmap pid=201 $true_text data time=1
mmap2 pid=202 $true_text prot=--- time=1
sample pid=200 ip=$ip time=2000
sample pid=201 ip=$ip time=3000
sample pid=202 ip=$ip time=4000
END

seed process <<END
attr sample_type=ip,tid,time id_all
comm pid=300 name=parent time=1000
mmap2 pid=300 $libc_text prot=r-x time=2000
fork pid=301 ppid=300 tid=301 ptid=300 time=3000
fork pid=300 ppid=300 tid=302 ptid=300 time=4000
sample pid=301 ip=$libc_ip time=5000
sample pid=300 tid=302 ip=$libc_ip time=6000
comm pid=301 name=child exec time=7000
sample pid=301 ip=$libc_ip time=8000
mmap2 pid=301 $true_text prot=r-x time=9000
sample pid=301 ip=$ip time=10000
exit pid=300 ppid=1 tid=300 ptid=1 time=11000
exit pid=300 ppid=1 tid=302 ptid=300 time=13000
sample pid=300 tid=302 ip=$libc_ip time=14000
END

seed order <<END
attr sample_type=ip,tid,time id_all
sample pid=400 ip=$ip time=30000
mmap2 pid=400 $true_text prot=r-x time=20000
sample pid=400 ip=$ip time=10000
round
sample pid=400 ip=$ip time=15000
round
sample pid=400 ip=$ip time=5000
comm pid=400 name=late
round
END

seed attrs <<END
attr sample_type=identifier,ip,tid,time id_all ids=11
attr sample_type=identifier,ip,tid,time,period,callchain id_all ids=22,23 type=0 config=1
mmap2 pid=500 $libc_text prot=r-x time=1 id=11
sample attr=0 id=11 pid=500 ip=$libc_ip time=1000
sample attr=1 id=23 pid=500 ip=$libc_ip time=2000 period=7 callchain=0xffffffffffffff80,0xffffffff81000010,0xfffffffffffffe00,$libc_ip,$ip
sample attr=0 id=99 pid=500 ip=$libc_ip time=3000
END

seed skip <<END
attr sample_type=ip,tid,time,cpu,period,raw,weight id_all
mmap2 pid=600 $true_text prot=r-x time=1
record type=99 payload=24
sample pid=600 ip=$ip time=1000 raw=12
record type=73 payload=16
record type=71 payload=40 extra=64
record type=0 payload=8
sample pid=600 ip=$ip time=2000 raw=4
record type=80 payload=100
END

seed fields <<END
attr sample_type=identifier,ip,tid,time,addr,id,stream_id,cpu,period,read,callchain,raw,branch_stack,regs_user,stack_user,weight id_all ids=3 read_format=0x1f branch_type=0x20000 regs_user=0x7 stack_user=32
mmap2 pid=650 $true_text prot=r-x time=1 id=3
sample pid=650 tid=651 ip=$ip time=3000 id=3 period=9 group=3 callchain=0xfffffffffffffe00,$ip raw=12 branches=2 regs=1,2,3 stack=32
sample pid=650 tid=652 ip=$ip time=4000 id=3 period=9 group=1 raw=4 branches=0 stack=0
END

# Registers and a stack copy as perf record --call-graph dwarf asks for
# them (x86_64: the mask 0xff0fff, perf's), for the unwinder.
seed dwarf <<END
attr sample_type=identifier,ip,tid,time,period,callchain,regs_user,stack_user id_all ids=5 regs_user=0xff0fff stack_user=64
comm pid=1100 name=c exec time=1 id=5
mmap2 pid=1100 $libc_text prot=r-x time=3 id=5
sample pid=1100 ip=$libc_ip time=5 id=5 callchain=0xfffffffffffffe00,$libc_ip regs=1,2,3,4,5,6,0x7fffffffe000,0x7fffffffe000,9,10,11,12,13,14,15,16,$libc_ip,18,19,20 stack=64
round
END

seed pipe <<END
pipe
attr sample_type=identifier,ip,tid,time id_all ids=7
attr sample_type=identifier,ip,tid,time id_all ids=8
mmap2 pid=700 $true_text prot=r-x time=1
sample id=7 pid=700 ip=$ip time=1000
record type=71 payload=40 extra=64
sample attr=1 id=8 pid=700 ip=$ip time=2000
END

# A sample read while the pipe has one attribute, too small for it, and
# an attribute after it: perfsym --partial once skipped it, as of an
# unknown id, where the check found it bad (a fuzzer find).
seed pipe-late-attr <<END
pipe
attr sample_type=identifier,ip,tid,time,callchain ids=1
sample id=5 pid=1 ip=1 time=100 callchain=1,2 nr=100
attr sample_type=identifier,ip,tid,time ids=2
END

seed oldattr <<END
attr sample_type=ip,tid,time id_all size=64
header attr_size=80
mmap2 pid=800 $true_text prot=r-x time=1
sample pid=800 ip=$ip time=1000
END

seed unfinished <<END
attr sample_type=ip,tid,time id_all
header data_size=0
mmap2 pid=900 $true_text prot=r-x time=1
sample pid=900 ip=$ip time=1000
END

seed buildid <<END
attr sample_type=ip,tid,time id_all
buildid file=/usr/bin/true id=0123456789abcdef0123456789abcdef01234567
buildid file=[vdso] id=00112233445566778899aabbccddeeff00112233
mmap2 pid=1000 $true_text prot=r-x time=1 buildid=0123456789abcdef0123456789abcdef01234567
mmap2 pid=1000 start=0x7fff00000000 len=0x2000 pgoff=0 prot=r-x file=[vdso] time=2
sample pid=1000 ip=$ip time=1000
sample pid=1000 ip=0x7fff00000010 time=1001
END

[ -n "$real" ] || exit 0

# Tiny real recordings: /bin/true gets few samples, but perf writes its
# header, features, attributes and the mmap, comm and fork records it
# synthesizes, and in the pipe format its header records.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# record NAME OPTION...: perf record OPTION... -o OUTDIR/NAME.data /bin/true
record() {
  name=$1
  shift
  perf record -q -N --no-bpf-event -e cpu-clock -F 20000 "$@" \
    -o "$out/$name.data" -- /bin/true > "$tmp/record.log" 2>&1 ||
    { cat "$tmp/record.log" >&2; exit 1; }
}
record perf-record
record perf-record-d -d
record perf-record-g -g
record perf-record-dwarf --call-graph dwarf,256
perf record -q -N --no-bpf-event -e cpu-clock -F 20000 -o - -- /bin/true \
  > "$out/perf-record-pipe.data" 2> "$tmp/record.log" ||
  { cat "$tmp/record.log" >&2; exit 1; }
