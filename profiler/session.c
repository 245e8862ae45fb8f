/* One run of perfsym, from the perf.data file to what is printed.  */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "flamegraph.h"
#include "folded.h"
#include "kernel.h"
#include "order.h"
#include "perfdata.h"
#include "process.h"
#include "report.h"
#include "session.h"
#include "stacks.h"
#include "symbolize.h"
#include "unwind.h"
#include "vdso.h"

/* The most frames printed for one sample: kernel and user.  */
#define MAX_FRAMES 512

/* Files smaller than this are read without progress messages.  */
#define PROGRESS_MIN_SIZE (64 * 1024 * 1024)

/* Everything one run of perfsym works with.  */
struct session
{
  const struct session_options *opt;
  FILE *out;
  FILE *err;
  struct perf_data data;
  struct order order;
  struct process_table processes;
  struct kernel kernel;
  struct symbolizer symbolizer;
  struct unwinder unwinder;
  struct profile profile;
  struct stacks stacks;
  /* Which events (attributes, by index) the stacks have samples of, the
     first 64, to name them in the flame graph.  */
  uint64_t stacks_events;
  struct perf_sample sample;
  struct frame frames[MAX_FRAMES];
  /* The names of a sample's address and of its callers.  */
  struct symbol_info infos[MAX_FRAMES + 1];
  uint64_t n_samples;
  uint64_t n_skipped_samples;
  uint64_t n_lost;
  uint64_t n_lost_samples;
  /* Progress: when it was last shown, and whether a line is up.  */
  struct timespec progress_time;
  bool progress_shown;
};

static int
out_of_memory (struct session *s)
{
  snprintf (s->data.error, sizeof s->data.error, "out of memory");
  return -1;
}

static uint64_t
record_u64 (const struct perf_record *rec, size_t offset)
{
  uint64_t v = 0;
  if (offset + sizeof v <= rec->size)
    memcpy (&v, rec->data + offset, sizeof v);
  return v;
}

static int
handle_sample (struct session *s, const struct perf_record *rec)
{
  struct perf_sample *sample = &s->sample;
  int r = perf_data_sample (&s->data, rec, sample);
  if (r < 0)
    return -1;
  if (r > 0)
    {
      ++s->n_skipped_samples;
      return 0;
    }
  ++s->n_samples;
  struct thread *thread = process_table_thread (&s->processes, sample->pid,
						sample->tid);
  struct process *proc = process_table_process (&s->processes, sample->pid);
  if (thread == NULL || proc == NULL)
    return out_of_memory (s);

  struct symbol_info *info = &s->infos[0];
  unsigned int cpumode = sample->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  symbolize (&s->symbolizer, proc, sample->ip, cpumode, info);
  if (!s->opt->samples && !s->opt->folded
      && profile_add (&s->profile, sample->attr - s->data.attrs,
		      thread->comm, info, sample->period ?: 1) != 0)
    return out_of_memory (s);
  if (s->opt->samples)
    report_sample (s->out, sample, info);

  bool print_callers = s->opt->samples && s->opt->callchain;
  bool stacks = s->opt->folded || s->opt->flamegraph != NULL;
  if (!print_callers && !stacks)
    return 0;
  size_t n = sample_frames (&s->unwinder, proc, sample, s->frames,
			    MAX_FRAMES);
  /* The first frame is the sampled address, named already.  */
  size_t i = n > 0 && s->frames[0].ip == sample->ip ? 1 : 0;
  size_t n_infos = 1;
  for (; i < n; ++i)
    {
      info = &s->infos[n_infos++];
      symbolize (&s->symbolizer, proc, s->frames[i].ip,
		 s->frames[i].cpumode, info);
      if (print_callers)
	report_frame (s->out, s->frames[i].ip, info);
    }
  if (stacks && stacks_add (&s->stacks, thread->comm, s->infos, n_infos) != 0)
    return out_of_memory (s);
  size_t event = sample->attr - s->data.attrs;
  if (stacks && event < 64)
    s->stacks_events |= UINT64_C (1) << event;
  return 0;
}

/* Process one record, in time order.  */
static int
deliver (const struct perf_record *rec, void *arg)
{
  struct session *s = arg;
  int r = 0;
  switch (rec->type)
    {
    case PERF_RECORD_SAMPLE:
      return handle_sample (s, rec);
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      {
	struct perf_mmap m;
	if (perf_data_mmap (&s->data, rec, &m) != 0)
	  return -1;
	r = process_table_mmap (&s->processes, &m);
	if (r == 0)
	  r = kernel_mmap (&s->kernel, &m);
	break;
      }
    case PERF_RECORD_COMM:
      {
	struct perf_comm c;
	if (perf_data_comm (&s->data, rec, &c) != 0)
	  return -1;
	r = process_table_comm (&s->processes, &c);
	break;
      }
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      {
	struct perf_task t;
	if (perf_data_task (&s->data, rec, &t) != 0)
	  return -1;
	r = (rec->type == PERF_RECORD_FORK
	     ? process_table_fork (&s->processes, &t)
	     : process_table_exit (&s->processes, &t));
	break;
      }
    case PERF_RECORD_LOST:
      s->n_lost += record_u64 (rec, 16);
      break;
    case PERF_RECORD_LOST_SAMPLES:
      s->n_lost_samples += record_u64 (rec, 8);
      break;
    default:
      break;
    }
  return r != 0 ? out_of_memory (s) : 0;
}

static void
show_progress (struct session *s, bool last)
{
  if (last)
    {
      if (s->progress_shown)
	fputs ("\r                                                  \r",
	       s->err);
      s->progress_shown = false;
      return;
    }
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  double elapsed = ((now.tv_sec - s->progress_time.tv_sec)
		    + (now.tv_nsec - s->progress_time.tv_nsec) / 1e9);
  if (s->progress_shown && elapsed < 0.25)
    return;
  s->progress_time = now;
  s->progress_shown = true;
  uint64_t done = s->data.pos - s->data.data_offset;
  if (s->data.stream)
    fprintf (s->err, "\rperfsym: %" PRIu64 " MB read, %" PRIu64 " samples",
	     done >> 20, s->n_samples);
  else
    {
      uint64_t total = s->data.data_end - s->data.data_offset;
      fprintf (s->err, "\rperfsym: %3d%%, %" PRIu64 " samples",
	       total > 0 ? (int) (100 * (double) done / total) : 100,
	       s->n_samples);
    }
}

/* Read the records and deliver them in time order.  Returns 0, or -1
   with the error in S->data.error.  */
static int
process_records (struct session *s, bool progress)
{
  struct perf_record rec;
  int r;
  uint64_t count = 0;
  while ((r = perf_data_next (&s->data, &rec)) > 0)
    {
      if (progress && (++count & 0xfff) == 0)
	show_progress (s, false);
      if (rec.type >= PERF_RECORD_USER_TYPE_START)
	{
	  if (rec.type == PERF_RECORD_FINISHED_ROUND
	      && order_flush_round (&s->order) != 0)
	    return -1;
	  continue;
	}
      uint64_t time;
      if (perf_data_record_time (&s->data, &rec, &time) != 0)
	return -1;
      if (time == 0 || time == UINT64_MAX)
	r = deliver (&rec, s);
      else if (order_queue (&s->order, &rec, time) != 0)
	r = out_of_memory (s);
      else
	r = 0;
      if (r != 0)
	return -1;
    }
  return r;
}

static void
print_tally (FILE *err, const char *what, const struct tally *tally)
{
  fprintf (err, "perfsym:   %s: %" PRIu64, what, tally->total);
  for (size_t i = 0; i < tally->n; ++i)
    fprintf (err, "%s%s %" PRIu64, i == 0 ? " (" : ", ",
	     tally->reason[i], tally->count[i]);
  fputs (tally->n > 0 ? ")\n" : "\n", err);
}

static void
print_stats (const struct session *s)
{
  const struct process_stats *ps = &s->processes.stats;
  fprintf (s->err, "perfsym: %" PRIu64 " records, %" PRIu64 " samples"
	   " (%" PRIu64 " of unknown events skipped), %" PRIu64 " events"
	   " and %" PRIu64 " samples lost, %" PRIu64 " records out of"
	   " order\n", s->data.n_records, s->n_samples, s->n_skipped_samples,
	   s->n_lost, s->n_lost_samples, s->order.n_out_of_order);
  fprintf (s->err, "perfsym: %" PRIu64 " mmap records: %" PRIu64
	   " kernel, %" PRIu64 " reported\n", ps->mmaps, ps->kernel_mmaps,
	   ps->reported);
  print_tally (s->err, "not ELF, skipped", &ps->skipped);
  print_tally (s->err, "of files not read", &ps->not_read);
  print_tally (s->err, "dwfl_report_elf_mmap_elf failed", &ps->failed);
  fprintf (s->err, "perfsym:   of files whose build id is not the"
	   " recording's: %" PRIu64 "; not the file mapped: %" PRIu64
	   "; read from perf's build-id cache instead: %" PRIu64 "\n",
	   ps->build_id_differs, ps->identity_differs, ps->from_cache);
  const struct elf_files *files = &s->processes.files.files;
  fprintf (s->err, "perfsym: %zu files opened, %zu of them not ELF\n",
	   files->opened, files->not_elf);
  fprintf (s->err, "perfsym: %" PRIu64 " processes: %" PRIu64 " forks, %"
	   PRIu64 " execs, %" PRIu64 " exits, %" PRIu64 " ended\n",
	   ps->processes, ps->forks, ps->execs, ps->exits, ps->ended);
  fprintf (s->err, "perfsym: %" PRIu64 " addresses looked up, %" PRIu64
	   " from the cache; symbol tables of %" PRIu64 " files read, %"
	   PRIu64 " symbols\n",
	   s->symbolizer.lookups, s->symbolizer.cache_hits,
	   s->symbolizer.files_read, s->symbolizer.symbols_read);
  fprintf (s->err, "perfsym: %" PRIu64 " samples unwound, %" PRIu64
	   " frames\n", s->unwinder.unwound, s->unwinder.frames);
  print_tally (s->err, "unwinding failed", &s->unwinder.failed);
  fprintf (s->err, "perfsym: %" PRIu64 " kernel addresses looked up in %zu"
	   " maps, %" PRIu64 " named", s->kernel.lookups, s->kernel.n_maps,
	   s->kernel.named);
  if (s->kernel.state > 0)
    fprintf (s->err, " from %s (%zu symbols)\n", s->kernel.source,
	     s->kernel.syms.n);
  else
    fputs (s->kernel.state < 0 ? ": no kernel symbols\n" : "\n", s->err);
}

/* Print the profile, with the names of the events.  */
static void
print_profile (struct session *s)
{
  size_t n = s->data.n_attrs;
  char (*buf)[64] = calloc (n + 1, sizeof *buf);
  const char **names = calloc (n + 1, sizeof *names);
  if (buf == NULL || names == NULL)
    out_of_memory (s);
  else
    {
      for (size_t i = 0; i < n; ++i)
	names[i] = perf_attr_name (&s->data.attrs[i], buf[i], sizeof buf[i]);
      profile_print (&s->profile, s->out, names);
    }
  free (names);
  free (buf);
}

/* Write the flame graph of the stacks to OPT->flamegraph.  Returns 0, or
   -1 after a message.  */
static int
write_flamegraph (struct session *s)
{
  const char *path = s->opt->flamegraph;
  FILE *f = fopen (path, "w");
  if (f == NULL)
    {
      fprintf (s->err, "perfsym: %s: %s\n", path, strerror (errno));
      return -1;
    }
  const char *input = (strcmp (s->opt->input, "-") == 0
		       ? "standard input" : s->opt->input);
  /* The events of the samples, by name, or how many they are.  */
  char events[200] = "";
  size_t n_events = 0;
  for (size_t i = 0; i < s->data.n_attrs && i < 64; ++i)
    if (s->stacks_events & (UINT64_C (1) << i))
      {
	char name[64];
	size_t len = strlen (events);
	snprintf (events + len, sizeof events - len, "%s%s",
		  n_events++ > 0 ? ", " : "",
		  perf_attr_name (&s->data.attrs[i], name, sizeof name));
      }
  if (n_events > 3)
    snprintf (events, sizeof events, "%zu events", n_events);
  char title[4200];
  char subtitle[sizeof events + 128];
  snprintf (title, sizeof title, "Flame graph of %s", input);
  snprintf (subtitle, sizeof subtitle, "%" PRIu64 " samples of %s; a frame"
	    " is as wide as its share of them, above its caller",
	    s->stacks.samples, n_events > 0 ? events : "no event");
  if (flamegraph_write (&s->stacks, f, title, subtitle) != 0)
    {
      fclose (f);
      fprintf (s->err, "perfsym: out of memory\n");
      return -1;
    }
  if (ferror (f) | (fclose (f) != 0))
    {
      fprintf (s->err, "perfsym: %s: write error: %s\n", path,
	       strerror (errno));
      return -1;
    }
  return 0;
}

/* No find_elf: every module is reported with its Elf.  */
static const Dwfl_Callbacks dwfl_callbacks =
{
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};


/* Close and free what S holds.  */
static void
session_free (struct session *s)
{
  order_free (&s->order);
  profile_free (&s->profile);
  stacks_free (&s->stacks);
  symbolizer_free (&s->symbolizer);
  kernel_free (&s->kernel);
  process_table_free (&s->processes);
  unwinder_free (&s->unwinder);
  perf_data_close (&s->data);
}

int
session_run (const struct session_options *opt, FILE *out, FILE *err)
{
  struct session *s = calloc (1, sizeof *s);
  if (s == NULL)
    {
      fprintf (err, "perfsym: out of memory\n");
      return 1;
    }
  s->opt = opt;
  s->out = out;
  s->err = err;

  if (perf_data_open (&s->data, opt->input) != 0)
    {
      fprintf (err, "perfsym: %s\n", s->data.error);
      perf_data_close (&s->data);
      free (s);
      return 1;
    }
  bool progress = (opt->progress > 0
		   || (opt->progress < 0 && isatty (fileno (err))
		       && (s->data.stream
			   || s->data.data_end - s->data.data_offset
			      >= PROGRESS_MIN_SIZE)));

  /* Find bad data before printing anything, unless what comes before it
     is wanted, or the records can only be read once.  */
  uint64_t n_checked;
  if (!opt->partial && !s->data.stream
      && perf_data_check (&s->data, &n_checked) != 0)
    {
      fprintf (err, "perfsym: %s\n", s->data.error);
      perf_data_close (&s->data);
      free (s);
      return 1;
    }

  int status = 0;
  order_init (&s->order, deliver, s);
  process_table_init (&s->processes, &dwfl_callbacks, &s->data);
  s->processes.files.map_file = opt->map_file;
  s->processes.files.map_file_arg = opt->map_file_arg;
  /* perf keeps the vdso out of the file: this machine's will do if it
     is the one the recording has the build id of.  */
  size_t vdso_size;
  void *vdso = vdso_copy (&vdso_size);
  if (vdso != NULL
      && mapped_files_set_vdso (&s->processes.files, vdso, vdso_size) != 0)
    status = out_of_memory (s);
  unwinder_init (&s->unwinder);
  profile_init (&s->profile);
  stacks_init (&s->stacks);
  kernel_init (&s->kernel, &s->data, opt->kallsyms);
  if (symbolizer_init (&s->symbolizer, opt->demangle) != 0)
    status = out_of_memory (s);
  s->symbolizer.kernel = &s->kernel;

  if (status == 0)
    status = process_records (s, progress);
  if (status == 0)
    status = order_flush_all (&s->order);
  else if (opt->partial)
    {
      /* Deliver what was read before the error; keep its message.  */
      char error[sizeof s->data.error];
      memcpy (error, s->data.error, sizeof error);
      order_flush_all (&s->order);
      memcpy (s->data.error, error, sizeof error);
    }
  if (progress)
    show_progress (s, true);

  if (status == 0 || opt->partial)
    {
      if (opt->folded && folded_print (&s->stacks, out) != 0)
	status = out_of_memory (s);
      else if (!opt->samples && !opt->folded)
	print_profile (s);
      if (fflush (out) != 0 || ferror (out))
	{
	  fprintf (err, "perfsym: write error: %s\n", strerror (errno));
	  status = -1;
	  s->data.error[0] = '\0';
	}
    }
  if (status != 0 && s->data.error[0] != '\0')
    fprintf (err, "perfsym: %s\n", s->data.error);
  if ((status == 0 || opt->partial) && opt->flamegraph != NULL
      && write_flamegraph (s) != 0)
    {
      status = -1;
      s->data.error[0] = '\0';
    }

  if (s->data.n_compressed > 0)
    fprintf (err, "perfsym: warning: %" PRIu64 " compressed records"
	     " (perf record -z) skipped: not supported\n",
	     s->data.n_compressed);
  if (s->processes.stats.build_id_differs > 0)
    fprintf (err, "perfsym: warning: %" PRIu64 " mappings of files whose"
	     " build id is not the one recorded (the files changed since?)\n",
	     s->processes.stats.build_id_differs);
  if (s->processes.stats.identity_differs > 0)
    fprintf (err, "perfsym: warning: %" PRIu64 " mappings of files that"
	     " are not the ones mapped (another device or inode: replaced"
	     " since?), read all the same\n",
	     s->processes.stats.identity_differs);
  if (s->kernel.state < 0)
    fprintf (err, "perfsym: warning: kernel addresses are not named: %s\n",
	     s->kernel.problem);
  if (s->n_skipped_samples > 0)
    fprintf (err, "perfsym: warning: %" PRIu64 " samples of unknown"
	     " events skipped\n", s->n_skipped_samples);
  if (opt->stats)
    print_stats (s);

  session_free (s);
  free (s);
  return status == 0 ? 0 : 1;
}
