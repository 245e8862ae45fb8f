/* Shared declarations of the benchmark of dwfl_report_elf_mmap: the
   piece tuples every contender is fed, a small hash table, the program
   headers of an ELF file read without libelf, and the contenders.  */

#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mapping as the kernel shows it.  In the input it is one line,
     PID START LEN PGOFF PROT PATH
   with START, LEN and PGOFF in hex and PROT as in /proc/PID/maps ("r-x",
   "---"), or "?" when not known.  PATH is the rest of the line.  Lines
   starting with '@' are directives of the benchmark ("@phase NAME",
   "@modules N"), not pieces.  */
struct piece
{
  long pid;
  uint64_t start;
  uint64_t len;
  uint64_t pgoff;
  int prot;			/* PROT_* bits, or -1.  */
  const char *path;		/* Points into the line.  */
};

/* Parse LINE into *PIECE.  Returns false for a malformed line.  */
extern bool piece_parse (const char *line, struct piece *piece);

/* PROT as maps' "rwx" letters (4 bytes with the NUL), "?" for -1.  */
extern void prot_letters (int prot, char out[4]);


/* An open-addressing hash table from (string, a, b) to a pointer.  The
   table keeps its own copy of each string.  Entries are never removed:
   users clear the value instead.  */
struct table;

extern struct table *table_new (void);
extern void table_free (struct table *table, void (*free_value) (void *));
/* The slot for the key, or NULL if it is not there and INSERT is false.
   A new slot holds NULL.  */
extern void **table_slot (struct table *table, const char *str,
			  uint64_t a, uint64_t b, bool insert);
/* The table's copy of STR for a key known to be present.  */
extern const char *table_key (struct table *table, const char *str,
			      uint64_t a, uint64_t b);
/* Call FN on each value that is not NULL.  */
extern void table_each (struct table *table,
			void (*fn) (void *value, void *arg), void *arg);
extern size_t table_count (const struct table *table);


/* The PT_LOAD and PT_GNU_RELRO program headers of an ELF file.  */
#define LAYOUT_MAX_LOADS 16
struct load_segment
{
  uint64_t offset, vaddr, filesz, memsz, align;
  uint32_t flags;		/* PF_* bits.  */
};

struct elf_layout
{
  int e_type;
  size_t nloads;
  struct load_segment loads[LAYOUT_MAX_LOADS];
  bool has_relro;
  uint64_t relro_vaddr, relro_memsz;
};

/* The least that learning a file's layout takes: open PATH, read its
   ELF header and program headers, close it.  Returns false if that
   fails or it is no ELF file.  */
extern bool elf_headers_read (const char *path);

/* Read PATH's layout.  Only 64-bit little-endian ET_DYN and ET_EXEC
   files with up to LAYOUT_MAX_LOADS loads are accepted: returns false for
   anything else.  */
extern bool elf_layout_read (const char *path, struct elf_layout *layout);

/* The load bias of PIECE of a file of LAYOUT, worked out in the caller:
   from the PT_LOAD whose file bytes meet it and whose flags match its
   PROT best (a text piece of a tiny lld object shares its file page
   with the read-only data); 0 for ET_EXEC.  Returns false when no
   segment can have mapped it.  */
extern bool layout_piece_bias (const struct elf_layout *layout,
			       const struct piece *piece, uint64_t *bias);


/* The truth about load biases: for a process and file, the biases the
   loader gave it, from outside the code under test (make-input.c).  */
enum verdict
{
  VERDICT_RIGHT,
  VERDICT_WRONG,
  VERDICT_UNKNOWN,		/* No truth for this process and file.  */
};

struct truth;
extern struct truth *truth_read (const char *file_name);
extern enum verdict truth_judge (const struct truth *truth, long pid,
				 const char *path, uint64_t bias,
				 uint64_t low, uint64_t high);

/* What a contender's check found among its modules.  */
struct check_counts
{
  size_t modules, wrong, unknown;
};


/* A way of turning pieces into modules.  The driver calls PIECE for each
   piece, FLUSH at the end of each batch of one process's pieces (after
   each piece unless the input is read in batches), and LOOKUP after it
   when lookups are interleaved.  */
struct contender
{
  const char *name;
  void *(*start) (void);
  void (*piece) (void *state, const struct piece *piece);
  void (*flush) (void *state, long pid);
  bool (*lookup) (void *state, long pid, uint64_t addr);
  /* Judge the bias of every module; NULL if the contender has none.  */
  void (*check) (void *state, const struct truth *truth,
		 struct check_counts *counts);
  void (*finish) (void *state);
  /* The descriptors the contender holds itself, not libdwfl; NULL if
     it holds none.  */
  long (*own_fds) (void *state);
  /* The pieces libdwfl refused, and of those the ones refused for want
     of a descriptor (EMFILE); NULL if not counted.  */
  void (*failures) (void *state, size_t *failed, size_t *emfile);
};

extern const struct contender contender_mmap;
extern const struct contender contender_mmap_fd;
extern const struct contender contender_mmap_elf;
extern const struct contender contender_mixed;
extern const struct contender contender_report_elf;
extern const struct contender contender_proc_maps;
extern const struct contender contender_module;
extern const struct contender contender_floor;
extern const struct contender contender_floor_open;
extern const struct contender contender_floor_libelf;


/* Helpers for the contenders that keep a Dwfl per process.  Their state
   of a process starts with a struct bench_proc, and they keep it in a
   table under the key ("", PID, 0).  */
struct Dwfl;
struct bench_proc
{
  long pid;
  struct Dwfl *dwfl;
};

/* The state of PID in PROCS, made with SIZE bytes of zeros and a new Dwfl
   if it is not there.  */
extern void *bench_proc (struct table *procs, long pid, size_t size);
/* Count a failed libdwfl call in *FAILED, and in *EMFILE if it failed
   for want of a descriptor.  Consumes libdwfl's error.  */
extern void bench_failed (size_t *failed, size_t *emfile);
/* Judge the bias of every module of every process in PROCS.  */
extern void bench_procs_check (struct table *procs, const struct truth *truth,
			       struct check_counts *counts);
/* Free PROCS, calling FREE_EXTRA (if not NULL) on each state first.  */
extern void bench_procs_free (struct table *procs,
			      void (*free_extra) (void *proc));

/* Report a fatal error and exit.  */
extern void bench_fail (const char *fmt, ...)
  __attribute__ ((noreturn, format (printf, 1, 2)));

#endif
