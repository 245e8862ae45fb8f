/* Naming code addresses with dwfl_addrmodule and the symbol tables of
   the modules' files.  */

#include <stdlib.h>
#include <string.h>
#include <gelf.h>

#include "demangle.h"
#include "filesyms.h"
#include "kernel.h"
#include "symbolize.h"

/* The size of the first entry of .plt (the lazy binding stub) and of
   the others, on x86 as perf takes them.  */
#define PLT_HEADER_SIZE 16
#define PLT_ENTRY_SIZE 16

/* The answers for single addresses: direct-mapped, CACHE_SIZE entries,
   for addresses met again, as the hot ones are.  */
#define CACHE_BITS 16
#define CACHE_SIZE (1u << CACHE_BITS)

struct symbol_cache_entry
{
  /* The generation of the process's address space, 0 for an unused
     entry, and the address.  */
  uint64_t generation;
  uint64_t ip;
  struct symbol_info info;
};

/* The symbol table of a file, for every module of it in every
   process, and the sections that name its PLT entries (found by
   find_plt once, NULL where it has none).  */
struct known_file
{
  struct file_symbols syms;
  bool plt_found;
  Elf_Scn *plt_sec;
  Elf_Scn *plt;
  Elf_Scn *rela_plt;
  Elf_Scn *rel_plt;
  struct known_file *next;
};

int
symbolizer_init (struct symbolizer *sz, bool demangle)
{
  memset (sz, 0, sizeof *sz);
  sz->demangle = demangle;
  strtab_init (&sz->names);
  sz->cache = calloc (CACHE_SIZE, sizeof *sz->cache);
  return sz->cache == NULL ? -1 : 0;
}

void
symbolizer_free (struct symbolizer *sz)
{
  for (struct known_file *kf = sz->files, *next; kf != NULL; kf = next)
    {
      next = kf->next;
      file_symbols_free (&kf->syms);
      free (kf);
    }
  sz->files = NULL;
  strtab_free (&sz->names);
  free (sz->cache);
  sz->cache = NULL;
}

/* NAME as perf shows it: demangled if SZ demangles.  *TO_FREE is set
   to what the caller frees after, NULL if nothing.  */
static const char *
shown_name (const struct symbolizer *sz, const char *name, char **to_free)
{
  *to_free = sz->demangle ? demangle_as_perf (name) : NULL;
  return *to_free ?: name;
}

/* Find the sections plt_name reads in ELF, KF's file: the first of each
   name.  */
static void
find_plt (Elf *elf, struct known_file *kf)
{
  kf->plt_found = true;
  size_t shstrndx;
  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    return;
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn != NULL;
       scn = elf_nextscn (elf, scn))
    {
      GElf_Shdr shdr;
      const char *name = (gelf_getshdr (scn, &shdr) == NULL ? NULL
			  : elf_strptr (elf, shstrndx, shdr.sh_name));
      Elf_Scn **found = (name == NULL ? NULL
			 : strcmp (name, ".plt.sec") == 0 ? &kf->plt_sec
			 : strcmp (name, ".plt") == 0 ? &kf->plt
			 : strcmp (name, ".rela.plt") == 0 ? &kf->rela_plt
			 : strcmp (name, ".rel.plt") == 0 ? &kf->rel_plt
			 : NULL);
      if (found != NULL && *found == NULL)
	*found = scn;
    }
}

/* Name ADDR of MOD as perf names an address in the PLT, which has no
   symbol: NAME@plt after the relocation of its entry (an entry of .plt
   after the first, or of .plt.sec, in the order of .rela.plt), with
   an empty NAME for a relocation without symbol, NAME demangled if SZ
   demangles.  Returns a new string with the offset in *OFFSET, or
   NULL.  */
static char *
plt_name (const struct symbolizer *sz, struct known_file *kf,
	  Dwfl_Module *mod, Dwarf_Addr addr, uint64_t *offset)
{
  Dwarf_Addr bias;
  Elf *elf = dwfl_module_getelf (mod, &bias);
  GElf_Ehdr ehdr;
  if (elf == NULL || gelf_getehdr (elf, &ehdr) == NULL
      || (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_386))
    return NULL;
  if (!kf->plt_found)
    find_plt (elf, kf);
  Dwarf_Addr vaddr = addr - bias;

  GElf_Shdr plt;
  uint64_t first;
  if (kf->plt_sec != NULL && gelf_getshdr (kf->plt_sec, &plt) != NULL
      && vaddr - plt.sh_addr < plt.sh_size)
    first = plt.sh_addr;
  else if (kf->plt != NULL && gelf_getshdr (kf->plt, &plt) != NULL
	   && vaddr - plt.sh_addr < plt.sh_size
	   && vaddr - plt.sh_addr >= PLT_HEADER_SIZE)
    first = plt.sh_addr + PLT_HEADER_SIZE;
  else
    return NULL;
  if (plt.sh_type == SHT_NOBITS)
    return NULL;
  uint64_t index = (vaddr - first) / PLT_ENTRY_SIZE;

  GElf_Shdr rel_shdr;
  Elf_Scn *rel = kf->rela_plt ?: kf->rel_plt;
  if (rel == NULL || gelf_getshdr (rel, &rel_shdr) == NULL
      || rel_shdr.sh_entsize == 0
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

  char *to_free;
  name = shown_name (sz, name, &to_free);
  char *s = malloc (strlen (name) + sizeof "@plt");
  if (s != NULL)
    strcpy (stpcpy (s, name), "@plt");
  free (to_free);
  if (s == NULL)
    return NULL;
  *offset = vaddr - (first + index * PLT_ENTRY_SIZE);
  return s;
}

/* The number of leading underscores of NAME.  */
static size_t
underscores (const char *name)
{
  size_t n = 0;
  while (name[n] == '_')
    ++n;
  return n;
}

/* A function at an address as perf's choose_best_symbol sees it.  */
struct perf_symbol
{
  const struct file_symbol *sym;
  /* The name perf shows: demangled unless --no-demangle.  */
  const char *name;
  /* Whether it has a size by then: perf has given a sizeless symbol
     the room up to the next one it keeps, in the order of addresses
     then of the symbol table, which is beyond this address for the
     last of its symbols.  */
  bool sized;
};

/* Whether perf prefers function A to B at the same address: one with a
   size, not weak, global, with fewer leading underscores, with a longer
   name.  */
static bool
perf_prefers (const struct perf_symbol *a, const struct perf_symbol *b)
{
  if (a->sized != b->sized)
    return a->sized;
  unsigned char bind_a = a->sym->binding;
  unsigned char bind_b = b->sym->binding;
  if ((bind_a == STB_WEAK) != (bind_b == STB_WEAK))
    return bind_b == STB_WEAK;
  if ((bind_a == STB_GLOBAL) != (bind_b == STB_GLOBAL))
    return bind_a == STB_GLOBAL;
  if (underscores (a->name) != underscores (b->name))
    return underscores (a->name) < underscores (b->name);
  return strlen (a->name) > strlen (b->name);
}

/* What SYM of FS is named, in SZ's names; NULL if out of memory.  Made
   once for each symbol: if SYM is a function, the name perf shows of
   the function at its address perf prefers, the first of equals;
   otherwise the name SYM shows.  */
static const char *
symbol_label (struct symbolizer *sz, const struct file_symbols *fs,
	      struct file_symbol *sym)
{
  if (sym->label != NULL)
    return sym->label;
  size_t n;
  const struct file_symbol *at = file_symbols_at (fs, sym->value, &n);
  /* The last symbol perf keeps (functions and data) at the address.  */
  size_t last = n;
  for (size_t i = 0; i < n; ++i)
    if (at[i].function || at[i].object)
      last = i;
  struct perf_symbol best = { NULL, NULL, false };
  char *best_free = NULL;
  bool found = false;
  for (size_t i = 0; i < n; ++i)
    if (at[i].function)
      {
	char *to_free;
	struct perf_symbol candidate =
	  {
	    .sym = &at[i],
	    .name = shown_name (sz, at[i].name, &to_free),
	    .sized = at[i].size > 0 || i == last,
	  };
	found |= strcmp (at[i].name, sym->name) == 0;
	if (best.sym == NULL || perf_prefers (&candidate, &best))
	  {
	    free (best_free);
	    best = candidate;
	    best_free = to_free;
	  }
	else
	  free (to_free);
      }
  char *own_free = NULL;
  const char *label = found ? best.name : shown_name (sz, sym->name,
						      &own_free);
  sym->label = strtab_add (&sz->names, label);
  free (best_free);
  free (own_free);
  return sym->label;
}

/* FILE (in SZ's names), the main file of MOD, whose load bias is BIAS,
   its symbol table read from MOD the first time; NULL if out of
   memory.  The names in the bytes of MOD's file in memory are not
   copied: the process table keeps them longer than SZ.  */
static struct known_file *
known_file (struct symbolizer *sz, const char *file, Dwfl_Module *mod,
	    Dwarf_Addr bias)
{
  struct known_file **kfp = (struct known_file **) strtab_value (file);
  if (*kfp != NULL)
    return *kfp;
  struct known_file *kf = calloc (1, sizeof *kf);
  if (kf == NULL)
    return NULL;
  const struct elf_file *read = process_module_file (mod);
  if (file_symbols_init (&kf->syms, mod, bias,
			 read != NULL ? read->bytes : NULL,
			 read != NULL ? read->size : 0) != 0)
    {
      free (kf);
      return NULL;
    }
  ++sz->files_read;
  sz->symbols_read += kf->syms.n_syms;
  kf->next = sz->files;
  sz->files = kf;
  *kfp = kf;
  return kf;
}

/* Name IP in MOD, whose load bias is BIAS, as dwfl_module_addrinfo
   would, from the table of KF, its file: INFO's name and offset.
   Returns false if out of memory.  */
static bool
file_lookup (struct symbolizer *sz, struct known_file *kf, Dwarf_Addr bias,
	     uint64_t ip, struct symbol_info *info)
{
  struct file_symbols *fs = &kf->syms;
  struct file_symbol *sym;
  uint64_t rel = ip - bias;
  if (file_symbols_lookup (fs, rel, &sym) != 0)
    return false;
  info->name = NULL;
  if (sym == NULL)
    return true;
  info->name = symbol_label (sz, fs, sym);
  info->offset = rel - sym->value;
  info->start = sym->value;
  return info->name != NULL;
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
      if (sz->kernel != NULL && kernel_has_maps (sz->kernel))
	info->name = kernel_symbol (sz->kernel, ip, &info->dso,
				    &info->offset);
      info->start = ip - info->offset;
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
  Dwfl *dwfl = process_lookup_dwfl (proc);
  uint64_t h = (ip ^ (proc->generation * 0x9e3779b97f4a7c15ULL)) >> 2;
  h ^= h >> CACHE_BITS;
  struct symbol_cache_entry *e = &sz->cache[h & (CACHE_SIZE - 1)];
  if (e->generation == proc->generation && e->ip == ip)
    {
      ++sz->cache_hits;
      *info = e->info;
      return;
    }

  Dwfl_Module *mod = dwfl != NULL ? dwfl_addrmodule (dwfl, ip) : NULL;
  if (mod != NULL)
    {
      /* The module is named after the file of the mmap record; the file
	 read can be a copy of it, in perf's build-id cache.  */
      const struct elf_file *read = process_module_file (mod);
      const char *modname = dwfl_module_info (mod, NULL, NULL, NULL, NULL,
					      NULL, NULL, NULL);
      Dwarf_Addr bias;
      const char *file = strtab_add (&sz->names,
				     read != NULL ? read->path : modname);
      const char *name = strtab_add (&sz->names, modname);
      if (file == NULL || name == NULL
	  || dwfl_module_getelf (mod, &bias) == NULL)
	return;
      info->dso = name;
      struct known_file *kf = known_file (sz, file, mod, bias);
      if (kf == NULL || !file_lookup (sz, kf, bias, ip, info))
	return;
      if (info->name == NULL)
	{
	  char *plt = plt_name (sz, kf, mod, ip, &info->offset);
	  if (plt != NULL)
	    {
	      info->name = strtab_add (&sz->names, plt);
	      info->start = ip - bias - info->offset;
	    }
	  free (plt);
	}
    }
  else
    {
      const char *other = process_other_map (proc, ip);
      if (other != NULL)
	info->dso = other;
    }
  e->generation = proc->generation;
  e->ip = ip;
  e->info = *info;
}
