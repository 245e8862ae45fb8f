/* Naming code addresses with dwfl_addrmodule and dwfl_module_addrinfo.  */

#include <stdlib.h>
#include <string.h>
#include <gelf.h>

#include "symbolize.h"

/* The size of the first entry of .plt (the lazy binding stub) and of
   the others, on x86 as perf takes them.  */
#define PLT_HEADER_SIZE 16
#define PLT_ENTRY_SIZE 16

/* From libstdc++, as elfutils' own tools use it.  */
extern char *__cxa_demangle (const char *mangled, char *buf, size_t *len,
			     int *status);

/* The cache: direct-mapped, CACHE_SIZE entries.  */
#define CACHE_BITS 16
#define CACHE_SIZE (1u << CACHE_BITS)

struct symbol_cache_entry
{
  /* The generation of the process's address space, 0 for an unused
     entry, and the address.  */
  uint64_t generation;
  uint64_t ip;
  struct symbol_info info;
  /* The name INFO.name points to when it was made here (demangled, or
     NAME@plt); owned.  */
  char *owned_name;
};

int
symbolizer_init (struct symbolizer *sz, bool demangle)
{
  memset (sz, 0, sizeof *sz);
  sz->demangle = demangle;
  sz->cache = calloc (CACHE_SIZE, sizeof *sz->cache);
  return sz->cache == NULL ? -1 : 0;
}

void
symbolizer_free (struct symbolizer *sz)
{
  if (sz->cache != NULL)
    for (size_t i = 0; i < CACHE_SIZE; ++i)
      free (sz->cache[i].owned_name);
  free (sz->cache);
  sz->cache = NULL;
}

/* NAME demangled as perf shows it by default: without the parameter
   list (and the qualifiers after it) of the function itself.  Returns
   a new string, or NULL if NAME is not a mangled C++ name.  */
static char *
demangle (const char *name)
{
  if (name[0] != '_' || name[1] != 'Z')
    return NULL;
  int status = -1;
  char *s = __cxa_demangle (name, NULL, NULL, &status);
  if (s == NULL || status != 0)
    {
      free (s);
      return NULL;
    }
  /* Cut the parameter list: the parenthesized group at the end, but for
     the qualifiers of a member function.  */
  static const char *const qualifiers[] =
    { " const", " volatile", " &&", " &", " noexcept" };
  size_t end = strlen (s);
  for (size_t i = 0; i < sizeof qualifiers / sizeof qualifiers[0]; ++i)
    {
      size_t n = strlen (qualifiers[i]);
      if (end >= n && memcmp (s + end - n, qualifiers[i], n) == 0)
	{
	  end -= n;
	  i = (size_t) -1;
	}
    }
  if (end == 0 || s[end - 1] != ')')
    return s;
  int depth = 0;
  for (size_t i = end; i-- > 0;)
    {
      if (s[i] == ')')
	++depth;
      else if (s[i] == '(' && --depth == 0)
	{
	  if (i > 0)
	    s[i] = '\0';
	  break;
	}
    }
  return s;
}

/* The section of ELF named NAME, its header in *SHDR; NULL if none.  */
static Elf_Scn *
find_section (Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *shdr)
{
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn != NULL;
       scn = elf_nextscn (elf, scn))
    {
      if (gelf_getshdr (scn, shdr) == NULL)
	continue;
      const char *s = elf_strptr (elf, shstrndx, shdr->sh_name);
      if (s != NULL && strcmp (s, name) == 0)
	return scn;
    }
  return NULL;
}

/* Name ADDR of MOD as perf names an address in the PLT, which has no
   symbol: NAME@plt after the relocation of its entry (an entry of .plt
   after the first, or of .plt.sec, in the order of .rela.plt), with
   an empty NAME for a relocation without symbol.  Returns a new string
   with the offset in *OFFSET, or NULL.  */
static char *
plt_name (Dwfl_Module *mod, Dwarf_Addr addr, uint64_t *offset)
{
  Dwarf_Addr bias;
  Elf *elf = dwfl_module_getelf (mod, &bias);
  GElf_Ehdr ehdr;
  size_t shstrndx;
  if (elf == NULL || gelf_getehdr (elf, &ehdr) == NULL
      || (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_386)
      || elf_getshdrstrndx (elf, &shstrndx) != 0)
    return NULL;
  Dwarf_Addr vaddr = addr - bias;

  GElf_Shdr plt;
  uint64_t first;
  if (find_section (elf, shstrndx, ".plt.sec", &plt) != NULL
      && vaddr - plt.sh_addr < plt.sh_size)
    first = plt.sh_addr;
  else if (find_section (elf, shstrndx, ".plt", &plt) != NULL
	   && vaddr - plt.sh_addr < plt.sh_size
	   && vaddr - plt.sh_addr >= PLT_HEADER_SIZE)
    first = plt.sh_addr + PLT_HEADER_SIZE;
  else
    return NULL;
  if (plt.sh_type == SHT_NOBITS)
    return NULL;
  uint64_t index = (vaddr - first) / PLT_ENTRY_SIZE;

  GElf_Shdr rel_shdr;
  Elf_Scn *rel = find_section (elf, shstrndx, ".rela.plt", &rel_shdr);
  if (rel == NULL)
    rel = find_section (elf, shstrndx, ".rel.plt", &rel_shdr);
  if (rel == NULL || rel_shdr.sh_entsize == 0
      || index >= rel_shdr.sh_size / rel_shdr.sh_entsize)
    return NULL;
  Elf_Data *rel_data = elf_getdata (rel, NULL);
  GElf_Rela rela;
  GElf_Rel rel_mem;
  uint64_t info;
  if (rel_data == NULL)
    return NULL;
  if (rel_shdr.sh_type == SHT_RELA
      && gelf_getrela (rel_data, index, &rela) != NULL)
    info = rela.r_info;
  else if (rel_shdr.sh_type == SHT_REL
	   && gelf_getrel (rel_data, index, &rel_mem) != NULL)
    info = rel_mem.r_info;
  else
    return NULL;

  const char *name = "";
  size_t symndx = (ehdr.e_ident[EI_CLASS] == ELFCLASS64
		   ? GELF_R_SYM (info) : ELF32_R_SYM (info));
  Elf_Scn *symscn = elf_getscn (elf, rel_shdr.sh_link);
  GElf_Shdr sym_shdr;
  Elf_Data *sym_data;
  GElf_Sym sym;
  if (symndx != 0 && symscn != NULL
      && gelf_getshdr (symscn, &sym_shdr) != NULL
      && (sym_data = elf_getdata (symscn, NULL)) != NULL
      && gelf_getsym (sym_data, symndx, &sym) != NULL)
    name = elf_strptr (elf, sym_shdr.sh_link, sym.st_name) ?: "";

  char *s = malloc (strlen (name) + sizeof "@plt");
  if (s == NULL)
    return NULL;
  strcpy (stpcpy (s, name), "@plt");
  *offset = vaddr - (first + index * PLT_ENTRY_SIZE);
  return s;
}

void
symbolize (struct symbolizer *sz, struct process *proc, uint64_t ip,
	   unsigned int cpumode, struct symbol_info *info)
{
  memset (info, 0, sizeof *info);
  switch (cpumode)
    {
    case PERF_RECORD_MISC_KERNEL:
      info->dso = "[kernel]";
      info->kernel = true;
      return;
    case PERF_RECORD_MISC_HYPERVISOR:
      info->dso = "[hypervisor]";
      info->kernel = true;
      return;
    case PERF_RECORD_MISC_GUEST_KERNEL:
      info->dso = "[guest.kernel]";
      info->kernel = true;
      return;
    case PERF_RECORD_MISC_GUEST_USER:
      info->dso = "[guest.user]";
      return;
    default:
      break;
    }
  info->dso = "[unknown]";
  if (proc == NULL)
    return;

  ++sz->lookups;
  Dwfl *dwfl = process_dwfl (proc);
  uint64_t h = (ip ^ (proc->generation * 0x9e3779b97f4a7c15ULL)) >> 2;
  h ^= h >> CACHE_BITS;
  struct symbol_cache_entry *e = &sz->cache[h & (CACHE_SIZE - 1)];
  if (e->generation == proc->generation && e->ip == ip)
    {
      ++sz->cache_hits;
      *info = e->info;
      return;
    }

  free (e->owned_name);
  e->owned_name = NULL;
  Dwfl_Module *mod = dwfl != NULL ? dwfl_addrmodule (dwfl, ip) : NULL;
  if (mod != NULL)
    {
      const char *mainfile = NULL;
      const char *modname = dwfl_module_info (mod, NULL, NULL, NULL, NULL,
					      NULL, &mainfile, NULL);
      info->dso = mainfile ?: modname;
      GElf_Off offset;
      GElf_Sym sym;
      info->name = dwfl_module_addrinfo (mod, ip, &offset, &sym, NULL, NULL,
					 NULL);
      info->offset = offset;
      if (info->name == NULL)
	info->name = e->owned_name = plt_name (mod, ip, &info->offset);
    }
  else
    {
      const char *other = process_other_map (proc, ip);
      if (other != NULL)
	info->dso = other;
    }

  if (sz->demangle && info->name != NULL && e->owned_name == NULL)
    {
      e->owned_name = demangle (info->name);
      if (e->owned_name != NULL)
	info->name = e->owned_name;
    }
  e->generation = proc->generation;
  e->ip = ip;
  e->info = *info;
}
