#!/bin/sh
# Write the seed corpus of fuzz-report-elf-mmap.c to DIR: one input for
# each kind of operation, in the harness's encoding (an operation byte,
# then its arguments; see piece_from_input and report_piece).  Files are
# numbered as the harness numbers them: the testfiles by name (0 bfd,
# 4 gold-unlikely, 5 lld, 6 lld-tiny, 8 mold-tiny, 9 nopie-bfd,
# 10 nopie-lld, 11 pie-bfd, 12 pie-bfd-2m, 14 pie-mold), then 0xc0 N for
# broken copy N (0xc0 0x42 pie-bfd.debug_only, 0xc0 0x96 directory),
# 0xc0 0x98 the swap file, then the rebuilt copies: 0xc0 0x9c
# pie-bfd.rebuilt (another build ID), 0xc0 0x9d pie-bfd.nobid (none),
# 0xc0 0x9e pie-bfd.nobid_rebuilt (FUZZ_TRACE=1 prints the list).
# The fixed-* seeds are not written here: they are the inputs of bugs
# the harness found, kept as they were found (fuzz/README.md).
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
# 09 query (MODULE WHERE), 0a dwfl_report_elf (FILE HOW),
# 0b dwfl_report_module (WHERE HOW), 0c piece in a hole (FILE WHERE
# LOAD FLAGS), 0d change the swap file (HOW FILE: 00 replace by a copy,
# 01 write over, 02 remove, 03 touch), 0e lazy (01 on, 00 off).
# 0f Dwfl (A: the Dwfl A & 3, made, or made again while it has no
# module, with the callbacks (A >> 2) & 3: 0 proc, 1 no find_elf,
# 2 dwfl_build_id_find_elf, 3 a find_elf of FILE.copy),
# 10 the next report through the caller's Elf (A: Elf A & 3 of the
# file, 80 a null Elf), 11 copies (HOW FILE [SRC]: 00 FILE.copy a copy
# of SRC, 01 removed, 02 the .build-id link of FILE's build ID to SRC,
# 03 removed), 12 RLIMIT_NOFILE (A: A & 31 + 4 above the descriptors
# open, 80 set back), 13 many pieces (FILE PIECE A FLAGS: A & 127 + 1
# pieces 16 MiB apart; FLAGS as a report's, 40 a module of
# dwfl_report_module beside each, 80 one of dwfl_report_elf),
# 14 elf_end (A: the caller's Elf A, in the order they were made).
# Report FLAGS: 01 pass an fd, 02 report twice, 04/08/0c name,
# 10 check every lookup after, 20 with 01: the fd the input passes for
# every piece of the file.

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

# Holes: pie-bfd-2m as the kernel maps it, 2 MiB apart; pieces of
# lld-tiny and lld in its holes, a module of dwfl_report_module in
# another; lookups in and around them.
seed holes-2m \
  00 0c 06 00 00  00 0c 07 00 00  00 0c 08 00 00  00 0c 09 00 00 \
  00 0c 0a 00 10  0c 06 00 00 10  0c 05 41 01 10  0b 41 03  08 01 \
  07 00  08 01  09 00 40  09 01 40  09 02 40

# A piece in a hole that runs onto the next piece of the module: it
# replaces the module.
seed hole-spill \
  00 0c 06 00 00  00 0c 07 00 00  00 0c 08 00 00  0c 06 00 80 10  07 00 \
  08 01

# One descriptor for every piece of lld, reported twice too; the same
# for files that fail (ET_REL, a directory); then pie-bfd's.
seed fd-shared \
  00 05 00 00 21  00 05 01 00 21  00 05 02 00 23  00 05 03 00 21 \
  00 c0 18 00 00 21  00 c0 96 00 00 21  00 0b 06 00 21  07 00  08 01 \
  09 00 40

# Lazy: many pieces, by name and from descriptors, over two report
# cycles, without wanting any ELF; then every module's.
seed lazy-many \
  0e 01  00 05 00 00 00  00 05 01 00 21  00 0b 06 00 01  00 0b 07 00 00 \
  00 09 00 00 00  00 06 00 00 21  00 08 01 00 00  00 0e 00 00 00 \
  00 0c 06 00 00  00 0c 07 00 21  05  00 05 00 00 00  00 0b 06 00 00 \
  07 00  00 0d 00 00 00  00 0e 01 00 00  07 00  0e 00  09 00 40

# The swap file (a copy of pie-bfd) replaced by lld after its pieces
# were reported: the module's ELF is not the file mapped; lld's pieces
# make a module of their own.
seed swap-replaced \
  0e 01  00 c0 98 06 00 00  00 c0 98 07 00 00  0d 00 05  09 00 40 \
  00 c0 98 00 00 00  07 00  08 01  09 00 40  09 01 40

# A module made from a descriptor finds its ELF after the file is
# removed; pieces by name then fail, pieces from the descriptor grow
# it; a new file under the name is another file.
seed swap-fd-unlinked \
  0e 01  00 c0 98 06 00 01  00 c0 98 07 00 21  0d 02 00  09 00 40 \
  00 c0 98 08 00 00  00 c0 98 08 00 21  0d 00 06  00 c0 98 00 00 00 \
  07 00  08 01

# The file a module's descriptor was open on, written over with lld.
seed swap-written-over \
  0e 01  00 c0 98 06 00 01  0d 01 05  09 00 40  07 00

# Touched: the same bytes, another modification time, another file.
seed swap-touched \
  0e 01  00 c0 98 06 00 00  0d 03 00  00 c0 98 06 00 00  07 00  08 01 \
  09 00 40

# Replaced by its separate debug file: a module, without an ELF.
seed swap-debug-only \
  00 c0 98 06 00 00  0d 00 c0 42  09 00 40  00 c0 98 06 00 00  07 00

# Modules of dwfl_report_module and dwfl_report_elf among pieces: a
# piece replaces the module it meets; after dwfl_report_begin, one is
# reported again, and a piece keeps the module of dwfl_report_elf.
seed mixed-kinds \
  0b 20 03  0b 30 21  0a 0b 00  07 00  08 01  04 06 21 01 00 10 00 \
  05  0b 30 21  03 0b 01 00 00  07 00  08 01  09 00 40

# After dwfl_report_begin, lld-tiny where pie-bfd's text was; pie-bfd's
# data piece keeps its module, which starts again from it.
seed stale-revived \
  03 0b 01 00 00  03 0b 03 00 00  07 00  05  04 06 01 00 00 10 00 \
  03 0b 03 00 00  07 00  08 01

# Version 3: every callback configuration, rebuilt files, the caller's
# Elf, descriptors, and the work of each call.

# No find_elf, as perf's unwinder: the modules open their file by name,
# or read the duplicate of the descriptor the swap file's first piece
# was passed by, which gives the file mapped after it was rebuilt with
# another build ID under its name; opened by name, that is refused.
seed callbacks-none \
  0f 04  0e 01  00 0b 06 00 00  00 0b 07 00 01  00 c0 98 06 00 01 \
  00 c0 98 07 00 00  0f 01  00 c0 98 06 00 00  0d 00 c0 9c  0e 00 \
  09 00 40  0f 00  09 00 40  07 00  08 01

# dwfl_build_id_find_elf: a .build-id link to pie-bfd for the swap
# file's build ID finds the file mapped after the swap file was rebuilt;
# a link to another file for lld's is not taken, and lld is opened by
# name.
seed callbacks-build-id \
  0f 08  0e 01  00 c0 98 06 00 00  11 02 c0 98 0b  0d 00 c0 9c \
  00 05 00 00 00  11 02 05 0b  0e 00  09 00 40  09 01 40  07 00

# A find_elf that opens FILE.copy: a copy without the build ID of pie-bfd
# is refused; for pie-bfd.nobid, which has none, a rebuilt copy is taken
# on trust, as found by another name.
seed callbacks-copy \
  0f 0c  0e 01  11 00 0b c0 9d  00 0b 06 00 00  11 00 c0 9d c0 9e \
  03 c0 9d 00 00 00  0e 00  09 00 40  09 01 40  07 00

# Without a build ID, the identity decides: the swap file holding
# pie-bfd.nobid, then rebuilt (another inode), then touched.
seed nobid-rebuilt \
  0e 01  0d 00 c0 9d  00 c0 98 06 00 00  0d 00 c0 9e  09 00 40 \
  0d 00 c0 9d  00 c0 98 06 00 00  0d 03 00  09 01 40  07 00

# RLIMIT_NOFILE a few descriptors above those open, and 128 pieces of
# pie-bfd passed by one descriptor: one duplicate for them all.
seed nofile-one-fd \
  0e 01  12 02  13 0b 00 7f 21  12 80  07 00

# Each kind of report mixed in one Dwfl, 48 times over, then pieces of
# lld after dwfl_report_begin: the work of each call must not grow with
# the modules.  (dwfl_report_module after dwfl_report_begin is
# known-bugs/report-module-begin.)
seed mixed-many \
  0e 01  13 0b 00 2f e1  07 00  05  13 05 01 2f 00  07 00

# The caller's Elf of pie-bfd shared by two Dwfls, ended by the caller
# while their modules use it; a null Elf.
seed shared-elf \
  10 00  00 0b 06 00 00  0f 01  10 00  00 0b 06 00 00  10 00 \
  00 0b 07 00 00  14 00  09 00 40  10 80  00 0b 08 00 00  0f 00 \
  09 00 40  07 00

# The swap file in four Dwfls, one of each kind of callbacks, then
# rebuilt: which module finds what.
seed dwfls-callbacks \
  0e 01  00 c0 98 06 00 00  0f 05  00 c0 98 06 00 01  0f 0a \
  00 c0 98 06 00 00  0f 0f  11 00 c0 98 0b  00 c0 98 06 00 00 \
  0d 00 c0 9c  0e 00  09 00 40  0f 01  09 00 40  0f 02  09 00 40 \
  0f 00  09 00 40  07 00
