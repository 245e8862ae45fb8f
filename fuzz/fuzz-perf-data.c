/* libFuzzer harness for perfsym's perf.data reader and the pipeline
   behind it.

   Each input is a perf.data file.  It is written to a file and run
   through session_run, perfsym's whole run without its command line:
   the reader (perfdata.c), the time order (order.c), the address spaces
   fed by dwfl_report_elf_mmap (process.c), naming and unwinding
   (symbolize.c, unwind.c) and printing (report.c), twice: as
   `perfsym -s -g --partial --stats', which processes the records up to
   the first bad one, and as `perfsym', which checks the whole file
   first and prints the profile.  An input in perf's pipe format (a
   header size of 16) is also read a third time through a pipe, as
   `perf record -o - | perfsym -i -' reads it, where the reader can
   neither seek nor read twice.

   The files the mmap records name are kept to a fixed set, so that
   every input does the same whatever the machine holds: a name of the
   set is read as it is, any other is mapped by a hash of the name to one
   of the set (through the process table's MAP_FILE hook).  The set:
   /usr/bin/true, the dynamic linker and the C library as perf record
   sees them, two layout testfiles of the series (ld.bfd and lld, from
   TESTFILES_DIR), a file that is not ELF, an empty one and one that does
   not exist.  HOME is an empty directory, so that perf's build-id cache
   is not there, and DEBUGINFOD_URLS is unset.  Kernel addresses are
   named from a kallsyms file of a few symbols, a kernel's and a
   module's (as perfsym --kallsyms), not from the machine's, whose
   100,000 symbols would take a third of a second for each input.

   After each input the harness calls abort () on the first broken
   invariant, printing "invariant broken" and which:

   - each run returns the exit status 0 or 1, and 1 only after a
     message "perfsym: ..." on its error stream (the reader reports bad
     data, it does not exit);
   - the two runs of the file agree: the one that checks the file first
     fails if and only if the one that reads up to the first bad record
     does;
   - no file descriptor is left open (the entries of /proc/self/fd are
     counted before and after the input); memory left allocated is
     found by LeakSanitizer, with libFuzzer's -detect_leaks.

   FUZZ_VERBOSE set prints each run's error stream, to see what an input
   does.  FUZZ_TESTFILES overrides TESTFILES_DIR.  */

#define _GNU_SOURCE 1
#include <bzlib.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"

#ifndef TESTFILES_DIR
# define TESTFILES_DIR "build/elfutils/tests"
#endif

/* The header size field that marks perf's pipe format.  */
#define PIPE_HEADER_SIZE 16

/* The files the mmap records of an input may read.  The system files
   are read under their own name when a record names them; every other
   name is mapped to one of FILES: the system files but the C library
   (whose symbol table takes long to read), the testfiles and the three
   made up.  */
static const char *const system_files[] =
  {
    "/usr/bin/true",
    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
    "/usr/lib64/ld-linux-x86-64.so.2",
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
  };
#define N_SYSTEM_FILES (sizeof system_files / sizeof system_files[0])
static const char *const testfiles[] =
  {
    "testfile-mmap-bfd",
    "testfile-mmap-lld-tiny",
  };
#define N_TESTFILES (sizeof testfiles / sizeof testfiles[0])
#define N_FILES (N_SYSTEM_FILES - 1 + N_TESTFILES + 3)
static char *files[N_FILES];

/* The harness's directory: the input file, the testfiles, HOME.  */
static char workdir[] = "/tmp/fuzz-perf-data-XXXXXX";
static char *input_file;
static char *kallsyms_file;
static FILE *null_out;
static bool verbose;

static void __attribute__ ((noreturn, format (printf, 1, 2)))
die (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("fuzz-perf-data: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
  exit (2);
}

static void __attribute__ ((noreturn, format (printf, 1, 2)))
broken (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("fuzz-perf-data: invariant broken: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
  abort ();
}

static char *
xasprintf (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *s;
  if (vasprintf (&s, fmt, ap) < 0)
    die ("out of memory");
  va_end (ap);
  return s;
}

static void
write_file (const char *path, const void *data, size_t size)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || write (fd, data, size) != (ssize_t) size || close (fd) != 0)
    die ("cannot write %s: %m", path);
}

/* Decompress the bzip2 file FROM into TO.  */
static void
bunzip_file (const char *from, const char *to)
{
  FILE *in = fopen (from, "rb");
  if (in == NULL)
    die ("cannot open %s: %m", from);
  int error;
  BZFILE *bz = BZ2_bzReadOpen (&error, in, 0, 0, NULL, 0);
  if (error != BZ_OK)
    die ("%s: not a bzip2 file", from);
  FILE *out = fopen (to, "wb");
  if (out == NULL)
    die ("cannot create %s: %m", to);
  char buf[65536];
  do
    {
      int n = BZ2_bzRead (&error, bz, buf, sizeof buf);
      if ((error != BZ_OK && error != BZ_STREAM_END)
	  || fwrite (buf, 1, n, out) != (size_t) n)
	die ("cannot decompress %s into %s", from, to);
    }
  while (error != BZ_STREAM_END);
  BZ2_bzReadClose (&error, bz);
  fclose (in);
  if (fclose (out) != 0)
    die ("cannot write %s: %m", to);
}

static int
remove_entry (const char *path, const struct stat *st __attribute__ ((unused)),
	      int flag __attribute__ ((unused)),
	      struct FTW *ftw __attribute__ ((unused)))
{
  return remove (path);
}

static void
remove_workdir (void)
{
  nftw (workdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The file read for the file FILENAME an mmap record names.  */
static const char *
map_file (const char *filename, void *arg __attribute__ ((unused)))
{
  for (size_t i = 0; i < N_SYSTEM_FILES; ++i)
    if (strcmp (filename, system_files[i]) == 0)
      return filename;
  /* FNV-1a.  */
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *) filename; *p; ++p)
    h = (h ^ *p) * 16777619u;
  return files[h % N_FILES];
}

static int
fds_open (void)
{
  DIR *d = opendir ("/proc/self/fd");
  if (d == NULL)
    die ("cannot read /proc/self/fd: %m");
  int n = 0;
  while (readdir (d) != NULL)
    ++n;
  closedir (d);
  return n;
}

int
LLVMFuzzerInitialize (int *argc __attribute__ ((unused)),
		      char ***argv __attribute__ ((unused)))
{
  if (mkdtemp (workdir) == NULL)
    die ("mkdtemp %s: %m", workdir);
  atexit (remove_workdir);
  verbose = getenv ("FUZZ_VERBOSE") != NULL;

  size_t n = 0;
  for (size_t i = 0; i < N_SYSTEM_FILES - 1; ++i)
    files[n++] = xasprintf ("%s", system_files[i]);
  const char *dir = getenv ("FUZZ_TESTFILES") ?: TESTFILES_DIR;
  for (size_t i = 0; i < N_TESTFILES; ++i)
    {
      char *bz = xasprintf ("%s/%s.bz2", dir, testfiles[i]);
      files[n] = xasprintf ("%s/%s", workdir, testfiles[i]);
      bunzip_file (bz, files[n++]);
      free (bz);
    }
  files[n] = xasprintf ("%s/not-elf", workdir);
  write_file (files[n++], "not an ELF file\n", 16);
  files[n] = xasprintf ("%s/empty", workdir);
  write_file (files[n++], "", 0);
  files[n++] = xasprintf ("%s/missing", workdir);

  input_file = xasprintf ("%s/input.data", workdir);
  static const char kallsyms[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T _text\n"
    "ffffffff81000100 t local_fn\n"
    "ffffffff81000100 W weak_fn\n"
    "ffffffff81000200 T kernel_fn\n"
    "ffffffffc0000000 t module_fn\t[module]\n";
  kallsyms_file = xasprintf ("%s/kallsyms", workdir);
  write_file (kallsyms_file, kallsyms, sizeof kallsyms - 1);
  setenv ("HOME", workdir, 1);
  unsetenv ("DEBUGINFOD_URLS");
  null_out = fopen ("/dev/null", "w");
  if (null_out == NULL)
    die ("cannot open /dev/null: %m");
  return 0;
}

/* Run perfsym on INPUT with OPT; check its exit status and messages.
   WHAT names the run in messages.  */
static int
run (struct session_options *opt, const char *input, const char *what)
{
  opt->input = input;
  opt->progress = 0;
  opt->demangle = true;
  opt->map_file = map_file;
  opt->kallsyms = kallsyms_file;
  char *err_text = NULL;
  size_t err_size = 0;
  FILE *err = open_memstream (&err_text, &err_size);
  if (err == NULL)
    die ("open_memstream: %m");
  int status = session_run (opt, null_out, err);
  if (fclose (err) != 0)
    die ("open_memstream: %m");
  if (verbose)
    fprintf (stderr, "%s: exit status %d\n%s", what, status, err_text);
  if (status != 0 && status != 1)
    broken ("%s: exit status %d", what, status);
  if (status == 1
      && strncmp (err_text, "perfsym: ", 9) != 0
      && strstr (err_text, "\nperfsym: ") == NULL)
    broken ("%s: exit status 1 without a message", what);
  free (err_text);
  return status;
}

/* Read DATA of SIZE bytes from a pipe, as perfsym reads standard
   input.  */
static void
run_stream (const uint8_t *data, size_t size)
{
  int fds[2];
  if (pipe2 (fds, O_CLOEXEC) != 0)
    die ("pipe: %m");
  /* All of DATA must fit: nothing reads the pipe while it is written.  */
  if (fcntl (fds[1], F_SETPIPE_SZ, (int) size + 1) < (int) size)
    {
      close (fds[0]);
      close (fds[1]);
      return;
    }
  if (size > 0 && write (fds[1], data, size) != (ssize_t) size)
    die ("write to a pipe: %m");
  close (fds[1]);
  char *name = xasprintf ("/dev/fd/%d", fds[0]);
  struct session_options opt = { .samples = true, .callchain = true };
  run (&opt, name, "stream");
  free (name);
  close (fds[0]);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  int fds_before = fds_open ();
  write_file (input_file, data, size);

  struct session_options partial =
    {
      .samples = true,
      .callchain = true,
      .partial = true,
      .stats = true,
    };
  int status_partial = run (&partial, input_file, "file -s -g --partial");
  struct session_options checked = { .samples = false };
  int status_checked = run (&checked, input_file, "file");
  if (status_partial != status_checked)
    broken ("perfsym --partial exits with %d, perfsym with %d",
	    status_partial, status_checked);

  uint64_t header_size;
  if (size >= PIPE_HEADER_SIZE)
    {
      memcpy (&header_size, data + 8, sizeof header_size);
      if (header_size == PIPE_HEADER_SIZE)
	run_stream (data, size);
    }

  int fds_after = fds_open ();
  if (fds_after != fds_before)
    broken ("%d file descriptors open before the input, %d after",
	    fds_before, fds_after);
  return 0;
}
