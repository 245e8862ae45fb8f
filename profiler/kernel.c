/* The kernel and its modules: maps from the kernel mmap records,
   symbols from the kallsyms file that is the recorded kernel's.  */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>

#include "kernel.h"

/* How perf record names the kernel's map, followed by the name of the
   symbol whose address the record's pgoff is.  */
#define KERNEL_MMAP_NAME "[kernel.kallsyms]"

/* The most bytes of /sys/kernel/notes read.  */
#define NOTES_MAX 4096

void
kernel_init (struct kernel *k, const struct perf_data *data,
	     const char *kallsyms_file)
{
  memset (k, 0, sizeof *k);
  k->data = data;
  k->kallsyms_file = kallsyms_file;
  strtab_init (&k->names);
}

void
kernel_free (struct kernel *k)
{
  free (k->maps);
  kallsyms_free (&k->syms);
  strtab_free (&k->names);
  memset (k, 0, sizeof *k);
}

bool
kernel_has_maps (const struct kernel *k)
{
  return k->n_maps > 0;
}

/* Put the map [START, END) named DSO (and MODULE) in K, in place of the
   maps it overlaps, as a newer mapping replaces older ones.  */
static int
add_map (struct kernel *k, uint64_t start, uint64_t end, const char *dso,
	 const char *module)
{
  size_t kept = 0;
  for (size_t i = 0; i < k->n_maps; ++i)
    if (k->maps[i].end <= start || k->maps[i].start >= end)
      k->maps[kept++] = k->maps[i];
  k->n_maps = kept;
  if (k->n_maps == k->cap_maps)
    {
      size_t cap = k->cap_maps ? 2 * k->cap_maps : 16;
      struct kernel_map *maps = realloc (k->maps, cap * sizeof *maps);
      if (maps == NULL)
	return -1;
      k->maps = maps;
      k->cap_maps = cap;
    }
  size_t i = k->n_maps;
  while (i > 0 && k->maps[i - 1].start > start)
    {
      k->maps[i] = k->maps[i - 1];
      --i;
    }
  k->maps[i] = (struct kernel_map)
    {
      .start = start,
      .end = end,
      .dso = dso,
      .module = module,
    };
  ++k->n_maps;
  return 0;
}

/* The name perf gives a module loaded from PATH: its file name up to the
   first dot (xfs.ko.xz is xfs), '-' read as '_' as the kernel does.
   Returns a new string, or NULL if out of memory.  */
static char *
module_name (const char *path)
{
  const char *base = strrchr (path, '/');
  base = base != NULL ? base + 1 : path;
  char *name = strndup (base, strcspn (base, "."));
  if (name != NULL)
    for (char *p = name; *p != '\0'; ++p)
      if (*p == '-')
	*p = '_';
  return name;
}

int
kernel_mmap (struct kernel *k, const struct perf_mmap *m)
{
  unsigned int cpumode = m->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  if (cpumode != PERF_RECORD_MISC_KERNEL
      && !(m->pid == -1 && cpumode != PERF_RECORD_MISC_GUEST_KERNEL))
    return 0;
  uint64_t start = m->start;
  uint64_t end = (m->len == 0 || m->start + m->len < m->start
		  ? UINT64_MAX : m->start + m->len);

  const char *dso;
  const char *module = NULL;
  if (strncmp (m->filename, KERNEL_MMAP_NAME, strlen (KERNEL_MMAP_NAME))
      == 0)
    {
      const char *ref = m->filename + strlen (KERNEL_MMAP_NAME);
      dso = strtab_add (&k->names, KERNEL_MMAP_NAME);
      if (dso == NULL)
	return -1;
      k->ref_name = NULL;
      if (ref[0] != '\0')
	{
	  k->ref_name = strtab_add (&k->names, ref);
	  if (k->ref_name == NULL)
	    return -1;
	  k->ref_addr = m->pgoff;
	}
    }
  else if (m->filename[0] == '/'
	   || (m->filename[0] == '['
	       && m->filename[strlen (m->filename) - 1] == ']'))
    {
      char *name = (m->filename[0] == '/' ? module_name (m->filename)
		    : strndup (m->filename + 1, strlen (m->filename) - 2));
      if (name == NULL)
	return -1;
      size_t len = strlen (name);
      char *bracketed = malloc (len + 3);
      if (bracketed == NULL)
	{
	  free (name);
	  return -1;
	}
      sprintf (bracketed, "[%s]", name);
      module = strtab_add (&k->names, name);
      dso = strtab_add (&k->names, bracketed);
      free (name);
      free (bracketed);
      if (module == NULL || dso == NULL)
	return -1;
    }
  else
    /* perf's own extra maps (the x86 entry trampolines) are not
       named.  */
    return 0;
  return add_map (k, start, end, dso, module);
}

/* The GNU build id in the notes at NOTES (LEN bytes), in ID (20 bytes);
   its size, 0 if there is none.  */
static size_t
notes_build_id (const unsigned char *notes, size_t len, unsigned char *id)
{
  size_t pos = 0;
  while (pos + sizeof (Elf64_Nhdr) <= len)
    {
      Elf64_Nhdr nhdr;
      memcpy (&nhdr, notes + pos, sizeof nhdr);
      pos += sizeof nhdr;
      size_t name_at = pos;
      pos += (nhdr.n_namesz + 3) & ~3u;
      size_t desc_at = pos;
      pos += (nhdr.n_descsz + 3) & ~3u;
      if (pos > len)
	break;
      if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4
	  && memcmp (notes + name_at, "GNU", 4) == 0
	  && nhdr.n_descsz > 0 && nhdr.n_descsz <= 20)
	{
	  memcpy (id, notes + desc_at, nhdr.n_descsz);
	  return nhdr.n_descsz;
	}
    }
  return 0;
}

/* The running kernel's build id, in ID (20 bytes); its size, 0 if it
   cannot be read.  */
static size_t
running_build_id (unsigned char *id)
{
  int fd = open ("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  unsigned char notes[NOTES_MAX];
  size_t len = 0;
  ssize_t n;
  while (len < sizeof notes
	 && ((n = read (fd, notes + len, sizeof notes - len)) > 0
	     || (n < 0 && errno == EINTR)))
    if (n > 0)
      len += n;
  close (fd);
  return notes_build_id (notes, len, id);
}

static void
hex (const unsigned char *id, size_t size, char *out)
{
  for (size_t i = 0; i < size; ++i)
    sprintf (out + 2 * i, "%02x", id[i]);
  out[2 * size] = '\0';
}

/* The copy of the kallsyms of the kernel of build id HEX_ID that perf
   record keeps in its build-id cache, in PATH (of SIZE bytes); false if
   it is not there.  */
static bool
cached_kallsyms (const char *hex_id, char *path, size_t size)
{
  const char *home = getenv ("HOME");
  if (home == NULL)
    return false;
  if ((size_t) snprintf (path, size, "%s/.debug/" KERNEL_MMAP_NAME
			 "/%s/kallsyms", home, hex_id) < size
      && access (path, R_OK) == 0)
    return true;
  return ((size_t) snprintf (path, size, "%s/.debug/.build-id/%.2s/%s/"
			     "kallsyms", home, hex_id, hex_id + 2) < size
	  && access (path, R_OK) == 0);
}

/* Once its symbols are read, perf's kernel map reaches from the first
   of them to the end of the last: past the end of the text the record
   gave (_etext), over the init text, where the idle tasks' call chains
   are.  The map keeps clear of its neighbours.  */
static void
widen_kernel_map (struct kernel *k)
{
  const struct ksym *first = NULL;
  const struct ksym *last = NULL;
  for (size_t i = 0; i < k->syms.n && k->syms.syms[i].module == NULL; ++i)
    {
      if (first == NULL)
	first = &k->syms.syms[i];
      last = &k->syms.syms[i];
    }
  for (size_t i = 0; first != NULL && i < k->n_maps; ++i)
    if (k->maps[i].module == NULL)
      {
	uint64_t start = first->start;
	uint64_t end = last->end;
	if (i > 0 && start < k->maps[i - 1].end)
	  start = k->maps[i - 1].end;
	if (i + 1 < k->n_maps && end > k->maps[i + 1].start)
	  end = k->maps[i + 1].start;
	if (start < end)
	  {
	    k->maps[i].start = start;
	    k->maps[i].end = end;
	  }
	break;
      }
}

/* Decide which kallsyms file is the recorded kernel's and read it.  */
static void
load_symbols (struct kernel *k)
{
  char path[4096];
  const char *file = k->kallsyms_file;
  if (file == NULL)
    {
      const struct perf_build_id *recorded
	= k->data != NULL ? perf_data_build_id (k->data, KERNEL_MMAP_NAME)
			  : NULL;
      unsigned char running[20];
      size_t running_size = running_build_id (running);
      char hex_id[2 * 20 + 1];
      /* Without a build id (perf record -B, or a pipe, which has them
	 at the end), perf takes the running kernel's too.  */
      if (recorded == NULL || recorded->size == 0
	  || (recorded->size == running_size
	      && memcmp (recorded->id, running, running_size) == 0))
	file = "/proc/kallsyms";
      else
	{
	  hex (recorded->id, recorded->size, hex_id);
	  if (!cached_kallsyms (hex_id, path, sizeof path))
	    {
	      snprintf (k->problem, sizeof k->problem,
			"the recorded kernel (build id %s) is not the"
			" running one, and perf's build-id cache has no"
			" kallsyms of it", hex_id);
	      k->state = -1;
	      return;
	    }
	  file = path;
	}
    }
  char error[sizeof k->problem];
  if (kallsyms_read (&k->syms, file, k->ref_name, k->ref_addr, error,
		     sizeof error) != 0)
    {
      snprintf (k->problem, sizeof k->problem, "%s", error);
      k->state = -1;
      return;
    }
  k->source = strtab_add (&k->names, file);
  k->state = 1;
  widen_kernel_map (k);
}

const char *
kernel_symbol (struct kernel *k, uint64_t ip, const char **dso,
	       uint64_t *offset)
{
  ++k->lookups;
  *offset = 0;
  /* The last map starting at or below IP.  */
  size_t lo = 0;
  size_t hi = k->n_maps;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (k->maps[mid].start <= ip)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo == 0 || ip >= k->maps[lo - 1].end)
    {
      *dso = "[unknown]";
      return NULL;
    }
  const struct kernel_map *map = &k->maps[lo - 1];
  *dso = map->dso;
  if (k->state == 0)
    load_symbols (k);
  if (k->state < 0)
    return NULL;
  const struct ksym *sym = kallsyms_lookup (&k->syms, map->module, ip);
  if (sym == NULL)
    return NULL;
  ++k->named;
  *offset = ip - sym->start;
  return sym->name;
}
