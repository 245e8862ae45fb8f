/* The symbol table of one ELF file, sorted by address, answering as
   dwfl_module_addrinfo does.

   libdwfl (dwfl_module_addrsym.c, __libdwfl_addrsym) reads the symbols
   in index order, the globals first and the locals only if no global
   answered, and keeps the closest symbol of nonzero size that covers the
   address: one starting higher, or of a stronger binding, takes over
   from the one kept; of the same start and binding, the smaller.  Failing
   that, it falls back to a sizeless symbol (an assembly label) at or
   below the address that no other symbol reaches past, in the same
   section.  The same answers are given here from the symbols sorted by
   value, looking only at those that can cover the address.  Addresses
   are relative to the load bias; libdwfl compares absolute ones, which
   only differs for a symbol whose value does not move with the bias
   (SHN_ABS) lying in the module's own addresses.  On ppc64 ELFv1,
   libdwfl also tries each function's descriptor address, in .opd: not
   code, and above it, so no code address is named by one; they are left
   out.  */

#include <stdlib.h>
#include <string.h>
#include <gelf.h>

#include "filesyms.h"

/* An allocated section of the main file, as libdwfl's cache_sections
   keeps it (derelocate.c).  */
struct file_section
{
  uint64_t start;
  uint64_t end;
  size_t ndx;
};

/* GELF_ST_BIND as libdwfl ranks it, higher is preferred.  */
static int
binding_rank (unsigned char binding)
{
  switch (binding)
    {
    case STB_GLOBAL:
      return 3;
    case STB_WEAK:
      return 2;
    case STB_LOCAL:
      return 1;
    default:
      return 0;
    }
}

/* Sort the N symbols of SYMS, which are in index order, by value, and
   symbols of one value by index: a radix sort, a byte of the value at a
   time from the lowest, keeps the order of equals.  qsort called its
   comparison 17 times a symbol in a table of 60,000, and took five
   times as long.  Returns 0, -1 if out of memory.  */
static int
sort_symbols (struct file_symbol *syms, size_t n)
{
  struct file_symbol *other = malloc ((n ?: 1) * sizeof *other);
  if (other == NULL)
    return -1;
  struct file_symbol *from = syms;
  struct file_symbol *to = other;
  for (unsigned int shift = 0; shift < 64 && n > 0; shift += 8)
    {
      size_t start[257] = { 0 };
      for (size_t i = 0; i < n; ++i)
	++start[(from[i].value >> shift & 0xff) + 1];
      /* A byte all values share changes no order.  */
      if (start[(from[0].value >> shift & 0xff) + 1] == n)
	continue;
      for (size_t b = 0; b < 256; ++b)
	start[b + 1] += start[b];
      for (size_t i = 0; i < n; ++i)
	to[start[from[i].value >> shift & 0xff]++] = from[i];
      struct file_symbol *sorted = to;
      to = from;
      from = sorted;
    }
  if (from != syms)
    memcpy (syms, from, n * sizeof *syms);
  free (other);
  return 0;
}

static int
compare_sections (const void *a, const void *b)
{
  const struct file_section *x = a;
  const struct file_section *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

/* Whether search_table looks at the symbol NAME, SYM at all.  */
static bool
searched (const char *name, const GElf_Sym *sym)
{
  int type = GELF_ST_TYPE (sym->st_info);
  return (name != NULL && name[0] != '\0' && sym->st_shndx != SHN_UNDEF
	  && type != STT_SECTION && type != STT_FILE && type != STT_TLS);
}

/* Whether NAME is in the SIZE bytes at KEEP.  */
static bool
kept (const char *name, const char *keep, size_t size)
{
  return (keep != NULL && (uintptr_t) name >= (uintptr_t) keep
	  && (uintptr_t) name - (uintptr_t) keep < size);
}

/* Read the symbols of MOD that libdwfl searches into FS, sorted, their
   names copied but those in the KEEP_SIZE bytes at KEEP: the module that
   gave them can end before FS.  */
static int
read_symbols (struct file_symbols *fs, Dwfl_Module *mod, Dwarf_Addr bias,
	      const char *keep, size_t keep_size)
{
  int n_syms = dwfl_module_getsymtab (mod);
  int first_global = dwfl_module_getsymtab_first_global (mod);
  if (n_syms <= 1 || first_global < 0)
    return 0;
  /* With no locals apart (a table from the dynamic segment), the first
     pass is every symbol.  */
  int first = first_global == 0 ? 1 : first_global;
  fs->has_locals = first_global > 1;
  fs->syms = malloc ((size_t) n_syms * sizeof *fs->syms);
  if (fs->syms == NULL)
    return -1;

  size_t names_size = 0;
  for (int i = 1; i < n_syms; ++i)
    {
      GElf_Sym sym;
      GElf_Addr addr;
      GElf_Word shndx;
      const char *name = dwfl_module_getsym_info (mod, i, &sym, &addr,
						  &shndx, NULL, NULL);
      if (!searched (name, &sym))
	continue;
      int type = GELF_ST_TYPE (sym.st_info);
      fs->syms[fs->n_syms++] = (struct file_symbol)
	{
	  .value = addr - bias,
	  .size = sym.st_size,
	  .name = name,
	  .index = i,
	  .binding = GELF_ST_BIND (sym.st_info),
	  .first_pass = i >= first,
	  .function = type == STT_FUNC || type == STT_GNU_IFUNC,
	  .object = type == STT_OBJECT,
	  /* dwfl_module_getsym_info gives -1 for a section that is not
	     allocated.  */
	  .not_in_section = shndx >= SHN_LORESERVE,
	};
      if (!kept (name, keep, keep_size))
	names_size += strlen (name) + 1;
    }

  fs->names = malloc (names_size ?: 1);
  if (fs->names == NULL)
    return -1;
  char *p = fs->names;
  for (size_t i = 0; i < fs->n_syms; ++i)
    {
      const char *name = fs->syms[i].name;
      if (kept (name, keep, keep_size))
	continue;
      fs->syms[i].name = p;
      p = stpcpy (p, name) + 1;
    }

  if (sort_symbols (fs->syms, fs->n_syms) != 0)
    return -1;
  uint64_t reach = 0;
  for (size_t i = 0; i < fs->n_syms; ++i)
    {
      struct file_symbol *s = &fs->syms[i];
      /* A size past the end of the address space covers the rest.  */
      uint64_t end = s->value + s->size < s->value ? UINT64_MAX
		     : s->value + s->size;
      if (end > reach)
	reach = end;
      s->reach = reach;
    }
  return 0;
}

/* Read the allocated sections of MOD's main file, whose load bias is
   BIAS, into FS, as libdwfl's cache_sections does: none at all if one
   has no name.  */
static int
read_sections (struct file_symbols *fs, Dwfl_Module *mod, Dwarf_Addr bias)
{
  Dwarf_Addr elf_bias;
  Elf *elf = dwfl_module_getelf (mod, &elf_bias);
  size_t n_scns;
  size_t shstrndx;
  if (elf == NULL || elf_getshdrnum (elf, &n_scns) != 0
      || elf_getshdrstrndx (elf, &shstrndx) != 0)
    return 0;
  fs->sections = malloc ((n_scns ?: 1) * sizeof *fs->sections);
  if (fs->sections == NULL)
    return -1;
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn != NULL;
       scn = elf_nextscn (elf, scn))
    {
      GElf_Shdr shdr;
      if (gelf_getshdr (scn, &shdr) == NULL
	  || ((shdr.sh_flags & SHF_ALLOC)
	      && elf_strptr (elf, shstrndx, shdr.sh_name) == NULL))
	{
	  fs->n_sections = 0;
	  return 0;
	}
      if (shdr.sh_flags & SHF_ALLOC)
	{
	  uint64_t start = shdr.sh_addr + elf_bias - bias;
	  fs->sections[fs->n_sections++] = (struct file_section)
	    {
	      .start = start,
	      .end = start + shdr.sh_size,
	      .ndx = elf_ndxscn (scn),
	    };
	}
    }
  qsort (fs->sections, fs->n_sections, sizeof *fs->sections,
	 compare_sections);
  return 0;
}

int
file_symbols_init (struct file_symbols *fs, Dwfl_Module *mod,
		   Dwarf_Addr bias, const char *keep, size_t keep_size)
{
  memset (fs, 0, sizeof *fs);
  if (read_symbols (fs, mod, bias, keep, keep_size) != 0
      || read_sections (fs, mod, bias) != 0)
    {
      file_symbols_free (fs);
      return -1;
    }
  return 0;
}

void
file_symbols_free (struct file_symbols *fs)
{
  free (fs->syms);
  free (fs->names);
  free (fs->sections);
  free (fs->covering);
  memset (fs, 0, sizeof *fs);
}

/* The section index libdwfl's find_section gives ADDR (SHN_UNDEF if it
   is in none), by the same binary search, which takes the end of a
   section to be in it unless the next one starts there.  */
static size_t
section_ndx (const struct file_symbols *fs, uint64_t addr)
{
  size_t lo = 0;
  size_t hi = fs->n_sections;
  while (lo < hi)
    {
      size_t i = (lo + hi) / 2;
      const struct file_section *s = &fs->sections[i];
      if (addr < s->start)
	hi = i;
      else if (addr > s->end)
	lo = i + 1;
      else
	{
	  if (addr == s->end && i + 1 < fs->n_sections
	      && addr == fs->sections[i + 1].start)
	    ++i;
	  return fs->sections[i].ndx;
	}
    }
  return SHN_UNDEF;
}

/* The number of symbols of FS whose value is below VALUE, or at most
   VALUE if AT_OR_BELOW.  */
static size_t
count_below (const struct file_symbols *fs, uint64_t value, bool at_or_below)
{
  size_t lo = 0;
  size_t hi = fs->n_syms;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (fs->syms[mid].value < value
	  || (at_or_below && fs->syms[mid].value == value))
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo;
}

struct file_symbol *
file_symbols_at (const struct file_symbols *fs, uint64_t value, size_t *n)
{
  size_t first = count_below (fs, value, false);
  *n = count_below (fs, value, true) - first;
  return &fs->syms[first];
}

/* Collect in FS->covering the symbols of nonzero size among the first
   N of FS that cover REL, in index order, their number in *N_COVERING.
   Returns 0, -1 if out of memory.  */
static int
collect_covering (struct file_symbols *fs, size_t n, uint64_t rel,
		  size_t *n_covering)
{
  *n_covering = 0;
  for (size_t i = n; i-- > 0 && fs->syms[i].reach > rel;)
    {
      struct file_symbol *s = &fs->syms[i];
      if (rel - s->value >= s->size)
	continue;
      if (*n_covering == fs->cap_covering)
	{
	  size_t cap = fs->cap_covering ? 2 * fs->cap_covering : 8;
	  struct file_symbol **c = realloc (fs->covering, cap * sizeof *c);
	  if (c == NULL)
	    return -1;
	  fs->covering = c;
	  fs->cap_covering = cap;
	}
      /* Insertion by index: they are few, met by decreasing value.  */
      size_t j = (*n_covering)++;
      for (; j > 0 && fs->covering[j - 1]->index > s->index; --j)
	fs->covering[j] = fs->covering[j - 1];
      fs->covering[j] = s;
    }
  return 0;
}

/* Whether libdwfl, having kept C, takes T, met after it, instead: both
   cover the address and have a size.  */
static bool
takes_over (const struct file_symbol *c, const struct file_symbol *t)
{
  int c_rank = binding_rank (c->binding);
  int t_rank = binding_rank (t->binding);
  return (c->value < t->value || c_rank < t_rank
	  || (c->value == t->value && c_rank == t_rank && c->size > t->size));
}

/* The symbol libdwfl keeps of the N_COVERING in FS->covering, those of
   its first pass or those of its second, or NULL.  */
static struct file_symbol *
closest (const struct file_symbols *fs, size_t n_covering, bool first_pass)
{
  struct file_symbol *kept = NULL;
  for (size_t i = 0; i < n_covering; ++i)
    {
      struct file_symbol *t = fs->covering[i];
      if (t->first_pass == first_pass && (kept == NULL || takes_over (kept, t)))
	kept = t;
    }
  return kept;
}

/* The sizeless symbol libdwfl falls back to for REL when no symbol
   covers it, LABEL being the highest address that the symbols it read
   at or below REL reach (it reads those of the first pass only if
   FIRST_PASS_ONLY): the last it read of those at LABEL that are in
   REL's section, or NULL.  */
static struct file_symbol *
sizeless (const struct file_symbols *fs, uint64_t label, uint64_t rel,
	  bool first_pass_only)
{
  size_t n;
  struct file_symbol *at = file_symbols_at (fs, label, &n);
  bool same_section = section_ndx (fs, label) == section_ndx (fs, rel);
  struct file_symbol *found = NULL;
  for (size_t i = 0; i < n; ++i)
    {
      struct file_symbol *s = &at[i];
      if (s->size != 0 || (first_pass_only && !s->first_pass)
	  || !(s->not_in_section ? label == rel : same_section))
	continue;
      /* The second pass comes after the first.  */
      if (found == NULL || found->first_pass || !s->first_pass)
	found = s;
    }
  return found;
}

/* Whether the first pass has a sizeless symbol at REL: then libdwfl
   does not look at the second.  */
static bool
first_pass_label_at (const struct file_symbols *fs, uint64_t rel)
{
  size_t n;
  const struct file_symbol *at = file_symbols_at (fs, rel, &n);
  for (size_t i = 0; i < n; ++i)
    if (at[i].size == 0 && at[i].first_pass)
      return true;
  return false;
}

int
file_symbols_lookup (struct file_symbols *fs, uint64_t rel,
		     struct file_symbol **sym)
{
  size_t n = count_below (fs, rel, true);
  size_t n_covering;
  if (collect_covering (fs, n, rel, &n_covering) != 0)
    return -1;
  *sym = closest (fs, n_covering, true);
  if (*sym != NULL)
    return 0;
  /* What the symbols read reach: no symbol read covers REL, so REL or
     below.  */
  uint64_t label = n > 0 ? fs->syms[n - 1].reach : 0;
  bool first_pass_only = !fs->has_locals || first_pass_label_at (fs, rel);
  if (fs->has_locals && first_pass_only)
    label = rel;
  else if (fs->has_locals)
    {
      *sym = closest (fs, n_covering, false);
      if (*sym != NULL)
	return 0;
    }
  *sym = sizeless (fs, label, rel, first_pass_only);
  return 0;
}
