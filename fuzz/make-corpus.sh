#!/bin/sh
# Write the seed corpus of fuzz-report-elf-mmap.c to DIR: one input for
# each kind of operation, in the harness's encoding (an operation byte,
# then its arguments; see piece_from_input and op_report).  Files are
# numbered as the harness numbers them: the testfiles by name (0 bfd,
# 4 gold-unlikely, 5 lld, 6 lld-tiny, 8 mold-tiny, 9 nopie-bfd,
# 10 nopie-lld, 11 pie-bfd, 14 pie-mold), then 0xc0 N for broken copy N
# (FUZZ_TRACE=1 prints the list).
# Usage: fuzz/make-corpus.sh DIR
set -eu

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
mkdir -p "$dir"

# seed NAME HEX...: the input NAME, its bytes in hex.
seed ()
{
  name=$1
  shift
  fmt=
  for h in "$@"; do
    fmt="$fmt$(printf '\\%03o' $((0x$h)))"
  done
  # shellcheck disable=SC2059
  printf "$fmt" > "$dir/$name"
}

# Operations: 00 recorded piece (FILE PIECE SHIFT [PROT] FLAGS),
# 03 segment piece (FILE LOAD HOW [PROT] FLAGS), 04 raw piece
# (FILE A B C D [JUNK] FLAGS), 05 dwfl_report_begin,
# 06 dwfl_report_begin_add, 07 dwfl_report_end (FLAGS), 08 lookup (HOW),
# 09 query (MODULE WHERE), 0a dwfl_report_elf (FILE HOW).
# Report FLAGS: 01 pass an open fd, 02 report twice, 04/08/0c name,
# 10 check every lookup after.

# perf record -d events of lld, in order; then lookups and queries.
seed perf-events-lld \
  00 05 00 00 00  00 05 01 00 00  00 05 02 00 00  00 05 03 00 00 \
  00 05 04 00 00  07 00  08 01  09 00 40  09 00 80

# /proc/PID/maps of pie-bfd, with the caller's descriptors.
seed maps-pie-bfd-fd \
  00 0b 06 00 01  00 0b 07 00 01  00 0b 08 00 01  00 0b 09 00 01 \
  00 0b 0a 00 01  07 00  08 01  09 00 00  09 00 c0

# Two report cycles of lld-tiny: the second keeps one module, REMOVED
# gets the other; a REMOVED callback that fails once.
seed cycles-lld-tiny \
  00 06 00 00 00  00 06 01 00 00  03 06 00 08 00  07 00  05 \
  00 06 01 00 00  07 01  08 01  06  00 06 02 00 00  07 00

# A mapping replaces what it hides; a module of dwfl_report_elf grows
# with a piece at its bias.
seed replace-and-adopt \
  04 06 00 03 00 10 00  04 05 02 01 00 10 00  0a 0b 08 \
  03 0b 01 08 00  07 00  08 01  09 00 00  09 01 00

# gold -z text-unlikely-segment with its ---p gap, and pieces with PROT
# unknown (-1) and none (0).
seed gaps-and-unknown-prot \
  00 04 01 00 00  00 04 00 00 00  00 04 01 00 00  00 04 02 10 00 00 \
  00 04 03 00 00  00 04 00 10 01 00  00 01 01 00 00  07 00  08 01

# Broken files, some with the caller's descriptor: each report fails.
seed broken-files \
  00 c0 00 00 00 01  00 c0 18 00 00 01  00 c0 19 00 00 00 \
  00 c0 1d 00 00 01  00 c0 07 00 00 00  00 c0 94 00 00 01 \
  00 c0 95 00 00 00  00 c0 96 00 00 01  00 c0 97 00 00 00 \
  00 c0 0e 00 00 00  00 c0 13 03 00 00  00 c0 06 00 00 00  07 00  08 01

# Arguments wrong whatever the file: start + len wraps, len 0, junk PROT.
seed bad-arguments \
  00 06 00 00 00  04 06 40 01 00 10 00  04 06 00 80 00 10 00 \
  04 06 00 00 00 48 00  07 00

# Executables: at their addresses only.
seed executables \
  00 09 00 00 00  00 09 01 00 00  00 09 03 01 00  03 0a 00 00 00 \
  03 0a 01 40 00  07 00  08 01  09 00 40  09 01 40

# The same piece twice, and the names a module can get.
seed twice-and-names \
  00 08 00 00 02  00 08 01 00 06  00 0e 00 00 0c  00 0e 01 00 0a \
  07 00  08 01
