/* Naming code addresses with dwfl_addrmodule and dwfl_module_addrinfo.  */

#include <stdlib.h>
#include <string.h>
#include <gelf.h>

#include "kernel.h"
#include "symbolize.h"

/* The size of the first entry of .plt (the lazy binding stub) and of
   the others, on x86 as perf takes them.  */
#define PLT_HEADER_SIZE 16
#define PLT_ENTRY_SIZE 16

/* From libstdc++, as elfutils' own tools use it.  */
extern char *__cxa_demangle (const char *mangled, char *buf, size_t *len,
			     int *status);

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

/* What is known of the symbols of one file, at addresses relative to its
   load bias.  The addresses where a symbol or an allocated section
   starts or ends cut the address space into intervals in each of which
   dwfl_module_addrinfo gives the same symbol, but for the first address
   of an interval (where a sizeless symbol can match exactly).  Each
   answer is asked for once; a file's table serves every module of it.  */
struct file_symbols
{
  /* The cuts, sorted, without duplicates.  */
  uint64_t *bounds;
  size_t n_bounds;
  /* The answers: [0] below the first cut, [2 K + 1] at cut K,
     [2 K + 2] above it and below the next.  */
  struct file_interval *intervals;
  /* The function symbols, by address, to choose between aliases.  */
  struct file_function *functions;
  size_t n_functions;
  struct file_symbols *next;
};

struct file_interval
{
  bool known;
  /* The symbol (in the symbolizer's names) and its relative address;
     NULL if no symbol covers the interval.  */
  const char *name;
  uint64_t value;
};

struct file_function
{
  uint64_t value;
  uint64_t size;
  int index;
  unsigned char binding;
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
  for (struct file_symbols *fs = sz->files, *next; fs != NULL; fs = next)
    {
      next = fs->next;
      free (fs->bounds);
      free (fs->intervals);
      free (fs->functions);
      free (fs);
    }
  sz->files = NULL;
  strtab_free (&sz->names);
  free (sz->cache);
  sz->cache = NULL;
}

/* NAME demangled as perf shows it by default: without the parameter
   list (and the qualifiers after it) of the function itself, nor the
   return type of a template.  Returns a new string, or NULL if NAME is
   not a mangled C++ name.  */
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
  /* The name of a function template comes after its return type:
     "void f<int>".  Keep what follows the last space outside brackets,
     but for an operator's.  */
  size_t len = strlen (s);
  if (len == 0 || s[len - 1] != '>')
    return s;
  size_t cut = 0;
  depth = 0;
  for (size_t i = 0; i < len; ++i)
    if (s[i] == '<' || s[i] == '(' || s[i] == '[')
      ++depth;
    else if (s[i] == '>' || s[i] == ')' || s[i] == ']')
      --depth;
    else if (s[i] == ' ' && depth == 0
	     && !(i >= 8 && memcmp (s + i - 8, "operator", 8) == 0))
      cut = i + 1;
  memmove (s, s + cut, len - cut + 1);
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

static int
compare_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a;
  uint64_t y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

static int
compare_function (const void *a, const void *b)
{
  const struct file_function *x = a;
  const struct file_function *y = b;
  if (x->value != y->value)
    return x->value < y->value ? -1 : 1;
  return x->index - y->index;
}

/* Add the cuts of [START, START + SIZE) to FS, room for them made.  */
static void
add_cuts (struct file_symbols *fs, uint64_t start, uint64_t size)
{
  fs->bounds[fs->n_bounds++] = start;
  if (size > 0)
    fs->bounds[fs->n_bounds++] = start + size;
}

/* The symbol table of MOD's file, whose load bias is BIAS: cuts and
   functions.  NULL if out of memory.  */
static struct file_symbols *
file_symbols_new (Dwfl_Module *mod, Dwarf_Addr bias)
{
  int n_syms = dwfl_module_getsymtab (mod);
  if (n_syms < 0)
    n_syms = 0;
  Dwarf_Addr elf_bias;
  Elf *elf = dwfl_module_getelf (mod, &elf_bias);
  size_t n_scns = 0;
  if (elf != NULL && elf_getshdrnum (elf, &n_scns) != 0)
    n_scns = 0;

  struct file_symbols *fs = calloc (1, sizeof *fs);
  if (fs == NULL)
    return NULL;
  fs->bounds = malloc ((4 * (size_t) n_syms + 2 * n_scns + 1)
		       * sizeof *fs->bounds);
  fs->functions = malloc (((size_t) n_syms + 1) * sizeof *fs->functions);
  if (fs->bounds == NULL || fs->functions == NULL)
    goto nomem;

  for (int i = 1; i < n_syms; ++i)
    {
      GElf_Sym sym;
      GElf_Addr addr;
      const char *name = dwfl_module_getsym_info (mod, i, &sym, &addr, NULL,
						  NULL, NULL);
      if (name == NULL || sym.st_shndx == SHN_UNDEF)
	continue;
      add_cuts (fs, addr - bias, sym.st_size);
      if (sym.st_value != addr)
	add_cuts (fs, sym.st_value - bias, sym.st_size);
      int type = GELF_ST_TYPE (sym.st_info);
      if (type == STT_FUNC || type == STT_GNU_IFUNC)
	fs->functions[fs->n_functions++] = (struct file_function)
	  {
	    .value = addr - bias,
	    .size = sym.st_size,
	    .index = i,
	    .binding = GELF_ST_BIND (sym.st_info),
	  };
    }
  for (size_t i = 1; i < n_scns; ++i)
    {
      GElf_Shdr shdr;
      Elf_Scn *scn = elf_getscn (elf, i);
      if (scn != NULL && gelf_getshdr (scn, &shdr) != NULL
	  && (shdr.sh_flags & SHF_ALLOC))
	add_cuts (fs, shdr.sh_addr + elf_bias - bias, shdr.sh_size);
    }

  qsort (fs->bounds, fs->n_bounds, sizeof *fs->bounds, compare_u64);
  size_t n = 0;
  for (size_t i = 0; i < fs->n_bounds; ++i)
    if (n == 0 || fs->bounds[i] != fs->bounds[n - 1])
      fs->bounds[n++] = fs->bounds[i];
  fs->n_bounds = n;
  qsort (fs->functions, fs->n_functions, sizeof *fs->functions,
	 compare_function);
  fs->intervals = calloc (2 * fs->n_bounds + 1, sizeof *fs->intervals);
  if (fs->intervals == NULL)
    goto nomem;
  return fs;

 nomem:
  free (fs->bounds);
  free (fs->functions);
  free (fs);
  return NULL;
}

/* The interval of FS that holds relative address REL.  */
static struct file_interval *
find_interval (struct file_symbols *fs, uint64_t rel)
{
  /* The number of cuts at or below REL.  */
  size_t lo = 0;
  size_t hi = fs->n_bounds;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (fs->bounds[mid] <= rel)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo == 0)
    return &fs->intervals[0];
  return &fs->intervals[2 * lo - (fs->bounds[lo - 1] == rel ? 1 : 0)];
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

/* Whether perf prefers function A, named NA, to B, named NB, at the
   same address: one with a size, not weak, global, with fewer leading
   underscores, with a longer name (perf's choose_best_symbol).  */
static bool
perf_prefers (const struct file_function *a, const char *na,
	      const struct file_function *b, const char *nb)
{
  if ((a->size > 0) != (b->size > 0))
    return a->size > 0;
  if ((a->binding == STB_WEAK) != (b->binding == STB_WEAK))
    return b->binding == STB_WEAK;
  if ((a->binding == STB_GLOBAL) != (b->binding == STB_GLOBAL))
    return a->binding == STB_GLOBAL;
  if (underscores (na) != underscores (nb))
    return underscores (na) < underscores (nb);
  return strlen (na) > strlen (nb);
}

/* NAME, the symbol at relative address VALUE, or the alias of it perf
   would name: the function at VALUE it prefers.  */
static const char *
perf_alias (Dwfl_Module *mod, const struct file_symbols *fs, uint64_t value,
	    const char *name)
{
  size_t lo = 0;
  size_t hi = fs->n_functions;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (fs->functions[mid].value < value)
	lo = mid + 1;
      else
	hi = mid;
    }
  /* Only between functions, and NAME must be one of them.  */
  const struct file_function *best = NULL;
  const char *best_name = NULL;
  bool found = false;
  for (size_t i = lo; i < fs->n_functions && fs->functions[i].value == value;
       ++i)
    {
      GElf_Sym sym;
      GElf_Addr addr;
      const char *n = dwfl_module_getsym_info (mod, fs->functions[i].index,
					       &sym, &addr, NULL, NULL, NULL);
      if (n == NULL || n[0] == '\0')
	continue;
      found |= strcmp (n, name) == 0;
      if (best == NULL || perf_prefers (&fs->functions[i], n, best,
					best_name))
	{
	  best = &fs->functions[i];
	  best_name = n;
	}
    }
  return found ? best_name : name;
}

/* The answer of dwfl_module_addrinfo for IP in MOD, whose load bias is
   BIAS and main file FILE (in the symbolizer's names): found in the
   file's table, asked for when not there yet.  Sets INFO's name and
   offset.  Returns false if out of memory.  */
static bool
file_lookup (struct symbolizer *sz, Dwfl_Module *mod, const char *file,
	     Dwarf_Addr bias, uint64_t ip, struct symbol_info *info)
{
  struct file_symbols **fsp = (struct file_symbols **) strtab_value (file);
  if (*fsp == NULL)
    {
      *fsp = file_symbols_new (mod, bias);
      if (*fsp == NULL)
	return false;
      (*fsp)->next = sz->files;
      sz->files = *fsp;
    }
  struct file_symbols *fs = *fsp;
  uint64_t rel = ip - bias;
  struct file_interval *iv = find_interval (fs, rel);
  if (!iv->known)
    {
      ++sz->addrinfo_calls;
      GElf_Off offset;
      GElf_Sym sym;
      const char *name = dwfl_module_addrinfo (mod, ip, &offset, &sym, NULL,
					       NULL, NULL);
      iv->name = NULL;
      if (name != NULL)
	{
	  iv->value = rel - offset;
	  name = perf_alias (mod, fs, iv->value, name);
	  char *demangled = sz->demangle ? demangle (name) : NULL;
	  iv->name = strtab_add (&sz->names, demangled ?: name);
	  free (demangled);
	  if (iv->name == NULL)
	    return false;
	}
      iv->known = true;
    }
  info->name = iv->name;
  info->offset = rel - iv->value;
  return true;
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

  Dwfl_Module *mod = dwfl != NULL ? dwfl_addrmodule (dwfl, ip) : NULL;
  if (mod != NULL)
    {
      /* The module is named after the file of the mmap record; its main
	 file can be a copy of it, in perf's build-id cache.  */
      const char *mainfile = NULL;
      const char *modname = dwfl_module_info (mod, NULL, NULL, NULL, NULL,
					      NULL, &mainfile, NULL);
      Dwarf_Addr bias;
      const char *file = strtab_add (&sz->names, mainfile ?: modname);
      const char *name = strtab_add (&sz->names, modname ?: mainfile);
      if (file == NULL || name == NULL
	  || dwfl_module_getelf (mod, &bias) == NULL)
	return;
      info->dso = name;
      if (!file_lookup (sz, mod, file, bias, ip, info))
	return;
      if (info->name == NULL)
	{
	  char *plt = plt_name (mod, ip, &info->offset);
	  if (plt != NULL)
	    info->name = strtab_add (&sz->names, plt);
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
