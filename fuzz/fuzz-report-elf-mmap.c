/* libFuzzer harness for dwfl_report_elf_mmap.

   Each input is a sequence of operations on a fresh Dwfl: reports of
   mmap pieces of a small set of files, dwfl_report_begin,
   dwfl_report_begin_add, dwfl_report_end, dwfl_report_elf,
   dwfl_report_module, dwfl_addrmodule and the module queries a
   profiler makes.  The files are the layout testfiles of the series
   (build/elfutils/tests/testfile-mmap-*.bz2), copies of some of them
   broken in ways a file on disk can be broken, made once by
   LLVMFuzzerInitialize, and "swap", a file that the input replaces,
   rewrites or removes between its reports, as a package upgrade does to
   a library that a process still maps.

   Next to libdwfl the harness keeps a model of what the contract in
   libdwfl.h says the modules must be.  For each module: its kind (made
   by dwfl_report_elf_mmap, dwfl_report_elf or dwfl_report_module); its
   state (live, to be removed by the cycle's dwfl_report_end, replaced);
   the address ranges its pieces cover and their hull; the load biases
   that agree with all its pieces, and those of them it can have now;
   the file its pieces were of, by name and identity; and whether its
   ELF was wanted yet.  After every operation it checks libdwfl against
   the model and calls abort () on the first difference, printing which
   rule was broken:

   - every module of dwfl_getmodules is one the model has, with its
     name, userdata and hull; a new module only when no module of the
     file (name and identity) agrees with the piece, a grown one only
     when it does, a module of dwfl_report_elf included, also after
     dwfl_report_begin; the bias one the rule in libdwfl.h chooses (bias
     0 for ET_EXEC);
   - the ranges of the live modules do not overlap; a piece replaces
     every live module of any kind whose ranges it meets, and not one in
     whose hole it lies; REMOVED gets those and the modules the cycle
     did not report again, and nothing else;
   - a PROT_NONE piece returns the module of its file that it lies in,
     or fails; a PROT -1 piece that lies in a module of its file and does
     not agree with it returns that module and changes nothing;
   - a failed call changes no module and sets the error libdwfl.h names
     for what is wrong: the arguments, or the file (missing, not a
     regular file, not ELF, program headers cut or outside the file,
     ET_REL or ET_CORE, a segment past its end); a piece a module agrees
     with does not fail;
   - FD: the caller's descriptor is open after every call, success or
     failure, at the offset it had, and may serve every piece of its
     file; a call adds a descriptor if it made a module from FD and none
     otherwise: a module holds no file until its ELF is wanted, and
     dwfl_module_info names no main file until then;
   - a module's ELF, when wanted, is the file named now or, for a module
     made from FD, the one FD was open on, even if it was removed since;
     a file whose PT_LOADs are not those mapped fails with "ELF file is
     not the one that was mapped", a separate debug file with "ELF file
     is not a loadable object", and such a module gives no symbol, of
     that file or another;
   - the same piece reported twice changes nothing;
   - dwfl_addrmodule returns the live module whose ranges hold the
     address, or none (in a hole), also between reports;
   - relocation, symbols, source lines, CFI and build ID of a module
     are those of the whole file reported by dwfl_report_elf at the
     module's bias;
   - no descriptor is left open by dwfl_end (and LeakSanitizer, with
     libFuzzer's -detect_leaks, finds no memory left).

   An input starts by wanting the ELF of every module after each
   operation, so that a bias is checked as soon as it is chosen; an
   operation turns that off ("lazy"), so that modules stay without
   their files, as a profiler's do, until the input asks for them.

   FUZZ_TESTFILES overrides the directory of the testfiles.  FUZZ_TRACE
   set prints each operation, to turn a crashing input into a plain
   sequence of calls.  FUZZ_KNOWN_BUGS, a list of names, turns off the
   checks of bugs reported and not fixed yet (known-bugs/README.md), so
   that a long run can look for others.  */

#define _GNU_SOURCE 1
#include <bzlib.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libdwfl.h>
#include <sanitizer/common_interface_defs.h>

#ifndef TESTFILES_DIR
# define TESTFILES_DIR "build/elfutils/tests"
#endif

#define MAX_FILES 256
#define MAX_PIECES 32
#define MAX_MODULES 512
#define MAX_OPS 96
#define MAX_LOADS 64
#define MAX_RANGES (MAX_OPS + 1)

/* The messages of the errors libdwfl.h names.  */
#define E_INVALID "Invalid argument"
#define E_MISSING "No such file or directory"
#define E_BADELF "not a valid ELF file"
#define E_NO_PHDR "No ELF program headers"
#define E_NOT_LOADABLE "ELF file is not a loadable object"
#define E_TRUNCATED "image truncated"
#define E_WRONG_MAPPED "ELF file is not the one that was mapped"

/* A PT_LOAD segment with bytes in the file.  */
struct load
{
  uint64_t offset;
  uint64_t filesz;
  uint64_t vaddr;
  uint32_t flags;
};

/* An mmap piece as a profiler sees it.  */
struct piece
{
  uint64_t start;
  uint64_t len;
  uint64_t pgoff;
  int prot;
};

/* What dwfl_report_elf_mmap reads of a file when a piece is reported:
   its ELF header and program headers, nothing more.  */
struct view
{
  /* Whether a piece of it can be reported; if not, the message of the
     error libdwfl.h names for what is wrong, or NULL if it names
     none.  */
  bool ok;
  const char *error;
  GElf_Half e_type;
  size_t nloads;
  struct load *loads;
  uint64_t relro_start, relro_end;
  /* Whether section header 0 claims more program headers than the
     file can hold, and more than e_phnum can say.  */
  bool phnum_past_eof;
};

/* What libelf makes of a file, as a module opens it when its ELF is
   wanted.  */
struct elf_view
{
  bool ok;
  GElf_Half e_type;
  size_t nloads;
  struct load *loads;
  /* Whether it has allocated sections with contents, as a loadable file
     has and a separate debug file has not.  */
  bool contents;
};

/* A file the inputs can report pieces of.  */
struct file
{
  char *path;
  char *label;
  struct view view;
  struct elf_view elf;

  /* The real testfile whose recorded pieces fit this one.  */
  int origin;

  /* Whether its bytes can be written to the swap file: a regular file
     of a reasonable size.  */
  bool can_copy;

  /* Whether this is the swap file, whose bytes change: its views are
     those of the file it holds a copy of.  */
  bool swap;
};

/* The pieces recorded for a real testfile (its .pieces file).  */
struct recording
{
  size_t npieces;
  struct piece pieces[MAX_PIECES];
};

static struct file files[MAX_FILES];
static size_t nfiles;
static size_t nreal;
static int swap_file;
static int swap_base;
static struct recording recordings[MAX_FILES];
static char *workdir;
static const char *known_bugs;
static bool trace;

/* No separate debuginfo: the answers must not depend on what the
   machine has installed.  */
static int
no_debuginfo (Dwfl_Module *mod __attribute__ ((unused)),
	      void **userdata __attribute__ ((unused)),
	      const char *modname __attribute__ ((unused)),
	      Dwarf_Addr base __attribute__ ((unused)),
	      const char *file_name __attribute__ ((unused)),
	      const char *debuglink_file __attribute__ ((unused)),
	      GElf_Word debuglink_crc __attribute__ ((unused)),
	      char **debuginfo_file_name __attribute__ ((unused)))
{
  return -1;
}

static const Dwfl_Callbacks dwfl_callbacks =
  {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = no_debuginfo,
  };

static int
remove_entry (const char *path, const struct stat *st __attribute__ ((unused)),
	      int flag __attribute__ ((unused)),
	      struct FTW *ftw __attribute__ ((unused)))
{
  remove (path);
  return 0;
}

static void
remove_workdir (void)
{
  if (workdir != NULL)
    nftw (workdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether FUZZ_KNOWN_BUGS names NAME.  */
static bool
known_bug (const char *name)
{
  if (known_bugs == NULL)
    return false;
  size_t len = strlen (name);
  for (const char *p = known_bugs; (p = strstr (p, name)) != NULL; p += len)
    if ((p == known_bugs || strchr (" ,", p[-1]) != NULL)
	&& strchr (" ,", p[len]) != NULL)
      return true;
  return false;
}

static void __attribute__ ((noreturn, format (printf, 1, 2)))
fail (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fprintf (stderr, "fuzz-report-elf-mmap: invariant broken: ");
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
  remove_workdir ();
  abort ();
}

static void __attribute__ ((noreturn, format (printf, 1, 2)))
die (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fprintf (stderr, "fuzz-report-elf-mmap: ");
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
  remove_workdir ();
  exit (1);
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

/* Making the files.  */

static void
write_file (const char *path, const void *data, size_t size)
{
  FILE *f = fopen (path, "wb");
  if (f == NULL || fwrite (data, 1, size, f) != size || fclose (f) != 0)
    die ("cannot write %s: %m", path);
}

static void *
bunzip (const char *path, size_t *sizep)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    die ("cannot open %s: %m", path);
  int err;
  BZFILE *bz = BZ2_bzReadOpen (&err, f, 0, 0, NULL, 0);
  if (err != BZ_OK)
    die ("%s: not bzip2", path);
  size_t size = 0, alloc = 1 << 16;
  char *buf = malloc (alloc);
  while (buf != NULL)
    {
      if (size == alloc)
	buf = realloc (buf, alloc *= 2);
      if (buf == NULL)
	break;
      int n = BZ2_bzRead (&err, bz, buf + size, alloc - size);
      if (err != BZ_OK && err != BZ_STREAM_END)
	die ("%s: bad bzip2 data", path);
      size += n;
      if (err == BZ_STREAM_END)
	break;
    }
  if (buf == NULL)
    die ("out of memory");
  BZ2_bzReadClose (&err, bz);
  fclose (f);
  *sizep = size;
  return buf;
}

static struct file *
add_file (const char *name, int origin)
{
  if (nfiles == MAX_FILES)
    die ("too many files");
  struct file *f = &files[nfiles++];
  f->path = xasprintf ("%s/%s", workdir, name);
  f->label = strdup (name);
  f->origin = origin;
  return f;
}

/* Read the pieces recorded for a real testfile.  */
static void
read_recording (struct recording *r, const char *path)
{
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return;
  char line[256];
  while (fgets (line, sizeof line, f) != NULL && r->npieces < MAX_PIECES)
    {
      char kind[16], perms[8];
      uint64_t start, end, pgoff;
      if (sscanf (line, "%15s %" SCNx64 "-%" SCNx64 " %7s %" SCNx64,
		  kind, &start, &end, perms, &pgoff) != 5)
	continue;
      int prot = ((perms[0] == 'r' ? PROT_READ : 0)
		  | (perms[1] == 'w' ? PROT_WRITE : 0)
		  | (perms[2] == 'x' ? PROT_EXEC : 0));
      r->pieces[r->npieces++] = (struct piece)
	{ start, end - start, pgoff, prot };
    }
  fclose (f);
}
/* The ELF64 little-endian file DATA of SIZE bytes, as structs.  */
struct elf64
{
  unsigned char *data;
  size_t size;
  Elf64_Ehdr *ehdr;
  Elf64_Phdr *phdr;
  Elf64_Shdr *shdr;
};

static bool
elf64_view (struct elf64 *e, unsigned char *data, size_t size)
{
  e->data = data;
  e->size = size;
  e->ehdr = (Elf64_Ehdr *) data;
  if (size < sizeof *e->ehdr || e->ehdr->e_ident[EI_CLASS] != ELFCLASS64
      || e->ehdr->e_ident[EI_DATA] != ELFDATA2LSB
      || e->ehdr->e_phoff + e->ehdr->e_phnum * sizeof (Elf64_Phdr) > size
      || e->ehdr->e_shoff + e->ehdr->e_shnum * sizeof (Elf64_Shdr) > size)
    return false;
  e->phdr = (Elf64_Phdr *) (data + e->ehdr->e_phoff);
  e->shdr = (Elf64_Shdr *) (data + e->ehdr->e_shoff);
  return true;
}

static Elf64_Phdr *
nth_phdr (struct elf64 *e, Elf64_Word type, int n)
{
  for (int i = 0; i < e->ehdr->e_phnum; ++i)
    if (e->phdr[i].p_type == type && n-- == 0)
      return &e->phdr[i];
  return NULL;
}

/* One way to break a file: change the copy E, or return a length to
   truncate it to.  */
struct mutation
{
  const char *name;
  size_t (*apply) (struct elf64 *e);
};

#define MUTATION(name, body)						\
  static size_t								\
  mutate_##name (struct elf64 *e)					\
  {									\
    body;								\
    return e->size;							\
  }

MUTATION (phoff_huge, e->ehdr->e_phoff = 0xffffffffffffff00)
MUTATION (phoff_odd, e->ehdr->e_phoff = 3)
MUTATION (phoff_eof, e->ehdr->e_phoff = e->size - 10)
MUTATION (phnum_0, e->ehdr->e_phnum = 0)
MUTATION (phnum_big, e->ehdr->e_phnum = 0xfff0)
MUTATION (phnum_xnum, e->ehdr->e_phnum = PN_XNUM;
	  if (e->ehdr->e_shnum > 0) e->shdr[0].sh_info = 0x7fffffff)
MUTATION (phnum_xnum_ok, int n = e->ehdr->e_phnum;
	  e->ehdr->e_phnum = PN_XNUM;
	  if (e->ehdr->e_shnum > 0) e->shdr[0].sh_info = n)
MUTATION (load_offset_eof, nth_phdr (e, PT_LOAD, 1)->p_offset = e->size + 0x1000)
MUTATION (load_filesz_huge,
	  nth_phdr (e, PT_LOAD, 1)->p_filesz = 0xffffffffffff0000)
MUTATION (load_offset_wrap, Elf64_Phdr *p = nth_phdr (e, PT_LOAD, 1);
	  p->p_offset = 0xfffffffffffff000; p->p_filesz = 0x2000)
MUTATION (load_vaddr_huge,
	  nth_phdr (e, PT_LOAD, 1)->p_vaddr = 0xfffffffffffff000)
MUTATION (load_vaddr_down, nth_phdr (e, PT_LOAD, 2)->p_vaddr = 0)
MUTATION (load_align_odd,
	  for (int i = 0; nth_phdr (e, PT_LOAD, i) != NULL; ++i)
	    nth_phdr (e, PT_LOAD, i)->p_align = 3)
MUTATION (loads_empty,
	  for (int i = 0; nth_phdr (e, PT_LOAD, i) != NULL; ++i)
	    nth_phdr (e, PT_LOAD, i)->p_filesz = 0)
MUTATION (load_dup, *nth_phdr (e, PT_LOAD, 2) = *nth_phdr (e, PT_LOAD, 1))
MUTATION (load_all_exec,
	  for (int i = 0; nth_phdr (e, PT_LOAD, i) != NULL; ++i)
	    nth_phdr (e, PT_LOAD, i)->p_flags |= PF_X | PF_W)
MUTATION (load_none_exec,
	  for (int i = 0; nth_phdr (e, PT_LOAD, i) != NULL; ++i)
	    nth_phdr (e, PT_LOAD, i)->p_flags &= ~PF_X)
MUTATION (load_reversed, Elf64_Phdr t = *nth_phdr (e, PT_LOAD, 0);
	  *nth_phdr (e, PT_LOAD, 0) = *nth_phdr (e, PT_LOAD, 1);
	  *nth_phdr (e, PT_LOAD, 1) = t)
MUTATION (relro_wrap, Elf64_Phdr *p = nth_phdr (e, PT_GNU_RELRO, 0);
	  if (p != NULL) p->p_memsz = 0xfffffffffffff000)
MUTATION (relro_whole, Elf64_Phdr *p = nth_phdr (e, PT_GNU_RELRO, 0);
	  if (p != NULL) { p->p_vaddr = 0; p->p_memsz = 0x10000000; })
MUTATION (class_32, e->ehdr->e_ident[EI_CLASS] = ELFCLASS32)
MUTATION (class_junk, e->ehdr->e_ident[EI_CLASS] = 0x47)
MUTATION (data_msb, e->ehdr->e_ident[EI_DATA] = ELFDATA2MSB)
MUTATION (data_junk, e->ehdr->e_ident[EI_DATA] = 0x47)
MUTATION (type_rel, e->ehdr->e_type = ET_REL)
MUTATION (type_core, e->ehdr->e_type = ET_CORE)
MUTATION (type_junk, e->ehdr->e_type = 0x1234)
MUTATION (machine_junk, e->ehdr->e_machine = 0x4747)
MUTATION (shoff_huge, e->ehdr->e_shoff = 0xffffffffffffff00)
/* What eu-strip -f leaves: the program headers of the file, but no
   allocated section with contents.  */
MUTATION (debug_only,
	  for (int i = 0; i < e->ehdr->e_shnum; ++i)
	    if ((e->shdr[i].sh_flags & SHF_ALLOC)
		&& e->shdr[i].sh_type != SHT_NOTE)
	      e->shdr[i].sh_type = SHT_NOBITS)

static size_t
load_end (struct elf64 *e, bool last)
{
  size_t end = 0;
  for (int i = 0; nth_phdr (e, PT_LOAD, i) != NULL; ++i)
    {
      Elf64_Phdr *p = nth_phdr (e, PT_LOAD, i);
      if (p->p_filesz > 0 && (last || end == 0))
	end = p->p_offset + p->p_filesz;
    }
  return end;
}

MUTATION (trunc_4, return 4)
MUTATION (trunc_ehdr, return sizeof (Elf64_Ehdr) - 1)
MUTATION (trunc_phdrs, return e->ehdr->e_phoff + 2 * sizeof (Elf64_Phdr) + 7)
MUTATION (trunc_first_load, return load_end (e, false) / 2)
MUTATION (trunc_last_load, return load_end (e, true) - 1)
MUTATION (trunc_loads_end, return load_end (e, true))
MUTATION (trunc_shdrs, return e->size - 1)

static const struct mutation mutations[] =
  {
#define M(name) { #name, mutate_##name }
    M (phoff_huge), M (phoff_odd), M (phoff_eof), M (phnum_0),
    M (phnum_big), M (phnum_xnum), M (phnum_xnum_ok),
    M (load_offset_eof), M (load_filesz_huge), M (load_offset_wrap),
    M (load_vaddr_huge), M (load_vaddr_down), M (load_align_odd),
    M (loads_empty), M (load_dup), M (load_all_exec), M (load_none_exec),
    M (load_reversed), M (relro_wrap), M (relro_whole), M (class_32),
    M (class_junk), M (data_msb), M (data_junk), M (type_rel),
    M (type_core), M (type_junk), M (machine_junk), M (shoff_huge),
    M (debug_only), M (trunc_4), M (trunc_ehdr), M (trunc_phdrs),
    M (trunc_first_load), M (trunc_last_load), M (trunc_loads_end),
    M (trunc_shdrs),
#undef M
  };

/* The testfiles the broken copies are made from: tiny lld (segments
   sharing page 0), bfd, gold with two executable segments in a page,
   and an executable.  */
static const char *const mutation_bases[] =
  {
    "testfile-mmap-lld-tiny", "testfile-mmap-pie-bfd",
    "testfile-mmap-gold-unlikely", "testfile-mmap-nopie-lld",
  };

/* Whether ELF has an allocated section with contents, as a loadable
   file has and a separate debug file has not.  Without section headers
   there is nothing to tell by.  */
static bool
has_segment_contents (Elf *elf)
{
  size_t shnum;
  if (elf_getshdrnum (elf, &shnum) != 0 || shnum == 0)
    return true;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr shdr_mem, *shdr = gelf_getshdr (scn, &shdr_mem);
      if (shdr != NULL && (shdr->sh_flags & SHF_ALLOC)
	  && shdr->sh_type != SHT_NOBITS && shdr->sh_type != SHT_NOTE)
	return true;
    }
  return false;
}

/* What a report reads of a file.  */

static unsigned char *
read_whole (const char *path, size_t *sizep)
{
  int fd = open (path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    die ("cannot read %s: %m", path);
  unsigned char *data = malloc (st.st_size + 1);
  if (data == NULL)
    die ("out of memory");
  size_t size = 0;
  while (size < (size_t) st.st_size)
    {
      ssize_t n = read (fd, data + size, st.st_size - size);
      if (n <= 0)
	die ("cannot read %s: %m", path);
      size += n;
    }
  close (fd);
  *sizep = size;
  return data;
}

static uint64_t
get (const unsigned char *p, size_t size, bool msb)
{
  uint64_t v = 0;
  for (size_t i = 0; i < size; ++i)
    v |= (uint64_t) p[msb ? size - 1 - i : i] << (8 * i);
  return v;
}

/* Read the ELF header and program headers of DATA, SIZE bytes, into V,
   as libdwfl.h says a report reads them, and decide what it must say of
   them.  This reads the bytes itself rather than through libelf, in
   either class and byte order, so that the broken copies are judged
   apart from the code under test.  The checks follow the order in
   which a reader meets the fields; libdwfl.h names no order for a file
   with several faults.  */
static void
read_view (struct view *v, const unsigned char *d, size_t size)
{
  memset (v, 0, sizeof *v);
  v->error = E_BADELF;
  if (size < EI_NIDENT || memcmp (d, ELFMAG, SELFMAG) != 0)
    return;
  bool is64 = d[EI_CLASS] == ELFCLASS64;
  bool msb = d[EI_DATA] == ELFDATA2MSB;
  if ((d[EI_CLASS] != ELFCLASS32 && ! is64)
      || (d[EI_DATA] != ELFDATA2LSB && ! msb)
      || size < (is64 ? sizeof (Elf64_Ehdr) : sizeof (Elf32_Ehdr)))
    return;

  /* A field at offset OFF32 or OFF64 that is 4 or 8 bytes wide.  */
#define WORD(p, off32, off64) \
  get ((p) + (is64 ? (off64) : (off32)), is64 ? 8 : 4, msb)
#define HALF(p, off32, off64) get ((p) + (is64 ? (off64) : (off32)), 2, msb)
  v->e_type = HALF (d, 16, 16);
  if (v->e_type != ET_DYN && v->e_type != ET_EXEC)
    {
      v->error = (v->e_type == ET_REL || v->e_type == ET_CORE
		  ? E_NOT_LOADABLE : NULL);
      return;
    }

  v->error = E_NO_PHDR;
  uint64_t phoff = WORD (d, 28, 32);
  uint64_t shoff = WORD (d, 32, 40);
  size_t phentsize = HALF (d, 42, 54);
  size_t phnum = HALF (d, 44, 56);
  size_t phsize = is64 ? sizeof (Elf64_Phdr) : sizeof (Elf32_Phdr);
  size_t shsize = is64 ? sizeof (Elf64_Shdr) : sizeof (Elf32_Shdr);
  if (phnum == PN_XNUM)
    {
      /* The count is section header 0's sh_info.  */
      if (shoff > size || size - shoff < shsize)
	return;
      phnum = get (d + shoff + (is64 ? 44 : 28), 4, msb);
    }
  v->phnum_past_eof = phnum > size / phsize && phnum > 0xffff;
  if (phentsize != phsize || phoff > size || (size - phoff) / phsize < phnum)
    return;

  v->loads = calloc (phnum + 1, sizeof v->loads[0]);
  if (v->loads == NULL)
    die ("out of memory");
  for (size_t i = 0; i < phnum; ++i)
    {
      const unsigned char *ph = d + phoff + i * phsize;
      uint32_t type = get (ph, 4, msb);
      uint64_t offset = WORD (ph, 4, 8);
      uint64_t vaddr = WORD (ph, 8, 16);
      uint64_t filesz = WORD (ph, 16, 32);
      uint64_t memsz = WORD (ph, 20, 40);
      uint32_t flags = get (ph + (is64 ? 4 : 24), 4, msb);
      if (type == PT_GNU_RELRO)
	{
	  v->relro_start = vaddr;
	  v->relro_end = vaddr + memsz;
	}
      if (type != PT_LOAD || filesz == 0)
	continue;
      if (offset > size || filesz > size - offset)
	{
	  v->error = E_TRUNCATED;
	  v->nloads = 0;
	  return;
	}
      v->loads[v->nloads++] = (struct load) { offset, filesz, vaddr, flags };
    }
#undef WORD
#undef HALF

  /* No segment can have been mapped: libdwfl.h says DWFL_E_NO_MATCH,
     but a file without program headers could as well be said to have
     none to read.  */
  v->error = NULL;
  v->ok = v->nloads > 0;
}

/* What libelf makes of PATH: as __libdwfl_getelf opens a module's file,
   and as the series compares it with the headers read at report
   time.  */
static void
read_elf_view (struct elf_view *e, const char *path)
{
  memset (e, 0, sizeof *e);
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    return;
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  GElf_Ehdr ehdr_mem;
  GElf_Ehdr *ehdr = elf == NULL ? NULL : gelf_getehdr (elf, &ehdr_mem);
  size_t phnum;
  if (ehdr != NULL && elf_kind (elf) == ELF_K_ELF
      && elf_getphdrnum (elf, &phnum) == 0)
    {
      e->ok = true;
      e->e_type = ehdr->e_type;
      e->loads = calloc (phnum + 1, sizeof e->loads[0]);
      if (e->loads == NULL)
	die ("out of memory");
      for (size_t i = 0; i < phnum && e->ok; ++i)
	{
	  GElf_Phdr phdr_mem, *phdr = gelf_getphdr (elf, i, &phdr_mem);
	  if (phdr == NULL)
	    e->ok = false;
	  else if (phdr->p_type == PT_LOAD && phdr->p_filesz > 0)
	    e->loads[e->nloads++] = (struct load)
	      { phdr->p_offset, phdr->p_filesz, phdr->p_vaddr, phdr->p_flags };
	}
      e->contents = has_segment_contents (elf);
    }
  elf_end (elf);
  close (fd);
}

/* Learn what the contract says about F.  */
static void
examine_file (struct file *f)
{
  struct stat st, lst;
  memset (&f->view, 0, sizeof f->view);
  memset (&f->elf, 0, sizeof f->elf);
  if (stat (f->path, &st) != 0)
    {
      f->view.error = E_MISSING;
      return;
    }
  if (! S_ISREG (st.st_mode))
    {
      /* Not a regular file: a directory here.  */
      f->view.error = E_BADELF;
      return;
    }
  size_t size;
  unsigned char *data = read_whole (f->path, &size);
  read_view (&f->view, data, size);
  free (data);
  read_elf_view (&f->elf, f->path);
  /* The swap file gets copies of small regular files, not of a symlink,
     which would share the identity of its target.  */
  f->can_copy = (lstat (f->path, &lst) == 0 && S_ISREG (lst.st_mode)
		 && st.st_size <= 256 * 1024);
}

/* The swap file.  */

/* Modification times of the swap file's versions: each one its own,
   since the identity libdwfl.h speaks of (device, inode, size,
   modification time) is only as fine as the file system's clock, and
   the inputs run faster than it ticks.  */
static time_t swap_stamp = 1000000000;

/* Make the swap file a copy of file SRC: a new file put in its place
   (RENAME_OVER), or the same file written over.  */
static void
write_swap (int src, bool rename_over)
{
  size_t size;
  unsigned char *data = read_whole (files[src].path, &size);
  const char *path = files[swap_file].path;
  char *tmp = xasprintf ("%s.new", path);
  const char *to = rename_over ? tmp : path;
  int fd = open (to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write (fd, data, size) != (ssize_t) size)
    die ("cannot write %s: %m", to);
  ++swap_stamp;
  struct timespec ts[2] = { { swap_stamp, 0 }, { swap_stamp, 0 } };
  if (futimens (fd, ts) != 0 || close (fd) != 0)
    die ("cannot write %s: %m", to);
  if (rename_over && rename (tmp, path) != 0)
    die ("cannot rename %s: %m", tmp);
  free (tmp);
  free (data);
}

/* Give the swap file a new modification time, as touch does.  */
static void
touch_swap (void)
{
  ++swap_stamp;
  struct timespec ts[2] = { { swap_stamp, 0 }, { swap_stamp, 0 } };
  if (utimensat (AT_FDCWD, files[swap_file].path, ts, 0) != 0)
    die ("cannot touch %s: %m", files[swap_file].path);
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
LLVMFuzzerInitialize (int *argc __attribute__ ((unused)),
		      char ***argv __attribute__ ((unused)))
{
  elf_version (EV_CURRENT);
  trace = getenv ("FUZZ_TRACE") != NULL;
  known_bugs = getenv ("FUZZ_KNOWN_BUGS");

  const char *tmp = getenv ("TMPDIR");
  workdir = xasprintf ("%s/fuzz-report-elf-mmap.XXXXXX", tmp ?: "/tmp");
  if (mkdtemp (workdir) == NULL)
    die ("mkdtemp %s: %m", workdir);
  atexit (remove_workdir);
  __sanitizer_set_death_callback (remove_workdir);

  const char *dir = getenv ("FUZZ_TESTFILES") ?: TESTFILES_DIR;
  DIR *d = opendir (dir);
  if (d == NULL)
    die ("cannot open the testfiles in %s: %m (set FUZZ_TESTFILES)", dir);
  char *names[MAX_FILES];
  size_t nnames = 0;
  struct dirent *de;
  while ((de = readdir (d)) != NULL && nnames < MAX_FILES)
    {
      size_t len = strlen (de->d_name);
      if (strncmp (de->d_name, "testfile-mmap-", 14) == 0
	  && len > 4 && strcmp (de->d_name + len - 4, ".bz2") == 0)
	names[nnames++] = strndup (de->d_name, len - 4);
    }
  closedir (d);
  if (nnames == 0)
    die ("no testfile-mmap-*.bz2 in %s", dir);
  qsort (names, nnames, sizeof names[0], compare_names);

  /* The real testfiles, and the pieces recorded for them.  */
  unsigned char *base_data[sizeof mutation_bases / sizeof mutation_bases[0]];
  size_t base_size[sizeof mutation_bases / sizeof mutation_bases[0]];
  int base_index[sizeof mutation_bases / sizeof mutation_bases[0]];
  memset (base_data, 0, sizeof base_data);
  for (size_t i = 0; i < nnames; ++i)
    {
      char *bz = xasprintf ("%s/%s.bz2", dir, names[i]);
      size_t size;
      unsigned char *data = bunzip (bz, &size);
      free (bz);
      struct file *f = add_file (names[i], nfiles);
      write_file (f->path, data, size);
      char *rec = xasprintf ("%s/%s.pieces", dir, names[i]);
      read_recording (&recordings[f->origin], rec);
      free (rec);
      for (size_t b = 0; b < sizeof mutation_bases / sizeof mutation_bases[0];
	   ++b)
	if (strcmp (names[i], mutation_bases[b]) == 0)
	  {
	    base_data[b] = data;
	    base_size[b] = size;
	    base_index[b] = f->origin;
	    data = NULL;
	  }
      free (data);
      free (names[i]);
    }

  /* The same file under a second name, as a copy and as a symlink:
     modules are per name.  */
  {
    struct file *f = add_file ("copy-of-lld-tiny", base_index[0]);
    write_file (f->path, base_data[0], base_size[0]);
    f = add_file ("link-to-pie-bfd", base_index[1]);
    char *target = xasprintf ("%s/%s", workdir, mutation_bases[1]);
    if (symlink (target, f->path) != 0)
      die ("symlink %s: %m", f->path);
    free (target);
  }
  nreal = nfiles;

  for (size_t b = 0; b < sizeof mutation_bases / sizeof mutation_bases[0]; ++b)
    {
      if (base_data[b] == NULL)
	die ("no %s in %s", mutation_bases[b], dir);
      for (size_t m = 0; m < sizeof mutations / sizeof mutations[0]; ++m)
	{
	  unsigned char *copy = malloc (base_size[b]);
	  if (copy == NULL)
	    die ("out of memory");
	  memcpy (copy, base_data[b], base_size[b]);
	  struct elf64 e;
	  if (! elf64_view (&e, copy, base_size[b]))
	    die ("%s is not ELF64 LSB", mutation_bases[b]);
	  size_t size = mutations[m].apply (&e);
	  char *name = xasprintf ("%s.%s", mutation_bases[b] + 14,
				  mutations[m].name);
	  struct file *f = add_file (name, base_index[b]);
	  write_file (f->path, copy, size);
	  free (name);
	  free (copy);
	}
      free (base_data[b]);
    }

  {
    struct file *f = add_file ("not-elf", 0);
    write_file (f->path, "#!/bin/sh\necho not ELF\n", 23);
    f = add_file ("empty", 0);
    write_file (f->path, "", 0);
    f = add_file ("directory", 0);
    if (mkdir (f->path, 0700) != 0)
      die ("mkdir %s: %m", f->path);
    add_file ("missing", 0);
  }

  /* Last, so that the encoding of the other files stays as it was.  Its
     bytes are written for each input (LLVMFuzzerTestOneInput).  */
  swap_base = base_index[1];
  swap_file = nfiles;
  add_file ("swap", swap_base)->swap = true;

  for (size_t i = 0; i < nfiles; ++i)
    {
      struct file *f = &files[i];
      if (! f->swap)
	examine_file (f);
      if (f->view.nloads > MAX_LOADS || f->elf.nloads > MAX_LOADS)
	die ("%s has more segments than the model holds", f->label);
      if (trace)
	fprintf (stderr, "file %zu (byte %s%#zx): %s%s%s%s\n", i,
		 i < nreal ? "" : "0xc0 ", i < nreal ? i : i - nreal,
		 f->label, f->swap || f->view.ok ? "" : " (must fail: ",
		 f->swap || f->view.ok ? "" : f->view.error ?: "any error",
		 f->swap || f->view.ok ? "" : ")");
      if (i < nreal
	  && (! f->view.ok || ! f->elf.ok || ! f->elf.contents))
	die ("testfile %s is not usable", f->label);
    }
  return 0;
}

/* The model.  */

enum state
{
  LIVE,			/* Reported in this cycle, or before it with begin_add.  */
  STALE,		/* Reported before dwfl_report_begin, not since.  */
  REPLACED,		/* Replaced by another mapping.  */
};

static const char *const state_names[] = { "live", "stale", "replaced" };

enum kind
{
  K_MMAP,		/* Made by dwfl_report_elf_mmap, or grown by it.  */
  K_ELF,		/* Made by dwfl_report_elf, no piece grew it.  */
  K_MODULE,		/* Made by dwfl_report_module.  */
};

struct range
{
  uint64_t start, end;
};

struct mmod
{
  Dwfl_Module *mod;
  uintptr_t tag;		/* Its userdata, set when it was made.  */
  const char *name;
  enum kind kind;
  enum state state;

  /* The file it was reported for (-1 for K_MODULE) and, for K_MMAP,
     the generation of that file its pieces were of: with the name, the
     identity libdwfl.h speaks of.  SRC is the file whose bytes that
     was, and whose headers the pieces were read with.  */
  int file;
  int gen;
  int src;

  /* Whether it was made from the caller's FD, and if so the inode of
     the swap file that FD was open on (-1 for another file).  */
  bool from_fd;
  int inode;

  /* The address ranges its pieces cover, ascending and apart, and their
     hull.  */
  size_t nranges;
  struct range ranges[MAX_RANGES];
  uint64_t low, high;

  /* The biases that agree with all its pieces, and those of them it can
     have now; the one it has once its ELF is open.  */
  size_t nbiases;
  uint64_t biases[MAX_LOADS];
  size_t nposs;
  uint64_t poss[MAX_LOADS];
  uint64_t bias;

  GElf_Half e_type;		/* For K_ELF, of the file it has.  */

  /* Whether its ELF was wanted, whether it was found, and then the file
     whose bytes it is and the inode of the swap file it maps (or -1).  */
  bool opened;
  bool open_ok;
  int open_src;
  int elf_inode;

  bool seen_removed;
};

/* An inode the swap file's name was on: the file whose bytes it holds
   and its generation, which changes with its bytes or its
   modification time.  */
struct inode
{
  int src;
  int gen;
};

/* A descriptor the input passes for every piece of a file.  */
struct shared_fd
{
  int file;
  int fd;
  int inode;
  off_t offset;
};

#define MAX_INODES (MAX_OPS + 1)
#define MAX_SHARED 8

struct model
{
  Dwfl *dwfl;
  size_t nmods;
  struct mmod mods[MAX_MODULES];
  bool in_cycle;
  bool lazy;
  uintptr_t next_tag;
  int removed_calls;
  int removed_fail_at;

  /* The swap file's inodes; the one its name is on, -1 while it is
     removed.  */
  size_t ninodes;
  struct inode inodes[MAX_INODES];
  int swap_inode;
  int next_gen;

  size_t nshared;
  struct shared_fd shared[MAX_SHARED];

  /* Where a broken rule is reported from.  */
  int op;
};

struct cand
{
  uint64_t bias;
  const struct load *load;
};

/* The file a report of FILE reads, by name or from a descriptor open on
   swap inode INODE: its identity, and the file whose bytes it holds, -1
   if there is none.  */
struct ident
{
  int file;
  int gen;
  int content;
};

static struct ident
identify (const struct model *md, int file, bool by_fd, int inode)
{
  struct ident id = { file, 0, file };
  if (! files[file].swap)
    return id;
  if (! by_fd)
    inode = md->swap_inode;
  if (inode < 0)
    {
      id.gen = -1;
      id.content = -1;
      return id;
    }
  id.gen = md->inodes[inode].gen;
  id.content = md->inodes[inode].src;
  return id;
}

static const struct view missing_view = { .error = E_MISSING };

static const struct view *
content_view (int content)
{
  return content < 0 ? &missing_view : &files[content].view;
}

static bool
meets_relro (const struct view *v, const struct piece *p, uint64_t bias)
{
  return (v->relro_start < v->relro_end
	  && bias + v->relro_start < p->start + p->len
	  && p->start < bias + v->relro_end);
}

/* The contract's candidates for piece P of a file read as V: the
   segments whose file bytes meet P's, narrowed by a known PROT, each
   step only if one is left; for ET_EXEC only those at bias 0.  */
static size_t
candidates (const struct view *v, const struct piece *p, struct cand *out)
{
  size_t n = 0;
  for (size_t i = 0; i < v->nloads; ++i)
    {
      const struct load *l = &v->loads[i];
      if (l->offset < p->pgoff + p->len && p->pgoff < l->offset + l->filesz)
	out[n++] = (struct cand)
	  { p->start - p->pgoff + l->offset - l->vaddr, l };
    }

  for (int step = 0; step < 3; ++step)
    {
      if (step < 2 && p->prot == -1)
	continue;
      size_t kept = 0;
      struct cand keep[n + 1];
      for (size_t i = 0; i < n; ++i)
	{
	  const struct load *l = out[i].load;
	  bool ok;
	  if (step == 0)
	    ok = (((l->flags & PF_X) != 0) == ((p->prot & PROT_EXEC) != 0));
	  else if (step == 2)
	    ok = v->e_type != ET_EXEC || out[i].bias == 0;
	  else if (p->prot & PROT_WRITE)
	    ok = (l->flags & PF_W) != 0;
	  else
	    ok = ((l->flags & PF_W) == 0 || meets_relro (v, p, out[i].bias));
	  if (ok)
	    keep[kept++] = out[i];
	}
      /* PROT only narrows while something is left; an executable is
	 always at its own addresses.  */
      if (kept > 0 || step == 2)
	{
	  memcpy (out, keep, kept * sizeof keep[0]);
	  n = kept;
	}
    }
  return n;
}

static bool
has_bias (const struct mmod *m, uint64_t bias)
{
  for (size_t i = 0; i < m->nbiases; ++i)
    if (m->biases[i] == bias)
      return true;
  return false;
}

static bool
among (const struct cand *c, size_t n, uint64_t bias)
{
  for (size_t i = 0; i < n; ++i)
    if (c[i].bias == bias)
      return true;
  return false;
}

static uint64_t
lowest_bias (const struct mmod *m)
{
  uint64_t low = m->biases[0];
  for (size_t i = 1; i < m->nbiases; ++i)
    if (m->biases[i] < low)
      low = m->biases[i];
  return low;
}

/* Whether BIAS is one the contract allows M after a piece at PGOFF
   with candidates C: the one bias left; else the current one while it
   is left; else that of the segment the loader began mapping at the
   piece: the lowest p_offset at or after PGOFF, failing that one
   holding PGOFF, failing that the lowest bias left.  */
static bool
bias_allowed (const struct mmod *m, const struct cand *c, size_t n,
	      uint64_t pgoff, bool have_current, uint64_t current,
	      uint64_t bias)
{
  if (! has_bias (m, bias))
    return false;
  if (m->nbiases == 1)
    return true;
  if (have_current && has_bias (m, current))
    return bias == current;

  const struct load *first = NULL;
  for (size_t i = 0; i < n; ++i)
    if (has_bias (m, c[i].bias) && c[i].load->offset >= pgoff
	&& (first == NULL || c[i].load->offset < first->offset))
      first = c[i].load;
  if (first != NULL)
    {
      for (size_t i = 0; i < n; ++i)
	if (has_bias (m, c[i].bias) && c[i].load->offset == first->offset
	    && c[i].bias == bias)
	  return true;
      return false;
    }

  bool holding = false;
  for (size_t i = 0; i < n; ++i)
    if (has_bias (m, c[i].bias) && c[i].load->offset < pgoff
	&& pgoff - c[i].load->offset < c[i].load->filesz)
      {
	holding = true;
	if (c[i].bias == bias)
	  return true;
      }
  return ! holding && bias == lowest_bias (m);
}

/* Make M's possible biases those the contract allows after a piece at
   PGOFF with candidates C: for a module not NEW, from each bias it
   could have had.  While its ELF is not open, the harness cannot see
   which one libdwfl chose, so it keeps them all.  */
static void
update_poss (struct mmod *m, const struct cand *c, size_t n, uint64_t pgoff,
	     bool new)
{
  uint64_t poss[MAX_LOADS];
  size_t nposs = 0;
  for (size_t i = 0; i < m->nbiases; ++i)
    {
      bool ok = false;
      if (new)
	ok = bias_allowed (m, c, n, pgoff, false, 0, m->biases[i]);
      for (size_t j = 0; j < m->nposs && ! ok; ++j)
	ok = bias_allowed (m, c, n, pgoff, true, m->poss[j], m->biases[i]);
      if (ok)
	poss[nposs++] = m->biases[i];
    }
  if (nposs == 0)
    die ("the model allows module %s no bias", m->name);
  memcpy (m->poss, poss, nposs * sizeof poss[0]);
  m->nposs = nposs;
}

static bool
possible (const struct mmod *m, uint64_t bias)
{
  for (size_t i = 0; i < m->nposs; ++i)
    if (m->poss[i] == bias)
      return true;
  return false;
}

static struct mmod *
find_mod (struct model *md, Dwfl_Module *mod)
{
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].mod == mod)
      return &md->mods[i];
  return NULL;
}

static struct mmod *
new_mod (struct model *md, Dwfl_Module *mod, enum kind kind,
	 const char *name)
{
  if (md->nmods == MAX_MODULES)
    die ("too many modules");
  struct mmod *m = &md->mods[md->nmods++];
  memset (m, 0, sizeof *m);
  m->mod = mod;
  m->tag = ++md->next_tag;
  m->name = name;
  m->kind = kind;
  m->state = LIVE;
  m->file = m->src = m->open_src = -1;
  m->inode = m->elf_inode = -1;
  void **userdata;
  dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
  *userdata = (void *) m->tag;
  return m;
}

static bool
overlaps (uint64_t alow, uint64_t ahigh, uint64_t blow, uint64_t bhigh)
{
  return alow < bhigh && blow < ahigh;
}

/* The address ranges of a module.  */

static bool
ranges_meet (const struct mmod *m, uint64_t start, uint64_t end)
{
  for (size_t i = 0; i < m->nranges; ++i)
    if (overlaps (m->ranges[i].start, m->ranges[i].end, start, end))
      return true;
  return false;
}

static bool
ranges_hold (const struct mmod *m, uint64_t addr)
{
  return ranges_meet (m, addr, addr + 1);
}

static void
ranges_set (struct mmod *m, uint64_t start, uint64_t end)
{
  m->nranges = 1;
  m->ranges[0] = (struct range) { start, end };
  m->low = start;
  m->high = end;
}

/* Add [START, END) to M's ranges, joining those it meets or touches.  */
static void
ranges_add (struct mmod *m, uint64_t start, uint64_t end)
{
  struct range out[MAX_RANGES + 1];
  size_t n = 0, i = 0;
  for (; i < m->nranges && m->ranges[i].end < start; ++i)
    out[n++] = m->ranges[i];
  for (; i < m->nranges && m->ranges[i].start <= end; ++i)
    {
      start = start < m->ranges[i].start ? start : m->ranges[i].start;
      end = end > m->ranges[i].end ? end : m->ranges[i].end;
    }
  out[n++] = (struct range) { start, end };
  for (; i < m->nranges; ++i)
    out[n++] = m->ranges[i];
  if (n > MAX_RANGES)
    die ("too many ranges");
  memcpy (m->ranges, out, n * sizeof out[0]);
  m->nranges = n;
  m->low = m->ranges[0].start;
  m->high = m->ranges[n - 1].end;
}

/* What libdwfl shows of its modules, without wanting their ELF.  */

struct shown
{
  Dwfl_Module *mod;
  const char *name;
  uint64_t low, high;
  const char *mainfile;
  void *userdata;
};

struct snapshot
{
  size_t n;
  struct shown mods[MAX_MODULES + 1];
};

static int
snapshot_module (Dwfl_Module *mod, void **userdata,
		 const char *name, Dwarf_Addr low, void *arg)
{
  struct snapshot *s = arg;
  if (s->n == MAX_MODULES + 1)
    fail ("more modules than were reported");
  struct shown *m = &s->mods[s->n++];
  m->mod = mod;
  m->name = name;
  m->low = low;
  m->userdata = *userdata;
  dwfl_module_info (mod, NULL, NULL, &m->high, NULL, NULL, &m->mainfile,
		    NULL);
  return DWARF_CB_OK;
}

static void
take_snapshot (Dwfl *dwfl, struct snapshot *s)
{
  s->n = 0;
  if (dwfl_getmodules (dwfl, snapshot_module, s, 0) != 0)
    fail ("dwfl_getmodules failed: %s", dwfl_errmsg (-1));
}

static void
compare_snapshots (const struct snapshot *a, const struct snapshot *b,
		   const char *what)
{
  if (a->n != b->n)
    fail ("%s: %zu modules before, %zu after", what, a->n, b->n);
  for (size_t i = 0; i < a->n; ++i)
    if (a->mods[i].mod != b->mods[i].mod
	|| strcmp (a->mods[i].name, b->mods[i].name) != 0
	|| a->mods[i].low != b->mods[i].low
	|| a->mods[i].high != b->mods[i].high
	|| a->mods[i].userdata != b->mods[i].userdata
	|| (a->mods[i].mainfile == NULL) != (b->mods[i].mainfile == NULL))
      fail ("%s: module %zu was %s [%#" PRIx64 ", %#" PRIx64 ") file %s,"
	    " is %s [%#" PRIx64 ", %#" PRIx64 ") file %s",
	    what, i, a->mods[i].name, a->mods[i].low, a->mods[i].high,
	    a->mods[i].mainfile ?: "not open", b->mods[i].name,
	    b->mods[i].low, b->mods[i].high,
	    b->mods[i].mainfile ?: "not open");
}

/* Wanting a module's ELF.  */

/* The file whose bytes M's ELF comes from if it is wanted now: the file
   of its name, or for a module made from FD the one FD was open on,
   even if it was removed or replaced since.  -1 if there is none.  */
static int
open_content (const struct model *md, const struct mmod *m, int *inodep)
{
  *inodep = -1;
  if (! files[m->file].swap)
    return m->file;
  int inode = m->from_fd ? m->inode : md->swap_inode;
  if (inode < 0)
    return -1;
  *inodep = inode;
  return md->inodes[inode].src;
}

static bool
same_loads (const struct elf_view *e, const struct view *v)
{
  if (e->e_type != v->e_type || e->nloads != v->nloads)
    return false;
  for (size_t i = 0; i < e->nloads; ++i)
    if (e->loads[i].offset != v->loads[i].offset
	|| e->loads[i].filesz != v->loads[i].filesz
	|| e->loads[i].vaddr != v->loads[i].vaddr
	|| e->loads[i].flags != v->loads[i].flags)
      return false;
  return true;
}

/* What the ELF of a module whose pieces were of file SRC must be, if it
   is file C: NULL if it is SRC's ELF, else the error, "" for any.  The
   PT_LOADs with bytes must be those the pieces were read with, and a
   separate debug file, which has those, has not their bytes.  */
static const char *
open_error (int c, int src)
{
  if (c < 0 || ! files[c].elf.ok)
    return "";
  if (! same_loads (&files[c].elf, &files[src].view))
    return E_WRONG_MAPPED;
  if (! files[c].elf.contents)
    return E_NOT_LOADABLE;
  return NULL;
}

/* M has no ELF: it must answer nothing from another file, and still be
   what its pieces said.  */
static void
check_no_elf (struct model *md, struct mmod *m)
{
  const char *label = files[m->file].label;
  const char *name = dwfl_module_addrname (m->mod, m->low);
  if (name != NULL)
    fail ("op %d: module of %s without its ELF names %#" PRIx64 " %s",
	  md->op, label, m->low, name);
  if (dwfl_module_getsymtab (m->mod) > 0)
    fail ("op %d: module of %s without its ELF has a symbol table",
	  md->op, label);
  Dwarf_Addr dwbias;
  if (dwfl_module_getdwarf (m->mod, &dwbias) != NULL)
    fail ("op %d: module of %s without its ELF has DWARF", md->op, label);
  /* The file looked at, which was not the one mapped, must not change
     what the module is: an ET_EXEC found for an ET_DYN module at a bias
     fails an assertion there.  */
  if (! known_bug ("wrong-elf-type"))
    {
      int want = files[m->src].view.e_type == ET_DYN ? 1 : 0;
      int rel = dwfl_module_relocations (m->mod);
      if (rel != want)
	fail ("op %d: module of %s (%s) without its ELF has %d relocation"
	      " bases, not %d", md->op, label,
	      files[m->src].view.e_type == ET_DYN ? "ET_DYN" : "ET_EXEC",
	      rel, want);
    }
}

static void
check_bias (struct model *md, struct mmod *m, uint64_t bias)
{
  if (! possible (m, bias))
    {
      char allowed[MAX_LOADS * 20 + 1] = "";
      for (size_t i = 0; i < m->nposs && i < MAX_LOADS; ++i)
	sprintf (allowed + strlen (allowed), " %#" PRIx64, m->poss[i]);
      fail ("op %d: %s module %s of %s has bias %#" PRIx64 ", the contract"
	    " allows%s", md->op, state_names[m->state], m->name,
	    files[m->file].label, bias, allowed);
    }
  m->bias = bias;
  m->nposs = 1;
  m->poss[0] = bias;
}

/* Want M's ELF for the first time: it must be the file that was mapped,
   or fail.  */
static void
open_module (struct model *md, struct mmod *m)
{
  int inode;
  int c = open_content (md, m, &inode);
  const char *want = open_error (c, m->src);
  GElf_Addr bias = 0;
  (void) dwfl_errno ();
  Elf *elf = dwfl_module_getelf (m->mod, &bias);
  const char *msg = elf == NULL ? dwfl_errmsg (-1) : NULL;
  m->opened = true;
  if (trace)
    fprintf (stderr, "op %d: dwfl_module_getelf (%s of %s) = %s%s bias %#"
	     PRIx64 " (%s the bytes of %s)\n", md->op, m->name,
	     files[m->file].label, elf == NULL ? "NULL: " : "ELF",
	     msg ?: "", bias, m->from_fd ? "FD had" : "its name has",
	     c < 0 ? "nothing" : files[c].label);
  if (want == NULL)
    {
      if (elf == NULL)
	fail ("op %d: module %s of %s cannot have its ELF (%s), though %s"
	      " the file mapped", md->op, m->name, files[m->file].label,
	      msg, m->from_fd ? "FD was open on" : "its name still names");
      m->open_ok = true;
      m->open_src = c;
      m->elf_inode = inode;
      check_bias (md, m, bias);
      const char *mainfile;
      dwfl_module_info (m->mod, NULL, NULL, NULL, NULL, NULL, &mainfile,
			NULL);
      if (! m->from_fd
	  && (mainfile == NULL || strcmp (mainfile, files[m->file].path) != 0))
	fail ("op %d: module %s of %s has %s as its main file", md->op,
	      m->name, files[m->file].path, mainfile ?: "no file");
      return;
    }

  if (elf != NULL)
    fail ("op %d: module %s of %s has an ELF, but %s is %s, whose PT_LOADs"
	  " were not mapped", md->op, m->name, files[m->file].label,
	  m->from_fd ? "the file FD was open on" : "the file of its name",
	  c < 0 ? "gone" : files[c].label);
  if (*want != '\0' && strcmp (msg, want) != 0)
    fail ("op %d: module %s of %s, opening %s: \"%s\", not \"%s\"",
	  md->op, m->name, files[m->file].label,
	  c < 0 ? "nothing" : files[c].label, msg, want);
  check_no_elf (md, m);
}

/* See M's bias if its ELF is open, or in an eager input open it.  */
static void
observe (struct model *md, struct mmod *m)
{
  if (m->kind == K_MODULE || (! m->opened && md->lazy))
    return;
  if (! m->opened)
    {
      open_module (md, m);
      return;
    }
  if (! m->open_ok)
    return;
  GElf_Addr bias;
  if (dwfl_module_getelf (m->mod, &bias) == NULL)
    fail ("op %d: module %s of %s lost its ELF: %s", md->op, m->name,
	  files[m->file].label, dwfl_errmsg (-1));
  check_bias (md, m, bias);
}

/* The checks.  */

/* libdwfl's modules are the model's, with their names, userdata,
   ranges and biases.  */
static void
check_model (struct model *md)
{
  struct snapshot s;
  take_snapshot (md->dwfl, &s);
  if (s.n != md->nmods)
    fail ("op %d: libdwfl has %zu modules, the model %zu",
	  md->op, s.n, md->nmods);
  for (size_t i = 0; i < s.n; ++i)
    {
      struct mmod *m = find_mod (md, s.mods[i].mod);
      if (m == NULL)
	fail ("op %d: module %s [%#" PRIx64 ", %#" PRIx64
	      ") was never returned", md->op, s.mods[i].name,
	      s.mods[i].low, s.mods[i].high);
      const char *label = m->file < 0 ? "no file" : files[m->file].label;
      if (strcmp (s.mods[i].name, m->name) != 0
	  || s.mods[i].userdata != (void *) m->tag)
	fail ("op %d: module %s of %s is called %s, with userdata %p, not %p",
	      md->op, m->name, label, s.mods[i].name, s.mods[i].userdata,
	      (void *) m->tag);
      if (s.mods[i].low != m->low || s.mods[i].high != m->high)
	fail ("op %d: %s module %s of %s is [%#" PRIx64 ", %#" PRIx64
	      "), the hull of its pieces is [%#" PRIx64 ", %#" PRIx64 ")",
	      md->op, state_names[m->state], s.mods[i].name, label,
	      s.mods[i].low, s.mods[i].high, m->low, m->high);
      if (! m->opened && s.mods[i].mainfile != NULL)
	fail ("op %d: module %s of %s names its main file %s before its ELF"
	      " was wanted", md->op, m->name, label, s.mods[i].mainfile);
      observe (md, m);
    }
}

/* No two live modules have an address in common: each mapping replaced
   what it hid.  */
static void
check_no_overlap (struct model *md)
{
  for (size_t i = 0; i < md->nmods; ++i)
    for (size_t j = i + 1; j < md->nmods; ++j)
      {
	const struct mmod *a = &md->mods[i], *b = &md->mods[j];
	if (a->state != LIVE || b->state != LIVE)
	  continue;
	for (size_t k = 0; k < b->nranges; ++k)
	  if (ranges_meet (a, b->ranges[k].start, b->ranges[k].end))
	    fail ("op %d: modules %s [%#" PRIx64 ", %#" PRIx64 ") and %s [%#"
		  PRIx64 ", %#" PRIx64 ") both have %#" PRIx64, md->op,
		  a->name, a->low, a->high, b->name, b->low, b->high,
		  b->ranges[k].start);
      }
}

/* dwfl_addrmodule finds the live module whose ranges hold ADDR, or
   none: not a module in whose hole it is.  An address where a module
   ends and no other begins is that module's, as libdwfl always had
   it.  */
static void
check_lookup (struct model *md, uint64_t addr)
{
  const struct mmod *want = NULL;
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].state == LIVE && ranges_hold (&md->mods[i], addr))
      want = &md->mods[i];
  if (want == NULL && addr > 0)
    for (size_t i = 0; i < md->nmods; ++i)
      if (md->mods[i].state == LIVE && addr == md->mods[i].high
	  && ranges_hold (&md->mods[i], addr - 1))
	want = &md->mods[i];

  Dwfl_Module *got = dwfl_addrmodule (md->dwfl, addr);
  if (want != NULL && got == want->mod)
    return;
  if (got == NULL && want == NULL)
    return;
  const struct mmod *g = got == NULL ? NULL : find_mod (md, got);
  fail ("op %d: dwfl_addrmodule (%#" PRIx64 ") is %s%s%s [%#" PRIx64
	", %#" PRIx64 "), not %s [%#" PRIx64 ", %#" PRIx64 ")%s",
	md->op, addr,
	g == NULL ? (got == NULL ? "none" : "unknown") : state_names[g->state],
	g == NULL ? "" : " module ", g == NULL ? "" : g->name,
	g == NULL ? 0 : g->low, g == NULL ? 0 : g->high,
	want == NULL ? "none" : want->name,
	want == NULL ? 0 : want->low, want == NULL ? 0 : want->high,
	md->in_cycle ? " (between reports)" : "");
}

static void
check_lookups (struct model *md)
{
  for (size_t i = 0; i < md->nmods; ++i)
    {
      const struct mmod *m = &md->mods[i];
      if (m->state == REPLACED)
	continue;
      for (size_t j = 0; j < m->nranges; ++j)
	{
	  const struct range *r = &m->ranges[j];
	  check_lookup (md, r->start);
	  check_lookup (md, r->end - 1);
	  check_lookup (md, r->end);
	  check_lookup (md, r->start + (r->end - r->start) / 2);
	  if (r->start > 0)
	    check_lookup (md, r->start - 1);
	}
    }
}

/* The answers a profiler gets from a module do not depend on the
   pieces it was made of: dwfl_module_relocate_address,
   dwfl_module_addrname and the build ID's address are those of the
   whole file reported with dwfl_report_elf at the module's bias.  A
   module without its ELF answers nothing.  */
static void
check_relative (struct model *md, struct mmod *m, uint64_t addr)
{
  if (m->kind == K_MODULE)
    return;
  if (! m->opened)
    open_module (md, m);
  if (! m->open_ok)
    {
      check_no_elf (md, m);
      return;
    }
  const struct file *f = &files[m->open_src];
  Dwfl *ref = dwfl_begin (&dwfl_callbacks);
  if (ref == NULL)
    die ("dwfl_begin: %s", dwfl_errmsg (-1));
  dwfl_report_begin (ref);
  Dwfl_Module *ref_mod = dwfl_report_elf (ref, "ref", f->path, -1,
					  f->elf.e_type == ET_EXEC ? 0 : m->bias,
					  true);
  dwfl_report_end (ref, NULL, NULL);
  GElf_Addr ref_bias;
  if (ref_mod == NULL || dwfl_module_getelf (ref_mod, &ref_bias) == NULL
      || ref_bias != m->bias)
    {
      /* dwfl_report_elf is stricter about the file.  */
      dwfl_end (ref);
      return;
    }

  uint64_t rel = addr, ref_rel = addr;
  if (dwfl_module_relocate_address (m->mod, &rel) != 0)
    fail ("op %d: dwfl_module_relocate_address failed: %s",
	  md->op, dwfl_errmsg (-1));
  if (dwfl_module_relocate_address (ref_mod, &ref_rel) != 0)
    die ("dwfl_module_relocate_address of the whole file failed");
  if (rel != ref_rel)
    fail ("op %d: module of %s with bias %#" PRIx64
	  ": %#" PRIx64 " relocates to %#" PRIx64 ", the file to %#" PRIx64,
	  md->op, f->label, m->bias, addr, rel, ref_rel);

  const char *name = dwfl_module_addrname (m->mod, addr);
  const char *ref_name = dwfl_module_addrname (ref_mod, addr);
  if ((name == NULL) != (ref_name == NULL)
      || (name != NULL && strcmp (name, ref_name) != 0))
    fail ("op %d: module of %s with bias %#" PRIx64 ": %#" PRIx64
	  " is %s, in the file %s", md->op, f->label, m->bias, addr,
	  name ?: "no symbol", ref_name ?: "no symbol");

  GElf_Off off = 0, ref_off = 0;
  GElf_Sym sym, ref_sym;
  name = dwfl_module_addrinfo (m->mod, addr, &off, &sym, NULL, NULL, NULL);
  ref_name = dwfl_module_addrinfo (ref_mod, addr, &ref_off, &ref_sym,
				   NULL, NULL, NULL);
  if ((name == NULL) != (ref_name == NULL)
      || (name != NULL && (strcmp (name, ref_name) != 0 || off != ref_off
			   || sym.st_value != ref_sym.st_value)))
    fail ("op %d: module of %s with bias %#" PRIx64 ": %#" PRIx64
	  " is %s+%#" PRIx64 ", in the file %s+%#" PRIx64, md->op, f->label,
	  m->bias, addr, name ?: "no symbol", off, ref_name ?: "no symbol",
	  ref_off);

  Dwfl_Line *line = dwfl_module_getsrc (m->mod, addr);
  Dwfl_Line *ref_line = dwfl_module_getsrc (ref_mod, addr);
  Dwarf_Addr line_addr = 0, ref_line_addr = 0;
  int lineno = 0, ref_lineno = 0;
  if (line != NULL)
    dwfl_lineinfo (line, &line_addr, &lineno, NULL, NULL, NULL);
  if (ref_line != NULL)
    dwfl_lineinfo (ref_line, &ref_line_addr, &ref_lineno, NULL, NULL, NULL);
  if ((line == NULL) != (ref_line == NULL) || line_addr != ref_line_addr
      || lineno != ref_lineno)
    fail ("op %d: module of %s with bias %#" PRIx64 ": %#" PRIx64
	  " is line %d at %#" PRIx64 ", in the file line %d at %#" PRIx64,
	  md->op, f->label, m->bias, addr, lineno, line_addr, ref_lineno,
	  ref_line_addr);

  Dwarf_Addr cfi_bias = 0, ref_cfi_bias = 0, dw_bias = 0, ref_dw_bias = 0;
  bool cfi = dwfl_module_eh_cfi (m->mod, &cfi_bias) != NULL;
  bool ref_cfi = dwfl_module_eh_cfi (ref_mod, &ref_cfi_bias) != NULL;
  bool dw = dwfl_module_getdwarf (m->mod, &dw_bias) != NULL;
  bool ref_dw = dwfl_module_getdwarf (ref_mod, &ref_dw_bias) != NULL;
  if (cfi != ref_cfi || cfi_bias != ref_cfi_bias
      || dw != ref_dw || dw_bias != ref_dw_bias)
    fail ("op %d: module of %s with bias %#" PRIx64 ": CFI %s bias %#" PRIx64
	  ", DWARF %s bias %#" PRIx64 "; in the file CFI %s bias %#" PRIx64
	  ", DWARF %s bias %#" PRIx64, md->op, f->label, m->bias,
	  cfi ? "with" : "without", cfi_bias, dw ? "with" : "without", dw_bias,
	  ref_cfi ? "with" : "without", ref_cfi_bias,
	  ref_dw ? "with" : "without", ref_dw_bias);

  const unsigned char *bits, *ref_bits;
  GElf_Addr vaddr, ref_vaddr;
  int len = dwfl_module_build_id (m->mod, &bits, &vaddr);
  int ref_len = dwfl_module_build_id (ref_mod, &ref_bits, &ref_vaddr);
  if (len != ref_len
      || (len > 0 && (memcmp (bits, ref_bits, len) != 0
		      || vaddr != ref_vaddr)))
    fail ("op %d: module of %s with bias %#" PRIx64 ": build ID of %d bytes"
	  " at %#" PRIx64 ", in the file %d bytes at %#" PRIx64,
	  md->op, f->label, m->bias, len, vaddr, ref_len, ref_vaddr);
  dwfl_end (ref);
}

static int fds_open (void)
{
  DIR *d = opendir ("/proc/self/fd");
  if (d == NULL)
    die ("cannot read /proc/self/fd: %m");
  int n = 0;
  while (readdir (d) != NULL)
    n++;
  closedir (d);
  return n;
}


/* The operations.  */

struct input
{
  const uint8_t *p;
  size_t n;
};

static uint8_t
u8 (struct input *in)
{
  if (in->n == 0)
    return 0;
  in->n--;
  return *in->p++;
}

static uint64_t
u64 (struct input *in)
{
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= (uint64_t) u8 (in) << (8 * i);
  return v;
}

/* The operation codes 0 to 10 are those of the first version of the
   harness, with their arguments, so that its inputs mean what they
   meant.  */
enum op
{
  OP_RECORDED, OP_RECORDED2, OP_RECORDED3, OP_SEGMENT, OP_RAW,
  OP_BEGIN, OP_BEGIN_ADD, OP_END, OP_LOOKUP, OP_QUERY, OP_REPORT_ELF,
  OP_REPORT_MODULE, OP_HOLE, OP_FILE, OP_LAZY,
  OP_NUM
};

static const char *const op_names[] =
  {
    "dwfl_report_begin", "dwfl_report_begin_add", "dwfl_report_end",
    "lookup", "query", "dwfl_report_elf", "dwfl_report_module",
    "a piece in a hole", "swap file", "lazy",
  };

static const int prots[] =
  {
    -1, PROT_NONE, PROT_READ, PROT_READ | PROT_EXEC,
    PROT_READ | PROT_WRITE, PROT_EXEC, PROT_WRITE,
    PROT_READ | PROT_WRITE | PROT_EXEC, PROT_WRITE | PROT_EXEC,
    0x8, 0x10 | PROT_READ, -2, INT_MIN,
  };

/* Where pieces go: near the recorded bias, a few pages either way, so
   that pieces of different files and biases meet.  */
static const int64_t bias_shifts[16] =
  {
    0, 0x1000, 0x2000, 0x3000, 0x5000, -0x1000, -0x2000, -0x3000,
    0x10000, 0x200000, -0x200000, 0x1000000, 0x800, -0x7fa28d923000, 1,
    0x4000,
  };

static int
pick_file (struct input *in)
{
  uint8_t b = u8 (in);
  if (b < 192 || nfiles == nreal)
    return b % nreal;
  return nreal + ((b - 192) * 256 + u8 (in)) % (nfiles - nreal);
}

static uint64_t
junk_u64 (struct input *in, uint8_t b)
{
  switch (b & 7)
    {
    case 0:
      return 0;
    case 1:
      return UINT64_MAX;
    case 2:
      return UINT64_MAX - 0xfff;
    case 3:
      return 1;
    default:
      return u64 (in);
    }
}

static int
prot_of (uint32_t flags)
{
  return ((flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0)
	  | (flags & PF_X ? PROT_EXEC : 0));
}

/* A piece of the file F (the bytes a report reads: for the swap file,
   those of the file it is a copy of).  */
static void
piece_from_input (struct input *in, int op, const struct file *f,
		  struct piece *p)
{
  switch (op)
    {
    case OP_RECORDED:
    case OP_RECORDED2:
    case OP_RECORDED3:
      {
	/* A recorded piece of the file or of the one it was made from,
	   at a bias near the recorded one.  */
	const struct recording *r = &recordings[f->origin];
	uint8_t b = u8 (in);
	*p = r->pieces[b % r->npieces];
	uint8_t s = u8 (in);
	p->start += (uint64_t) bias_shifts[s & 15];
	if (s & 0x10)
	  p->prot = prots[u8 (in) % (sizeof prots / sizeof prots[0])];
	if (s & 0x20)
	  p->len = (p->len & ~(uint64_t) 0xfff) + 0x1000 * (s >> 6);
	if (p->len == 0)
	  p->len = 0x1000;
	break;
      }

    case OP_SEGMENT:
      {
	/* A piece of one of the file's segments, page-rounded or
	   not.  */
	uint8_t b = u8 (in);
	uint8_t s = u8 (in);
	struct load l = { 0, 0x1000, 0, PF_R };
	const struct file *o = f->view.nloads > 0 ? f : &files[f->origin];
	if (o->view.nloads > 0)
	  l = o->view.loads[b % o->view.nloads];
	uint64_t bias = 0x7f0000000000 + (uint64_t) bias_shifts[s & 15];
	if (o->view.e_type == ET_EXEC)
	  bias = (uint64_t) bias_shifts[s & 15] & 0x3000;
	uint64_t align = (s & 0x10) ? 1 : 0x1000;
	p->pgoff = l.offset & -align;
	p->start = bias + (l.vaddr & -align);
	p->len = ((l.offset + l.filesz + align - 1) & -align) - p->pgoff;
	if (b & 0x80)
	  p->len = (p->len + 0xfff) & -0x1000;
	p->prot = prot_of (l.flags);
	if (s & 0x20)
	  p->prot = prots[u8 (in) % (sizeof prots / sizeof prots[0])];
	if ((s & 0x40) && p->len > 0x1000)
	  {
	    /* Only its first or last page, as mprotect splits it.  */
	    if (s & 0x80)
	      p->start += p->len - 0x1000, p->pgoff += p->len - 0x1000;
	    p->len = 0x1000;
	  }
	if (p->len == 0)
	  p->len = 0x1000;
	break;
      }

    default:
      {
	/* Addresses and offsets from small ranges, sometimes junk.  */
	uint8_t a = u8 (in), b = u8 (in), c = u8 (in), d = u8 (in);
	p->start = 0x7f0000000000 + 0x1000 * (a & 0x3f);
	if (a & 0x40)
	  p->start = junk_u64 (in, b);
	p->len = 0x1000 * (1 + (b & 0x1f));
	if (b & 0x80)
	  p->len = junk_u64 (in, c);
	p->pgoff = 0x1000 * (c & 0xf);
	if (c & 0x40)
	  p->pgoff = (f->view.nloads > 0
		      ? f->view.loads[d % f->view.nloads].offset : 0);
	if (c & 0x80)
	  p->pgoff = junk_u64 (in, d);
	p->prot = prots[(d >> 3) % (sizeof prots / sizeof prots[0])];
	break;
      }
    }
}

static bool
invalid_args (const struct piece *p)
{
  return (p->len == 0 || p->start + p->len < p->start
	  || p->pgoff + p->len < p->pgoff
	  || (p->prot != -1
	      && (p->prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) != 0));
}

static const char *
mod_label (const struct mmod *m)
{
  return m->file < 0 ? "no file" : files[m->file].label;
}

/* What the contract says of a piece before it is reported: the modules
   it may grow, those it lies in, whether it must fail or succeed.  */
struct expect
{
  struct ident id;
  const struct view *v;		/* What the report reads of the file.  */
  size_t ncands;
  struct cand cands[MAX_LOADS];
  bool must_fail;
  bool must_succeed;
  const char *error;		/* What a failure must say, or NULL.  */
  /* The live modules of the file that the piece lies in.  */
  size_t ncovering;
  struct mmod *covering[MAX_MODULES];
  bool any_meets;
};

/* Whether a piece of E's file can lie in M: M is a module of
   dwfl_report_elf_mmap of the same file (name and identity), or one of
   dwfl_report_elf of the same name.  */
static bool
of_file (const struct mmod *m, const struct expect *e)
{
  if (m->file != e->id.file)
    return false;
  if (m->kind == K_MMAP)
    return m->gen == e->id.gen;
  return m->kind == K_ELF && (m->e_type == ET_DYN || m->e_type == ET_EXEC);
}

static bool
lies_in (const struct mmod *m, const struct piece *p)
{
  return m->low <= p->start && p->start + p->len <= m->high;
}

/* Whether the piece agrees with M, which it then grows: a module of
   its file whose biases meet the piece's candidates, or a module of
   dwfl_report_elf for its name whose ELF has the PT_LOADs the piece was
   read with and whose bias is a candidate.  A replaced module agrees
   with nothing.  */
static bool
agrees (const struct mmod *m, const struct expect *e)
{
  if (m->state == REPLACED || m->file != e->id.file)
    return false;
  if (m->kind == K_MMAP)
    {
      if (m->gen != e->id.gen)
	return false;
      for (size_t i = 0; i < m->nbiases; ++i)
	if (among (e->cands, e->ncands, m->biases[i]))
	  return true;
      return false;
    }
  return (m->kind == K_ELF && of_file (m, e)
	  && same_loads (&files[m->src].elf, e->v)
	  && files[m->src].elf.contents
	  && among (e->cands, e->ncands, m->bias));
}

static bool
is_covering (const struct expect *e, const struct mmod *m)
{
  for (size_t i = 0; i < e->ncovering; ++i)
    if (e->covering[i] == m)
      return true;
  return false;
}

static void
expect_report (struct model *md, const struct ident *id,
	       const struct piece *p, struct expect *e)
{
  memset (e, 0, sizeof *e);
  e->id = *id;
  e->v = content_view (id->content);
  if (invalid_args (p))
    {
      e->must_fail = true;
      e->error = E_INVALID;
      return;
    }
  if (! e->v->ok)
    {
      /* Whatever modules there are: the headers cannot be read.  */
      e->must_fail = true;
      e->error = e->v->error;
      return;
    }
  e->ncands = candidates (e->v, p, e->cands);

  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *m = &md->mods[i];
      if (agrees (m, e))
	e->any_meets = true;
      /* "Lies in a module": in its address range, which libdwfl.h says
	 is the hull of its pieces.  The series takes a PROT -1 piece to
	 lie in the module whose pieces hold its start (known bug
	 prot-unknown-hole).  */
      if (m->state == LIVE && of_file (m, e) && lies_in (m, p)
	  && (p->prot != -1 || ! known_bug ("prot-unknown-hole")
	      || ranges_hold (m, p->start)))
	e->covering[e->ncovering++] = m;
    }

  e->error = "no matching address range";
  if (p->prot == PROT_NONE)
    {
      e->must_fail = e->ncovering == 0;
      e->must_succeed = ! e->must_fail;
      /* The series looks for a gap's module only at the addresses next
	 to it, below first (known bug prot-none-over).  */
      if (known_bug ("prot-none-over"))
	{
	  struct mmod *below = NULL, *above = NULL;
	  for (size_t i = 0; i < md->nmods; ++i)
	    if (md->mods[i].state == LIVE && of_file (&md->mods[i], e))
	      {
		if (p->start > 0 && ranges_hold (&md->mods[i], p->start - 1))
		  below = &md->mods[i];
		if (ranges_hold (&md->mods[i], p->start + p->len))
		  above = &md->mods[i];
	      }
	  struct mmod *next = below ?: above;
	  e->must_succeed = next != NULL && lies_in (next, p);
	}
      return;
    }
  /* A piece no segment can have mapped fails, unless it lies in a
     module of its file and its PROT is not known; any other makes or
     grows a module.  */
  e->must_succeed = (e->any_meets || e->ncands > 0
		     || (p->prot == -1 && e->ncovering > 0));
  e->must_fail = ! e->must_succeed;

  /* The series cannot make a module of dwfl_report_elf that the piece
     lies in and agrees with one of the pieces' while a stale module of
     the file has its bias, and fails with DWFL_E_NOMEM (known bug
     stale-bias-adopt).  */
  if (known_bug ("stale-bias-adopt"))
    for (size_t i = 0; i < e->ncovering; ++i)
      if (e->covering[i]->kind == K_ELF && agrees (e->covering[i], e))
	for (size_t j = 0; j < md->nmods; ++j)
	  if (md->mods[j].kind == K_MMAP && md->mods[j].state != REPLACED
	      && md->mods[j].file == e->id.file
	      && md->mods[j].gen == e->id.gen
	      && has_bias (&md->mods[j], e->covering[i]->bias))
	    e->must_succeed = false;
}

/* Update the model for a successful report of P that returned MOD, with
   FD open on swap inode FD_INODE, naming a new module NAME.  Returns
   whether the call made MOD.  */
static bool
model_report (struct model *md, const struct piece *p,
	      const struct expect *e, Dwfl_Module *mod, const char *name,
	      int fd, int fd_inode)
{
  const char *label = files[e->id.file].label;
  struct mmod *m = find_mod (md, mod);
  bool covering = m != NULL && is_covering (e, m);

  /* A gap names the module around it and changes nothing.  A piece
     without PROT in a module of its file is taken to be that module's
     (even if it agrees with another): it grows it if it agrees, else it
     changes nothing.  */
  if (p->prot == PROT_NONE || (p->prot == -1 && e->ncovering > 0))
    {
      if (! covering)
	fail ("op %d: a %s piece of %s returned %s, not a live module of"
	      " the file that it lies in", md->op,
	      p->prot == -1 ? "PROT -1" : "PROT_NONE", label,
	      m == NULL ? "a new module" : m->name);
      if (p->prot == PROT_NONE || ! agrees (m, e))
	return false;
    }

  bool made = false;
  if (m == NULL)
    {
      /* A new module: no module of the file could take the piece.  */
      if (e->any_meets)
	fail ("op %d: a piece of %s made a new module though a module of"
	      " the file agrees with it", md->op, label);
      m = new_mod (md, mod, K_MMAP, name);
      m->file = e->id.file;
      m->gen = e->id.gen;
      m->src = e->id.content;
      m->from_fd = fd >= 0;
      m->inode = fd >= 0 ? fd_inode : -1;
      ranges_set (m, p->start, p->start + p->len);
      for (size_t i = 0; i < e->ncands; ++i)
	if (! has_bias (m, e->cands[i].bias))
	  m->biases[m->nbiases++] = e->cands[i].bias;
      if (m->nbiases == 0)
	fail ("op %d: a piece of %s that no segment maps at an allowed"
	      " bias made a module", md->op, label);
      update_poss (m, e->cands, e->ncands, p->pgoff, true);
      made = true;
    }
  else if (m->state == REPLACED)
    fail ("op %d: a piece of %s revived a replaced module", md->op, label);
  else if (agrees (m, e))
    {
      if (m->kind == K_ELF)
	{
	  /* A module of dwfl_report_elf becomes one of the file's
	     pieces, at its bias, its range all of the file.  */
	  m->kind = K_MMAP;
	  m->gen = e->id.gen;
	  m->src = e->id.content;
	  m->nbiases = m->nposs = 1;
	  m->biases[0] = m->poss[0] = m->bias;
	}
      size_t kept = 0;
      for (size_t i = 0; i < m->nbiases; ++i)
	if (among (e->cands, e->ncands, m->biases[i]))
	  m->biases[kept++] = m->biases[i];
      m->nbiases = kept;
      update_poss (m, e->cands, e->ncands, p->pgoff, false);
      /* After dwfl_report_begin, its pieces start again from this
	 cycle's.  */
      if (m->state == STALE)
	{
	  m->state = LIVE;
	  ranges_set (m, p->start, p->start + p->len);
	}
      else
	ranges_add (m, p->start, p->start + p->len);
    }
  else
    fail ("op %d: a piece of %s returned a %s module of %s that does not"
	  " agree with it", md->op, label, state_names[m->state],
	  mod_label (m));

  /* The mapping replaced the live modules that had addresses where it
     is, whatever reported them; not one in whose hole it lies, and not
     a stale module, which has no addresses in this cycle until a piece
     of it comes again.  */
  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *o = &md->mods[i];
      if (o != m && o->state == LIVE
	  && ranges_meet (o, p->start, p->start + p->len))
	{
	  if (p->prot == -1 && is_covering (e, o))
	    fail ("op %d: a PROT -1 piece of %s that lies in module %s"
		  " replaced it", md->op, label, o->name);
	  o->state = REPLACED;
	}
    }
  return made;
}

/* The descriptor the input passes for every piece of FILE, open from
   its first use to the end of the input; NULL if it cannot be
   opened.  */
static struct shared_fd *
shared_fd (struct model *md, int file)
{
  for (size_t i = 0; i < md->nshared; ++i)
    if (md->shared[i].file == file)
      return &md->shared[i];
  if (md->nshared == MAX_SHARED)
    return NULL;
  int fd = open (files[file].path, O_RDONLY);
  if (fd < 0)
    return NULL;
  struct shared_fd *s = &md->shared[md->nshared++];
  s->file = file;
  s->fd = fd;
  s->inode = files[file].swap ? md->swap_inode : -1;
  /* Not at 0, so that a call that reads with read () or moves it
     shows.  */
  lseek (fd, 0x11, SEEK_SET);
  s->offset = lseek (fd, 0, SEEK_CUR);
  return s;
}

/* FD, which the caller passed, is still open on the file it was, at
   OFFSET.  */
static void
check_fd (struct model *md, int fd, off_t offset, const struct stat *st)
{
  if (fd < 0)
    return;
  struct stat now;
  if (fcntl (fd, F_GETFD) < 0 || fstat (fd, &now) != 0
      || now.st_dev != st->st_dev || now.st_ino != st->st_ino)
    fail ("op %d: the call closed the caller's descriptor %d", md->op, fd);
  off_t at = lseek (fd, 0, SEEK_CUR);
  if (at != offset)
    fail ("op %d: the call moved the caller's descriptor from offset %jd"
	  " to %jd", md->op, (intmax_t) offset, (intmax_t) at);
}

static const char *const names[] = { NULL, "a", "b", NULL };

/* Report piece P of FILE, and check the call and its result against the
   model.  FLAGS: 01 pass a descriptor (the caller's own for this piece,
   or with 20 the one the input passes for every piece of the file),
   02 report twice, 04/08/0c the name, 10 check every lookup after.  */
static void
report_piece (struct model *md, int file, const struct piece *p,
	      uint8_t flags)
{
  const struct file *f = &files[file];
  const char *name = (flags & 0xc) == 0xc ? f->label : names[(flags >> 2) & 3];

  if (! md->in_cycle)
    {
      dwfl_report_begin_add (md->dwfl);
      md->in_cycle = true;
    }

  int fd = -1, fd_inode = -1;
  bool own_fd = false;
  off_t offset = 0;
  struct stat fd_st;
  if (flags & 1)
    {
      struct shared_fd *s = NULL;
      if (flags & 0x20)
	s = shared_fd (md, file);
      else
	fd = open (f->path, O_RDONLY);
      if (s != NULL)
	{
	  fd = s->fd;
	  fd_inode = s->inode;
	}
      else if (fd >= 0)
	{
	  own_fd = true;
	  fd_inode = f->swap ? md->swap_inode : -1;
	  lseek (fd, 0x11, SEEK_SET);
	}
      if (fd >= 0 && fstat (fd, &fd_st) != 0)
	die ("fstat: %m");
      offset = fd < 0 ? 0 : lseek (fd, 0, SEEK_CUR);
    }

  struct ident id = identify (md, file, fd >= 0, fd_inode);
  /* The series allocates room for the program headers a file claims
     before it checks that the file has them (known bug
     phnum-xnum-alloc).  */
  if (known_bug ("phnum-xnum-alloc") && ! invalid_args (p)
      && content_view (id.content)->phnum_past_eof)
    {
      if (own_fd)
	close (fd);
      return;
    }
  struct expect e;
  expect_report (md, &id, p, &e);
  struct snapshot before;
  take_snapshot (md->dwfl, &before);

  int fds = fds_open ();
  (void) dwfl_errno ();
  Dwfl_Module *mod = dwfl_report_elf_mmap (md->dwfl, name, f->path, fd,
					   p->start, p->len, p->pgoff,
					   p->prot);
  int err = dwfl_errno ();
  int fds_after = fds_open ();
  if (trace)
    {
      Dwarf_Addr low = 0, high = 0;
      if (mod != NULL)
	dwfl_module_info (mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
      fprintf (stderr, "op %d: dwfl_report_elf_mmap (%s, %s, fd %d%s,"
	       " start %#" PRIx64 ", len %#" PRIx64 ", pgoff %#" PRIx64
	       ", prot %d)%s = ", md->op, name ?: "NULL", f->label, fd,
	       own_fd || fd < 0 ? "" : " (shared)", p->start, p->len,
	       p->pgoff, p->prot, (flags & 2) ? " twice" : "");
      if (mod == NULL)
	fprintf (stderr, "NULL (%s)\n", dwfl_errmsg (err));
      else
	fprintf (stderr, "%p [%#" PRIx64 ", %#" PRIx64 ")\n", mod, low, high);
    }
  check_fd (md, fd, offset, &fd_st);

  if (mod == NULL)
    {
      if (err == 0)
	fail ("op %d: dwfl_report_elf_mmap failed without an error", md->op);
      const char *msg = dwfl_errmsg (err);
      if (e.must_succeed)
	fail ("op %d: piece %#" PRIx64 "+%#" PRIx64 " @%#" PRIx64 " prot %d"
	      " of %s failed (%s), but %s", md->op, p->start, p->len,
	      p->pgoff, p->prot, f->label, msg,
	      p->prot == PROT_NONE ? "it lies in a module of the file"
	      : e.any_meets ? "a module of the file agrees with it"
	      : e.ncands > 0 ? "a segment can have mapped it"
	      : "it lies in a module of the file");
      if (e.must_fail && e.error != NULL && strcmp (msg, e.error) != 0)
	fail ("op %d: piece %#" PRIx64 "+%#" PRIx64 " @%#" PRIx64 " prot %d"
	      " of %s failed with \"%s\", libdwfl.h says \"%s\"", md->op,
	      p->start, p->len, p->pgoff, p->prot, f->label, msg, e.error);
      struct snapshot after;
      take_snapshot (md->dwfl, &after);
      compare_snapshots (&before, &after, "a failed report changed the modules");
      if (fds_after != fds)
	fail ("op %d: a failed report left %d descriptors open, %d before",
	      md->op, fds_after, fds);
      if (own_fd)
	close (fd);
      check_model (md);
      return;
    }

  if (e.must_fail)
    fail ("op %d: piece %#" PRIx64 "+%#" PRIx64 " @%#" PRIx64 " prot %d"
	  " of %s succeeded", md->op, p->start, p->len, p->pgoff, p->prot,
	  f->label);
  Dwarf_Addr low, high;
  dwfl_module_info (mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
  if (p->start < low || p->start + p->len > high)
    fail ("op %d: the module returned, [%#" PRIx64 ", %#" PRIx64
	  "), does not cover the piece", md->op, low, high);

  bool made = model_report (md, p, &e, mod, name ?: f->path, fd, fd_inode);
  /* A module made from FD holds its own duplicate of it; nothing else
     holds a file for a module until its ELF is wanted.  */
  if (fds_after != fds + (made && fd >= 0))
    fail ("op %d: a report that %s a module%s left %d descriptors open,"
	  " %d before", md->op, made ? "made" : "did not make",
	  fd >= 0 ? " from FD" : "", fds_after, fds);
  check_model (md);
  check_no_overlap (md);

  if (flags & 2)
    {
      /* Reporting a piece twice changes nothing, with the same FD.  */
      struct snapshot once, twice;
      take_snapshot (md->dwfl, &once);
      fds = fds_open ();
      Dwfl_Module *again = dwfl_report_elf_mmap (md->dwfl, name, f->path, fd,
						 p->start, p->len, p->pgoff,
						 p->prot);
      if (again != mod)
	fail ("op %d: the same piece again returned %s", md->op,
	      again == NULL ? dwfl_errmsg (-1) : "another module");
      if (fds_open () != fds)
	fail ("op %d: the same piece again left %d descriptors open, %d"
	      " before", md->op, fds_open (), fds);
      check_fd (md, fd, offset, &fd_st);
      take_snapshot (md->dwfl, &twice);
      compare_snapshots (&once, &twice, "the same piece again changed the modules");
    }
  if (own_fd)
    close (fd);

  if (flags & 0x10)
    check_lookups (md);
}

static void
op_report (struct model *md, struct input *in, int op)
{
  int file = pick_file (in);
  struct ident id = identify (md, file, false, -1);
  struct piece p;
  piece_from_input (in, op, &files[id.content < 0 ? swap_base : id.content],
		    &p);
  report_piece (md, file, &p, u8 (in));
}

static int
removed_callback (Dwfl_Module *mod, void *userdata,
		  const char *name, Dwarf_Addr base, void *arg)
{
  struct model *md = arg;
  struct mmod *m = find_mod (md, mod);
  if (m == NULL)
    fail ("op %d: REMOVED got a module never returned", md->op);
  if (m->state == LIVE)
    fail ("op %d: REMOVED got live module %s of %s", md->op, m->name,
	  mod_label (m));
  if (m->seen_removed)
    fail ("op %d: REMOVED got module %s of %s twice", md->op, m->name,
	  mod_label (m));
  Dwarf_Addr low, high;
  const char *mainfile;
  const char *mname = dwfl_module_info (mod, NULL, &low, &high,
					NULL, NULL, &mainfile, NULL);
  /* USERDATA is where the module's userdata is, as for every module
     callback.  */
  void *ud = *(void **) userdata;
  if (mname != name || base != low || low != m->low || high != m->high
      || ud != (void *) m->tag)
    fail ("op %d: REMOVED got module %s at %#" PRIx64 " userdata %p, it is"
	  " %s [%#" PRIx64 ", %#" PRIx64 ") userdata %p", md->op, name, base,
	  ud, mname, low, high, (void *) m->tag);
  if (! m->opened && mainfile != NULL)
    fail ("op %d: REMOVED got module %s of %s with a main file, though its"
	  " ELF was never wanted", md->op, m->name, mod_label (m));
  /* A callback that fails stops dwfl_report_end before MOD is freed;
     the next call passes it again.  */
  if (md->removed_calls++ == md->removed_fail_at)
    return 1;
  m->seen_removed = true;
  return 0;
}

static void
op_end (struct model *md, uint8_t flags)
{
  md->removed_calls = 0;
  md->removed_fail_at = (flags & 1) ? flags >> 1 : -1;
  int rc;
  while ((rc = dwfl_report_end (md->dwfl, removed_callback, md)) != 0)
    if (rc != 1)
      fail ("op %d: dwfl_report_end returned %d", md->op, rc);
  md->in_cycle = false;

  size_t kept = 0;
  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *m = &md->mods[i];
      if (m->state != LIVE && ! m->seen_removed)
	fail ("op %d: dwfl_report_end did not pass %s module %s of %s to"
	      " REMOVED", md->op, state_names[m->state], m->name,
	      mod_label (m));
      if (m->state == LIVE)
	md->mods[kept++] = *m;
    }
  md->nmods = kept;
  check_model (md);
  check_no_overlap (md);
  check_lookups (md);
}

static void
op_query (struct model *md, struct input *in)
{
  uint8_t b = u8 (in), c = u8 (in);
  size_t nlive = 0;
  struct mmod *live[MAX_MODULES];
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].state == LIVE)
      live[nlive++] = &md->mods[i];
  if (nlive == 0)
    return;
  struct mmod *m = live[b % nlive];
  uint64_t span = m->high - m->low;
  uint64_t addr = m->low + (span * c) / 256;
  if (b & 0x80)
    addr = m->high - 1;
  check_relative (md, m, addr);
}

/* Whether the model can say what a dwfl_report_elf or
   dwfl_report_module (KIND) of NAME for [LOW, HIGH) does; if so, set
   *SAME to the module it must give back, or NULL for a new one.  Two
   live modules on one address are the caller's mistake, which those
   calls do not refuse.  dwfl_report_module gives back any module of
   the same name and range, whatever reported it, and dwfl_report_elf
   then refuses it (a descriptor of its own for the file, not the
   module's) and removes it, as it always did: the model only follows a
   module of dwfl_report_module reported again.  */
static bool
legacy_report_known (struct model *md, const char *name, uint64_t low,
		     uint64_t high, enum kind kind, struct mmod **same)
{
  *same = NULL;
  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *m = &md->mods[i];
      if (m->state == LIVE)
	for (size_t j = 0; j < m->nranges; ++j)
	  if (overlaps (m->ranges[j].start, m->ranges[j].end, low, high))
	    return false;
      if (strcmp (m->name, name) != 0 || m->low != low || m->high != high)
	continue;
      if (kind != K_MODULE || m->kind != K_MODULE || m->state == REPLACED
	  || *same != NULL)
	return false;
      *same = m;
    }
  return true;
}

/* dwfl_report_elf of a whole file where no live module is: a module
   that later pieces of the file grow when they agree with its bias, and
   replace when they do not.  */
static void
op_report_elf (struct model *md, struct input *in)
{
  int file = pick_file (in);
  const struct file *f = &files[file];
  uint8_t b = u8 (in);
  struct ident id = identify (md, file, false, -1);
  if (id.content < 0)
    return;
  const struct file *c = &files[id.content];
  uint64_t base = 0x7f0000000000 + (uint64_t) bias_shifts[b & 15];
  if (! c->view.ok || c->elf.e_type == ET_EXEC)
    base = 0;
  const char *name = names[(b >> 4) & 3] ?: f->label;

  /* Where the module will be, from a Dwfl of its own.  */
  Dwfl *scratch = dwfl_begin (&dwfl_callbacks);
  if (scratch == NULL)
    die ("dwfl_begin: %s", dwfl_errmsg (-1));
  dwfl_report_begin (scratch);
  Dwfl_Module *mod = dwfl_report_elf (scratch, name, f->path, -1, base,
				      true);
  Dwarf_Addr low = 0, high = 0;
  if (mod != NULL)
    dwfl_module_info (mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
  dwfl_end (scratch);
  struct mmod *same;
  if (mod == NULL || low >= high
      || ! legacy_report_known (md, name, low, high, K_ELF, &same))
    return;

  if (! md->in_cycle)
    {
      dwfl_report_begin_add (md->dwfl);
      md->in_cycle = true;
    }
  mod = dwfl_report_elf (md->dwfl, name, f->path, -1, base, true);
  GElf_Addr bias = 0;
  Elf *elf = mod == NULL ? NULL : dwfl_module_getelf (mod, &bias);
  if (elf == NULL)
    fail ("op %d: dwfl_report_elf of %s failed: %s", md->op, f->label,
	  dwfl_errmsg (-1));
  if (trace)
    fprintf (stderr, "op %d: dwfl_report_elf (%s, %s, base %#" PRIx64
	     ") = %p [%#" PRIx64 ", %#" PRIx64 ") bias %#" PRIx64 "\n",
	     md->op, name, f->label, base, mod, low, high, bias);
  if (find_mod (md, mod) != NULL)
    fail ("op %d: dwfl_report_elf returned a module it had", md->op);
  struct mmod *m = new_mod (md, mod, K_ELF, name);
  GElf_Ehdr ehdr_mem, *ehdr = gelf_getehdr (elf, &ehdr_mem);
  m->e_type = ehdr == NULL ? ET_NONE : ehdr->e_type;
  m->file = file;
  m->src = m->open_src = id.content;
  m->elf_inode = f->swap ? md->swap_inode : -1;
  m->opened = m->open_ok = true;
  ranges_set (m, low, high);
  m->bias = bias;
  m->nbiases = m->nposs = 1;
  m->biases[0] = m->poss[0] = bias;
  check_model (md);
}

/* The holes of the live modules, between two of a module's ranges, up
   to MAX in OUT.  */
static size_t
list_holes (const struct model *md, struct range *out, size_t max)
{
  size_t n = 0;
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].state == LIVE)
      for (size_t j = 1; j < md->mods[i].nranges && n < max; ++j)
	out[n++] = (struct range) { md->mods[i].ranges[j - 1].end,
				    md->mods[i].ranges[j].start };
  return n;
}

static const char *const module_names[] = { "m0", "m1", "m2", "m3" };

/* dwfl_report_module where no live module is, as the proc and core
   reporters call it: a piece that meets it replaces it.  A: its start
   (40: in a hole of a module, 80: half a page on), B: its length and
   name.  */
static void
op_report_module (struct model *md, struct input *in)
{
  uint8_t a = u8 (in), b = u8 (in);
  uint64_t start = 0x7f0000000000 + 0x1000 * (a & 0x3f);
  uint64_t len = 0x1000 * (1 + (b & 0x1f));
  struct range holes[64];
  size_t nholes = list_holes (md, holes, 64);
  if ((a & 0x40) && nholes > 0)
    {
      const struct range *h = &holes[(a & 0x3f) % nholes];
      start = h->start;
      if (len > h->end - h->start)
	len = h->end - h->start;
    }
  if (a & 0x80)
    start += 0x800;
  uint64_t end = start + len;
  const char *name = module_names[(b >> 5) & 3];
  struct mmod *same;
  if (end <= start
      || ! legacy_report_known (md, name, start, end, K_MODULE, &same))
    return;

  if (! md->in_cycle)
    {
      dwfl_report_begin_add (md->dwfl);
      md->in_cycle = true;
    }
  Dwfl_Module *mod = dwfl_report_module (md->dwfl, name, start, end);
  if (trace)
    fprintf (stderr, "op %d: dwfl_report_module (%s, %#" PRIx64 ", %#"
	     PRIx64 ") = %p\n", md->op, name, start, end, mod);
  if (mod == NULL)
    fail ("op %d: dwfl_report_module failed: %s", md->op, dwfl_errmsg (-1));
  if (same != NULL)
    {
      if (mod != same->mod)
	fail ("op %d: dwfl_report_module of %s again made a new module",
	      md->op, name);
      same->state = LIVE;
    }
  else
    {
      if (find_mod (md, mod) != NULL)
	fail ("op %d: dwfl_report_module returned a module it had", md->op);
      struct mmod *m = new_mod (md, mod, K_MODULE, name);
      ranges_set (m, start, end);
    }
  check_model (md);
  check_no_overlap (md);
}

/* A piece of FILE in a hole of a live module: where the kernel left
   alignment holes when it loaded a file, another file can be mapped.
   W: the hole and the page in it; L: the segment of the file, with 20
   PROT_NONE, 40 PROT -1, 80 the piece running over the hole's end into
   the module's next piece; then the report FLAGS.  With no hole yet,
   the piece goes just above a live module.  */
static void
op_hole (struct model *md, struct input *in)
{
  int file = pick_file (in);
  uint8_t w = u8 (in), l = u8 (in), flags = u8 (in);
  struct ident id = identify (md, file, false, -1);
  const struct file *c = &files[id.content < 0 ? swap_base : id.content];
  const struct file *o = c->view.nloads > 0 ? c : &files[c->origin];
  struct load load = { 0, 0x1000, 0, PF_R };
  if (o->view.nloads > 0)
    load = o->view.loads[(l & 0x1f) % o->view.nloads];
  struct piece p;
  p.pgoff = load.offset & -0x1000;
  p.len = ((load.offset + load.filesz + 0xfff) & -0x1000) - p.pgoff;
  p.prot = prot_of (load.flags);
  if (l & 0x40)
    p.prot = -1;
  if (l & 0x20)
    p.prot = PROT_NONE;

  struct range holes[64];
  size_t nholes = list_holes (md, holes, 64);
  if (nholes > 0)
    {
      const struct range *h = &holes[w % nholes];
      p.start = h->start + 0x1000 * (w >> 6);
      if (p.start >= h->end)
	p.start = h->start;
      if (l & 0x80)
	{
	  p.start = h->end - h->start >= 0x1000 ? h->end - 0x1000 : h->start;
	  if (p.len < h->end - p.start + 0x1000)
	    p.len = h->end - p.start + 0x1000;
	}
      else if (p.len > h->end - p.start)
	p.len = h->end - p.start;
    }
  else
    {
      p.start = 0x7f0000100000;
      for (size_t i = 0, k = 0; i < md->nmods; ++i)
	if (md->mods[i].state == LIVE && k++ <= w)
	  p.start = md->mods[i].high;
    }
  if (p.len == 0)
    p.len = 0x1000;
  report_piece (md, file, &p, flags);
}

static bool swap_dirty = true;

/* Change the swap file, as a package manager or a build does to a file
   that a process has mapped.  HOW: 0 put a copy of SRC in its place, 1
   write SRC's bytes over it, 2 remove it, 3 touch it; then SRC.  */
static void
op_file (struct model *md, struct input *in)
{
  uint8_t how = u8 (in) & 3;
  int src = pick_file (in);
  if (! files[src].can_copy)
    src = files[src].origin;
  if (! files[src].can_copy)
    src = swap_base;

  /* Writing over a file that libelf maps for a module would pull its
     bytes from under it, which no library can be asked to survive, and
     which installers do not do: put a new file in its place then.  */
  if (how == 1)
    for (size_t i = 0; i < md->nmods; ++i)
      if (md->mods[i].open_ok && md->mods[i].elf_inode == md->swap_inode)
	how = 0;
  if (how == 1 && md->swap_inode < 0)
    how = 0;
  if (how == 0 && md->ninodes == MAX_INODES)
    return;

  swap_dirty = true;
  switch (how)
    {
    case 0:
      write_swap (src, true);
      md->swap_inode = md->ninodes++;
      md->inodes[md->swap_inode] = (struct inode) { src, md->next_gen++ };
      break;
    case 1:
      write_swap (src, false);
      md->inodes[md->swap_inode] = (struct inode) { src, md->next_gen++ };
      break;
    case 2:
      if (md->swap_inode >= 0 && unlink (files[swap_file].path) != 0)
	die ("cannot remove %s: %m", files[swap_file].path);
      md->swap_inode = -1;
      break;
    case 3:
      if (md->swap_inode >= 0)
	{
	  touch_swap ();
	  md->inodes[md->swap_inode].gen = md->next_gen++;
	}
      break;
    }
  if (trace)
    fprintf (stderr, "op %d: swap %s%s\n", md->op,
	     (const char *[]) { "replaced by a copy of ", "written over with ",
				"removed", "touched" }[how],
	     how < 2 ? files[src].label : "");
}

static void
op_lookup (struct model *md, struct input *in)
{
  uint8_t b = u8 (in);
  if (b & 1)
    check_lookups (md);
  else
    check_lookup (md, 0x7f0000000000 + 0x800 * (b >> 1));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct input in = { data, size };

  /* The swap file as each input begins: a copy of its base file.  */
  if (swap_dirty)
    write_swap (swap_base, true);
  swap_dirty = false;

  int fds = fds_open ();
  static struct model md;
  md.nmods = 0;
  md.in_cycle = false;
  md.lazy = false;
  md.next_tag = 0;
  md.ninodes = 1;
  md.inodes[0] = (struct inode) { swap_base, 1 };
  md.swap_inode = 0;
  md.next_gen = 2;
  md.nshared = 0;
  md.dwfl = dwfl_begin (&dwfl_callbacks);
  if (md.dwfl == NULL)
    die ("dwfl_begin: %s", dwfl_errmsg (-1));

  for (md.op = 0; in.n > 0 && md.op < MAX_OPS; ++md.op)
    {
      int op = u8 (&in) % OP_NUM;
      if (trace && op >= OP_BEGIN && op != OP_REPORT_ELF
	  && op != OP_REPORT_MODULE && op != OP_FILE)
	fprintf (stderr, "op %d: %s\n", md.op, op_names[op - OP_BEGIN]);
      switch (op)
	{
	case OP_BEGIN:
	  dwfl_report_begin (md.dwfl);
	  md.in_cycle = true;
	  for (size_t i = 0; i < md.nmods; ++i)
	    if (md.mods[i].state == LIVE)
	      md.mods[i].state = STALE;
	  break;
	case OP_BEGIN_ADD:
	  dwfl_report_begin_add (md.dwfl);
	  md.in_cycle = true;
	  break;
	case OP_END:
	  op_end (&md, u8 (&in));
	  break;
	case OP_LOOKUP:
	  op_lookup (&md, &in);
	  break;
	case OP_QUERY:
	  op_query (&md, &in);
	  break;
	case OP_REPORT_ELF:
	  op_report_elf (&md, &in);
	  break;
	case OP_REPORT_MODULE:
	  op_report_module (&md, &in);
	  break;
	case OP_HOLE:
	  op_hole (&md, &in);
	  break;
	case OP_FILE:
	  op_file (&md, &in);
	  break;
	case OP_LAZY:
	  /* Stop wanting every module's ELF after each operation, or
	     start again.  */
	  md.lazy = u8 (&in) & 1;
	  check_model (&md);
	  break;
	default:
	  op_report (&md, &in, op);
	  break;
	}
    }
  if (md.in_cycle)
    {
      if (trace)
	fprintf (stderr, "op %d: dwfl_report_end\n", md.op);
      op_end (&md, 0);
    }
  /* Want the ELF of every module left, so that a lazy input has its
     biases and files checked too.  */
  md.lazy = false;
  check_model (&md);

  for (size_t i = 0; i < md.nshared; ++i)
    close (md.shared[i].fd);
  dwfl_end (md.dwfl);
  int now = fds_open ();
  if (now != fds)
    fail ("%d descriptors open after dwfl_end, %d before", now, fds);
  return 0;
}
