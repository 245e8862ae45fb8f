/* The address spaces of the recorded processes, each a Dwfl fed only by
   dwfl_report_elf_mmap with the pieces the mmap records show, and the
   names of their threads.  Processes live as in the kernel: FORK copies
   the parent's mappings, COMM with the exec flag starts an empty address
   space, EXIT of the last thread ends it.  */

#ifndef PROCESS_H
#define PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

#include "elffiles.h"
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
  /* The file the record names, and the file read for it: the same, or
     the copy in perf's build-id cache of the file the recording saw
     (or the process table's VDSO_NAME for its copy of the vdso).  In
     the process table's name table.  */
  const char *filename;
  const char *path;
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
     dwfl_report_elf_mmap; NULL until the first piece.  Owned.  */
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
  /* Failed dwfl_report_elf_mmap calls, by error.  */
  struct tally failed;
  /* Pieces of files whose build id is not the one of the recording (the
     file changed since), reported all the same, and those read from
     perf's build-id cache instead.  */
  uint64_t build_id_differs;
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
  /* Files that could not be opened as ELF files, not to try again.  */
  struct strtab bad_files;
  /* "BUILDID FILE" of the files the recording has build ids of: their
     value (strtab_value) is the file to read, in NAMES.  */
  struct strtab chosen_files;
  /* The Dwfls' callbacks; their find_elf must be elf_files_find_elf,
     which finds a module's file in FILES.  */
  const Dwfl_Callbacks *callbacks;
  struct elf_files files;
  /* The recording, for the build ids of its files.  */
  const struct perf_data *data;
  /* The vdso the recording had, as a file (a copy of this machine's),
     or -1; owned.  VDSO_NAME is "[vdso]" in NAMES.  */
  int vdso_fd;
  const char *vdso_name;
  /* If not NULL, what to read for the file FILENAME an mmap record names
     (before perf's build-id cache is looked at), called with
     MAP_FILE_ARG; it returns a file name, which is copied.  NULL by
     default: FILENAME itself.  The fuzzer keeps the files read to a
     fixed set this way.  */
  const char *(*map_file) (const char *filename, void *arg);
  void *map_file_arg;
  uint64_t last_generation;
  struct process_stats stats;
};

/* Start an empty table whose address spaces use CALLBACKS, for the
   recording DATA.  */
extern void process_table_init (struct process_table *table,
				const Dwfl_Callbacks *callbacks,
				const struct perf_data *data);

/* Report the [vdso] mappings as the ELF file open at FD (owned by
   TABLE from now on) instead of skipping them.  Returns 0, -1 if out of
   memory.  */
extern int process_table_set_vdso (struct process_table *table, int fd);

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

/* The name of the newest non-ELF mapping of PROC that holds ADDR, or
   NULL.  */
extern const char *process_other_map (const struct process *proc,
				      uint64_t addr);

#endif /* process.h */
