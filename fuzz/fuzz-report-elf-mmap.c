/* libFuzzer harness for dwfl_report_elf_mmap and dwfl_report_elf_mmap_elf.

   Each input is a sequence of operations on up to four Dwfls: reports
   of mmap pieces of a small set of files, by name, by a descriptor or
   through an Elf the caller opened; dwfl_report_begin,
   dwfl_report_begin_add, dwfl_report_end, dwfl_report_elf,
   dwfl_report_module, dwfl_addrmodule and the module queries a
   profiler makes.  The files are the layout testfiles of the series
   (build/elfutils/tests/testfile-mmap-*.bz2); copies of some of them
   broken in ways a file on disk can be broken, or rebuilt with the
   same program headers and another build ID or none; and "swap", a
   file that the input replaces, rewrites or removes between its
   reports, as a package upgrade or a rebuild does to a library that a
   process still maps.  All are made once by LLVMFuzzerInitialize.

   Each Dwfl has the callbacks of one kind of caller: the proc ones
   (dwfl_linux_proc_find_elf), none (no find_elf, as perf's unwinder),
   dwfl_build_id_find_elf with a debuginfo path whose .build-id links
   the input plants, or a find_elf that opens FILE.copy, another copy of
   the file that the input makes.  The Elfs the caller opened are shared
   by all the Dwfls.

   Next to libdwfl the harness keeps a model of what the contract in
   libdwfl.h says the modules must be.  For each module: its kind (made
   by dwfl_report_elf_mmap, dwfl_report_elf or dwfl_report_module); its
   state (live, to be removed by the cycle's dwfl_report_end, replaced);
   the address ranges its pieces cover and their hull; the load biases
   that agree with all its pieces, and those of them it can have now;
   its file: the name, and the identity (device, inode, size,
   modification time) or the caller's Elf; and whether its ELF was
   wanted yet.  After every operation it checks libdwfl against the
   model and calls abort () on the first difference, printing which
   rule was broken:

   - every module of dwfl_getmodules is one the model has, with its
     name, userdata and hull; a new module only when no module of the
     file (name and identity) agrees with the piece, a grown one only
     when it does, a module of dwfl_report_elf of the file's name
     included (of its build ID, if the file has one), also after
     dwfl_report_begin; of those, a live one whose range holds the
     piece if there is one; the bias one the rule in libdwfl.h chooses
     (bias 0 for ET_EXEC);
   - the ranges of the live modules do not overlap; a piece replaces
     every live module of any kind whose ranges it meets, and not one in
     whose hole it lies; REMOVED gets those and the modules the cycle
     did not report again, and nothing else;
   - a PROT_NONE piece changes nothing: it returns a live module of its
     file whose range holds it and which has a bias of a segment the
     piece maps or the bias that its page has in the mapping of the
     whole span from the first PT_LOAD, or fails with "no matching
     address range"; a PROT -1 piece whose first or last byte is in a
     live module of its file (in a range of it, not a hole) that
     agrees with none of its segments returns that module and changes
     nothing;
   - a failed call changes no module and sets the error libdwfl.h names
     for what is wrong: the arguments, or the file (missing, not a
     regular file, not ELF, no program headers, ET_REL or ET_CORE, a
     segment past its end, no segment at the piece); a piece a module
     agrees with does not fail;
   - descriptors: the caller's is open after every call, success or
     failure, at the offset it had, and may serve every piece of its
     file; libdwfl keeps one duplicate per file identity that a module
     made from a descriptor uses, in each Dwfl, made with the first such
     module and closed with the last, and no other descriptor for a
     module until its ELF is wanted; a module whose ELF comes from that
     duplicate or the caller's Elf opens none; dwfl_module_info names no
     main file until then; a lowered RLIMIT_NOFILE fails no call while
     what the contract lets libdwfl hold is below it;
   - a module's ELF, when wanted, comes from the caller's Elf or the
     duplicate of its descriptor if it has one, else from find_elf (the
     copy, a file that a .build-id link names whose build ID is the
     module's), else from the file's name now; that file is refused
     with "ELF file is not the one that was mapped" if the mapped file
     had a build ID and it has another or none, or, without one, if it
     was found by the file's name and is another identity; a module
     without its ELF gives no symbol, of that file or another;
   - the same piece reported twice changes nothing;
   - dwfl_addrmodule returns the live module whose ranges hold the
     address, or none (in a hole), also between reports;
   - relocation, symbols, source lines, CFI and build ID of a module
     are those of the whole file reported by dwfl_report_elf at the
     module's bias;
   - the work of each report, lookup and report cycle, counted in the
     coverage counters of the edges of libdwfl and lib/ that it takes:
     outside the search trees' comparison functions at most B + C SIZE
     edges, SIZE what the call is given (the file's program headers,
     the ranges of the modules it grows and replaces), whatever the
     number n of modules; in them at most (D + E SIZE) log2 (n + 2);
     and the same call again in a Dwfl of more modules a few edges more
     at most, so that a walk of the module list shows (see WORK_*);
   - no descriptor is left open by dwfl_end (and LeakSanitizer, with
     libFuzzer's -detect_leaks, finds no memory left).

   An input starts by wanting the ELF of every module after each
   operation, so that a bias is checked as soon as it is chosen; an
   operation turns that off ("lazy"), so that modules stay without
   their files, as a profiler's do, until the input asks for them.

   FUZZ_TESTFILES overrides the directory of the testfiles.  FUZZ_TRACE
   set prints each operation, to turn a crashing input into a plain
   sequence of calls.  FUZZ_WORK_LOG names a file to which the work of
   each call is appended, to calibrate the bound.  FUZZ_KNOWN_BUGS, a
   list of names, turns off the checks of bugs reported and not fixed
   yet (fuzz/README.md), so that a long run can look for others.  */

#define _GNU_SOURCE 1
#include <bzlib.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <gelf.h>
#include <libdwfl.h>
#include <libdwelf.h>
#include <sanitizer/common_interface_defs.h>

#ifndef TESTFILES_DIR
# define TESTFILES_DIR "build/elfutils/tests"
#endif

#define MAX_FILES 320
#define MAX_PIECES 32
#define MAX_MODULES 512
#define MAX_OPS 96
#define MAX_LOADS 128
#define MAX_RANGES 128
#define MAX_DWFLS 4
#define MAX_BUILD_ID 64

/* The messages of the errors libdwfl.h names.  */
#define E_INVALID "Invalid argument"
#define E_MISSING "No such file or directory"
#define E_BADELF "not a valid ELF file"
#define E_NO_PHDR "No ELF program headers"
#define E_NOT_LOADABLE "ELF file is not a loadable object"
#define E_TRUNCATED "image truncated"
#define E_NO_MATCH "no matching address range"
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

struct build_id
{
  int len;
  unsigned char bits[MAX_BUILD_ID];
};

/* What a report reads of a file when a piece is reported: its ELF
   header, program headers and build ID note, nothing more.  */
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
  /* The program headers libelf gives, and the build ID of their
     notes.  */
  size_t phnum;
  struct build_id build_id;
};

/* What libelf makes of a file, as a module opens it when its ELF is
   wanted.  */
struct elf_view
{
  /* Whether open_elf takes it: an ELF header, and the program headers
     up to the first PT_LOAD.  */
  bool ok;
  GElf_Half e_type;
  /* Its build ID as libdwfl finds it in an open file: in the notes of
     its sections, or without sections of its segments.  */
  struct build_id build_id;
  size_t shnum;
};

/* A file the inputs can report pieces of.  */
struct file
{
  char *path;
  char *label;
  /* What a report reads of it by name or descriptor, and of an Elf of
     it the caller opened, which has no size to check segments
     against.  */
  struct view view;
  struct view given_view;
  struct elf_view elf;

  /* The real testfile whose recorded pieces fit this one.  */
  int origin;

  /* Whether its bytes can be written to the swap file: a regular file
     of a reasonable size.  */
  bool can_copy;

  /* Whether this is the swap file, whose bytes change: its views are
     those of the file it holds a copy of.  */
  bool swap;

  /* Whether it is a regular file.  */
  bool regular;
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
static char *debug_dir;
static const char *known_bugs;
static bool trace;
static FILE *work_log;

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

/* The offset of the descriptor of E's build ID note, or 0.  */
static size_t
build_id_desc (struct elf64 *e, size_t *type_off)
{
  for (int i = 0; nth_phdr (e, PT_NOTE, i) != NULL; ++i)
    {
      Elf64_Phdr *p = nth_phdr (e, PT_NOTE, i);
      size_t pos = p->p_offset, end = p->p_offset + p->p_filesz;
      while (end <= e->size && pos + 12 <= end)
	{
	  Elf64_Nhdr *n = (Elf64_Nhdr *) (e->data + pos);
	  size_t name = pos + 12;
	  size_t desc = name + ((n->n_namesz + 3) & -4);
	  if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4
	      && memcmp (e->data + name, "GNU", 4) == 0)
	    {
	      *type_off = pos + 8;
	      return desc;
	    }
	  pos = desc + ((n->n_descsz + 3) & -4);
	}
    }
  return 0;
}

/* One way to break or change a file: change the copy E, or return a
   length to truncate it to.  */
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

/* A file built again under its name from other sources, with the same
   program headers: another build ID (its first byte changed); no build
   ID (the note's n_type no longer NT_GNU_BUILD_ID); and that rebuilt,
   the same bytes changed as for another build ID.  */
MUTATION (rebuilt, size_t t; size_t d = build_id_desc (e, &t);
	  if (d != 0) e->data[d] ^= 0xff)
MUTATION (nobid, size_t t; if (build_id_desc (e, &t) != 0)
	    { e->data[t] = 0x03; e->data[t + 1] = 0x01; })
MUTATION (nobid_rebuilt, size_t t; size_t d = build_id_desc (e, &t);
	  if (d != 0) { e->data[d] ^= 0xff; e->data[t] = 0x03;
			e->data[t + 1] = 0x01; })

static const struct mutation rebuilds[] =
  {
#define M(name) { #name, mutate_##name }
    M (rebuilt), M (nobid), M (nobid_rebuilt),
#undef M
  };

/* The testfiles the broken and rebuilt copies are made from: tiny lld
   (segments sharing page 0), bfd, gold with two executable segments in
   a page, and an executable.  */
static const char *const mutation_bases[] =
  {
    "testfile-mmap-lld-tiny", "testfile-mmap-pie-bfd",
    "testfile-mmap-gold-unlikely", "testfile-mmap-nopie-lld",
  };
#define NBASES (sizeof mutation_bases / sizeof mutation_bases[0])

/* What a report reads of a file.  */

/* The build ID of the notes in ELF's program headers, as a report reads
   it (__libdwfl_find_phdr_build_id).  */
static void
phdr_build_id (Elf *elf, size_t phnum, struct build_id *id)
{
  id->len = 0;
  for (size_t i = 0; i < phnum; ++i)
    {
      GElf_Phdr mem, *ph = gelf_getphdr (elf, i, &mem);
      if (ph == NULL || ph->p_type != PT_NOTE)
	continue;
      Elf_Data *data = elf_getdata_rawchunk (elf, ph->p_offset, ph->p_filesz,
					     ph->p_align == 8
					     ? ELF_T_NHDR8 : ELF_T_NHDR);
      if (data == NULL)
	continue;
      size_t pos = 0, name, desc;
      GElf_Nhdr nhdr;
      while ((pos = gelf_getnote (data, pos, &nhdr, &name, &desc)) > 0)
	if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4
	    && memcmp ((char *) data->d_buf + name, "GNU", 4) == 0)
	  {
	    if (nhdr.n_descsz > MAX_BUILD_ID)
	      die ("a build ID of %u bytes", nhdr.n_descsz);
	    id->len = nhdr.n_descsz;
	    memcpy (id->bits, (char *) data->d_buf + desc, id->len);
	    return;
	  }
    }
}

/* Read what a report reads of the ELF file ELF, of SIZE bytes (-1 for
   an Elf of the caller, whose size is not known: as big as can be),
   into V, and decide what the contract says of it: the ELF header, and
   the program headers that libelf gives, which are those that are in
   the file.  The checks are made in the order in which a reader meets
   the fields; libdwfl.h names no order for a file with several
   faults.  */
static void
read_view (struct view *v, Elf *elf, int64_t size)
{
  memset (v, 0, sizeof *v);
  v->error = E_BADELF;
  GElf_Ehdr ehdr_mem, *ehdr = gelf_getehdr (elf, &ehdr_mem);
  if (ehdr == NULL)
    return;
  v->e_type = ehdr->e_type;
  v->error = E_NOT_LOADABLE;
  if (v->e_type != ET_DYN && v->e_type != ET_EXEC)
    return;
  v->error = E_NO_PHDR;
  if (elf_getphdrnum (elf, &v->phnum) != 0 || v->phnum == 0)
    return;
  phdr_build_id (elf, v->phnum, &v->build_id);

  v->loads = calloc (v->phnum + 1, sizeof v->loads[0]);
  if (v->loads == NULL)
    die ("out of memory");
  for (size_t i = 0; i < v->phnum; ++i)
    {
      GElf_Phdr mem, *ph = gelf_getphdr (elf, i, &mem);
      if (ph == NULL)
	{
	  v->nloads = 0;
	  return;
	}
      if (ph->p_type == PT_GNU_RELRO)
	{
	  v->relro_start = ph->p_vaddr;
	  v->relro_end = ph->p_vaddr + ph->p_memsz;
	}
      if (ph->p_type != PT_LOAD)
	continue;
      /* A segment that ends past 2^64 is past the end of any file.  */
      uint64_t end = size >= 0 ? (uint64_t) size : UINT64_MAX;
      if (ph->p_offset > end || ph->p_filesz > end - ph->p_offset)
	{
	  v->error = E_TRUNCATED;
	  v->nloads = 0;
	  return;
	}
      if (ph->p_filesz > 0)
	v->loads[v->nloads++] = (struct load)
	  { ph->p_offset, ph->p_filesz, ph->p_vaddr, ph->p_flags };
    }
  v->error = E_NO_MATCH;
  v->ok = v->nloads > 0;
  if (v->ok)
    v->error = NULL;
}

/* What a report reads of PATH by name or descriptor, and through an Elf
   the caller opens.  */
static void
read_views (struct file *f)
{
  int fd = open (f->path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    die ("cannot read %s: %m", f->path);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  read_view (&f->view, elf, st.st_size);
  elf_end (elf);
  elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  read_view (&f->given_view, elf, -1);
  if (elf == NULL)
    f->given_view.error = NULL;
  elf_end (elf);
  close (fd);
}

/* What libelf makes of PATH when a module opens it (open_elf): the
   ELF header, the program headers up to the first PT_LOAD; and the
   build ID libdwfl finds in it then.  */
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
  if (ehdr != NULL && elf_kind (elf) == ELF_K_ELF)
    {
      e->ok = true;
      e->e_type = ehdr->e_type;
      if (e->e_type != ET_REL)
	{
	  e->ok = elf_getphdrnum (elf, &phnum) == 0;
	  for (size_t i = 0; e->ok && i < phnum; ++i)
	    {
	      GElf_Phdr mem, *ph = gelf_getphdr (elf, i, &mem);
	      e->ok = ph != NULL;
	      if (ph != NULL && ph->p_type == PT_LOAD)
		break;
	    }
	}
      const void *bits;
      ssize_t len = dwelf_elf_gnu_build_id (elf, &bits);
      if (len > MAX_BUILD_ID)
	die ("%s has a build ID of %zd bytes", path, len);
      e->build_id.len = len > 0 ? len : 0;
      if (len > 0)
	memcpy (e->build_id.bits, bits, len);
      if (elf_getshdrnum (elf, &e->shnum) != 0)
	e->shnum = 0;
    }
  elf_end (elf);
  close (fd);
}

static bool
same_build_id (const struct build_id *a, const struct build_id *b)
{
  return a->len == b->len && memcmp (a->bits, b->bits, a->len) == 0;
}

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

/* Learn what the contract says about F.  */
static void
examine_file (struct file *f)
{
  struct stat st, lst;
  memset (&f->view, 0, sizeof f->view);
  memset (&f->given_view, 0, sizeof f->given_view);
  memset (&f->elf, 0, sizeof f->elf);
  if (stat (f->path, &st) != 0)
    {
      f->view.error = f->given_view.error = E_MISSING;
      return;
    }
  if (! S_ISREG (st.st_mode))
    {
      /* Not a regular file: a directory here.  */
      f->view.error = f->given_view.error = E_BADELF;
      return;
    }
  f->regular = true;
  read_views (f);
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

/* While an input has lowered RLIMIT_NOFILE, the limit it had before:
   the harness's own copies of files are made under that.  */
static const struct rlimit *nofile_before;

/* Make PATH a copy of file SRC: a new file put in its place
   (RENAME_OVER), or the same file written over.  */
static void
write_copy (const char *path, int src, bool rename_over)
{
  struct rlimit low;
  if (nofile_before != NULL
      && (getrlimit (RLIMIT_NOFILE, &low) != 0
	  || setrlimit (RLIMIT_NOFILE, nofile_before) != 0))
    die ("setrlimit: %m");
  size_t size;
  unsigned char *data = read_whole (files[src].path, &size);
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
  if (nofile_before != NULL && setrlimit (RLIMIT_NOFILE, &low) != 0)
    die ("setrlimit: %m");
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

/* The work of a call.  libFuzzer's coverage instrumentation gives each
   edge of the sanitized libdw.so an 8-bit counter, incremented each
   time the edge is taken (__sancov_cntrs, with the address of each
   edge in __sancov_pcs).  The work of a call is what it adds to the
   counters of the functions of libdwfl/ and lib/ (libdwfl's search
   trees): every loop of libdwfl, also one that calls nothing, counts
   once per turn; libelf's reading of a file, in another library, does
   not.  It is counted in two parts: the edges of the comparison
   functions of libdwfl's search trees (compare_*), called by libc's
   tsearch, tfind and tdelete once for each level of a balanced tree
   that they go down, O(log n) each; and every other edge, which must
   not depend on the number of modules at all.  A counter wraps at 256:
   a Dwfl here has fewer modules (MAX_LIVE), so that a walk of its
   module list still counts once a module.  */

struct counter_run
{
  unsigned char *counters;
  size_t n;
  unsigned char *saved;
  bool compare;			/* Of a comparison function.  */
};

static struct counter_run *work_runs;
static size_t work_nruns;
static size_t work_ncounters;

struct sancov_sections
{
  const char *path;
  uintptr_t base;
};

static int
find_libdw (struct dl_phdr_info *info, size_t size __attribute__ ((unused)),
	    void *arg)
{
  struct sancov_sections *s = arg;
  const char *slash = strrchr (info->dlpi_name, '/');
  if (slash != NULL && strncmp (slash, "/libdw.so", 9) == 0)
    {
      s->path = info->dlpi_name;
      s->base = info->dlpi_addr;
      return 1;
    }
  return 0;
}

/* libdw.so's functions, from its symbol table: start address and name,
   sorted.  */
struct function
{
  GElf_Addr addr;
  const char *name;
};

static int
compare_functions (const void *a, const void *b)
{
  const struct function *fa = a, *fb = b;
  return fa->addr < fb->addr ? -1 : fa->addr > fb->addr;
}

/* Whether the function at ADDR of libdw.so (ELF, DW) was compiled from
   a file in libdwfl/ or lib/: 0 if not, 2 if it is a comparison function
   of a search tree (by its name, among the NFUNCS of FUNCS), else 1.
   libdw and libelf are read here, not libdwfl, the code measured.  */
static int
counted_function (Dwarf *dw, const struct function *funcs, size_t nfuncs,
		  GElf_Addr addr)
{
  Dwarf_Die cu;
  const char *name = (dwarf_addrdie (dw, addr, &cu) == NULL ? NULL
		      : dwarf_diename (&cu));
  const char *slash = name == NULL ? NULL : strrchr (name, '/');
  if (slash == NULL)
    return 0;
  const char *dir = slash;
  while (dir > name && dir[-1] != '/')
    --dir;
  if (! ((slash - dir == 7 && strncmp (dir, "libdwfl", 7) == 0)
	 || (slash - dir == 3 && strncmp (dir, "lib", 3) == 0)))
    return 0;
  size_t lo = 0, hi = nfuncs;
  while (hi - lo > 1)
    {
      size_t mid = (lo + hi) / 2;
      if (funcs[mid].addr <= addr)
	lo = mid;
      else
	hi = mid;
    }
  return (nfuncs > 0 && funcs[lo].addr <= addr
	  && strstr (funcs[lo].name, "compare") != NULL) ? 2 : 1;
}

static void
work_init (void)
{
  struct sancov_sections s = { NULL, 0 };
  dl_iterate_phdr (find_libdw, &s);
  if (s.path == NULL)
    die ("libdw.so is not loaded");

  int fd = open (s.path, O_RDONLY);
  Elf *elf = fd < 0 ? NULL : elf_begin (fd, ELF_C_READ_MMAP, NULL);
  size_t shstrndx;
  if (elf == NULL || elf_getshdrstrndx (elf, &shstrndx) != 0)
    die ("cannot read %s", s.path);
  GElf_Addr cntrs = 0, pcs = 0;
  size_t ncntrs = 0;
  struct function *funcs = NULL;
  size_t nfuncs = 0;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn (elf, scn)) != NULL; )
    {
      GElf_Shdr mem, *sh = gelf_getshdr (scn, &mem);
      const char *name = sh == NULL ? NULL : elf_strptr (elf, shstrndx,
							  sh->sh_name);
      if (name != NULL && strcmp (name, "__sancov_cntrs") == 0)
	{
	  cntrs = sh->sh_addr;
	  ncntrs = sh->sh_size;
	}
      else if (name != NULL && strcmp (name, "__sancov_pcs") == 0)
	pcs = sh->sh_addr;
      else if (sh != NULL && sh->sh_type == SHT_SYMTAB)
	{
	  Elf_Data *data = elf_getdata (scn, NULL);
	  size_t n = sh->sh_entsize == 0 ? 0 : sh->sh_size / sh->sh_entsize;
	  funcs = calloc (n + 1, sizeof funcs[0]);
	  if (funcs == NULL)
	    die ("out of memory");
	  for (size_t i = 0; data != NULL && i < n; ++i)
	    {
	      GElf_Sym sym;
	      if (gelf_getsym (data, i, &sym) != NULL
		  && GELF_ST_TYPE (sym.st_info) == STT_FUNC && sym.st_value != 0)
		funcs[nfuncs++] = (struct function)
		  { sym.st_value, elf_strptr (elf, sh->sh_link, sym.st_name) };
	    }
	}
    }
  if (cntrs == 0 || pcs == 0 || nfuncs == 0)
    die ("%s has no coverage counters or no symbols: not built by"
	 " build-sanitized.sh", s.path);
  qsort (funcs, nfuncs, sizeof funcs[0], compare_functions);
  unsigned char *counters = (unsigned char *) (s.base + cntrs);
  const uintptr_t *table = (const uintptr_t *) (s.base + pcs);
  Dwarf *dw = dwarf_begin_elf (elf, DWARF_C_READ, NULL);
  if (dw == NULL)
    die ("%s has no DWARF: %s", s.path, dwarf_errmsg (-1));

  /* Each function's edges follow its entry, flagged 1, in the table.  */
  work_runs = calloc (ncntrs, sizeof work_runs[0]);
  if (work_runs == NULL)
    die ("out of memory");
  int counting = 0;
  size_t ncompare = 0;
  for (size_t i = 0; i < ncntrs; ++i)
    {
      if (table[2 * i + 1] & 1)
	{
	  int counted = counted_function (dw, funcs, nfuncs,
					  table[2 * i] - s.base);
	  if (counted != 0 && counted != counting)
	    work_runs[work_nruns++] = (struct counter_run)
	      { &counters[i], 0, NULL, counted == 2 };
	  counting = counted;
	}
      if (counting)
	{
	  work_runs[work_nruns - 1].n++;
	  work_ncounters++;
	  ncompare += counting == 2;
	}
    }
  dwarf_end (dw);
  free (funcs);
  elf_end (elf);
  close (fd);
  if (work_ncounters == 0 || ncompare == 0)
    die ("no function of libdwfl in %s", s.path);
  if (trace)
    fprintf (stderr, "work: %zu counters of libdwfl and lib/ in %zu runs,"
	     " %zu of comparison functions\n", work_ncounters, work_nruns,
	     ncompare);
  unsigned char *saved = malloc (work_ncounters);
  if (saved == NULL)
    die ("out of memory");
  for (size_t i = 0; i < work_nruns; ++i)
    {
      work_runs[i].saved = saved;
      saved += work_runs[i].n;
    }
}

/* Not instrumented: the fuzzer's comparison hooks would cost more than
   the calls measured.  */
static void __attribute__ ((no_sanitize ("coverage")))
work_start (void)
{
  for (size_t i = 0; i < work_nruns; ++i)
    memcpy (work_runs[i].saved, work_runs[i].counters, work_runs[i].n);
}

/* The work since work_start: the edges of the comparison functions in
   WORK[1], the others in WORK[0].  */
struct work
{
  uint64_t edges;
  uint64_t compares;
};

static struct work __attribute__ ((no_sanitize ("coverage")))
work_done (void)
{
  struct work w = { 0, 0 };
  for (size_t i = 0; i < work_nruns; ++i)
    {
      const unsigned char *now = work_runs[i].counters;
      const unsigned char *was = work_runs[i].saved;
      size_t n = work_runs[i].n;
      uint64_t sum = 0;
      for (size_t j = 0; j < n; j += 8)
	{
	  /* Most counters did not change.  */
	  uint64_t a = 0, b = 0;
	  size_t k = n - j < 8 ? n - j : 8;
	  memcpy (&a, now + j, k);
	  memcpy (&b, was + j, k);
	  if (a != b)
	    for (size_t l = j; l < j + k; ++l)
	      sum += (unsigned char) (now[l] - was[l]);
	}
      if (work_runs[i].compare)
	w.compares += sum;
      else
	w.edges += sum;
    }
  return w;
}

/* The callbacks of the Dwfls: of each kind of caller.  */

enum callbacks
{
  CB_PROC,			/* dwfl_linux_proc_find_elf.  */
  CB_NONE,			/* No find_elf, as perf's unwinder.  */
  CB_BUILD_ID,			/* dwfl_build_id_find_elf, in DEBUG_DIR.  */
  CB_COPY,			/* find_copy: FILE.copy.  */
};

static const char *const callback_names[] =
  { "proc", "no find_elf", "build-id", "copy" };

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

static int find_copy (Dwfl_Module *, void **, const char *, Dwarf_Addr,
		      char **, Elf **);

static const Dwfl_Callbacks dwfl_callbacks[] =
  {
    [CB_PROC] = { .find_elf = dwfl_linux_proc_find_elf,
		  .find_debuginfo = no_debuginfo,
		  .debuginfo_path = &debug_dir },
    [CB_NONE] = { .find_debuginfo = no_debuginfo,
		  .debuginfo_path = &debug_dir },
    [CB_BUILD_ID] = { .find_elf = dwfl_build_id_find_elf,
		      .find_debuginfo = no_debuginfo,
		      .debuginfo_path = &debug_dir },
    [CB_COPY] = { .find_elf = find_copy,
		  .find_debuginfo = no_debuginfo,
		  .debuginfo_path = &debug_dir },
  };

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

/* The file a report reads, as libdwfl.h tells files apart: its name
   (FILE), and its identity (GEN, of the swap file's versions) or the
   caller's Elf (GIVEN); and what is in it.  */
struct ident
{
  int file;
  int gen;
  int given;			/* The number of the caller's Elf, or -1.  */
  int content;			/* The file whose bytes it holds, or -1.  */
  int inode;			/* Which of the swap file's, or -1.  */
};

struct mmod
{
  Dwfl_Module *mod;
  uintptr_t tag;		/* Its userdata, set when it was made.  */
  const char *name;
  enum kind kind;
  enum state state;

  /* The file it was reported for (-1 for K_MODULE).  For K_MMAP, the
     file its pieces were of, whose headers (of SRC's bytes) they were
     read with, and whether that file keeps a duplicate of the caller's
     descriptor (DUP), as one made from it does; for K_ELF, SRC is the
     file dwfl_report_elf opened.  */
  int file;
  struct ident id;
  int src;
  bool dup;
  struct build_id build_id;

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
     whose bytes it is, and the descriptors that holds.  */
  bool opened;
  bool open_ok;
  int open_src;
  int open_inode;
  int held_fds;

  bool seen_removed;
};

/* A Dwfl and its model.  */
struct model
{
  int index;
  Dwfl *dwfl;
  enum callbacks callbacks;
  size_t nmods;
  struct mmod mods[MAX_MODULES];
  bool in_cycle;
  bool marked;			/* dwfl_report_begin marked modules.  */
  int removed_calls;
  int removed_fail_at;
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

/* An Elf the caller opened for a file and passes to
   dwfl_report_elf_mmap_elf, in any Dwfl: the Nth of FILE.  */
struct given
{
  int file;
  int n;
  int content;
  int inode;
  int fd;
  Elf *elf;
  bool dropped;			/* The caller ended it.  */
};

/* A link in DEBUG_DIR/.build-id for dwfl_build_id_find_elf.  */
struct link
{
  struct build_id build_id;
  int target;
  char *path;
};

#define MAX_INODES (MAX_OPS + 1)
#define MAX_SHARED 8
#define MAX_GIVEN 16
#define MAX_LINKS 16
/* A Dwfl has no more modules than this, so that no counter of the work
   of one call wraps.  */
#define MAX_LIVE 240

/* What the Dwfls share: the files, the descriptors and Elfs of the
   caller.  */
static struct world
{
  struct model *models[MAX_DWFLS];
  struct model *md;		/* The Dwfl the operations go to.  */

  /* The swap file's inodes; the one its name is on, -1 while it is
     removed.  */
  size_t ninodes;
  struct inode inodes[MAX_INODES];
  int swap_inode;
  int next_gen;

  size_t nshared;
  struct shared_fd shared[MAX_SHARED];

  size_t ngiven;
  struct given given[MAX_GIVEN];
  /* The Elf the next reports go through: the Nth of the file, or
     VIA_NULL, a null Elf; VIA_NONE for a name or descriptor.  */
  int via;

  /* What each FILE.copy holds (-1 for none), and the .build-id
     links.  */
  int copies[MAX_FILES];
  size_t nlinks;
  struct link links[MAX_LINKS];

  bool lazy;
  bool nofile_low;
  struct rlimit nofile;		/* The limits before it was lowered.  */
  rlim_t nofile_cur;		/* The lowered one.  */

  uintptr_t next_tag;

  /* What the last report did, for op_many: whether it succeeded, what
     it did, what it was given, the modules it replaced, its work, and
     whether it grew a live module by a piece inside one of its ranges
     that left it all its biases (AGAIN: libdwfl changes nothing of the
     module, a shorter path than a growth).  */
  struct
  {
    bool ok;
    int outcome;
    size_t size;
    size_t replaced;
    struct work work;
    bool again;
  } last;

  /* Where a broken rule is reported from.  */
  int op;
} W;

#define VIA_NONE (-1)
#define VIA_NULL (-2)

/* The descriptors open, from /proc/self/fd, read on a directory stream
   opened once, so that counting needs no descriptor.  */
static DIR *fd_dir;

static int
fds_open (void)
{
  rewinddir (fd_dir);
  int n = 0;
  struct dirent *de;
  while ((de = readdir (fd_dir)) != NULL)
    if (de->d_name[0] != '.')
      n++;
  /* Not the directory's own.  */
  return n - 1;
}

/* Whether a lowered RLIMIT_NOFILE leaves no descriptor number free
   for a call to open one.  */
static bool
no_room (void)
{
  if (! W.nofile_low)
    return false;
  rewinddir (fd_dir);
  rlim_t below = 0;
  struct dirent *de;
  while ((de = readdir (fd_dir)) != NULL)
    if (de->d_name[0] != '.' && (rlim_t) atoi (de->d_name) < W.nofile_cur)
      below++;
  return below >= W.nofile_cur;
}

int
LLVMFuzzerInitialize (int *argc __attribute__ ((unused)),
		      char ***argv __attribute__ ((unused)))
{
  elf_version (EV_CURRENT);
  trace = getenv ("FUZZ_TRACE") != NULL;
  known_bugs = getenv ("FUZZ_KNOWN_BUGS");
  if (getenv ("FUZZ_WORK_LOG") != NULL
      && (work_log = fopen (getenv ("FUZZ_WORK_LOG"), "a")) == NULL)
    die ("cannot open %s: %m", getenv ("FUZZ_WORK_LOG"));
  fd_dir = opendir ("/proc/self/fd");
  if (fd_dir == NULL)
    die ("cannot read /proc/self/fd: %m");

  const char *tmp = getenv ("TMPDIR");
  workdir = xasprintf ("%s/fuzz-report-elf-mmap.XXXXXX", tmp ?: "/tmp");
  if (mkdtemp (workdir) == NULL)
    die ("mkdtemp %s: %m", workdir);
  atexit (remove_workdir);
  __sanitizer_set_death_callback (remove_workdir);
  if (workdir[0] != '/')
    die ("TMPDIR must be an absolute directory name");
  debug_dir = xasprintf ("%s/debug", workdir);

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
  unsigned char *base_data[NBASES];
  size_t base_size[NBASES];
  int base_index[NBASES];
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
      for (size_t b = 0; b < NBASES; ++b)
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

  /* Changed copies of the bases: broken ones, then after the swap file
     rebuilt ones.  */
  for (size_t pass = 0; pass < 2; ++pass)
    {
      const struct mutation *muts = pass == 0 ? mutations : rebuilds;
      size_t nmuts = (pass == 0 ? sizeof mutations / sizeof mutations[0]
		      : sizeof rebuilds / sizeof rebuilds[0]);
      for (size_t b = 0; b < NBASES; ++b)
	{
	  if (base_data[b] == NULL)
	    die ("no %s in %s", mutation_bases[b], dir);
	  for (size_t m = 0; m < nmuts; ++m)
	    {
	      unsigned char *copy = malloc (base_size[b]);
	      if (copy == NULL)
		die ("out of memory");
	      memcpy (copy, base_data[b], base_size[b]);
	      struct elf64 e;
	      if (! elf64_view (&e, copy, base_size[b]))
		die ("%s is not ELF64 LSB", mutation_bases[b]);
	      size_t size = muts[m].apply (&e);
	      char *name = xasprintf ("%s.%s", mutation_bases[b] + 14,
				      muts[m].name);
	      struct file *f = add_file (name, base_index[b]);
	      write_file (f->path, copy, size);
	      free (name);
	      free (copy);
	    }
	}

      if (pass > 0)
	break;
      struct file *f = add_file ("not-elf", 0);
      write_file (f->path, "#!/bin/sh\necho not ELF\n", 23);
      f = add_file ("empty", 0);
      write_file (f->path, "", 0);
      f = add_file ("directory", 0);
      if (mkdir (f->path, 0700) != 0)
	die ("mkdir %s: %m", f->path);
      add_file ("missing", 0);

      /* After the files of the first version of the harness, so that
	 their encoding stays as it was.  Its bytes are written for each
	 input (LLVMFuzzerTestOneInput).  */
      swap_base = base_index[1];
      swap_file = nfiles;
      add_file ("swap", swap_base)->swap = true;
    }
  for (size_t b = 0; b < NBASES; ++b)
    free (base_data[b]);

  for (size_t i = 0; i < nfiles; ++i)
    {
      struct file *f = &files[i];
      if (! f->swap)
	examine_file (f);
      if (f->view.nloads > MAX_LOADS || f->given_view.nloads > MAX_LOADS)
	die ("%s has more segments than the model holds", f->label);
      if (trace)
	fprintf (stderr, "file %zu (byte %s%#zx): %s%s%s%s%s\n", i,
		 i < nreal ? "" : "0xc0 ", i < nreal ? i : i - nreal,
		 f->label, f->swap || f->view.ok ? "" : " (must fail: ",
		 f->swap || f->view.ok ? "" : f->view.error ?: "any error",
		 f->swap || f->view.ok ? "" : ")",
		 f->view.build_id.len > 0 ? "" : " (no build ID)");
      if (i < nreal
	  && (! f->view.ok || ! f->elf.ok || f->view.build_id.len == 0))
	die ("testfile %s is not usable", f->label);
    }

  work_init ();
  return 0;
}

/* The swap file's content now, and its inode (-1 for another file); -1
   if it is removed.  */
static int
content_now (int file, int *inodep)
{
  *inodep = -1;
  if (! files[file].swap)
    return file;
  if (W.swap_inode < 0)
    return -1;
  *inodep = W.swap_inode;
  return W.inodes[W.swap_inode].src;
}

/* The file a report of FILE reads, by name or from a descriptor open on
   swap inode INODE.  */
static struct ident
identify (int file, bool by_fd, int inode)
{
  struct ident id = { file, 0, -1, file, -1 };
  if (! files[file].swap)
    return id;
  if (! by_fd)
    inode = W.swap_inode;
  id.inode = inode;
  if (inode < 0)
    {
      id.gen = -1;
      id.content = -1;
      return id;
    }
  id.gen = W.inodes[inode].gen;
  id.content = W.inodes[inode].src;
  return id;
}

static bool
same_ident (const struct ident *a, const struct ident *b)
{
  return (a->file == b->file && a->given == b->given
	  && (a->given >= 0 || a->gen == b->gen));
}

static const struct view missing_view = { .error = E_MISSING };

static const struct view *
ident_view (const struct ident *id)
{
  if (id->content < 0)
    return &missing_view;
  return id->given >= 0 ? &files[id->content].given_view
			: &files[id->content].view;
}

static bool
meets_relro (const struct view *v, const struct piece *p, uint64_t bias)
{
  return (v->relro_start < v->relro_end
	  && bias + v->relro_start < p->start + p->len
	  && p->start < bias + v->relro_end);
}

struct cand
{
  uint64_t bias;
  const struct load *load;
};

/* The contract's candidates for piece P of a file read as V: the
   segments whose file bytes meet P's, narrowed by a known PROT (not
   PROT_NONE, a gap), each step only if one is left; for ET_EXEC only
   those at bias 0.  The order is the segments'.  */
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

  bool prot = p->prot != -1 && p->prot != PROT_NONE;
  for (int step = prot ? 0 : 2; step < 3; ++step)
    {
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

/* Whether one of the N candidates C is a bias of M.  */
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
find_tag (uintptr_t tag)
{
  for (size_t k = 0; k < MAX_DWFLS; ++k)
    if (W.models[k] != NULL)
      for (size_t i = 0; i < W.models[k]->nmods; ++i)
	if (W.models[k]->mods[i].tag == tag)
	  return &W.models[k]->mods[i];
  return NULL;
}

/* A find_elf that opens FILE.copy, the copy a caller keeps of a file
   (a build-id cache, a sysroot), for the file of the module MOD.  */
static int
find_copy (Dwfl_Module *mod __attribute__ ((unused)), void **userdata,
	   const char *modname __attribute__ ((unused)),
	   Dwarf_Addr base __attribute__ ((unused)), char **file_name,
	   Elf **elfp __attribute__ ((unused)))
{
  const struct mmod *m = find_tag ((uintptr_t) *userdata);
  if (m == NULL || m->file < 0)
    return -1;
  char *path = xasprintf ("%s.copy", files[m->file].path);
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    {
      free (path);
      return -1;
    }
  *file_name = path;
  return fd;
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
  m->tag = ++W.next_tag;
  m->name = name;
  m->kind = kind;
  m->state = LIVE;
  m->file = m->src = m->open_src = m->open_inode = -1;
  m->id = (struct ident) { -1, 0, -1, -1, -1 };
  void **userdata;
  dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
  *userdata = (void *) m->tag;
  return m;
}

/* The first module of MD made from pieces of the file ID, of which
   libdwfl keeps one entry while a module uses it; or NULL.  */
static struct mmod *
entry_of (struct model *md, const struct ident *id)
{
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].kind == K_MMAP && same_ident (&md->mods[i].id, id))
      return &md->mods[i];
  return NULL;
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

/* Whether one range of M holds all of [START, END).  */
static bool
ranges_contain (const struct mmod *m, uint64_t start, uint64_t end)
{
  for (size_t i = 0; i < m->nranges; ++i)
    if (m->ranges[i].start <= start && end <= m->ranges[i].end)
      return true;
  return false;
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

/* Whether MD is as big as the model lets it be: reports stop.  */
static bool
model_full (const struct model *md)
{
  if (md->nmods >= MAX_LIVE)
    return true;
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].nranges >= MAX_RANGES - 1)
      return true;
  return false;
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
    fail ("op %d: %s: %zu modules before, %zu after", W.op, what, a->n, b->n);
  for (size_t i = 0; i < a->n; ++i)
    if (a->mods[i].mod != b->mods[i].mod
	|| strcmp (a->mods[i].name, b->mods[i].name) != 0
	|| a->mods[i].low != b->mods[i].low
	|| a->mods[i].high != b->mods[i].high
	|| a->mods[i].userdata != b->mods[i].userdata
	|| (a->mods[i].mainfile == NULL) != (b->mods[i].mainfile == NULL))
      fail ("op %d: %s: module %zu was %s [%#" PRIx64 ", %#" PRIx64 ") file"
	    " %s, is %s [%#" PRIx64 ", %#" PRIx64 ") file %s", W.op,
	    what, i, a->mods[i].name, a->mods[i].low, a->mods[i].high,
	    a->mods[i].mainfile ?: "not open", b->mods[i].name,
	    b->mods[i].low, b->mods[i].high,
	    b->mods[i].mainfile ?: "not open");
}

/* The work of calls.  */

/* The bounds on the work of a call.  SIZE is what the call is given to
   look at: the program headers of a file it reads, its candidates and
   the biases of the modules they meet, the ranges of the module it
   grows and of those it replaces (report_size); not the number N of
   modules in the Dwfl (of every state).  Its edges outside the
   comparison functions are at most WORK_B + WORK_C SIZE, whatever N;
   its edges in them at most (WORK_D + WORK_E SIZE) log2 (N + 2), as
   each search of a tree makes a comparison or two for each level, of
   twice log2 (N + 1) at most.  The constants were measured on the
   467,000 calls of 1,293 inputs the fuzzer found (fuzz/README.md),
   with some room: every call took at most 79 edges beyond 16 SIZE, and
   22 log2 (N + 2) comparison edges beyond 4 SIZE log2 (N + 2).  A walk
   of the module list of a few edges a module goes over WORK_B + WORK_C
   SIZE from some 100 modules on; op_many's check_series catches one of
   a single edge a module.  */
#define WORK_B 128
#define WORK_C 16
#define WORK_D 32
#define WORK_E 4

static void
check_work (struct model *md, const char *what, struct work w, size_t size)
{
  double depth = log2 (md->nmods + 2.0);
  double edges = WORK_B + WORK_C * (double) size;
  double compares = (WORK_D + WORK_E * (double) size) * depth;
  if (work_log != NULL)
    fprintf (work_log, "%s %zu %zu %" PRIu64 " %" PRIu64 "\n", what,
	     md->nmods, size, w.edges, w.compares);
  if (trace)
    fprintf (stderr, "op %d: work %" PRIu64 " edges, %" PRIu64 " in"
	     " comparisons, size %zu, %zu modules\n", W.op, w.edges,
	     w.compares, size, md->nmods);
  if (known_bug ("work"))
    return;
  if (w.edges > edges)
    fail ("op %d: %s in a Dwfl of %zu modules took %" PRIu64 " edges of"
	  " libdwfl outside its trees' comparisons, more than %.0f (B + C *"
	  " %zu)", W.op, what, md->nmods, w.edges, edges, size);
  if (w.compares > compares)
    fail ("op %d: %s in a Dwfl of %zu modules took %" PRIu64 " edges of"
	  " its trees' comparisons, more than %.0f ((D + E * %zu) log2 (n +"
	  " 2))", W.op, what, md->nmods, w.compares, compares, size);
}

/* Wanting a module's ELF.  */

enum verdict
{
  V_OK,				/* It must be found.  */
  V_WRONG,			/* It must fail: not the file mapped.  */
  V_FAIL,			/* It must fail: no ELF file is there.  */
  V_ANY,			/* Either.  */
};

static const struct link *
find_link (const struct build_id *id)
{
  for (size_t i = 0; i < W.nlinks; ++i)
    if (same_build_id (&W.links[i].build_id, id))
      return &W.links[i];
  return NULL;
}

/* What wanting M's ELF must give: the file whose bytes are found (-1
   for none) in *CONTENTP, and whether it must be taken.  *SHARED says
   whether it comes from what the module's file keeps, the caller's Elf
   or the duplicate of its descriptor; *BY_NAME whether it is found by
   the name of the file.  */
static enum verdict
expect_open (struct model *md, const struct mmod *m, int *contentp,
	     int *inodep, bool *shared, bool *by_name)
{
  const struct build_id *id = &m->build_id;
  int c = -2, inode = -1;
  *shared = m->id.given >= 0 || m->dup;
  *by_name = false;
  if (*shared)
    {
      c = m->src;
      inode = m->id.inode;
    }
  else if (md->callbacks == CB_BUILD_ID && id->len >= 3)
    {
      /* dwfl_build_id_find_elf takes what the link names only if it has
	 the module's build ID.  */
      const struct link *l = find_link (id);
      int t_inode;
      int t = l == NULL ? -1 : content_now (l->target, &t_inode);
      if (t >= 0 && files[t].elf.ok
	  && same_build_id (&files[t].elf.build_id, id))
	c = t, inode = t_inode;
    }
  else if (md->callbacks == CB_COPY && W.copies[m->file] >= 0)
    c = W.copies[m->file];
  if (c == -2)
    {
      c = content_now (m->file, &inode);
      *by_name = true;
    }
  *contentp = c;
  *inodep = c < 0 ? -1 : inode;
  if (c < 0 || ! files[c].elf.ok)
    return V_FAIL;
  /* A file with the build ID of another type: a broken copy, which a
     module opens as what it is.  */
  if (files[c].elf.e_type != files[m->src].view.e_type)
    return V_ANY;
  if (id->len > 0)
    return same_build_id (&files[c].elf.build_id, id) ? V_OK : V_WRONG;
  struct ident now = identify (m->file, false, -1);
  return ! *by_name || same_ident (&now, &m->id) ? V_OK : V_WRONG;
}

/* M has no ELF: it must answer nothing from another file, and still be
   what its pieces said.  */
static void
check_no_elf (struct mmod *m)
{
  const char *label = files[m->file].label;
  const char *name = dwfl_module_addrname (m->mod, m->low);
  if (name != NULL)
    fail ("op %d: module of %s without its ELF names %#" PRIx64 " %s",
	  W.op, label, m->low, name);
  if (dwfl_module_getsymtab (m->mod) > 0)
    fail ("op %d: module of %s without its ELF has a symbol table",
	  W.op, label);
  Dwarf_Addr dwbias;
  if (dwfl_module_getdwarf (m->mod, &dwbias) != NULL)
    fail ("op %d: module of %s without its ELF has DWARF", W.op, label);
  /* The file looked at, which was not the one mapped, must not change
     what the module is: an ET_EXEC found for an ET_DYN module at a bias
     fails an assertion there.  */
  int want = files[m->src].view.e_type == ET_DYN ? 1 : 0;
  int rel = dwfl_module_relocations (m->mod);
  if (rel != want)
    fail ("op %d: module of %s (%s) without its ELF has %d relocation"
	  " bases, not %d", W.op, label,
	  files[m->src].view.e_type == ET_DYN ? "ET_DYN" : "ET_EXEC",
	  rel, want);
}

static void
check_bias (struct mmod *m, uint64_t bias)
{
  if (! possible (m, bias))
    {
      char allowed[MAX_LOADS * 20 + 1] = "";
      for (size_t i = 0; i < m->nposs && i < MAX_LOADS; ++i)
	sprintf (allowed + strlen (allowed), " %#" PRIx64, m->poss[i]);
      fail ("op %d: %s module %s of %s has bias %#" PRIx64 ", the contract"
	    " allows%s", W.op, state_names[m->state], m->name,
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
  int c, inode;
  bool shared, by_name;
  enum verdict want = expect_open (md, m, &c, &inode, &shared, &by_name);
  GElf_Addr bias = 0;
  (void) dwfl_errno ();
  int fds = fds_open ();
  Elf *elf = dwfl_module_getelf (m->mod, &bias);
  const char *msg = elf == NULL ? dwfl_errmsg (-1) : NULL;
  m->opened = true;
  m->held_fds = fds_open () - fds;
  if (trace)
    fprintf (stderr, "op %d: dwfl_module_getelf (%s of %s) = %s%s bias %#"
	     PRIx64 " (%s %s)\n", W.op, m->name,
	     files[m->file].label, elf == NULL ? "NULL: " : "ELF",
	     msg ?: "", bias,
	     shared ? "the file's Elf or descriptor has" : "finds",
	     c < 0 ? "nothing" : files[c].label);
  if ((elf == NULL || shared) && m->held_fds != 0)
    fail ("op %d: module %s of %s %s and holds %d more descriptors",
	  W.op, m->name, files[m->file].label,
	  elf == NULL ? "has no ELF" : "has the ELF of its file's descriptor",
	  m->held_fds);
  if (elf != NULL && want != V_WRONG && want != V_FAIL)
    {
      m->open_ok = true;
      m->open_src = c;
      m->open_inode = inode;
      check_bias (m, bias);
      const char *mainfile;
      dwfl_module_info (m->mod, NULL, NULL, NULL, NULL, NULL, &mainfile,
			NULL);
      if (by_name
	  && (mainfile == NULL || strcmp (mainfile, files[m->file].path) != 0))
	fail ("op %d: module %s of %s has %s as its main file", W.op,
	      m->name, files[m->file].path, mainfile ?: "no file");
      return;
    }
  if (elf == NULL && want == V_OK)
    fail ("op %d: module %s of %s cannot have its ELF (%s), though %s"
	  " the file mapped", W.op, m->name, files[m->file].label, msg,
	  shared ? "its file's Elf or descriptor has" : "what it finds is");
  if (elf != NULL)
    fail ("op %d: module %s of %s has an ELF, but what it finds is %s,"
	  " %s", W.op, m->name, files[m->file].label,
	  c < 0 ? "nothing" : files[c].label,
	  want == V_FAIL ? "not an ELF file" : "not the file mapped");
  if (want == V_WRONG && strcmp (msg, E_WRONG_MAPPED) != 0)
    fail ("op %d: module %s of %s, finding %s: \"%s\", not \"%s\"",
	  W.op, m->name, files[m->file].label,
	  c < 0 ? "nothing" : files[c].label, msg, E_WRONG_MAPPED);
  check_no_elf (m);
}

/* See M's bias if its ELF is open, or in an eager input open it.  */
static void
observe (struct model *md, struct mmod *m)
{
  if (m->kind == K_MODULE || (! m->opened && (W.lazy || W.nofile_low)))
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
    fail ("op %d: module %s of %s lost its ELF: %s", W.op, m->name,
	  files[m->file].label, dwfl_errmsg (-1));
  check_bias (m, bias);
}

/* The checks.  */

/* libdwfl's modules are the model's, with their names, userdata,
   ranges and biases.  */
static void
check_model (struct model *md)
{
  static struct snapshot s;
  take_snapshot (md->dwfl, &s);
  if (s.n != md->nmods)
    fail ("op %d: libdwfl has %zu modules, the model %zu",
	  W.op, s.n, md->nmods);
  for (size_t i = 0; i < s.n; ++i)
    {
      struct mmod *m = find_mod (md, s.mods[i].mod);
      if (m == NULL)
	fail ("op %d: module %s [%#" PRIx64 ", %#" PRIx64
	      ") was never returned", W.op, s.mods[i].name,
	      s.mods[i].low, s.mods[i].high);
      const char *label = m->file < 0 ? "no file" : files[m->file].label;
      if (strcmp (s.mods[i].name, m->name) != 0
	  || s.mods[i].userdata != (void *) m->tag)
	fail ("op %d: module %s of %s is called %s, with userdata %p, not %p",
	      W.op, m->name, label, s.mods[i].name, s.mods[i].userdata,
	      (void *) m->tag);
      if (s.mods[i].low != m->low || s.mods[i].high != m->high)
	fail ("op %d: %s module %s of %s is [%#" PRIx64 ", %#" PRIx64
	      "), the hull of its pieces is [%#" PRIx64 ", %#" PRIx64 ")",
	      W.op, state_names[m->state], s.mods[i].name, label,
	      s.mods[i].low, s.mods[i].high, m->low, m->high);
      if (! m->opened && s.mods[i].mainfile != NULL)
	fail ("op %d: module %s of %s names its main file %s before its ELF"
	      " was wanted", W.op, m->name, label, s.mods[i].mainfile);
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
	if (a->state != LIVE || b->state != LIVE
	    || ! overlaps (a->low, a->high, b->low, b->high))
	  continue;
	for (size_t k = 0; k < b->nranges; ++k)
	  if (ranges_meet (a, b->ranges[k].start, b->ranges[k].end))
	    fail ("op %d: modules %s [%#" PRIx64 ", %#" PRIx64 ") and %s [%#"
		  PRIx64 ", %#" PRIx64 ") both have %#" PRIx64, W.op,
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

  work_start ();
  Dwfl_Module *got = dwfl_addrmodule (md->dwfl, addr);
  check_work (md, "dwfl_addrmodule", work_done (), 0);
  if (want != NULL && got == want->mod)
    return;
  if (got == NULL && want == NULL)
    return;
  const struct mmod *g = got == NULL ? NULL : find_mod (md, got);
  fail ("op %d: dwfl_addrmodule (%#" PRIx64 ") is %s%s%s [%#" PRIx64
	", %#" PRIx64 "), not %s [%#" PRIx64 ", %#" PRIx64 ")%s",
	W.op, addr,
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
      check_no_elf (m);
      return;
    }
  const struct file *f = &files[m->open_src];
  Dwfl *ref = dwfl_begin (&dwfl_callbacks[CB_PROC]);
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
	  W.op, dwfl_errmsg (-1));
  if (dwfl_module_relocate_address (ref_mod, &ref_rel) != 0)
    die ("dwfl_module_relocate_address of the whole file failed");
  if (rel != ref_rel)
    fail ("op %d: module of %s with bias %#" PRIx64
	  ": %#" PRIx64 " relocates to %#" PRIx64 ", the file to %#" PRIx64,
	  W.op, f->label, m->bias, addr, rel, ref_rel);

  const char *name = dwfl_module_addrname (m->mod, addr);
  const char *ref_name = dwfl_module_addrname (ref_mod, addr);
  if ((name == NULL) != (ref_name == NULL)
      || (name != NULL && strcmp (name, ref_name) != 0))
    fail ("op %d: module of %s with bias %#" PRIx64 ": %#" PRIx64
	  " is %s, in the file %s", W.op, f->label, m->bias, addr,
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
	  " is %s+%#" PRIx64 ", in the file %s+%#" PRIx64, W.op, f->label,
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
	  W.op, f->label, m->bias, addr, lineno, line_addr, ref_lineno,
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
	  ", DWARF %s bias %#" PRIx64, W.op, f->label, m->bias,
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
	  W.op, f->label, m->bias, len, vaddr, ref_len, ref_vaddr);
  dwfl_end (ref);
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
   harness, 11 to 14 those of the second, with their arguments, so that
   their inputs mean what they meant.  */
enum op
{
  OP_RECORDED, OP_RECORDED2, OP_RECORDED3, OP_SEGMENT, OP_RAW,
  OP_BEGIN, OP_BEGIN_ADD, OP_END, OP_LOOKUP, OP_QUERY, OP_REPORT_ELF,
  OP_REPORT_MODULE, OP_HOLE, OP_FILE, OP_LAZY,
  OP_DWFL, OP_VIA, OP_COPY, OP_NOFILE, OP_MANY, OP_ELF_END,
  OP_NUM
};

static const char *const op_names[] =
  {
    "dwfl_report_begin", "dwfl_report_begin_add", "dwfl_report_end",
    "lookup", "query", "dwfl_report_elf", "dwfl_report_module",
    "a piece in a hole", "swap file", "lazy", "Dwfl", "through an Elf",
    "copies", "RLIMIT_NOFILE", "many pieces", "elf_end",
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

/* What the contract says a report of a piece does.  */
enum outcome
{
  O_FAIL,			/* It fails with ERROR (any if NULL).  */
  O_SAME,			/* It returns one of ALLOWED, unchanged.  */
  O_GROW,			/* It adds the piece to one of ALLOWED.  */
  O_NEW,			/* It makes a module.  */
};

struct expect
{
  struct ident id;
  const struct view *v;		/* What the report reads of the file.  */
  size_t ncands;
  struct cand cands[MAX_LOADS + 1];
  enum outcome outcome;
  const char *error;
  size_t nallowed;
  struct mmod *allowed[MAX_MODULES];
};

/* Whether a piece of E's file agrees with M when their biases meet: M
   is a module of dwfl_report_elf_mmap of the same file (name and
   identity, or the caller's Elf), or one of dwfl_report_elf of the same
   name, and of the file's build ID if it has one.  A replaced module is
   of no file.  */
static bool
of_file (const struct mmod *m, const struct expect *e)
{
  if (m->state == REPLACED || m->file != e->id.file)
    return false;
  if (m->kind == K_MMAP)
    return same_ident (&m->id, &e->id);
  return (m->kind == K_ELF && (m->e_type == ET_DYN || m->e_type == ET_EXEC)
	  && (e->v->build_id.len == 0
	      || same_build_id (&files[m->src].elf.build_id,
				&e->v->build_id)));
}

/* Whether M's range, the hull of its pieces, holds the piece.  */
static bool
spans (const struct mmod *m, const struct piece *p)
{
  return m->low <= p->start && p->start + p->len <= m->high;
}

/* The live module whose ranges hold ADDR, or NULL.  */
static struct mmod *
holder (struct model *md, uint64_t addr)
{
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].state == LIVE && ranges_hold (&md->mods[i], addr))
      return &md->mods[i];
  return NULL;
}

static bool
is_allowed (const struct expect *e, const struct mmod *m)
{
  for (size_t i = 0; i < e->nallowed; ++i)
    if (e->allowed[i] == m)
      return true;
  return false;
}

static void
expect_report (struct model *md, const struct ident *id,
	       const struct piece *p, bool null_elf, struct expect *e)
{
  e->id = *id;
  e->v = ident_view (id);
  e->ncands = 0;
  e->nallowed = 0;
  e->outcome = O_FAIL;
  if (null_elf || invalid_args (p))
    {
      e->error = E_INVALID;
      return;
    }
  if (! e->v->ok)
    {
      /* Whatever modules there are: the headers cannot be read.  */
      e->error = e->v->error;
      return;
    }
  e->ncands = candidates (e->v, p, e->cands);
  e->error = E_NO_MATCH;

  if (p->prot == PROT_NONE)
    {
      /* A gap names a live module of its file around it, found by the
	 biases of the segments it maps, or by the one of its page in
	 the mapping of the whole span from the first segment.  */
      struct cand gap[MAX_LOADS + 1];
      memcpy (gap, e->cands, e->ncands * sizeof gap[0]);
      const struct load *first = &e->v->loads[0];
      gap[e->ncands] = (struct cand)
	{ p->start - p->pgoff + first->offset - first->vaddr, first };
      for (size_t i = 0; i < md->nmods; ++i)
	{
	  struct mmod *m = &md->mods[i];
	  if (m->state == LIVE && of_file (m, e) && spans (m, p)
	      && meets (m, gap, e->ncands + 1))
	    e->allowed[e->nallowed++] = m;
	}
      if (e->nallowed > 0)
	e->outcome = O_SAME;
      return;
    }

  if (p->prot == -1)
    {
      /* A piece whose first or last byte a live module of its file has
	 is that module's, if it agrees with none of its segments.  */
      struct mmod *m = holder (md, p->start);
      if (m == NULL || ! of_file (m, e))
	m = holder (md, p->start + p->len - 1);
      if (m != NULL && of_file (m, e)
	  && ! meets (m, e->cands, e->ncands))
	{
	  e->allowed[e->nallowed++] = m;
	  e->outcome = O_SAME;
	  return;
	}
    }

  /* No segment can have mapped the piece.  */
  if (e->ncands == 0)
    return;

  /* The modules of the file that agree with it, a live one whose range
     holds it first.  */
  bool spanning = false;
  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *m = &md->mods[i];
      if (! of_file (m, e) || ! meets (m, e->cands, e->ncands))
	continue;
      bool s = m->state == LIVE && spans (m, p);
      if (s && ! spanning)
	e->nallowed = 0;
      if (s || ! spanning)
	e->allowed[e->nallowed++] = m;
      spanning |= s;
    }
  e->outcome = e->nallowed > 0 ? O_GROW : O_NEW;
}

/* Update the model for a successful report of P that returned MOD,
   naming a new module NAME, from a descriptor if BY_FD.  Returns
   whether that gave the file a duplicate of the descriptor, which it
   keeps from its first report through one (its name may not reach it
   when a module wants its ELF file).  */
static bool
model_report (struct model *md, const struct piece *p,
	      const struct expect *e, Dwfl_Module *mod, const char *name,
	      bool by_fd)
{
  const char *label = files[e->id.file].label;
  struct mmod *m = find_mod (md, mod);
  struct mmod *entry = entry_of (md, &e->id);
  bool had_dup = entry != NULL && entry->dup;
  bool dup = had_dup || (by_fd && e->id.given < 0);
  /* The file, and so its duplicate, stays only while a module of its
     pieces uses it: a piece that returns another module makes none.  */
  bool new_dup = dup && ! had_dup && (entry != NULL || e->outcome != O_SAME);
  if (new_dup)
    for (size_t i = 0; i < md->nmods; ++i)
      if (md->mods[i].kind == K_MMAP && same_ident (&md->mods[i].id, &e->id))
	md->mods[i].dup = true;

  switch (e->outcome)
    {
    case O_FAIL:
      abort ();

    case O_SAME:
      if (m == NULL || ! is_allowed (e, m))
	fail ("op %d: a %s piece of %s returned %s %s, not %s %s", W.op,
	      p->prot == -1 ? "PROT -1" : "PROT_NONE", label,
	      m == NULL ? "a new module" : state_names[m->state],
	      m == NULL ? "" : m->name, e->allowed[0]->name,
	      p->prot == -1 ? "that it is in and disagrees with"
	      : "that holds it");
      return new_dup;

    case O_NEW:
      if (m != NULL)
	fail ("op %d: a piece of %s returned %s module %s of %s, which does"
	      " not agree with it", W.op, label, state_names[m->state],
	      m->name, mod_label (m));
      m = new_mod (md, mod, K_MMAP, name);
      m->file = e->id.file;
      m->id = e->id;
      m->src = e->id.content;
      m->dup = dup;
      m->build_id = e->v->build_id;
      ranges_set (m, p->start, p->start + p->len);
      for (size_t i = 0; i < e->ncands; ++i)
	if (! has_bias (m, e->cands[i].bias))
	  m->biases[m->nbiases++] = e->cands[i].bias;
      update_poss (m, e->cands, e->ncands, p->pgoff, true);
      break;

    case O_GROW:
      if (m == NULL)
	fail ("op %d: a piece of %s made a new module though %s module %s of"
	      " the file agrees with it", W.op, label,
	      state_names[e->allowed[0]->state], e->allowed[0]->name);
      if (! is_allowed (e, m))
	fail ("op %d: a piece of %s was added to %s module %s [%#" PRIx64
	      ", %#" PRIx64 "), not to %s module %s [%#" PRIx64 ", %#" PRIx64
	      ")%s", W.op, label, state_names[m->state], m->name, m->low,
	      m->high, state_names[e->allowed[0]->state],
	      e->allowed[0]->name, e->allowed[0]->low, e->allowed[0]->high,
	      e->allowed[0]->state == LIVE && spans (e->allowed[0], p)
	      ? ", whose range holds it" : ", which agrees with it");
      if (m->kind == K_ELF)
	{
	  /* A module of dwfl_report_elf becomes one of the file's
	     pieces, at its bias, its range all of the file.  */
	  m->kind = K_MMAP;
	  m->id = e->id;
	  m->dup = dup;
	  m->build_id = e->v->build_id;
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
      break;
    }

  /* The mapping replaced the live modules that had addresses where it
     is, whatever reported them; not one in whose hole it lies, and not
     a stale module, which has no addresses in this cycle until a piece
     of it comes again.  */
  W.last.replaced = 0;
  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *o = &md->mods[i];
      if (o != m && o->state == LIVE
	  && ranges_meet (o, p->start, p->start + p->len))
	{
	  o->state = REPLACED;
	  W.last.replaced++;
	}
    }
  return new_dup;
}

/* The descriptor the input passes for every piece of FILE, open from
   its first use to the end of the input; NULL if it cannot be
   opened.  */
static struct shared_fd *
shared_fd (int file)
{
  for (size_t i = 0; i < W.nshared; ++i)
    if (W.shared[i].file == file)
      return &W.shared[i];
  if (W.nshared == MAX_SHARED)
    return NULL;
  int fd = open (files[file].path, O_RDONLY);
  if (fd < 0)
    return NULL;
  struct shared_fd *s = &W.shared[W.nshared++];
  s->file = file;
  s->fd = fd;
  s->inode = files[file].swap ? W.swap_inode : -1;
  /* Not at 0, so that a call that reads with read () or moves it
     shows.  */
  lseek (fd, 0x11, SEEK_SET);
  s->offset = lseek (fd, 0, SEEK_CUR);
  return s;
}

/* The Elf the caller has for FILE, the Nth, opened now if it has none;
   NULL if the file cannot be opened or libelf takes nothing of it.  */
static struct given *
given_elf (int file, int n)
{
  for (size_t i = 0; i < W.ngiven; ++i)
    if (W.given[i].file == file && W.given[i].n == n && ! W.given[i].dropped)
      return &W.given[i];
  if (W.ngiven == MAX_GIVEN)
    return NULL;
  struct given *g = &W.given[W.ngiven];
  g->file = file;
  g->n = n;
  g->content = content_now (file, &g->inode);
  g->dropped = false;
  if (g->content < 0)
    return NULL;
  g->fd = open (files[file].path, O_RDONLY);
  if (g->fd < 0)
    return NULL;
  g->elf = elf_begin (g->fd, ELF_C_READ_MMAP, NULL);
  if (g->elf == NULL)
    {
      close (g->fd);
      return NULL;
    }
  W.ngiven++;
  if (trace)
    fprintf (stderr, "op %d: elf_begin (%s) = %p, Elf %zu\n", W.op,
	     files[file].label, g->elf, W.ngiven - 1);
  return g;
}

/* FD, which the caller passed, is still open on the file it was, at
   OFFSET.  */
static void
check_fd (int fd, off_t offset, const struct stat *st)
{
  if (fd < 0)
    return;
  struct stat now;
  if (fcntl (fd, F_GETFD) < 0 || fstat (fd, &now) != 0
      || now.st_dev != st->st_dev || now.st_ino != st->st_ino)
    fail ("op %d: the call closed the caller's descriptor %d", W.op, fd);
  off_t at = lseek (fd, 0, SEEK_CUR);
  if (at != offset)
    fail ("op %d: the call moved the caller's descriptor from offset %jd"
	  " to %jd", W.op, (intmax_t) offset, (intmax_t) at);
}

static const char *const names[] = { NULL, "a", "b", NULL };

/* The work of a report that the contract expects: it reads the
   program headers of a file no module uses, looks at the candidates and
   the biases of the modules they meet, at the ranges of the module it
   grows and of the modules it replaces.  */
static size_t
report_size (struct model *md, const struct expect *e, const struct piece *p)
{
  /* The headers of a file are read once while a module uses it.  */
  size_t size = 1 + (entry_of (md, &e->id) == NULL ? 4 * e->v->phnum : 0);
  size += 2 * e->ncands;
  for (size_t i = 0; i < e->nallowed; ++i)
    size += e->ncands * (e->allowed[i]->nbiases + 1)
	    + e->allowed[i]->nranges;
  if (e->outcome == O_GROW || e->outcome == O_NEW)
    for (size_t i = 0; i < md->nmods; ++i)
      if (md->mods[i].state == LIVE
	  && ranges_meet (&md->mods[i], p->start, p->start + p->len))
	size += md->mods[i].nranges + md->mods[i].nbiases + 1;
  return size;
}

/* Report piece P of FILE, and check the call and its result against the
   model.  FLAGS: 01 pass a descriptor (the caller's own for this piece,
   or with 20 the one the input passes for every piece of the file),
   02 report twice, 04/08/0c the name, 10 check every lookup after.
   Through an Elf of the caller if the input said so (OP_VIA).  */
static void
report_piece (struct model *md, int file, const struct piece *p,
	      uint8_t flags)
{
  const struct file *f = &files[file];
  const char *name = (flags & 0xc) == 0xc ? f->label : names[(flags >> 2) & 3];
  W.last.ok = false;
  W.last.replaced = 0;
  if (model_full (md))
    return;

  struct given *g = NULL;
  bool null_elf = W.via == VIA_NULL;
  if (W.via >= 0 && (g = given_elf (file, W.via)) == NULL)
    return;

  if (! md->in_cycle)
    {
      dwfl_report_begin_add (md->dwfl);
      md->in_cycle = true;
    }

  int fd = -1, fd_inode = -1;
  bool own_fd = false;
  off_t offset = 0;
  struct stat fd_st;
  if ((flags & 1) && g == NULL && ! null_elf)
    {
      struct shared_fd *s = NULL;
      if (flags & 0x20)
	s = shared_fd (file);
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
	  fd_inode = f->swap ? W.swap_inode : -1;
	  lseek (fd, 0x11, SEEK_SET);
	}
      if (fd >= 0 && fstat (fd, &fd_st) != 0)
	die ("fstat: %m");
      offset = fd < 0 ? 0 : lseek (fd, 0, SEEK_CUR);
    }

  struct ident id = identify (file, fd >= 0, fd_inode);
  if (g != NULL)
    id = (struct ident) { file, 0, (int) (g - W.given), g->content, -1 };
  static struct expect e;
  expect_report (md, &id, p, null_elf, &e);
  static struct snapshot before;
  take_snapshot (md->dwfl, &before);
  size_t size = report_size (md, &e, p);

  int fds = fds_open ();
  bool room = ! no_room ();
  (void) dwfl_errno ();
  work_start ();
  Dwfl_Module *mod
    = (g != NULL || null_elf
       ? dwfl_report_elf_mmap_elf (md->dwfl, name, f->path,
				   g != NULL ? g->elf : NULL, p->start,
				   p->len, p->pgoff, p->prot)
       : dwfl_report_elf_mmap (md->dwfl, name, f->path, fd, p->start,
			       p->len, p->pgoff, p->prot));
  struct work work = work_done ();
  int err = dwfl_errno ();
  int fds_after = fds_open ();
  const char *what = (g != NULL || null_elf ? "dwfl_report_elf_mmap_elf"
		      : "dwfl_report_elf_mmap");
  if (trace)
    {
      Dwarf_Addr low = 0, high = 0;
      if (mod != NULL)
	dwfl_module_info (mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
      fprintf (stderr, "op %d: %s (Dwfl %d, %s, %s, ", W.op, what,
	       md->index, name ?: "NULL", f->label);
      if (g != NULL || null_elf)
	fprintf (stderr, "Elf %d", g != NULL ? (int) (g - W.given) : -1);
      else
	fprintf (stderr, "fd %d%s", fd, own_fd || fd < 0 ? "" : " (shared)");
      fprintf (stderr, ", start %#" PRIx64 ", len %#" PRIx64 ", pgoff %#"
	       PRIx64 ", prot %d)%s = ", p->start, p->len, p->pgoff, p->prot,
	       (flags & 2) ? " twice" : "");
      if (mod == NULL)
	fprintf (stderr, "NULL (%s)\n", dwfl_errmsg (err));
      else
	fprintf (stderr, "%p [%#" PRIx64 ", %#" PRIx64 ")\n", mod, low, high);
    }
  if (fd >= 0)
    check_fd (fd, offset, &fd_st);

  if (mod == NULL)
    {
      if (err == 0)
	fail ("op %d: %s failed without an error", W.op, what);
      const char *msg = dwfl_errmsg (err);
      /* With RLIMIT_NOFILE lowered, libdwfl may need the descriptor
	 that is not there.  */
      bool emfile = strcmp (msg, strerror (EMFILE)) == 0 && ! room;
      if (e.outcome != O_FAIL && ! emfile)
	fail ("op %d: piece %#" PRIx64 "+%#" PRIx64 " @%#" PRIx64 " prot %d"
	      " of %s failed (%s), but %s", W.op, p->start, p->len,
	      p->pgoff, p->prot, f->label, msg,
	      e.outcome == O_SAME ? (p->prot == PROT_NONE
				     ? "it lies in a module of the file"
				     : "it is in a module of the file")
	      : e.outcome == O_GROW ? "a module of the file agrees with it"
	      : "a segment can have mapped it");
      if (e.error != NULL && strcmp (msg, e.error) != 0 && ! emfile)
	fail ("op %d: piece %#" PRIx64 "+%#" PRIx64 " @%#" PRIx64 " prot %d"
	      " of %s failed with \"%s\", libdwfl.h says \"%s\"", W.op,
	      p->start, p->len, p->pgoff, p->prot, f->label, msg, e.error);
      static struct snapshot after;
      take_snapshot (md->dwfl, &after);
      compare_snapshots (&before, &after,
			 "a failed report changed the modules");
      if (fds_after != fds)
	fail ("op %d: a failed report left %d descriptors open, %d before",
	      W.op, fds_after, fds);
      if (own_fd)
	close (fd);
      check_work (md, what, work, size);
      check_model (md);
      return;
    }

  if (e.outcome == O_FAIL)
    fail ("op %d: piece %#" PRIx64 "+%#" PRIx64 " @%#" PRIx64 " prot %d"
	  " of %s succeeded", W.op, p->start, p->len, p->pgoff, p->prot,
	  f->label);
  /* A module that grows holds the piece; one that a PROT -1 piece is
     in needs not hold all of it.  */
  Dwarf_Addr low, high;
  dwfl_module_info (mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
  if ((p->start < low || p->start + p->len > high)
      && (e.outcome != O_SAME || p->prot != -1))
    fail ("op %d: the module returned, [%#" PRIx64 ", %#" PRIx64
	  "), does not cover the piece", W.op, low, high);

  check_work (md, what, work, size);
  const struct mmod *grown = find_mod (md, mod);
  struct mmod before_grow = grown != NULL ? *grown : (struct mmod) { 0 };
  bool new_dup = model_report (md, p, &e, mod, name ?: f->path, fd >= 0);
  W.last.ok = true;
  W.last.outcome = e.outcome;
  W.last.size = size;
  W.last.work = work;
  W.last.again = (e.outcome == O_GROW && before_grow.kind == K_MMAP
		  && before_grow.state == LIVE
		  && ranges_contain (&before_grow, p->start, p->start + p->len)
		  && (grown = find_mod (md, mod)) != NULL
		  && grown->nbiases == before_grow.nbiases);
  /* A file made from FD holds one duplicate of it for its modules;
     nothing else holds a file for a module until its ELF is wanted.  */
  if (fds_after != fds + new_dup)
    fail ("op %d: a report that %s left %d descriptors open, %d before",
	  W.op, new_dup ? "made the first module of a file from FD"
	  : "made no module of a new file from FD", fds_after, fds);
  check_model (md);
  check_no_overlap (md);

  if (flags & 2)
    {
      /* Reporting a piece twice changes nothing, with the same FD.  */
      static struct snapshot once, twice;
      take_snapshot (md->dwfl, &once);
      fds = fds_open ();
      expect_report (md, &id, p, null_elf, &e);
      size = report_size (md, &e, p);
      work_start ();
      Dwfl_Module *again
	= (g != NULL
	   ? dwfl_report_elf_mmap_elf (md->dwfl, name, f->path, g->elf,
				       p->start, p->len, p->pgoff, p->prot)
	   : dwfl_report_elf_mmap (md->dwfl, name, f->path, fd, p->start,
				   p->len, p->pgoff, p->prot));
      check_work (md, what, work_done (), size);
      if (again != mod)
	fail ("op %d: the same piece again returned %s", W.op,
	      again == NULL ? dwfl_errmsg (-1) : "another module");
      if (fds_open () != fds)
	fail ("op %d: the same piece again left %d descriptors open, %d"
	      " before", W.op, fds_open (), fds);
      if (fd >= 0)
	check_fd (fd, offset, &fd_st);
      take_snapshot (md->dwfl, &twice);
      compare_snapshots (&once, &twice,
			 "the same piece again changed the modules");
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
  int inode;
  int content = content_now (file, &inode);
  struct piece p;
  piece_from_input (in, op, &files[content < 0 ? swap_base : content], &p);
  report_piece (md, file, &p, u8 (in));
}

static int
removed_callback (Dwfl_Module *mod, void *userdata,
		  const char *name, Dwarf_Addr base, void *arg)
{
  struct model *md = arg;
  struct mmod *m = find_mod (md, mod);
  if (m == NULL)
    fail ("op %d: REMOVED got a module never returned", W.op);
  if (m->state == LIVE)
    fail ("op %d: REMOVED got live module %s of %s", W.op, m->name,
	  mod_label (m));
  if (m->seen_removed)
    fail ("op %d: REMOVED got module %s of %s twice", W.op, m->name,
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
	  " %s [%#" PRIx64 ", %#" PRIx64 ") userdata %p", W.op, name, base,
	  ud, mname, low, high, (void *) m->tag);
  if (! m->opened && mainfile != NULL)
    fail ("op %d: REMOVED got module %s of %s with a main file, though its"
	  " ELF was never wanted", W.op, m->name, mod_label (m));
  /* A callback that fails stops dwfl_report_end before MOD is freed;
     the next call passes it again.  */
  if (md->removed_calls++ == md->removed_fail_at)
    return 1;
  m->seen_removed = true;
  return 0;
}

/* The size of what dwfl_report_begin and dwfl_report_end look at: every
   module, its ranges and biases.  */
static size_t
list_size (const struct model *md)
{
  size_t size = 1;
  for (size_t i = 0; i < md->nmods; ++i)
    size += 1 + md->mods[i].nranges + md->mods[i].nbiases;
  return size;
}

/* The size of what dwfl_report_end looks at: every module after
   dwfl_report_begin marked some, else only those replaced by a
   mapping.  Freeing a module, its state, its file and its entries in
   the trees takes some 60 edges: four units of WORK_C, beside its
   ranges and biases.  */
static size_t
end_size (const struct model *md)
{
  size_t size = 1;
  for (size_t i = 0; i < md->nmods; ++i)
    {
      const struct mmod *m = &md->mods[i];
      bool freed = m->state != LIVE;
      if (freed || md->marked)
	size += (freed ? 4 : 1) + m->nranges + m->nbiases;
    }
  return size;
}

static void
op_end (struct model *md, uint8_t flags)
{
  md->removed_calls = 0;
  md->removed_fail_at = (flags & 1) ? flags >> 1 : -1;

  /* The descriptors the modules to be removed hold: those of their ELF
     files, and the duplicate that the last module of a file made from
     a descriptor shares.  */
  int fds = fds_open ();
  int freed = 0;
  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *m = &md->mods[i];
      if (m->state == LIVE)
	continue;
      freed += m->held_fds;
      if (m->kind != K_MMAP || ! m->dup || entry_of (md, &m->id) != m)
	continue;
      bool kept = false;
      for (size_t j = 0; j < md->nmods; ++j)
	kept |= (md->mods[j].state == LIVE && md->mods[j].kind == K_MMAP
		 && same_ident (&md->mods[j].id, &m->id));
      freed += ! kept;
    }

  int rc;
  size_t size = end_size (md);
  work_start ();
  while ((rc = dwfl_report_end (md->dwfl, removed_callback, md)) != 0)
    if (rc != 1)
      fail ("op %d: dwfl_report_end returned %d", W.op, rc);
  check_work (md, "dwfl_report_end", work_done (), size);
  md->in_cycle = md->marked = false;

  size_t kept = 0;
  for (size_t i = 0; i < md->nmods; ++i)
    {
      struct mmod *m = &md->mods[i];
      if (m->state != LIVE && ! m->seen_removed)
	fail ("op %d: dwfl_report_end did not pass %s module %s of %s to"
	      " REMOVED", W.op, state_names[m->state], m->name,
	      mod_label (m));
      if (m->state == LIVE)
	md->mods[kept++] = *m;
    }
  md->nmods = kept;
  if (fds_open () != fds - freed)
    fail ("op %d: dwfl_report_end closed %d descriptors, the modules it"
	  " removed held %d", W.op, fds - fds_open (), freed);
  check_model (md);
  check_no_overlap (md);
  check_lookups (md);
}

static void
op_begin (struct model *md)
{
  size_t size = list_size (md);
  work_start ();
  dwfl_report_begin (md->dwfl);
  check_work (md, "dwfl_report_begin", work_done (), size);
  md->in_cycle = true;
  md->marked = md->nmods > 0;
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].state == LIVE)
      md->mods[i].state = STALE;
}

static void
op_query (struct model *md, struct input *in)
{
  uint8_t b = u8 (in), c = u8 (in);
  size_t nlive = 0;
  static struct mmod *live[MAX_MODULES];
  for (size_t i = 0; i < md->nmods; ++i)
    if (md->mods[i].state == LIVE)
      live[nlive++] = &md->mods[i];
  /* With few descriptors, a module's file may not open.  */
  if (nlive == 0 || W.nofile_low)
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

/* dwfl_report_elf of FILE at BASE, named NAME, where no live module
   is: a module that later pieces of the file grow when they agree with
   its bias, and replace when they do not.  Sets W.last.  */
static void
report_elf (struct model *md, int file, uint64_t base, const char *name)
{
  const struct file *f = &files[file];
  int inode;
  int content = content_now (file, &inode);
  W.last.ok = false;
  if (content < 0 || model_full (md))
    return;
  const struct file *c = &files[content];

  /* Where the module will be, from a Dwfl of its own.  */
  Dwfl *scratch = dwfl_begin (&dwfl_callbacks[CB_PROC]);
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
  int fds = fds_open ();
  bool room = ! no_room ();
  work_start ();
  mod = dwfl_report_elf (md->dwfl, name, f->path, -1, base, true);
  struct work work = work_done ();
  if (mod == NULL && ! room)
    return;
  GElf_Addr bias = 0;
  Elf *elf = mod == NULL ? NULL : dwfl_module_getelf (mod, &bias);
  if (elf == NULL)
    fail ("op %d: dwfl_report_elf of %s failed: %s", W.op, f->label,
	  dwfl_errmsg (-1));
  if (trace)
    fprintf (stderr, "op %d: dwfl_report_elf (Dwfl %d, %s, %s, base %#"
	     PRIx64 ") = %p [%#" PRIx64 ", %#" PRIx64 ") bias %#" PRIx64 "\n",
	     W.op, md->index, name, f->label, base, mod, low, high, bias);
  if (find_mod (md, mod) != NULL)
    fail ("op %d: dwfl_report_elf returned a module it had", W.op);
  /* It reads the program headers, and lays out the sections of
     ET_REL.  */
  size_t size = c->view.phnum + c->elf.shnum + 1;
  check_work (md, "dwfl_report_elf", work, size);
  struct mmod *m = new_mod (md, mod, K_ELF, name);
  GElf_Ehdr ehdr_mem, *ehdr = gelf_getehdr (elf, &ehdr_mem);
  m->e_type = ehdr == NULL ? ET_NONE : ehdr->e_type;
  m->file = file;
  m->src = m->open_src = content;
  m->open_inode = inode;
  m->opened = m->open_ok = true;
  m->held_fds = fds_open () - fds;
  ranges_set (m, low, high);
  m->bias = bias;
  m->nbiases = m->nposs = 1;
  m->biases[0] = m->poss[0] = bias;
  W.last = (__typeof__ (W.last)) { true, O_NEW, size, 0, work, false };
  check_model (md);
}

static void
op_report_elf (struct model *md, struct input *in)
{
  int file = pick_file (in);
  uint8_t b = u8 (in);
  int inode;
  int content = content_now (file, &inode);
  uint64_t base = 0x7f0000000000 + (uint64_t) bias_shifts[b & 15];
  if (content < 0 || ! files[content].view.ok
      || files[content].elf.e_type == ET_EXEC)
    base = 0;
  report_elf (md, file, base, names[(b >> 4) & 3] ?: files[file].label);
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

/* dwfl_report_module of NAME for [START, END) where no live module is,
   as the proc and core reporters call it: a piece that meets it
   replaces it.  Sets W.last.  */
static void
report_module (struct model *md, const char *name, uint64_t start,
	       uint64_t end)
{
  struct mmod *same;
  W.last.ok = false;
  if (end <= start || model_full (md)
      || ! legacy_report_known (md, name, start, end, K_MODULE, &same))
    return;

  if (! md->in_cycle)
    {
      dwfl_report_begin_add (md->dwfl);
      md->in_cycle = true;
    }
  work_start ();
  Dwfl_Module *mod = dwfl_report_module (md->dwfl, name, start, end);
  struct work work = work_done ();
  check_work (md, "dwfl_report_module", work, 1);
  if (trace)
    fprintf (stderr, "op %d: dwfl_report_module (Dwfl %d, %s, %#" PRIx64
	     ", %#" PRIx64 ") = %p\n", W.op, md->index, name, start, end, mod);
  if (mod == NULL)
    fail ("op %d: dwfl_report_module failed: %s", W.op, dwfl_errmsg (-1));
  if (same != NULL)
    {
      if (mod != same->mod)
	fail ("op %d: dwfl_report_module of %s again made a new module",
	      W.op, name);
      same->state = LIVE;
    }
  else
    {
      if (find_mod (md, mod) != NULL)
	fail ("op %d: dwfl_report_module returned a module it had", W.op);
      struct mmod *m = new_mod (md, mod, K_MODULE, name);
      ranges_set (m, start, end);
    }
  W.last = (__typeof__ (W.last)) { true, same != NULL ? O_SAME : O_NEW, 1, 0,
				   work, false };
  check_model (md);
  check_no_overlap (md);
}

/* dwfl_report_module.  A: its start (40: in a hole of a module, 80:
   half a page on), B: its length and name.  */
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
  report_module (md, module_names[(b >> 5) & 3], start, start + len);
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
  int inode;
  int content = content_now (file, &inode);
  const struct file *c = &files[content < 0 ? swap_base : content];
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

/* Whether what libdwfl or the caller keeps reads the swap file's inode
   INODE lazily: the duplicate of a descriptor, an Elf of the caller.  */
static bool
inode_held (int inode)
{
  for (size_t i = 0; i < W.ngiven; ++i)
    if (W.given[i].inode == inode)
      return true;
  for (size_t k = 0; k < MAX_DWFLS; ++k)
    if (W.models[k] != NULL)
      for (size_t i = 0; i < W.models[k]->nmods; ++i)
	{
	  const struct mmod *m = &W.models[k]->mods[i];
	  if ((m->open_ok && m->open_inode == inode)
	      || (m->kind == K_MMAP && m->dup && m->id.inode == inode))
	    return true;
	}
  return false;
}

/* Change the swap file, as a package manager or a build does to a file
   that a process has mapped.  HOW: 0 put a copy of SRC in its place, 1
   write SRC's bytes over it, 2 remove it, 3 touch it; then SRC.  */
static void
op_file (struct input *in)
{
  uint8_t how = u8 (in) & 3;
  int src = pick_file (in);
  if (! files[src].can_copy)
    src = files[src].origin;
  if (! files[src].can_copy)
    src = swap_base;

  /* Writing over a file that libelf reads for a module, or for the
     caller, would pull its bytes from under it, which no library can be
     asked to survive, and which installers do not do: put a new file
     in its place then.  */
  if (how == 1 && (W.swap_inode < 0 || inode_held (W.swap_inode)))
    how = 0;
  if (how == 0 && W.ninodes == MAX_INODES)
    return;

  swap_dirty = true;
  switch (how)
    {
    case 0:
      write_copy (files[swap_file].path, src, true);
      W.swap_inode = W.ninodes++;
      W.inodes[W.swap_inode] = (struct inode) { src, W.next_gen++ };
      break;
    case 1:
      write_copy (files[swap_file].path, src, false);
      W.inodes[W.swap_inode] = (struct inode) { src, W.next_gen++ };
      break;
    case 2:
      if (W.swap_inode >= 0 && unlink (files[swap_file].path) != 0)
	die ("cannot remove %s: %m", files[swap_file].path);
      W.swap_inode = -1;
      break;
    case 3:
      if (W.swap_inode >= 0)
	{
	  touch_swap ();
	  W.inodes[W.swap_inode].gen = W.next_gen++;
	}
      break;
    }
  if (trace)
    fprintf (stderr, "op %d: swap %s%s\n", W.op,
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

/* Make Dwfl K the one the operations go to, with the callbacks CB if it
   is new; a Dwfl without modules out of a report cycle is made again
   with CB.  */
static void
use_dwfl (int k, enum callbacks cb)
{
  struct model *md = W.models[k];
  if (md != NULL && (md->nmods > 0 || md->in_cycle))
    {
      W.md = md;
      return;
    }
  static struct model models[MAX_DWFLS];
  md = W.models[k] = &models[k];
  if (md->dwfl != NULL)
    dwfl_end (md->dwfl);
  md->index = k;
  md->dwfl = dwfl_begin (&dwfl_callbacks[cb]);
  if (md->dwfl == NULL)
    die ("dwfl_begin: %s", dwfl_errmsg (-1));
  md->callbacks = cb;
  md->nmods = 0;
  md->in_cycle = md->marked = false;
  W.md = md;
  if (trace)
    fprintf (stderr, "op %d: Dwfl %d, with the %s callbacks\n", W.op, k,
	     callback_names[cb]);
}

/* The files a copy or a link is made of or for.  */
static int
copy_source (int src)
{
  int inode;
  if (! files[src].can_copy)
    src = files[src].origin;
  return files[src].can_copy ? content_now (src, &inode) : -1;
}

static char *
link_path (const struct build_id *id)
{
  char hex[2 * MAX_BUILD_ID + 1];
  for (int i = 0; i < id->len; ++i)
    sprintf (&hex[2 * i], "%02x", id->bits[i]);
  return xasprintf ("%s/.build-id/%.2s/%s", debug_dir, hex, hex + 2);
}

/* Copies of files for find_elf callbacks.  A: 0 make FILE.copy a copy
   of SRC, 1 remove FILE.copy, 2 make the .build-id link for the build
   ID of FILE now name SRC (a name: what it holds when the link is
   followed), 3 remove it.  */
static void
op_copy (struct input *in)
{
  uint8_t how = u8 (in) & 3;
  int file = pick_file (in);
  int src = how == 0 || how == 2 ? pick_file (in) : -1;
  char *path = xasprintf ("%s.copy", files[file].path);
  int inode;
  int content = content_now (file, &inode);
  const struct build_id *id = (content < 0 ? NULL
			       : &files[content].view.build_id);
  struct link *l = NULL;
  if (id != NULL && id->len > 0)
    for (size_t i = 0; i < W.nlinks; ++i)
      if (same_build_id (&W.links[i].build_id, id))
	l = &W.links[i];

  switch (how)
    {
    case 0:
      src = copy_source (src);
      if (src < 0)
	break;
      /* A new file each time: a module may have the last one open.  */
      write_copy (path, src, true);
      W.copies[file] = src;
      break;
    case 1:
      unlink (path);
      W.copies[file] = -1;
      break;
    case 2:
      if (id == NULL || id->len == 0 || (l == NULL && W.nlinks == MAX_LINKS))
	break;
      if (l == NULL)
	{
	  l = &W.links[W.nlinks++];
	  l->build_id = *id;
	  l->path = link_path (id);
	  char *dir = strdup (l->path);
	  *strrchr (dir, '/') = '\0';
	  char *top = strdup (dir);
	  *strrchr (top, '/') = '\0';
	  mkdir (debug_dir, 0700);
	  mkdir (top, 0700);
	  mkdir (dir, 0700);
	  free (top);
	  free (dir);
	}
      unlink (l->path);
      if (symlink (files[src].path, l->path) != 0)
	die ("symlink %s: %m", l->path);
      l->target = src;
      break;
    case 3:
      if (l != NULL)
	{
	  unlink (l->path);
	  free (l->path);
	  *l = W.links[--W.nlinks];
	}
      break;
    }
  if (trace)
    fprintf (stderr, "op %d: %s %s%s%s\n", W.op,
	     (const char *[]) { "copy", "remove the copy",
				"link the build ID", "unlink the build ID" }
	     [how], files[file].label, how == 0 || how == 2 ? " to " : "",
	     src < 0 ? "" : files[src].label);
  free (path);
}

/* Lower RLIMIT_NOFILE to a few descriptors more than are open, or (80)
   set it back.  */
static void
op_nofile (struct input *in)
{
  uint8_t a = u8 (in);
  if (a & 0x80)
    {
      if (W.nofile_low && setrlimit (RLIMIT_NOFILE, &W.nofile) != 0)
	die ("setrlimit: %m");
      W.nofile_low = false;
      nofile_before = NULL;
    }
  else
    {
      if (! W.nofile_low && getrlimit (RLIMIT_NOFILE, &W.nofile) != 0)
	die ("getrlimit: %m");
      struct rlimit limit = W.nofile;
      limit.rlim_cur = fds_open () + 4 + (a & 31);
      if (limit.rlim_cur > W.nofile.rlim_cur)
	return;
      if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
	die ("setrlimit: %m");
      W.nofile_low = true;
      W.nofile_cur = limit.rlim_cur;
      nofile_before = &W.nofile;
    }
  if (trace)
    fprintf (stderr, "op %d: RLIMIT_NOFILE %s\n", W.op,
	     W.nofile_low ? "lowered" : "set back");
}

/* The work of the same call in a Dwfl of more modules: what the first
   of a series of them did (after the first, which reads the file).  Its
   edges outside the trees' comparisons may not grow with the modules,
   but the same call can take a somewhat longer path: a 30-minute run
   found a series of calls of 120 edges with one of 129 (at 151 modules
   against 113), and one of 141 with one of 188 at the same count, with
   no walk of the list (the path that differs is not found yet).
   WORK_SLACK bounds that: a walk of the module list of one edge a
   module goes over it once the series has added 64 modules (it adds
   128 pieces at most, with a module of dwfl_report_module and one of
   dwfl_report_elf beside each).  */
#define WORK_SLACK 64

struct series
{
  bool have;
  int outcome;
  size_t size;
  size_t n;
  uint64_t edges;
  bool again;
};

static void
check_series (struct model *md, struct series *s, const char *what)
{
  if (! W.last.ok || W.last.replaced > 0)
    return;
  if (! s->have || s->outcome != W.last.outcome || s->size != W.last.size
      || s->again != W.last.again)
    {
      *s = (struct series) { true, W.last.outcome, W.last.size, md->nmods,
			     W.last.work.edges, W.last.again };
      return;
    }
  if (work_log != NULL)
    fprintf (work_log, "series-%s %zu %zu %" PRIu64 " %zu %" PRIu64 "\n",
	     what, md->nmods, W.last.size, W.last.work.edges, s->n, s->edges);
  if (W.last.work.edges > s->edges + WORK_SLACK && ! known_bug ("work"))
    fail ("op %d: %s in a Dwfl of %zu modules took %" PRIu64 " edges of"
	  " libdwfl outside its trees' comparisons, the same call in one of"
	  " %zu %" PRIu64, W.op, what, md->nmods, W.last.work.edges, s->n,
	  s->edges);
}

/* Many pieces of one file, as of a library mapped in many processes or
   the vDSO copy of every process passed by one descriptor: FILE, the
   recorded piece B, A: how many (1 to 128), each 16 MiB above the last,
   then the report FLAGS, whose 40 adds a module of dwfl_report_module
   next to each piece, and 80 a module of dwfl_report_elf of the file.
   Each kind of call, the same each time but for the addresses, must
   take no more work in a Dwfl of more modules than the depth of its
   trees allows.  */
static void
op_many (struct model *md, struct input *in)
{
  int file = pick_file (in);
  uint8_t b = u8 (in), a = u8 (in), flags = u8 (in);
  int inode;
  int content = content_now (file, &inode);
  const struct file *c = &files[content < 0 ? swap_base : content];
  const struct recording *r = &recordings[c->origin];
  struct piece p = r->pieces[b % r->npieces];
  bool exec = c->view.e_type == ET_EXEC;
  if (! exec)
    p.start -= 0x100000000000;
  struct series series[3] = { { false, 0, 0, 0, 0, false } };
  for (int i = 0; i <= (a & 127) && ! model_full (md); ++i)
    {
      report_piece (md, file, &p, flags & 0x2d);
      if (i > 0)
	check_series (md, &series[0], "dwfl_report_elf_mmap");
      uint64_t slot = p.start & -0x1000000;
      if (flags & 0x40)
	{
	  report_module (md, module_names[i & 3], slot + 0x800000,
			 slot + 0x801000);
	  if (i > 0)
	    check_series (md, &series[1], "dwfl_report_module");
	}
      if ((flags & 0x80) && ! exec)
	{
	  report_elf (md, file, slot + 0xa00000, names[i & 3] ?: c->label);
	  if (i > 0)
	    check_series (md, &series[2], "dwfl_report_elf");
	}
      /* An executable is at one place only.  */
      if (exec)
	break;
      p.start += 0x1000000;
    }
}

/* The caller ends its Elf A: the modules have their own
   reference.  */
static void
op_elf_end (struct input *in)
{
  uint8_t a = u8 (in);
  if (W.ngiven == 0)
    return;
  struct given *g = &W.given[a % W.ngiven];
  if (g->dropped)
    return;
  if (trace)
    fprintf (stderr, "op %d: elf_end (Elf %zu)\n", W.op,
	     (size_t) (g - W.given));
  elf_end (g->elf);
  g->elf = NULL;
  g->dropped = true;
}

/* The end of an input: every Dwfl's report cycle ended, and every
   module's ELF wanted, so that a lazy input has its biases and files
   checked too.  */
static void
finish (void)
{
  W.lazy = false;
  if (W.nofile_low && setrlimit (RLIMIT_NOFILE, &W.nofile) != 0)
    die ("setrlimit: %m");
  W.nofile_low = false;
  nofile_before = NULL;
  for (size_t k = 0; k < MAX_DWFLS; ++k)
    {
      struct model *md = W.models[k];
      if (md == NULL)
	continue;
      W.md = md;
      if (md->in_cycle)
	{
	  if (trace)
	    fprintf (stderr, "op %d: dwfl_report_end (Dwfl %zu)\n", W.op, k);
	  op_end (md, 0);
	}
      check_model (md);
      dwfl_end (md->dwfl);
      md->dwfl = NULL;
      W.models[k] = NULL;
    }
  for (size_t i = 0; i < W.nshared; ++i)
    close (W.shared[i].fd);
  for (size_t i = 0; i < W.ngiven; ++i)
    {
      elf_end (W.given[i].elf);
      close (W.given[i].fd);
    }
  for (size_t i = 0; i < nfiles; ++i)
    if (W.copies[i] >= 0)
      {
	char *path = xasprintf ("%s.copy", files[i].path);
	unlink (path);
	free (path);
      }
  for (size_t i = 0; i < W.nlinks; ++i)
    {
      unlink (W.links[i].path);
      free (W.links[i].path);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct input in = { data, size };

  /* The swap file as each input begins: a copy of its base file.  */
  if (swap_dirty)
    write_copy (files[swap_file].path, swap_base, true);
  swap_dirty = false;

  int fds = fds_open ();
  W.ninodes = 1;
  W.inodes[0] = (struct inode) { swap_base, 1 };
  W.swap_inode = 0;
  W.next_gen = 2;
  W.nshared = 0;
  W.ngiven = 0;
  W.via = VIA_NONE;
  W.nlinks = 0;
  for (size_t i = 0; i < nfiles; ++i)
    W.copies[i] = -1;
  W.lazy = false;
  W.nofile_low = false;
  W.next_tag = 0;
  W.op = 0;
  use_dwfl (0, CB_PROC);

  for (W.op = 0; in.n > 0 && W.op < MAX_OPS; ++W.op)
    {
      struct model *md = W.md;
      int op = u8 (&in) % OP_NUM;
      if (trace && op >= OP_BEGIN && op != OP_REPORT_ELF
	  && op != OP_REPORT_MODULE && op != OP_FILE && op != OP_DWFL
	  && op != OP_COPY && op != OP_NOFILE && op != OP_ELF_END
	  && op != OP_VIA)
	fprintf (stderr, "op %d: %s (Dwfl %d)\n", W.op,
		 op_names[op - OP_BEGIN], md->index);
      switch (op)
	{
	case OP_BEGIN:
	  op_begin (md);
	  break;
	case OP_BEGIN_ADD:
	  dwfl_report_begin_add (md->dwfl);
	  md->in_cycle = true;
	  break;
	case OP_END:
	  op_end (md, u8 (&in));
	  break;
	case OP_LOOKUP:
	  op_lookup (md, &in);
	  break;
	case OP_QUERY:
	  op_query (md, &in);
	  break;
	case OP_REPORT_ELF:
	  op_report_elf (md, &in);
	  break;
	case OP_REPORT_MODULE:
	  op_report_module (md, &in);
	  break;
	case OP_HOLE:
	  op_hole (md, &in);
	  break;
	case OP_FILE:
	  op_file (&in);
	  break;
	case OP_LAZY:
	  /* Stop wanting every module's ELF after each operation, or
	     start again.  */
	  W.lazy = u8 (&in) & 1;
	  check_model (md);
	  break;
	case OP_DWFL:
	  {
	    uint8_t a = u8 (&in);
	    use_dwfl (a & 3, (a >> 2) & 3);
	    break;
	  }
	case OP_VIA:
	  {
	    /* The next report goes through the caller's Elf A of its file,
	       or (80) a null Elf.  */
	    uint8_t a = u8 (&in);
	    W.via = (a & 0x80) ? VIA_NULL : (a & 3);
	    if (trace)
	      fprintf (stderr, "op %d: the next report through %s\n", W.op,
		       W.via == VIA_NULL ? "a null Elf"
		       : "an Elf of the caller");
	    continue;
	  }
	case OP_COPY:
	  op_copy (&in);
	  break;
	case OP_NOFILE:
	  op_nofile (&in);
	  break;
	case OP_MANY:
	  op_many (md, &in);
	  break;
	case OP_ELF_END:
	  op_elf_end (&in);
	  break;
	default:
	  op_report (md, &in, op);
	  break;
	}
      W.via = VIA_NONE;
    }
  finish ();

  int now = fds_open ();
  if (now != fds)
    fail ("%d descriptors open after dwfl_end, %d before", now, fds);
  return 0;
}
