/* The address spaces of the recorded processes, each a Dwfl fed only by
   dwfl_report_elf_mmap_elf with the pieces the mmap records show, and the
   names of their threads.  Processes live as in the kernel: FORK copies
   the parent's mappings, COMM with the exec flag starts an empty address
   space, EXIT of the last thread ends it.  */

#ifndef PROCESS_H
#define PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

#include "mappedfiles.h"
#include "perfdata.h"
#include "pidmap.h"
#include "strtab.h"

/* A mapping as an mmap record shows it.  */
struct piece
{
  uint64_t start;
  uint64_t len;
  uint64_t pgoff;
  /* PROT_* bits, or -1 if not known.  */
  int prot;
  /* The file the record names, in the process table's name table, and
     what is read for it (mappedfiles.h); NULL for a mapping that is not
     of an ELF file.  */
  const char *filename;
  const struct mapped_file *file;
};

/* Counts of what happened, by reason: up to TALLY_MAX distinct reasons,
   the rest counted under "other".  REASON strings must outlive it.  */
#define TALLY_MAX 24
struct tally
{
  size_t n;
  const char *reason[TALLY_MAX];
  uint64_t count[TALLY_MAX];
  uint64_t total;
};

extern void tally_add (struct tally *tally, const char *reason);

struct process_table;

struct process
{
  int32_t pid;
  /* The table it is in.  */
  struct process_table *table;
  /* The address space: a Dwfl whose modules come only from
     dwfl_report_elf_mmap_elf; NULL until the first piece.  Owned.  */
  Dwfl *dwfl;
  /* Whether a report cycle (dwfl_report_begin_add) is open.  Lookups
     need it ended: process_dwfl does that.  */
  bool reporting;
  /* Changes whenever what an address resolves to may have changed;
     unique among all processes of the table, so that a cache can key on
     it.  */
  uint64_t generation;
  /* The ELF pieces of the address space, in order, to report again
     into the address space of a child: the first N_REPORTED are in
     DWFL, the rest were inherited at FORK and are reported when the
     address space is first looked at (process_dwfl) or changes: most
     children exec before, and many have samples only in the kernel
     until then.  */
  struct piece *pieces;
  size_t n_pieces;
  size_t cap_pieces;
  size_t n_reported;
  /* The process this one was forked from, and the generations of both
     just after the fork; FORK_GENERATION 0 if there is none.  While
     neither changed, their addresses resolve alike: this one is looked
     up in the parent's Dwfl (process_lookup_dwfl).  */
  int32_t parent_pid;
  uint64_t parent_generation;
  uint64_t fork_generation;
  /* The mappings that are not ELF files ([vdso], anonymous memory, JIT
     code...), newest last, to name addresses no module covers.  */
  struct piece *others;
  size_t n_others;
  size_t cap_others;
  /* The threads of the process known to be alive, and whether its
     leader (tid == pid) exited: with none left, the process ends.  */
  uint64_t live_threads;
  bool leader_exited;
  /* For unwind.c: whether DWFL is attached (dwfl_attach_state), and the
     sample being unwound, read by the attached callbacks.  */
  bool attached;
  const struct perf_sample *unwinding;
};

struct thread
{
  int32_t tid;
  int32_t pid;
  /* In the process table's name table.  */
  const char *comm;
  bool exited;
};

struct process_stats
{
  uint64_t mmaps;
  uint64_t kernel_mmaps;
  uint64_t reported;
  /* Mappings skipped as not ELF files, by kind.  */
  struct tally skipped;
  /* Mappings of files that could not be read, by reason.  */
  struct tally not_read;
  /* Failed dwfl_report_elf_mmap_elf calls, by error.  */
  struct tally failed;
  /* Pieces reported of files whose build id is not the one of the
     recording (the file changed since), or that are not the file
     mapped (another device or inode) and of which the recording has no
     build id, read all the same; and those read from perf's build-id
     cache instead.  */
  uint64_t build_id_differs;
  uint64_t identity_differs;
  uint64_t from_cache;
  uint64_t processes;
  uint64_t forks;
  uint64_t execs;
  uint64_t exits;
  uint64_t ended;
};

/* Every process and thread of a recording.  */
struct process_table
{
  struct pidmap processes;
  struct pidmap threads;
  /* File names, comms and reasons, kept once.  */
  struct strtab names;
  /* The Dwfls' callbacks.  */
  const Dwfl_Callbacks *callbacks;
  /* The files read for the mappings, each opened once for every
     process; set its vdso and map_file before the first record.  */
  struct mapped_files files;
  uint64_t last_generation;
  struct process_stats stats;
};

/* Start an empty table whose address spaces use CALLBACKS, for the
   recording DATA.  */
extern void process_table_init (struct process_table *table,
				const Dwfl_Callbacks *callbacks,
				const struct perf_data *data);

/* End every process and free the table.  */
extern void process_table_free (struct process_table *table);

/* The records that change the processes.  Return 0, -1 if out of
   memory.  */
extern int process_table_mmap (struct process_table *table,
			       const struct perf_mmap *mmap);
extern int process_table_comm (struct process_table *table,
			       const struct perf_comm *comm);
extern int process_table_fork (struct process_table *table,
			       const struct perf_task *task);
extern int process_table_exit (struct process_table *table,
			       const struct perf_task *task);

/* The process PID, made (with no mappings) if it is not known; NULL if
   out of memory.  */
extern struct process *process_table_process (struct process_table *table,
					      int32_t pid);

/* The thread TID of process PID, made if it is not known, named ":TID"
   as perf does; NULL if out of memory.  */
extern struct thread *process_table_thread (struct process_table *table,
					    int32_t pid, int32_t tid);

/* The Dwfl of PROC ready for lookups (its report cycle ended), or NULL
   if it has no modules.  */
extern Dwfl *process_dwfl (struct process *proc);

/* A Dwfl to look the addresses of PROC up in: process_dwfl of PROC, or
   while neither PROC nor the process it was forked from changed its
   mappings since the fork, of that process.  Most children exec soon
   after the fork; reporting all the mappings of their parent again for
   the few samples they have before costs more than the samples.  */
extern Dwfl *process_lookup_dwfl (struct process *proc);

/* The file read for MOD, a module of a process's Dwfl: the file its
   mmap records name, or a copy of it (in perf's build-id cache, this
   machine's vdso).  It lives as long as the process table.  */
extern const struct elf_file *process_module_file (Dwfl_Module *mod);

/* The name of the newest non-ELF mapping of PROC that holds ADDR, or
   NULL.  */
extern const char *process_other_map (const struct process *proc,
				      uint64_t addr);

#endif /* process.h */
