/* libFuzzer harness for dwfl_report_elf_mmap.

   Each input is a sequence of operations on a fresh Dwfl: reports of
   mmap pieces of a small set of files, dwfl_report_begin,
   dwfl_report_begin_add, dwfl_report_end, dwfl_addrmodule and the
   module queries a profiler makes.  The files are the layout testfiles
   of the series (build/elfutils/tests/testfile-mmap-*.bz2) and copies of
   some of them broken in ways a file on disk can be broken, made once
   by LLVMFuzzerInitialize.

   Next to libdwfl the harness keeps a model of what the contract in
   libdwfl.h says the modules must be: for each module its state (live,
   to be removed by the cycle's dwfl_report_end, replaced), its address
   range (the hull of this cycle's pieces), the set of load biases that
   agree with all its pieces, and its bias.  After every operation it
   checks libdwfl against the model and calls abort () on the first
   difference, printing which rule was broken:

   - every module of dwfl_getmodules is one the model has, with its
     range and bias; a new module only when no module of the file agrees
     with the piece, a grown one only when it does; the bias the one
     the rule in libdwfl.h chooses (bias 0 for ET_EXEC);
   - no two live modules overlap; what a mapping hides is removed and
     passed to REMOVED by dwfl_report_end, with the modules the cycle
     did not report again, and nothing else is;
   - a failed call changes no module (pointer, name, range, bias) and
     leaves the caller's descriptor open; bad arguments and broken
     files fail, a piece a module agrees with does not;
   - the same piece reported twice changes nothing;
   - dwfl_addrmodule returns the live module holding the address, or
     none, also between reports;
   - relocation, symbols, source lines, CFI and build ID of a module
     are those of the whole file reported by dwfl_report_elf at the
     module's bias;
   - no descriptor is left open by dwfl_end (and LeakSanitizer, with
     libFuzzer's -detect_leaks, finds no memory left).

   FUZZ_TESTFILES overrides the directory of the testfiles.  FUZZ_TRACE
   set prints each operation, to turn a crashing input into a plain
   sequence of calls.  */

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

/* A file the inputs can report pieces of.  */
struct file
{
  char *path;
  char *label;

  /* Whether dwfl_report_elf_mmap must reject every piece of it: the
     contract's "missing, not ELF, truncated, ET_REL, ET_CORE, no
     PT_LOAD".  Such a file has no segments below.  */
  bool must_fail;

  /* The segments of a file it accepts, as libelf reads them.  */
  GElf_Half e_type;
  size_t nloads;
  struct load *loads;
  uint64_t relro_start, relro_end;

  /* The real testfile whose recorded pieces fit this one.  */
  int origin;
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
static struct recording recordings[MAX_FILES];
static char *workdir;
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

/* Learn what the contract says about F: whether every piece of it must
   be rejected, else its segments.  */
static void
examine_file (struct file *f)
{
  f->must_fail = true;
  int fd = open (f->path, O_RDONLY);
  if (fd < 0)
    return;
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  GElf_Ehdr ehdr_mem, *ehdr = elf == NULL ? NULL : gelf_getehdr (elf, &ehdr_mem);
  size_t phnum, size;
  if (ehdr == NULL || elf_kind (elf) != ELF_K_ELF
      || (ehdr->e_type != ET_DYN && ehdr->e_type != ET_EXEC)
      || ! has_segment_contents (elf)
      || elf_getphdrnum (elf, &phnum) != 0
      || elf_rawfile (elf, &size) == NULL)
    goto out;

  f->e_type = ehdr->e_type;
  f->loads = calloc (phnum + 1, sizeof f->loads[0]);
  if (f->loads == NULL)
    die ("out of memory");
  for (size_t i = 0; i < phnum; ++i)
    {
      GElf_Phdr phdr_mem, *phdr = gelf_getphdr (elf, i, &phdr_mem);
      if (phdr == NULL)
	goto out;
      if (phdr->p_type == PT_GNU_RELRO)
	{
	  f->relro_start = phdr->p_vaddr;
	  f->relro_end = phdr->p_vaddr + phdr->p_memsz;
	}
      else if (phdr->p_type == PT_LOAD && phdr->p_filesz > 0)
	{
	  if (phdr->p_offset > size || phdr->p_filesz > size - phdr->p_offset)
	    goto out;
	  f->loads[f->nloads++] = (struct load)
	    { phdr->p_offset, phdr->p_filesz, phdr->p_vaddr, phdr->p_flags };
	}
    }
  f->must_fail = f->nloads == 0;

 out:
  if (f->must_fail)
    f->nloads = 0;
  elf_end (elf);
  close (fd);
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

  for (size_t i = 0; i < nfiles; ++i)
    {
      examine_file (&files[i]);
      if (files[i].nloads > 64)
	die ("%s has more segments than the model holds", files[i].label);
      if (trace)
	fprintf (stderr, "file %zu (byte %s%#zx): %s%s\n", i,
		 i < nreal ? "" : "0xc0 ", i < nreal ? i : i - nreal,
		 files[i].label, files[i].must_fail ? " (must fail)" : "");
      if (i < nreal && files[i].must_fail)
	die ("testfile %s is not usable", files[i].label);
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

struct mmod
{
  Dwfl_Module *mod;
  int file;
  enum state state;
  uint64_t low, high;
  uint64_t bias;
  size_t nbiases;
  uint64_t biases[64];
  bool seen_removed;
  /* Whether dwfl_report_elf made the module and no piece grew it.  */
  bool from_elf;
};

struct model
{
  Dwfl *dwfl;
  size_t nmods;
  struct mmod mods[MAX_MODULES];
  bool in_cycle;
  int removed_calls;
  int removed_fail_at;
  /* Where a broken rule is reported from.  */
  int op;
};

struct cand
{
  uint64_t bias;
  const struct load *load;
};

static bool
meets_relro (const struct file *f, const struct piece *p, uint64_t bias)
{
  return (f->relro_start < f->relro_end
	  && bias + f->relro_start < p->start + p->len
	  && p->start < bias + f->relro_end);
}

/* The contract's candidates for piece P of F: the segments whose file
   bytes meet P's, narrowed by a known PROT, each step only if one is
   left.  */
static size_t
candidates (const struct file *f, const struct piece *p, struct cand *out)
{
  size_t n = 0;
  for (size_t i = 0; i < f->nloads; ++i)
    {
      const struct load *l = &f->loads[i];
      if (l->offset < p->pgoff + p->len && p->pgoff < l->offset + l->filesz)
	out[n++] = (struct cand)
	  { p->start - p->pgoff + l->offset - l->vaddr, l };
    }
  if (p->prot == -1)
    return n;

  for (int step = 0; step < 2; ++step)
    {
      size_t kept = 0;
      struct cand keep[n + 1];
      for (size_t i = 0; i < n; ++i)
	{
	  const struct load *l = out[i].load;
	  bool ok;
	  if (step == 0)
	    ok = (((l->flags & PF_X) != 0) == ((p->prot & PROT_EXEC) != 0));
	  else if (p->prot & PROT_WRITE)
	    ok = (l->flags & PF_W) != 0;
	  else
	    ok = ((l->flags & PF_W) == 0 || meets_relro (f, p, out[i].bias));
	  if (ok)
	    keep[kept++] = out[i];
	}
      if (kept > 0)
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
meets (const struct mmod *m, const struct cand *c, size_t n)
{
  for (size_t i = 0; i < n; ++i)
    if (has_bias (m, c[i].bias))
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

static struct mmod *
find_mod (struct model *md, Dwfl_Module *mod)
{
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].mod == mod)
      return &md->mods[i];
  return NULL;
}

static bool
overlaps (uint64_t alow, uint64_t ahigh, uint64_t blow, uint64_t bhigh)
{
  return alow < bhigh && blow < ahigh;
}

/* What libdwfl shows of its modules.  */

struct shown
{
  Dwfl_Module *mod;
  const char *name;
  uint64_t low, high, bias;
  bool have_elf;
};

struct snapshot
{
  size_t n;
  struct shown mods[MAX_MODULES + 1];
};

static int
snapshot_module (Dwfl_Module *mod, void **userdata __attribute__ ((unused)),
		 const char *name, Dwarf_Addr low, void *arg)
{
  struct snapshot *s = arg;
  if (s->n == MAX_MODULES + 1)
    fail ("more modules than were reported");
  struct shown *m = &s->mods[s->n++];
  m->mod = mod;
  m->name = name;
  m->low = low;
  dwfl_module_info (mod, NULL, NULL, &m->high, NULL, NULL, NULL, NULL);
  m->have_elf = dwfl_module_getelf (mod, &m->bias) != NULL;
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
	|| a->mods[i].bias != b->mods[i].bias)
      fail ("%s: module %zu was %s [%#" PRIx64 ", %#" PRIx64 ") bias %#"
	    PRIx64 ", is %s [%#" PRIx64 ", %#" PRIx64 ") bias %#" PRIx64,
	    what, i, a->mods[i].name, a->mods[i].low, a->mods[i].high,
	    a->mods[i].bias, b->mods[i].name, b->mods[i].low,
	    b->mods[i].high, b->mods[i].bias);
}

/* The checks.  */

/* libdwfl's modules are the model's, with its ranges and biases.  */
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
      if (! s.mods[i].have_elf)
	fail ("op %d: module %s has no ELF", md->op, s.mods[i].name);
      if (s.mods[i].low != m->low || s.mods[i].high != m->high)
	fail ("op %d: %s module %s of %s is [%#" PRIx64 ", %#" PRIx64
	      "), the hull of its pieces is [%#" PRIx64 ", %#" PRIx64 ")",
	      md->op, state_names[m->state], s.mods[i].name,
	      files[m->file].label, s.mods[i].low, s.mods[i].high,
	      m->low, m->high);
      if (s.mods[i].bias != m->bias)
	fail ("op %d: %s module %s of %s has bias %#" PRIx64
	      ", the contract says %#" PRIx64, md->op,
	      state_names[m->state], s.mods[i].name, files[m->file].label,
	      s.mods[i].bias, m->bias);
    }
}

/* No two live modules overlap: each mapping replaced what it hid.  */
static void
check_no_overlap (struct model *md)
{
  for (size_t i = 0; i < md->nmods; ++i)
    for (size_t j = i + 1; j < md->nmods; ++j)
      {
	const struct mmod *a = &md->mods[i], *b = &md->mods[j];
	if (a->state == LIVE && b->state == LIVE
	    && overlaps (a->low, a->high, b->low, b->high))
	  fail ("op %d: modules of %s [%#" PRIx64 ", %#" PRIx64 ") and %s [%#"
		PRIx64 ", %#" PRIx64 ") overlap", md->op,
		files[a->file].label, a->low, a->high, files[b->file].label,
		b->low, b->high);
      }
}

/* dwfl_addrmodule finds the live module holding ADDR, or none.  An
   address where a module ends and no other begins is that module's, as
   libdwfl always had it.  */
static void
check_lookup (struct model *md, uint64_t addr)
{
  const struct mmod *want = NULL;
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].state == LIVE
	&& addr >= md->mods[i].low && addr < md->mods[i].high)
      want = &md->mods[i];
  if (want == NULL)
    for (size_t i = 0; i < md->nmods; ++i)
      if (md->mods[i].state == LIVE && addr == md->mods[i].high)
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
	g == NULL ? "" : " module of ", g == NULL ? "" : files[g->file].label,
	g == NULL ? 0 : g->low, g == NULL ? 0 : g->high,
	want == NULL ? "none" : files[want->file].label,
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
      check_lookup (md, m->low);
      check_lookup (md, m->high - 1);
      check_lookup (md, m->high);
      check_lookup (md, m->low + (m->high - m->low) / 2);
      if (m->low > 0)
	check_lookup (md, m->low - 1);
    }
}

/* The answers a profiler gets from a module do not depend on the
   pieces it was made of: dwfl_module_relocate_address,
   dwfl_module_addrname and the build ID's address are those of the
   whole file reported with dwfl_report_elf at the module's bias.  */
static void
check_relative (struct model *md, struct mmod *m, uint64_t addr)
{
  const struct file *f = &files[m->file];
  Dwfl *ref = dwfl_begin (&dwfl_callbacks);
  if (ref == NULL)
    die ("dwfl_begin: %s", dwfl_errmsg (-1));
  dwfl_report_begin (ref);
  Dwfl_Module *ref_mod = dwfl_report_elf (ref, "ref", f->path, -1,
					  f->e_type == ET_EXEC ? 0 : m->bias,
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

enum op
{
  OP_RECORDED, OP_RECORDED2, OP_RECORDED3, OP_SEGMENT, OP_RAW,
  OP_BEGIN, OP_BEGIN_ADD, OP_END, OP_LOOKUP, OP_QUERY, OP_REPORT_ELF,
  OP_NUM
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

static void
piece_from_input (struct input *in, int op, int file, struct piece *p)
{
  const struct file *f = &files[file];
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
	const struct file *o = f->nloads > 0 ? f : &files[f->origin];
	if (o->nloads > 0)
	  l = o->loads[b % o->nloads];
	uint64_t bias = 0x7f0000000000 + (uint64_t) bias_shifts[s & 15];
	if (o->e_type == ET_EXEC)
	  bias = (uint64_t) bias_shifts[s & 15] & 0x3000;
	uint64_t align = (s & 0x10) ? 1 : 0x1000;
	p->pgoff = l.offset & -align;
	p->start = bias + (l.vaddr & -align);
	p->len = ((l.offset + l.filesz + align - 1) & -align) - p->pgoff;
	if (b & 0x80)
	  p->len = (p->len + 0xfff) & -0x1000;
	p->prot = ((l.flags & PF_R ? PROT_READ : 0)
		   | (l.flags & PF_W ? PROT_WRITE : 0)
		   | (l.flags & PF_X ? PROT_EXEC : 0));
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
	  p->pgoff = f->nloads > 0 ? f->loads[d % f->nloads].offset : 0;
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

/* What the contract says of piece P of file FILE before it is
   reported: the modules it must grow if any, or the one it must
   return.  */
struct expect
{
  size_t ncands;
  struct cand cands[64];
  bool must_fail;
  bool must_succeed;
  struct mmod *covering;	/* A live module of FILE holding P.  */
  bool any_meets;
};

static void
expect_report (struct model *md, int file, const struct piece *p,
	       struct expect *e)
{
  const struct file *f = &files[file];
  memset (e, 0, sizeof *e);
  if (invalid_args (p))
    {
      e->must_fail = true;
      return;
    }
  e->ncands = candidates (f, p, e->cands);

  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *m = &md->mods[i];
      /* A module of dwfl_report_elf has no pieces to be reported again
	 after dwfl_report_begin.  */
      if (m->file != file || m->state == REPLACED
	  || (m->from_elf && m->state != LIVE))
	continue;
      if (m->state == LIVE && p->start >= m->low
	  && p->start + p->len <= m->high)
	e->covering = m;
      if (meets (m, e->cands, e->ncands))
	e->any_meets = true;
    }

  if (f->must_fail)
    /* Only a module dwfl_report_elf made of the broken file can be
       returned, for a piece inside it that needs no segment.  */
    e->must_fail = (e->covering == NULL
		    || (p->prot != PROT_NONE && p->prot != -1));
  else if (p->prot == PROT_NONE)
    {
      e->must_succeed = e->covering != NULL;
      e->must_fail = e->covering == NULL;
    }
  else
    e->must_succeed = e->any_meets || (p->prot == -1 && e->covering != NULL);
}

/* Update the model for a successful report of P that returned MOD.  */
static void
model_report (struct model *md, int file, const struct piece *p,
	      const struct expect *e, Dwfl_Module *mod)
{
  const struct file *f = &files[file];
  struct mmod *m = find_mod (md, mod);

  /* A gap, or a piece without PROT inside a module of its file, names
     that module; the latter narrows its biases if it agrees.  */
  if (p->prot == PROT_NONE || (p->prot == -1 && e->covering != NULL))
    {
      if (m == NULL || m != e->covering)
	fail ("op %d: a %s piece of %s returned %s, not the live module"
	      " holding it", md->op, p->prot == -1 ? "PROT -1" : "PROT_NONE",
	      f->label, m == NULL ? "a new module" : state_names[m->state]);
      if (p->prot == PROT_NONE || ! meets (m, e->cands, e->ncands))
	return;
    }

  if (m != NULL && m->state == REPLACED)
    fail ("op %d: a piece of %s revived a replaced module", md->op, f->label);
  if (m != NULL && m->file != file)
    fail ("op %d: a piece of %s returned a module of %s", md->op, f->label,
	  files[m->file].label);

  if (m == NULL)
    {
      /* A new module: no module of the file could take the piece.  */
      if (e->any_meets)
	fail ("op %d: a piece of %s made a new module though a module of"
	      " the file agrees with it", md->op, f->label);
      if (p->prot == -1 && e->covering != NULL)
	fail ("op %d: a PROT -1 piece of %s inside a module of the file"
	      " made a new one", md->op, f->label);
      if (md->nmods == MAX_MODULES)
	die ("too many modules");
      m = &md->mods[md->nmods++];
      memset (m, 0, sizeof *m);
      m->mod = mod;
      m->file = file;
      m->state = LIVE;
      m->low = p->start;
      m->high = p->start + p->len;
      for (size_t i = 0; i < e->ncands; ++i)
	if (! has_bias (m, e->cands[i].bias)
	    && (f->e_type != ET_EXEC || e->cands[i].bias == 0))
	  m->biases[m->nbiases++] = e->cands[i].bias;
      if (m->nbiases == 0)
	fail ("op %d: a piece of %s that no segment maps at an allowed"
	      " bias made a module", md->op, f->label);
      GElf_Addr bias;
      if (dwfl_module_getelf (mod, &bias) == NULL)
	fail ("op %d: new module of %s has no ELF", md->op, f->label);
      if (! bias_allowed (m, e->cands, e->ncands, p->pgoff, false, 0, bias))
	fail ("op %d: new module of %s got bias %#" PRIx64
	      ", not the one the contract chooses", md->op, f->label, bias);
      m->bias = bias;
    }
  else if (meets (m, e->cands, e->ncands))
    {
      /* The piece extends M: narrow its biases, grow its range.  */
      size_t kept = 0;
      for (size_t i = 0; i < m->nbiases; ++i)
	{
	  bool among = false;
	  for (size_t j = 0; j < e->ncands; ++j)
	    among |= e->cands[j].bias == m->biases[i];
	  if (among)
	    m->biases[kept++] = m->biases[i];
	}
      m->nbiases = kept;
      GElf_Addr bias;
      dwfl_module_getelf (mod, &bias);
      if (! bias_allowed (m, e->cands, e->ncands, p->pgoff, true, m->bias,
			  bias))
	fail ("op %d: module of %s moved from bias %#" PRIx64 " to %#" PRIx64
	      ", not the one the contract chooses", md->op, f->label,
	      m->bias, bias);
      m->bias = bias;
      m->from_elf = false;
      if (m->state == STALE)
	{
	  m->state = LIVE;
	  m->low = p->start;
	  m->high = p->start + p->len;
	}
      else
	{
	  if (p->start < m->low)
	    m->low = p->start;
	  if (p->start + p->len > m->high)
	    m->high = p->start + p->len;
	}

    }
  else
    fail ("op %d: a piece of %s returned a %s module whose biases do not"
	  " agree with it", md->op, f->label, state_names[m->state]);

  /* The mapping replaced whatever it hid.  */
  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *o = &md->mods[i];
      if (o != m && o->state != REPLACED
	  && overlaps (o->low, o->high, m->low, m->high))
	{
	  if (p->prot == -1 && o == e->covering)
	    fail ("op %d: a PROT -1 piece of %s inside a module of the file"
		  " replaced that module", md->op, f->label);
	  o->state = REPLACED;
	}
    }
}

static const char *const names[] = { NULL, "a", "b", NULL };

static void
op_report (struct model *md, struct input *in, int op)
{
  int file = pick_file (in);
  struct piece p;
  piece_from_input (in, op, file, &p);
  uint8_t flags = u8 (in);
  const struct file *f = &files[file];
  const char *name = (flags & 0xc) == 0xc ? f->label : names[(flags >> 2) & 3];

  if (! md->in_cycle)
    {
      dwfl_report_begin_add (md->dwfl);
      md->in_cycle = true;
    }

  int fd = -1;
  if (flags & 1)
    fd = open (f->path, O_RDONLY);

  struct expect e;
  expect_report (md, file, &p, &e);
  struct snapshot before;
  take_snapshot (md->dwfl, &before);

  (void) dwfl_errno ();
  Dwfl_Module *mod = dwfl_report_elf_mmap (md->dwfl, name, f->path, fd,
					   p.start, p.len, p.pgoff, p.prot);
  int err = dwfl_errno ();
  if (trace)
    {
      Dwarf_Addr low = 0, high = 0, bias = 0;
      if (mod != NULL)
	{
	  dwfl_module_info (mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	  dwfl_module_getelf (mod, &bias);
	}
      fprintf (stderr, "op %d: dwfl_report_elf_mmap (%s, %s, fd %d, start %#"
	       PRIx64 ", len %#" PRIx64 ", pgoff %#" PRIx64 ", prot %d)%s = ",
	       md->op, name ?: "NULL", f->label, fd, p.start, p.len, p.pgoff,
	       p.prot, (flags & 2) ? " twice" : "");
      if (mod == NULL)
	fprintf (stderr, "NULL (%s)\n", dwfl_errmsg (err));
      else
	fprintf (stderr, "%p [%#" PRIx64 ", %#" PRIx64 ") bias %#" PRIx64
		 "\n", mod, low, high, bias);
    }

  if (mod == NULL)
    {
      if (err == 0)
	fail ("op %d: dwfl_report_elf_mmap failed without an error", md->op);
      if (invalid_args (&p)
	  && strcmp (dwfl_errmsg (err), "Invalid argument") != 0)
	fail ("op %d: bad arguments gave \"%s\"", md->op, dwfl_errmsg (err));
      if (e.must_succeed)
	fail ("op %d: piece %#" PRIx64 "+%#" PRIx64 " @%#" PRIx64 " prot %d"
	      " of %s failed (%s), but a module of the file %s it",
	      md->op, p.start, p.len, p.pgoff, p.prot, f->label,
	      dwfl_errmsg (err),
	      p.prot == PROT_NONE ? "holds" : "agrees with");
      struct snapshot after;
      take_snapshot (md->dwfl, &after);
      compare_snapshots (&before, &after, "a failed report changed the modules");
      if (fd >= 0 && fcntl (fd, F_GETFD) < 0)
	fail ("op %d: a failed report closed the caller's descriptor", md->op);
      if (fd >= 0)
	close (fd);
      check_model (md);
      return;
    }

  if (e.must_fail)
    fail ("op %d: piece %#" PRIx64 "+%#" PRIx64 " @%#" PRIx64 " prot %d"
	  " of %s succeeded", md->op, p.start, p.len, p.pgoff, p.prot,
	  f->label);
  Dwarf_Addr low, high;
  const char *mainfile;
  dwfl_module_info (mod, NULL, &low, &high, NULL, NULL, &mainfile, NULL);
  if (p.start < low || p.start + p.len > high)
    fail ("op %d: the module returned, [%#" PRIx64 ", %#" PRIx64
	  "), does not cover the piece", md->op, low, high);
  if (mainfile == NULL || strcmp (mainfile, f->path) != 0)
    fail ("op %d: the module returned is of %s, not %s", md->op,
	  mainfile ?: "no file", f->path);

  model_report (md, file, &p, &e, mod);
  check_model (md);
  check_no_overlap (md);

  if (flags & 2)
    {
      /* Reporting a piece twice changes nothing.  */
      struct snapshot once, twice;
      take_snapshot (md->dwfl, &once);
      Dwfl_Module *again = dwfl_report_elf_mmap (md->dwfl, name, f->path, -1,
						 p.start, p.len, p.pgoff,
						 p.prot);
      if (again != mod)
	fail ("op %d: the same piece again returned %s", md->op,
	      again == NULL ? dwfl_errmsg (-1) : "another module");
      take_snapshot (md->dwfl, &twice);
      compare_snapshots (&once, &twice, "the same piece again changed the modules");
    }

  if (flags & 0x10)
    check_lookups (md);
}

static int
removed_callback (Dwfl_Module *mod, void *userdata __attribute__ ((unused)),
		  const char *name, Dwarf_Addr base, void *arg)
{
  struct model *md = arg;
  struct mmod *m = find_mod (md, mod);
  if (m == NULL)
    fail ("op %d: REMOVED got a module never returned", md->op);
  if (m->state == LIVE)
    fail ("op %d: REMOVED got a live module of %s", md->op,
	  files[m->file].label);
  if (m->seen_removed)
    fail ("op %d: REMOVED got a module of %s twice", md->op,
	  files[m->file].label);
  Dwarf_Addr low, high;
  const char *mname = dwfl_module_info (mod, NULL, &low, &high,
					NULL, NULL, NULL, NULL);
  if (mname != name || base != low || low != m->low || high != m->high)
    fail ("op %d: REMOVED got module %s at %#" PRIx64 ", it is %s [%#"
	  PRIx64 ", %#" PRIx64 ")", md->op, name, base, mname, low, high);
  GElf_Addr bias;
  if (dwfl_module_getelf (mod, &bias) == NULL)
    fail ("op %d: REMOVED got a module without its ELF", md->op);
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
	fail ("op %d: dwfl_report_end did not pass a %s module of %s to"
	      " REMOVED", md->op, state_names[m->state], files[m->file].label);
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

/* dwfl_report_elf of a whole file where nothing was reported: a
   module that later pieces of the file must grow when they agree with
   its bias.  */
static void
op_report_elf (struct model *md, struct input *in)
{
  int file = pick_file (in);
  const struct file *f = &files[file];
  uint8_t b = u8 (in);
  uint64_t base = 0x7f0000000000 + (uint64_t) bias_shifts[b & 15];
  if (f->must_fail || f->e_type == ET_EXEC)
    base = 0;
  const char *name = names[(b >> 4) & 3] ?: f->label;

  /* Where the module will be, from a Dwfl of its own: the model has
     no room for modules that overlap.  */
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
  if (mod == NULL)
    return;
  for (size_t i = 0; i < md->nmods; ++i)
    if (overlaps (low, high, md->mods[i].low, md->mods[i].high))
      return;

  if (! md->in_cycle)
    {
      dwfl_report_begin_add (md->dwfl);
      md->in_cycle = true;
    }
  mod = dwfl_report_elf (md->dwfl, name, f->path, -1, base, true);
  GElf_Addr bias = 0;
  if (mod == NULL || dwfl_module_getelf (mod, &bias) == NULL)
    fail ("op %d: dwfl_report_elf of %s failed: %s", md->op, f->label,
	  dwfl_errmsg (-1));
  if (trace)
    fprintf (stderr, "op %d: dwfl_report_elf (%s, %s, base %#" PRIx64
	     ") = %p [%#" PRIx64 ", %#" PRIx64 ") bias %#" PRIx64 "\n",
	     md->op, name, f->label, base, mod, low, high, bias);
  if (find_mod (md, mod) != NULL)
    fail ("op %d: dwfl_report_elf returned a module it had", md->op);
  if (md->nmods == MAX_MODULES)
    die ("too many modules");
  struct mmod *m = &md->mods[md->nmods++];
  memset (m, 0, sizeof *m);
  m->mod = mod;
  m->file = file;
  m->state = LIVE;
  m->low = low;
  m->high = high;
  m->bias = bias;
  m->biases[m->nbiases++] = bias;
  m->from_elf = true;
  check_model (md);
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
  int fds = fds_open ();

  static struct model md;
  md.nmods = 0;
  md.in_cycle = false;
  md.dwfl = dwfl_begin (&dwfl_callbacks);
  if (md.dwfl == NULL)
    die ("dwfl_begin: %s", dwfl_errmsg (-1));

  for (md.op = 0; in.n > 0 && md.op < MAX_OPS; ++md.op)
    {
      int op = u8 (&in) % OP_NUM;
      if (trace && op >= OP_BEGIN)
	fprintf (stderr, "op %d: %s\n", md.op,
		 (const char *[]) { "dwfl_report_begin", "dwfl_report_begin_add",
				    "dwfl_report_end", "lookup", "query",
				    "dwfl_report_elf" }
		 [op - OP_BEGIN]);
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

  dwfl_end (md.dwfl);
  int now = fds_open ();
  if (now != fds)
    fail ("%d descriptors open after dwfl_end, %d before", now, fds);
  return 0;
}
