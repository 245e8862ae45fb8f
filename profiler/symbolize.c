/* Naming code addresses with dwfl_addrmodule and dwfl_module_addrinfo.  */

#include <stdlib.h>
#include <string.h>

#include "symbolize.h"

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
  /* The demangled name INFO.name points to, if any; owned.  */
  char *demangled;
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
      free (sz->cache[i].demangled);
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
    }
  else
    {
      const char *other = process_other_map (proc, ip);
      if (other != NULL)
	info->dso = other;
    }

  free (e->demangled);
  e->demangled = NULL;
  if (sz->demangle && info->name != NULL)
    {
      e->demangled = demangle (info->name);
      if (e->demangled != NULL)
	info->name = e->demangled;
    }
  e->generation = proc->generation;
  e->ip = ip;
  e->info = *info;
}
