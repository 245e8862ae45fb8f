/* The address spaces of the recorded processes, and their threads.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "process.h"

void
tally_add (struct tally *tally, const char *reason)
{
  ++tally->total;
  for (size_t i = 0; i < tally->n; ++i)
    if (tally->reason[i] == reason || strcmp (tally->reason[i], reason) == 0)
      {
	++tally->count[i];
	return;
      }
  if (tally->n == TALLY_MAX)
    {
      /* The last slot takes every reason that does not fit.  */
      tally->reason[TALLY_MAX - 1] = "other";
      ++tally->count[TALLY_MAX - 1];
      return;
    }
  tally->reason[tally->n] = reason;
  tally->count[tally->n] = 1;
  ++tally->n;
}

static bool
starts_with (const char *s, const char *prefix)
{
  return strncmp (s, prefix, strlen (prefix)) == 0;
}

static bool
ends_with (const char *s, const char *suffix)
{
  size_t n = strlen (s);
  size_t m = strlen (suffix);
  return n >= m && strcmp (s + n - m, suffix) == 0;
}

/* What kind of mapping NAME is, if it is not a file that may be an ELF
   file; NULL if it may be one.  */
static const char *
not_elf_kind (const char *name)
{
  if (strcmp (name, "[vdso]") == 0)
    return "[vdso]";
  if (name[0] == '\0' || strcmp (name, "[heap]") == 0
      || strcmp (name, "[stack]") == 0 || starts_with (name, "[anon")
      || starts_with (name, "//anon") || starts_with (name, "/anon_hugepage"))
    return "anonymous";
  if (starts_with (name, "/memfd:") || starts_with (name, "memfd:"))
    return "memfd";
  if (starts_with (name, "/tmp/perf-") && ends_with (name, ".map"))
    return "JIT map";
  if (ends_with (name, " (deleted)"))
    return "deleted file";
  if (starts_with (name, "/dev/") || starts_with (name, "/SYSV"))
    return "device or shared memory";
  if (name[0] != '/')
    return "special";
  return NULL;
}

/* Whether a mapping of NAME with PROT is anonymous code (as perf's
   is_anon_memory and is_no_dso_memory see it), for a JIT compiler.  */
static bool
is_anon_code (const char *name, int prot)
{
  if (prot != -1 && !(prot & PROT_EXEC))
    return false;
  return (strcmp (name, "//anon") == 0 || starts_with (name, "/dev/zero")
	  || starts_with (name, "/anon_hugepage")
	  || starts_with (name, "[stack") || starts_with (name, "/SYSV")
	  || strcmp (name, "[heap]") == 0);
}

void
process_table_init (struct process_table *table,
		    const Dwfl_Callbacks *callbacks,
		    const struct perf_data *data)
{
  memset (table, 0, sizeof *table);
  pidmap_init (&table->processes);
  pidmap_init (&table->threads);
  strtab_init (&table->names);
  table->callbacks = callbacks;
  mapped_files_init (&table->files, data);
}

static void
process_free (struct process *proc)
{
  if (proc->dwfl != NULL)
    dwfl_end (proc->dwfl);
  free (proc->pieces);
  free (proc->others);
  free (proc);
}

static void
process_free_cb (void *value, void *arg __attribute__ ((unused)))
{
  process_free (value);
}

static void
free_cb (void *value, void *arg __attribute__ ((unused)))
{
  free (value);
}

void
process_table_free (struct process_table *table)
{
  pidmap_foreach (&table->processes, process_free_cb, NULL);
  pidmap_free (&table->processes);
  pidmap_foreach (&table->threads, free_cb, NULL);
  pidmap_free (&table->threads);
  strtab_free (&table->names);
  /* After every Dwfl: their modules hold references to the files.  */
  mapped_files_free (&table->files);
}

struct process *
process_table_process (struct process_table *table, int32_t pid)
{
  struct process *proc = pidmap_get (&table->processes, pid);
  if (proc != NULL)
    return proc;
  proc = calloc (1, sizeof *proc);
  if (proc == NULL)
    return NULL;
  proc->pid = pid;
  proc->table = table;
  proc->generation = ++table->last_generation;
  if (pidmap_set (&table->processes, pid, proc) != 0)
    {
      free (proc);
      return NULL;
    }
  ++table->stats.processes;
  return proc;
}

/* Forget PROC's address space.  */
static void
clear_address_space (struct process_table *table, struct process *proc)
{
  if (proc->dwfl != NULL)
    dwfl_end (proc->dwfl);
  proc->dwfl = NULL;
  proc->reporting = false;
  proc->attached = false;
  proc->n_pieces = 0;
  proc->n_reported = 0;
  proc->n_others = 0;
  proc->generation = ++table->last_generation;
}

/* End PROC: it is gone from the table and freed.  */
static void
end_process (struct process_table *table, struct process *proc)
{
  pidmap_remove (&table->processes, proc->pid);
  process_free (proc);
  ++table->stats.ended;
}

static int
append_piece (struct piece **pieces, size_t *n, size_t *cap,
	      const struct piece *piece)
{
  if (*n == *cap)
    {
      size_t new_cap = *cap ? 2 * *cap : 16;
      struct piece *p = realloc (*pieces, new_cap * sizeof *p);
      if (p == NULL)
	return -1;
      *pieces = p;
      *cap = new_cap;
    }
  (*pieces)[(*n)++] = *piece;
  return 0;
}

static int
append_pieces (struct piece **pieces, size_t *n, size_t *cap,
	       const struct piece *more, size_t n_more)
{
  for (size_t i = 0; i < n_more; ++i)
    if (append_piece (pieces, n, cap, &more[i]) != 0)
      return -1;
  return 0;
}

/* A new mapping replaced the non-ELF mappings of PROC that it covers.  */
static void
drop_covered_others (struct process *proc, const struct piece *piece)
{
  size_t kept = 0;
  for (size_t i = 0; i < proc->n_others; ++i)
    {
      const struct piece *o = &proc->others[i];
      if (o->start >= piece->start
	  && o->start - piece->start + o->len <= piece->len)
	continue;
      proc->others[kept++] = *o;
    }
  proc->n_others = kept;
}

/* Give PIECE to the Dwfl of PROC, made at its first piece.  Returns the
   module, or NULL if dwfl_report_elf_mmap failed or memory ran out
   (*NOMEM set then).  */
static Dwfl_Module *
report_to_dwfl (struct process_table *table, struct process *proc,
		const struct piece *piece, bool *nomem)
{
  *nomem = false;
  if (proc->dwfl == NULL)
    {
      proc->dwfl = dwfl_begin (table->callbacks);
      if (proc->dwfl == NULL)
	{
	  *nomem = true;
	  return NULL;
	}
    }
  if (!proc->reporting)
    {
      dwfl_report_begin_add (proc->dwfl);
      proc->reporting = true;
    }
  /* The file's one Elf, for every process: its headers are read once
     for the Dwfl, and a module reads it.  */
  struct elf_file *file = piece->file->file;
  Dwfl_Module *mod = dwfl_report_elf_mmap_elf (proc->dwfl, piece->filename,
					       file->path, file->elf,
					       piece->start, piece->len,
					       piece->pgoff, piece->prot);
  if (mod == NULL)
    return NULL;
  void **userdata;
  dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
  *userdata = file;
  return mod;
}

/* Count the failure of dwfl_report_elf_mmap_elf.  */
static void
count_failure (struct process_table *table)
{
  const char *reason = strtab_add (&table->names, dwfl_errmsg (-1));
  tally_add (&table->stats.failed, reason ?: "out of memory");
}

/* Report into the Dwfl of PROC the pieces it inherited and has not
   reported yet, dropping those that fail.  Returns 0, -1 if out of
   memory.  */
static int
report_inherited (struct process_table *table, struct process *proc)
{
  size_t kept = proc->n_reported;
  for (size_t i = proc->n_reported; i < proc->n_pieces; ++i)
    {
      bool nomem;
      if (report_to_dwfl (table, proc, &proc->pieces[i], &nomem) != NULL)
	proc->pieces[kept++] = proc->pieces[i];
      else if (nomem)
	return -1;
    }
  proc->n_pieces = proc->n_reported = kept;
  return 0;
}

/* Report PIECE of an mmap record into the address space of PROC, after
   the pieces it inherited.  Returns the module, or NULL if
   dwfl_report_elf_mmap failed (counted) or memory ran out (*NOMEM set
   then).  */
static Dwfl_Module *
report_piece (struct process_table *table, struct process *proc,
	      const struct piece *piece, bool *nomem)
{
  *nomem = report_inherited (table, proc) != 0;
  Dwfl_Module *mod = (*nomem ? NULL
		      : report_to_dwfl (table, proc, piece, nomem));
  if (mod == NULL)
    {
      if (!*nomem)
	count_failure (table);
      return NULL;
    }
  if (append_piece (&proc->pieces, &proc->n_pieces, &proc->cap_pieces,
		    piece) != 0)
    {
      *nomem = true;
      return NULL;
    }
  proc->n_reported = proc->n_pieces;
  /* Only a piece of its own changes what the addresses of PROC resolve
     to: those it inherited were its own already.  */
  proc->generation = ++table->last_generation;
  ++table->stats.reported;
  return mod;
}

int
process_table_mmap (struct process_table *table, const struct perf_mmap *m)
{
  ++table->stats.mmaps;
  unsigned int cpumode = m->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  if (cpumode == PERF_RECORD_MISC_KERNEL
      || cpumode == PERF_RECORD_MISC_GUEST_KERNEL || m->pid == -1)
    {
      ++table->stats.kernel_mmaps;
      return 0;
    }
  if (m->len == 0)
    {
      tally_add (&table->stats.skipped, "empty");
      return 0;
    }
  struct process *proc = process_table_process (table, m->pid);
  if (proc == NULL)
    return -1;

  struct piece piece =
    {
      .start = m->start,
      .len = m->len,
      .pgoff = m->pgoff,
      .filename = strtab_add (&table->names, m->filename),
    };
  if (piece.filename == NULL)
    return -1;
  /* An old MMAP record is an executable mapping unless marked as data,
     and then its protection is not known.  */
  if (m->prot >= 0)
    piece.prot = m->prot & (PROT_READ | PROT_WRITE | PROT_EXEC);
  else if (m->misc & PERF_RECORD_MISC_MMAP_DATA)
    piece.prot = -1;
  else
    piece.prot = PROT_EXEC;

  drop_covered_others (proc, &piece);

  const char *kind = not_elf_kind (piece.filename);
  if (kind == NULL || strcmp (kind, "[vdso]") == 0)
    {
      /* The vdso is an ELF file if a copy of the one recorded is at
	 hand.  */
      piece.file = mapped_files_find (&table->files, m, piece.filename);
      if (piece.file == NULL)
	return -1;
      if (piece.file->file != NULL)
	kind = NULL;
    }
  if (kind != NULL && is_anon_code (piece.filename, piece.prot))
    {
      /* perf names anonymous code after the map file a JIT compiler may
	 write for it.  */
      char name[64];
      snprintf (name, sizeof name, "/tmp/perf-%d.map", (int) m->pid);
      piece.filename = strtab_add (&table->names, name);
      if (piece.filename == NULL)
	return -1;
    }
  if (kind != NULL)
    {
      tally_add (&table->stats.skipped, kind);
      proc->generation = ++table->last_generation;
      piece.file = NULL;
      return append_piece (&proc->others, &proc->n_others, &proc->cap_others,
			   &piece);
    }
  const struct elf_file *file = piece.file->file;
  if (file->elf == NULL)
    {
      const char *reason = strtab_add (&table->names, file->failure);
      tally_add (&table->stats.not_read, reason ?: "out of memory");
      return 0;
    }
  bool nomem;
  if (report_piece (table, proc, &piece, &nomem) != NULL)
    {
      table->stats.build_id_differs += piece.file->build_id_differs;
      table->stats.identity_differs += piece.file->identity_differs;
      table->stats.from_cache += piece.file->from_cache;
    }
  return nomem ? -1 : 0;
}

/* Make thread TID of process PID, named ":TID" as perf does, replacing
   a thread of that id that was known: the id was reused.  */
static struct thread *
new_thread (struct process_table *table, int32_t pid, int32_t tid)
{
  struct thread *thread = malloc (sizeof *thread);
  if (thread == NULL)
    return NULL;
  char name[32];
  if (tid == 0)
    strcpy (name, "swapper");
  else
    snprintf (name, sizeof name, ":%d", (int) tid);
  thread->tid = tid;
  thread->pid = pid;
  thread->comm = strtab_add (&table->names, name);
  thread->exited = false;
  struct process *proc = process_table_process (table, pid);
  struct thread *old = pidmap_get (&table->threads, tid);
  if (thread->comm == NULL || proc == NULL
      || pidmap_set (&table->threads, tid, thread) != 0)
    {
      free (thread);
      return NULL;
    }
  ++proc->live_threads;
  if (old != NULL)
    {
      struct process *old_proc = pidmap_get (&table->processes, old->pid);
      if (old_proc != NULL && !old->exited && old_proc->live_threads > 0)
	--old_proc->live_threads;
      free (old);
    }
  return thread;
}

struct thread *
process_table_thread (struct process_table *table, int32_t pid, int32_t tid)
{
  struct thread *thread = pidmap_get (&table->threads, tid);
  if (thread != NULL && (thread->pid == pid || pid == -1))
    return thread;
  return new_thread (table, pid, tid);
}

int
process_table_comm (struct process_table *table, const struct perf_comm *c)
{
  struct thread *thread = process_table_thread (table, c->pid, c->tid);
  if (thread == NULL)
    return -1;
  const char *comm = strtab_add (&table->names, c->comm);
  if (comm == NULL)
    return -1;
  thread->comm = comm;
  if (c->exec)
    {
      /* exec leaves the one thread that called it, as the leader.  */
      struct process *proc = process_table_process (table, c->pid);
      if (proc == NULL)
	return -1;
      ++table->stats.execs;
      clear_address_space (table, proc);
      proc->live_threads = 1;
      proc->leader_exited = false;
    }
  return 0;
}

int
process_table_fork (struct process_table *table, const struct perf_task *t)
{
  ++table->stats.forks;
  struct thread *parent_thread = pidmap_get (&table->threads, t->ptid);
  const char *comm = parent_thread != NULL ? parent_thread->comm : NULL;

  if (t->pid != t->ppid)
    {
      /* A new process, with a copy of its parent's mappings.  One with
	 its id that was still known is gone.  */
      struct process *old = pidmap_get (&table->processes, t->pid);
      if (old != NULL)
	end_process (table, old);
      struct process *child = process_table_process (table, t->pid);
      if (child == NULL)
	return -1;
      struct process *parent = pidmap_get (&table->processes, t->ppid);
      /* The child's Dwfl gets the pieces when it is first needed:
	 most children exec before that.  */
      if (parent != NULL
	  && (append_pieces (&child->pieces, &child->n_pieces,
			     &child->cap_pieces, parent->pieces,
			     parent->n_pieces) != 0
	      || append_pieces (&child->others, &child->n_others,
				&child->cap_others, parent->others,
				parent->n_others) != 0))
	return -1;
      if (parent != NULL)
	{
	  child->parent_pid = parent->pid;
	  child->parent_generation = parent->generation;
	  child->fork_generation = child->generation;
	}
    }

  /* The new thread, named after its parent.  */
  struct thread *thread = new_thread (table, t->pid, t->tid);
  if (thread == NULL)
    return -1;
  if (comm != NULL)
    thread->comm = comm;
  return 0;
}

int
process_table_exit (struct process_table *table, const struct perf_task *t)
{
  ++table->stats.exits;
  struct process *proc = pidmap_get (&table->processes, t->pid);
  struct thread *thread = pidmap_get (&table->threads, t->tid);
  if (thread != NULL && thread->pid == t->pid && !thread->exited)
    {
      thread->exited = true;
      if (proc != NULL && proc->live_threads > 0)
	--proc->live_threads;
    }
  if (proc == NULL)
    return 0;
  if (t->tid == t->pid)
    proc->leader_exited = true;
  if (proc->leader_exited && proc->live_threads == 0)
    end_process (table, proc);
  return 0;
}

Dwfl *
process_dwfl (struct process *proc)
{
  /* Out of memory, the pieces not reported are not named, as when a
     name cannot be kept.  */
  report_inherited (proc->table, proc);
  if (proc->reporting)
    {
      dwfl_report_end (proc->dwfl, NULL, NULL);
      proc->reporting = false;
    }
  return proc->dwfl;
}

Dwfl *
process_lookup_dwfl (struct process *proc)
{
  while (proc->fork_generation != 0
	 && proc->generation == proc->fork_generation)
    {
      struct process *parent = pidmap_get (&proc->table->processes,
					   proc->parent_pid);
      /* Generations are unique: one process with it is that one.  */
      if (parent == NULL || parent->generation != proc->parent_generation)
	break;
      proc = parent;
    }
  return process_dwfl (proc);
}

const struct elf_file *
process_module_file (Dwfl_Module *mod)
{
  void **userdata;
  dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
  return *userdata;
}

const char *
process_other_map (const struct process *proc, uint64_t addr)
{
  for (size_t i = proc->n_others; i-- > 0;)
    if (addr - proc->others[i].start < proc->others[i].len)
      return proc->others[i].filename;
  return NULL;
}
