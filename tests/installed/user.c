/* A user's program of dwfl_report_elf_mmap: built against the installed
   library alone (<elfutils/libdwfl.h> and pkg-config's libdw), as a
   profiler's author would build it.  It knows libdwfl's errors by their
   messages only.  Each mode exits 0 when what it checks holds, else 1
   with the reason; tests/installed-api.sh builds it and runs the modes.

   user version
     the version of the libdw it runs on
   user self none|proc
     reports every mapping of /proc/self/maps, then checks each object
     dl_iterate_phdr lists against its module: the module's file is the
     object's, its bias the object's load address; and a function of the
     program and one of libdw are named as the compiler and dladdr name
     them; then the source line of one of the program and one of libc
   user unwind none|proc
     reports a child's mappings from /proc/PID/maps, attaches to it and
     prints the names of its frames, innermost first
   user rebuilt none|proc LIB NEW
     dlopens LIB and reports its mappings; a first Dwfl reads its ELF
     file at once, a second after NEW was renamed over LIB: the first
     names LIB's function, the second's module refuses NEW
   user fd LIB N
     with RLIMIT_NOFILE at 64, reports LIB's text by one descriptor at N
     addresses, under a name no file has: one descriptor more while the
     modules live, none after them, and each reads LIB
   user rebuilds LIB N
     N times: LIB copied to a new inode under one name, one mapping of
     it reported in a new report cycle, which drops the last one's module:
     the heap and the descriptors stay as they were after the first tenth
   user elf LIB N VALUE
     LIB opened once as an Elf and unlinked, reported through the Elf in
     N Dwfls, then given back: each names the function at VALUE
   user bad LIB TEXT
     bad mappings are refused with their error, and leave the Dwfl as it
     was  */

#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void
fail (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("user: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
  exit (1);
}

static char *debuginfo_path;

/* perf's unwinder has no find_elf: it reports files by name.  */
static const Dwfl_Callbacks no_find_elf =
  {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
  };

static const Dwfl_Callbacks proc_find_elf =
  {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
  };

static Dwfl *
new_dwfl (const char *callbacks)
{
  Dwfl *dwfl = dwfl_begin (strcmp (callbacks, "proc") == 0
			   ? &proc_find_elf : &no_find_elf);
  if (dwfl == NULL)
    fail ("dwfl_begin: %s", dwfl_errmsg (-1));
  dwfl_report_begin (dwfl);
  return dwfl;
}

static void
end_report (Dwfl *dwfl)
{
  if (dwfl_report_end (dwfl, NULL, NULL) != 0)
    fail ("dwfl_report_end: %s", dwfl_errmsg (-1));
}

/* Report each mapping of a file in /proc/PID/maps (PID 0: this
   process), or of ONLY's if it is not NULL, as a profiler reports
   PERF_RECORD_MMAP2 events.  Returns how many were taken.  */
static int
report_maps (Dwfl *dwfl, pid_t pid, const char *only)
{
  char maps_path[64] = "/proc/self/maps";
  if (pid != 0)
    snprintf (maps_path, sizeof maps_path, "/proc/%d/maps", (int) pid);
  FILE *maps = fopen (maps_path, "r");
  if (maps == NULL)
    fail ("%s: %m", maps_path);
  char *line = NULL;
  size_t size = 0;
  int taken = 0;
  while (getline (&line, &size, maps) > 0)
    {
      unsigned long start, end, pgoff;
      char rwx[5];
      int path_at = 0;
      if (sscanf (line, "%lx-%lx %4s %lx %*s %*s %n", &start, &end, rwx,
		  &pgoff, &path_at) != 4 || path_at == 0)
	continue;
      char *path = line + path_at;
      path[strcspn (path, "\n")] = '\0';
      if (path[0] != '/' || (only != NULL && strcmp (path, only) != 0))
	continue;
      int prot = ((rwx[0] == 'r' ? PROT_READ : 0)
		  | (rwx[1] == 'w' ? PROT_WRITE : 0)
		  | (rwx[2] == 'x' ? PROT_EXEC : 0));
      if (dwfl_report_elf_mmap (dwfl, NULL, path, -1, start, end - start,
				pgoff, prot) != NULL)
	++taken;
    }
  free (line);
  fclose (maps);
  return taken;
}

static Dwfl_Module *
module_at (Dwfl *dwfl, const void *p)
{
  Dwfl_Module *mod = dwfl_addrmodule (dwfl, (uintptr_t) p);
  if (mod == NULL)
    fail ("no module at %p", p);
  return mod;
}

/* The name libdwfl gives the function at P.  */
static const char *
name_at (Dwfl *dwfl, const void *p)
{
  const char *name = dwfl_module_addrname (module_at (dwfl, p),
					   (uintptr_t) p);
  return name != NULL ? name : "(none)";
}

struct self_check
{
  Dwfl *dwfl;
  int seen, checked;
};

static int
check_object (struct dl_phdr_info *info, size_t size __attribute__ ((unused)),
	      void *arg)
{
  struct self_check *check = arg;
  char want[PATH_MAX];
  /* The program comes first.  The vDSO has no file.  */
  const char *name = check->seen++ == 0 ? "/proc/self/exe" : info->dlpi_name;
  if (name[0] != '/' || realpath (name, want) == NULL)
    return 0;

  for (size_t i = 0; i < info->dlpi_phnum; ++i)
    {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) == 0)
	continue;
      const void *text = (const void *) (info->dlpi_addr + ph->p_vaddr);
      Dwfl_Module *mod = module_at (check->dwfl, text);
      Dwarf_Addr bias;
      if (dwfl_module_getelf (mod, &bias) == NULL)
	fail ("%s: dwfl_module_getelf: %s", want, dwfl_errmsg (-1));
      const char *file;
      dwfl_module_info (mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
      char got[PATH_MAX];
      if (file == NULL || realpath (file, got) == NULL
	  || strcmp (got, want) != 0)
	fail ("the module at %p reads %s, the loader mapped %s", text,
	      file ?: "nothing", want);
      if (bias != info->dlpi_addr)
	fail ("%s: bias %#lx, the loader's %#lx", want, (unsigned long) bias,
	      (unsigned long) info->dlpi_addr);
      ++check->checked;
      break;
    }
  return 0;
}

/* Print where the code at P is, as "line FILE ADDRESS SOURCE:LINE":
   the module's file, P's address in that file, and what its DWARF
   (found by find_debuginfo, in the file or apart) says of P.  */
static void
print_line (Dwfl *dwfl, const void *p)
{
  Dwfl_Module *mod = module_at (dwfl, p);
  Dwarf_Addr bias, dwarf_bias;
  if (dwfl_module_getelf (mod, &bias) == NULL
      || dwfl_module_getdwarf (mod, &dwarf_bias) == NULL)
    fail ("%p: no DWARF: %s", p, dwfl_errmsg (-1));
  Dwfl_Line *line = dwfl_module_getsrc (mod, (uintptr_t) p);
  int lineno;
  const char *src = (line == NULL ? NULL
		     : dwfl_lineinfo (line, NULL, &lineno, NULL, NULL, NULL));
  if (src == NULL)
    fail ("%p: no line: %s", p, dwfl_errmsg (-1));
  const char *file;
  dwfl_module_info (mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
  printf ("line %s %#lx %s:%d\n", file, (unsigned long) ((uintptr_t) p - bias),
	  basename (src), lineno);
}

static __attribute__ ((noinline)) int
function_of_the_program (int x)
{
  return x * 3 + 1;
}

static int
self (const char *callbacks)
{
  Dwfl *dwfl = new_dwfl (callbacks);
  int taken = report_maps (dwfl, 0, NULL);
  end_report (dwfl);

  struct self_check check = { dwfl, 0, 0 };
  dl_iterate_phdr (check_object, &check);
  if (check.checked < 4)
    fail ("only %d objects checked", check.checked);

  const void *ours = (const void *) &function_of_the_program;
  if (strcmp (name_at (dwfl, ours), "function_of_the_program") != 0)
    fail ("%p is named %s", ours, name_at (dwfl, ours));
  Dl_info info;
  const void *theirs = (const void *) &dwfl_report_elf_mmap;
  if (dladdr (theirs, &info) == 0 || info.dli_sname == NULL)
    fail ("dladdr does not name %p", theirs);
  if (strcmp (name_at (dwfl, theirs), info.dli_sname) != 0)
    fail ("%p is named %s, by dladdr %s", theirs, name_at (dwfl, theirs),
	  info.dli_sname);
  printf ("%d mappings, %d objects as the loader has them\n", taken,
	  check.checked);
  print_line (dwfl, ours);
  print_line (dwfl, (const void *) &dl_iterate_phdr);
  dwfl_end (dwfl);
  return 0;
}

static int
rebuilt (const char *callbacks, const char *lib, const char *new)
{
  void *handle = dlopen (lib, RTLD_NOW);
  if (handle == NULL)
    fail ("dlopen: %s", dlerror ());
  const void *function = dlsym (handle, "built_first");
  if (function == NULL)
    fail ("dlsym: %s", dlerror ());

  Dwfl *before = new_dwfl (callbacks);
  Dwfl *after = new_dwfl (callbacks);
  if (report_maps (before, 0, lib) == 0 || report_maps (after, 0, lib) == 0)
    fail ("no mapping of %s reported", lib);
  end_report (before);
  end_report (after);

  Dwarf_Addr bias;
  if (dwfl_module_getelf (module_at (before, function), &bias) == NULL)
    fail ("before: dwfl_module_getelf: %s", dwfl_errmsg (-1));
  printf ("before: %s\n", name_at (before, function));

  if (rename (new, lib) != 0)
    fail ("rename: %m");
  Elf *elf = dwfl_module_getelf (module_at (after, function), &bias);
  printf ("after: %s, %s\n", elf != NULL ? "read" : dwfl_errmsg (-1),
	  name_at (after, function));
  dwfl_end (before);
  dwfl_end (after);
  return 0;
}

static int
open_fds (void)
{
  DIR *dir = opendir ("/proc/self/fd");
  if (dir == NULL)
    fail ("/proc/self/fd: %m");
  int n = 0;
  while (readdir (dir) != NULL)
    ++n;
  closedir (dir);
  return n;
}

/* The child of unwind: it waits in a read, three calls deep.  The empty
   asm after each call keeps it from being a tail call.  */
static __attribute__ ((noinline)) void
child_innermost (int fd)
{
  char c;
  if (read (fd, &c, 1) < 0)
    _exit (2);
  __asm__ volatile ("");
}

static __attribute__ ((noinline)) void
child_middle (int fd)
{
  child_innermost (fd);
  __asm__ volatile ("");
}

static __attribute__ ((noinline)) void
child_outer (int fd)
{
  child_middle (fd);
  __asm__ volatile ("");
}

/* Whether process PID sleeps.  */
static bool
sleeping (pid_t pid)
{
  char path[64], state = '?';
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  FILE *f = fopen (path, "r");
  if (f != NULL)
    {
      if (fscanf (f, "%*d (%*[^)]) %c", &state) != 1)
	state = '?';
      fclose (f);
    }
  return state == 'S';
}

struct frames
{
  Dwfl *dwfl;
  char names[64][64];
  int n;
};

static int
add_frame (Dwfl_Frame *state, void *arg)
{
  struct frames *frames = arg;
  Dwarf_Addr pc;
  bool activation;
  if (! dwfl_frame_pc (state, &pc, &activation))
    return DWARF_CB_ABORT;
  const char *name = name_at (frames->dwfl, (void *) (pc - ! activation));
  snprintf (frames->names[frames->n], sizeof frames->names[0], "%s", name);
  return ++frames->n < 64 ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* As eu-stack -p would with the new call: a child's mappings reported
   from its /proc/PID/maps, then its stack unwound through the modules'
   CFI.  */
static int
unwind (const char *callbacks)
{
  int go[2], ready[2];
  if (pipe (go) != 0 || pipe (ready) != 0)
    fail ("pipe: %m");
  pid_t pid = fork ();
  if (pid < 0)
    fail ("fork: %m");
  /* Each keeps only its own ends: the child's read ends if the parent
     is gone.  */
  close (pid == 0 ? go[1] : go[0]);
  close (pid == 0 ? ready[0] : ready[1]);
  if (pid == 0)
    {
      if (write (ready[1], "", 1) != 1)
	_exit (2);
      child_outer (go[0]);
      _exit (0);
    }
  char c;
  if (read (ready[0], &c, 1) != 1)
    fail ("the child did not start");
  for (int i = 0; i < 500 && ! sleeping (pid); ++i)
    usleep (10000);

  Dwfl *dwfl = new_dwfl (callbacks);
  report_maps (dwfl, pid, NULL);
  end_report (dwfl);
  if (dwfl_linux_proc_attach (dwfl, pid, false) != 0)
    fail ("dwfl_linux_proc_attach: %s", dwfl_errmsg (-1));
  struct frames frames = { .dwfl = dwfl };
  if (dwfl_getthread_frames (dwfl, pid, add_frame, &frames) != 0
      && frames.n == 0)
    fail ("dwfl_getthread_frames: %s", dwfl_errmsg (-1));
  dwfl_end (dwfl);
  if (write (go[1], "", 1) != 1 || waitpid (pid, NULL, 0) != pid)
    fail ("the child did not end");

  for (int i = 0; i < frames.n; ++i)
    printf ("%s%s", i > 0 ? " " : "", frames.names[i]);
  putchar ('\n');
  return 0;
}

/* The first executable PT_LOAD of ELF, as one mapping at BIAS would
   show it: *START, *LEN, *PGOFF.  */
static void
text_of_elf (Elf *elf, GElf_Addr bias, GElf_Addr *start, GElf_Addr *len,
	     GElf_Off *pgoff)
{
  size_t phnum;
  if (elf == NULL || elf_getphdrnum (elf, &phnum) != 0)
    fail ("libelf: %s", elf_errmsg (-1));
  const GElf_Addr page = sysconf (_SC_PAGESIZE);
  for (size_t i = 0; i < phnum; ++i)
    {
      GElf_Phdr mem, *ph = gelf_getphdr (elf, i, &mem);
      if (ph != NULL && ph->p_type == PT_LOAD && (ph->p_flags & PF_X) != 0)
	{
	  *pgoff = ph->p_offset & -page;
	  *start = bias + (ph->p_vaddr & -page);
	  *len = ph->p_offset + ph->p_filesz - *pgoff;
	  return;
	}
    }
  fail ("no executable PT_LOAD");
}

/* The same for the ELF file FD.  */
static void
text_mapping (int fd, GElf_Addr bias, GElf_Addr *start, GElf_Addr *len,
	      GElf_Off *pgoff)
{
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  text_of_elf (elf, bias, start, len, pgoff);
  elf_end (elf);
}

static int
one_fd (const char *lib, int n)
{
  struct rlimit limit;
  getrlimit (RLIMIT_NOFILE, &limit);
  limit.rlim_cur = 64;
  if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
    fail ("setrlimit: %m");

  int fd = open (lib, O_RDONLY);
  if (fd < 0)
    fail ("%s: %m", lib);
  GElf_Addr start, len;
  GElf_Off pgoff;
  text_mapping (fd, 0, &start, &len, &pgoff);
  int fds = open_fds ();
  Dwfl *dwfl = new_dwfl ("none");
  const GElf_Addr step = 0x1000000;
  for (int i = 0; i < n; ++i)
    if (dwfl_report_elf_mmap (dwfl, NULL, "[copy]", fd, (i + 1) * step + start,
			      len, pgoff, PROT_READ | PROT_EXEC) == NULL)
      fail ("mapping %d: %s", i, dwfl_errmsg (-1));
  end_report (dwfl);
  int with_modules = open_fds ();
  close (fd);

  for (int i = 0; i < n; i += n / 4 + 1)
    {
      Dwarf_Addr bias;
      Dwfl_Module *mod = dwfl_addrmodule (dwfl, (i + 1) * step + start);
      if (mod == NULL || dwfl_module_getelf (mod, &bias) == NULL)
	fail ("module %d: %s", i, dwfl_errmsg (-1));
      if (bias != (i + 1) * step)
	fail ("module %d: bias %#lx", i, (unsigned long) bias);
    }
  dwfl_report_begin (dwfl);
  end_report (dwfl);
  int after = open_fds ();
  printf ("%d mappings by one descriptor: %+d descriptors, %+d after"
	  " them\n", n, with_modules - fds, after - (fds - 1));
  dwfl_end (dwfl);
  return 0;
}

static int
rebuilds (const char *lib, int n)
{
  FILE *f = fopen (lib, "r");
  static char image[1 << 20];
  size_t size = f != NULL ? fread (image, 1, sizeof image, f) : 0;
  if (size == 0 || size == sizeof image)
    fail ("%s: cannot read it whole", lib);
  fclose (f);
  char name[PATH_MAX], tmp[PATH_MAX];
  snprintf (name, sizeof name, "%s.current", lib);
  snprintf (tmp, sizeof tmp, "%s.new", lib);

  Dwfl *dwfl = new_dwfl ("none");
  end_report (dwfl);
  size_t heap = 0;
  int fds = 0;
  for (int i = 0; i < n; ++i)
    {
      if (i == n / 10)
	{
	  heap = mallinfo2 ().uordblks;
	  fds = open_fds ();
	}
      int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || write (fd, image, size) != (ssize_t) size
	  || close (fd) != 0 || rename (tmp, name) != 0)
	fail ("%s: %m", name);
      fd = open (name, O_RDONLY);
      GElf_Addr start, len;
      GElf_Off pgoff;
      text_mapping (fd, 0x7f0000000000, &start, &len, &pgoff);
      close (fd);
      dwfl_report_begin (dwfl);
      if (dwfl_report_elf_mmap (dwfl, NULL, name, -1, start, len, pgoff,
				PROT_READ | PROT_EXEC) == NULL)
	fail ("rebuild %d: %s", i, dwfl_errmsg (-1));
      end_report (dwfl);
    }
  printf ("%d rebuilds: heap %+ld bytes, %+d descriptors over the last"
	  " %d\n", n, (long) (mallinfo2 ().uordblks - heap),
	  open_fds () - fds, n - n / 10);
  dwfl_end (dwfl);
  return 0;
}

/* As a profiler that opens each file once, as it identifies it, and
   shares the Elf among the Dwfls of its processes: LIB is opened, and
   unlinked so that no name reaches it, then reported through the Elf in
   N Dwfls, one mapping each, and the Elf given back; each Dwfl names
   the function at VALUE (readelf's) under its bias.  */
static int
shared_elf (const char *lib, int n, GElf_Addr value)
{
  int fd = open (lib, O_RDONLY);
  Elf *elf = fd >= 0 ? elf_begin (fd, ELF_C_READ_MMAP, NULL) : NULL;
  if (elf == NULL || unlink (lib) != 0)
    fail ("%s: cannot open it as ELF and unlink it", lib);
  GElf_Addr start, len;
  GElf_Off pgoff;
  text_of_elf (elf, 0, &start, &len, &pgoff);
  const GElf_Addr step = 0x1000000;
  Dwfl *dwfls[n];
  for (int i = 0; i < n; ++i)
    {
      dwfls[i] = new_dwfl (i % 2 ? "proc" : "none");
      if (dwfl_report_elf_mmap_elf (dwfls[i], NULL, lib, elf,
				    (i + 1) * step + start, len, pgoff,
				    PROT_READ | PROT_EXEC) == NULL)
	fail ("Dwfl %d: %s", i, dwfl_errmsg (-1));
      end_report (dwfls[i]);
    }
  elf_end (elf);
  close (fd);
  for (int i = 0; i < n; ++i)
    {
      const void *p = (const void *) ((i + 1) * step + value);
      if (strcmp (name_at (dwfls[i], p), "built_first") != 0)
	fail ("Dwfl %d: %p is %s", i, p, name_at (dwfls[i], p));
      dwfl_end (dwfls[i]);
    }
  printf ("%d Dwfls named built_first through one Elf\n", n);
  return 0;
}

static int
count_module (Dwfl_Module *mod __attribute__ ((unused)),
	      void **userdata __attribute__ ((unused)),
	      const char *name __attribute__ ((unused)),
	      Dwarf_Addr start __attribute__ ((unused)), void *arg)
{
  ++*(int *) arg;
  return DWARF_CB_OK;
}

static int
count_modules (Dwfl *dwfl)
{
  int n = 0;
  dwfl_getmodules (dwfl, count_module, &n, 0);
  return n;
}

static int
bad (const char *lib, const char *text)
{
  int fd = open (lib, O_RDONLY);
  if (fd < 0)
    fail ("%s: %m", lib);
  GElf_Addr start, len;
  GElf_Off pgoff;
  const GElf_Addr bias = 0x10000000;
  text_mapping (fd, bias, &start, &len, &pgoff);
  close (fd);
  Dwfl *dwfl = new_dwfl ("none");
  if (dwfl_report_elf_mmap (dwfl, NULL, lib, -1, start, len, pgoff,
			    PROT_READ | PROT_EXEC) == NULL)
    fail ("%s: %s", lib, dwfl_errmsg (-1));
  int fds = open_fds ();

  const struct
  {
    const char *what, *file;
    GElf_Addr start, len;
    GElf_Off pgoff;
    int prot;
  } cases[] =
    {
      { "no file name", NULL, start, len, pgoff, PROT_READ },
      { "length 0", lib, start, 0, pgoff, PROT_READ },
      { "range wraps", lib, -0x1000, 0x2000, pgoff, PROT_READ },
      { "offset wraps", lib, start, 0x2000, -0x1000, PROT_READ },
      { "not PROT bits", lib, start, len, pgoff, 0x100 },
      { "no such file", "/nonexistent/lib.so", start, len, pgoff, PROT_READ },
      { "not ELF", text, start, len, 0, PROT_READ },
      { "no segment there", lib, start, 0x1000, 0x40000000, PROT_READ },
      { "a gap of no module", lib, 0x50000000, 0x1000, pgoff, PROT_NONE },
    };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    {
      if (dwfl_report_elf_mmap (dwfl, NULL, cases[i].file, -1,
				cases[i].start, cases[i].len, cases[i].pgoff,
				cases[i].prot) != NULL)
	fail ("%s: taken", cases[i].what);
      printf ("%s: %s\n", cases[i].what, dwfl_errmsg (-1));
      if (count_modules (dwfl) != 1 || open_fds () != fds)
	fail ("%s: the Dwfl changed", cases[i].what);
    }
  end_report (dwfl);
  if (dwfl_addrmodule (dwfl, start) == NULL)
    fail ("the module is lost");
  dwfl_end (dwfl);
  return 0;
}

int
main (int argc, char **argv)
{
  elf_version (EV_CURRENT);
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp (mode, "version") == 0 && argc == 2)
    return puts (dwfl_version (NULL)) < 0;
  if (strcmp (mode, "self") == 0 && argc == 3)
    return self (argv[2]);
  if (strcmp (mode, "unwind") == 0 && argc == 3)
    return unwind (argv[2]);
  if (strcmp (mode, "rebuilt") == 0 && argc == 5)
    return rebuilt (argv[2], argv[3], argv[4]);
  if (strcmp (mode, "fd") == 0 && argc == 4)
    return one_fd (argv[2], atoi (argv[3]));
  if (strcmp (mode, "rebuilds") == 0 && argc == 4)
    return rebuilds (argv[2], atoi (argv[3]));
  if (strcmp (mode, "elf") == 0 && argc == 5)
    return shared_elf (argv[2], atoi (argv[3]), strtoull (argv[4], NULL, 16));
  if (strcmp (mode, "bad") == 0 && argc == 4)
    return bad (argv[2], argv[3]);
  fprintf (stderr, "usage: see the head of %s\n", __FILE__);
  return 2;
}
