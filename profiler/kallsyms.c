/* Reading a kallsyms file into a table sorted for binary search, with
   perf's rules for which symbols count and how far each reaches.  */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kallsyms.h"

#define PAGE_SIZE 4096

/* The whole of the file at FD, NUL-terminated, in *TEXT; its length.
   kallsyms has no size to stat.  Returns -1 with errno set on error.  */
static ssize_t
read_all (int fd, char **text)
{
  size_t len = 0;
  size_t cap = 1 << 20;
  char *buf = malloc (cap);
  if (buf == NULL)
    return -1;
  for (;;)
    {
      if (cap - len < 2)
	{
	  char *p = realloc (buf, 2 * cap);
	  if (p == NULL)
	    {
	      free (buf);
	      return -1;
	    }
	  buf = p;
	  cap *= 2;
	}
      ssize_t n = read (fd, buf + len, cap - len - 1);
      if (n < 0 && errno == EINTR)
	continue;
      if (n < 0)
	{
	  int saved = errno;
	  free (buf);
	  errno = saved;
	  return -1;
	}
      if (n == 0)
	break;
      len += n;
    }
  buf[len] = '\0';
  *text = buf;
  return len;
}

/* perf keeps the text and data symbols (T, W, D, B in either case) but
   for the local labels of ARM modules ($x, $d).  */
static bool
wanted (char type, const char *name)
{
  char t = toupper ((unsigned char) type);
  return (t == 'T' || t == 'W' || t == 'D' || t == 'B') && name[0] != '$';
}

/* The address in hexadecimal at P, up to 16 digits, in *ADDR, and where
   it ends in *END; false if there is none.  strtoull takes several times
   as long, for signs, prefixes and locales kallsyms does not have.  */
static bool
parse_address (char *p, char **end, uint64_t *addr)
{
  static const signed char digit[256] =
    {
      ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
      ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12,
      ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11,
      ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
    };
  uint64_t value = 0;
  char *q = p;
  int d;
  for (; (d = digit[(unsigned char) *q]) != 0 && q - p < 16; ++q)
    value = value << 4 | (d - 1);
  *end = q;
  *addr = value;
  return q > p && d == 0;
}

/* Split TEXT, LEN bytes of kallsyms lines "ADDR TYPE NAME[\t[MODULE]]",
   into symbols, in place.  Until set_ends gives them their extent, the
   END of each is its line number, to keep the file's order between
   symbols of one address: perf's choice among them depends on it.
   Returns their number, or -1 if out of memory.  Lines that do not
   parse are skipped.  */
static ssize_t
parse (char *text, size_t len, struct ksym **syms)
{
  size_t n = 0;
  size_t cap = 1024;
  struct ksym *e = malloc (cap * sizeof *e);
  if (e == NULL)
    return -1;
  size_t line = 0;
  for (char *p = text, *next; p < text + len; p = next)
    {
      char *eol = memchr (p, '\n', text + len - p);
      next = eol != NULL ? eol + 1 : text + len;
      if (eol != NULL)
	*eol = '\0';
      ++line;

      char *end;
      uint64_t addr;
      if (!parse_address (p, &end, &addr) || end[0] != ' ' || end[1] == '\0'
	  || end[2] != ' ')
	continue;
      char type = end[1];
      char *name = end + 3;
      char *module = NULL;
      char *tab = strchr (name, '\t');
      if (tab != NULL)
	{
	  *tab = '\0';
	  char *close = strchr (tab + 1, ']');
	  if (tab[1] == '[' && close != NULL)
	    {
	      *close = '\0';
	      module = tab + 2;
	    }
	}
      if (name[0] == '\0' || !wanted (type, name))
	continue;

      if (n == cap)
	{
	  struct ksym *bigger = realloc (e, 2 * cap * sizeof *e);
	  if (bigger == NULL)
	    {
	      free (e);
	      return -1;
	    }
	  e = bigger;
	  cap *= 2;
	}
      e[n++] = (struct ksym)
	{
	  .start = addr, .end = line, .name = name, .module = module,
	  .type = type
	};
    }
  *syms = e;
  return n;
}

/* By address, then line (END, before set_ends).  */
static int
compare_address (const void *a, const void *b)
{
  const struct ksym *x = a;
  const struct ksym *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* The kernel's symbols first, then each module's, each by address.  */
static int
compare_module (const struct ksym *x, const char *module, uint64_t addr)
{
  if ((x->module == NULL) != (module == NULL))
    return x->module == NULL ? -1 : 1;
  int c = x->module != NULL ? strcmp (x->module, module) : 0;
  if (c != 0)
    return c;
  return x->start < addr ? -1 : x->start > addr;
}

static int
compare_ksym (const void *a, const void *b)
{
  const struct ksym *x = a;
  const struct ksym *y = b;
  return compare_module (x, y->module, y->start);
}

/* Sort the N elements of SIZE bytes at BASE with COMPARE, as qsort
   would.  kallsyms lists the kernel's symbols in order, then each
   module's in its own: only what follows the part in order is sorted,
   then merged into it.  Returns 0, -1 if out of memory.  */
static int
sort_rest (void *base, size_t n, size_t size,
	   int (*compare) (const void *, const void *))
{
  char *e = base;
  size_t in_order = 1;
  while (in_order < n
	 && compare (e + (in_order - 1) * size, e + in_order * size) <= 0)
    ++in_order;
  if (in_order >= n)
    return 0;
  size_t m = n - in_order;
  char *rest = malloc (m * size);
  if (rest == NULL)
    return -1;
  memcpy (rest, e + in_order * size, m * size);
  qsort (rest, m, size, compare);
  /* From the end, into the room the rest left.  */
  size_t i = in_order;
  size_t k = n;
  while (m > 0)
    if (i > 0 && compare (e + (i - 1) * size, rest + (m - 1) * size) > 0)
      memcpy (e + --k * size, e + --i * size, size);
    else
      memcpy (e + --k * size, rest + --m * size, size);
  free (rest);
  return 0;
}

static uint64_t
round_up_page (uint64_t x)
{
  return (x + PAGE_SIZE - 1) & ~(uint64_t) (PAGE_SIZE - 1);
}

/* kallsyms gives no sizes: each symbol reaches the next one, but the
   last of the kernel before a module's (or the reverse) and the very
   last, which reach one page on, not across the gap between the
   kernel's text and the modules'.  */
static void
set_ends (struct ksym *e, size_t n)
{
  for (size_t i = 0; i + 1 < n; ++i)
    {
      struct ksym *prev = &e[i];
      const struct ksym *curr = &e[i + 1];
      if ((prev->module == NULL) != (curr->module == NULL))
	prev->end = round_up_page (prev->start + PAGE_SIZE);
      else
	prev->end = curr->start;
    }
  if (n > 0)
    e[n - 1].end = round_up_page (e[n - 1].start) + PAGE_SIZE;
}

static size_t
underscores (const char *name)
{
  size_t n = 0;
  while (name[n] == '_')
    ++n;
  return n;
}

/* Whether perf keeps A rather than B of two symbols at one address, A
   first in the file: the one with a size (after set_ends only the last
   of them has one), not weak, global, with fewer leading underscores,
   with the longer name; on a tie A, unless A is an old SyS_ syscall
   alias.  */
static bool
prefer (const struct ksym *a, const struct ksym *b)
{
  bool sized_a = a->end != a->start;
  bool sized_b = b->end != b->start;
  if (sized_a != sized_b)
    return sized_a;
  bool weak_a = a->type == 'W';
  bool weak_b = b->type == 'W';
  if (weak_a != weak_b)
    return weak_b;
  bool global_a = !weak_a && isupper ((unsigned char) a->type);
  bool global_b = !weak_b && isupper ((unsigned char) b->type);
  if (global_a != global_b)
    return global_a;
  size_t ua = underscores (a->name);
  size_t ub = underscores (b->name);
  if (ua != ub)
    return ua < ub;
  size_t la = strlen (a->name);
  size_t lb = strlen (b->name);
  if (la != lb)
    return la > lb;
  return (strncmp (a->name, "SyS", 3) != 0
	  && strncmp (a->name, "compat_SyS", 10) != 0);
}

/* Keep one symbol of each address, in place; returns how many are
   left.  */
static size_t
drop_aliases (struct ksym *e, size_t n)
{
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i)
    {
      if (kept > 0 && e[kept - 1].start == e[i].start)
	{
	  if (!prefer (&e[kept - 1], &e[i]))
	    e[kept - 1] = e[i];
	}
      else
	e[kept++] = e[i];
    }
  return kept;
}

/* The address of the kernel function NAME among the N entries of E;
   *FOUND says whether there is one.  */
static uint64_t
function_address (const struct ksym *e, size_t n, const char *name,
		  bool *found)
{
  for (size_t i = 0; i < n; ++i)
    {
      char t = toupper ((unsigned char) e[i].type);
      if (e[i].module == NULL && (t == 'T' || t == 'W')
	  && strcmp (e[i].name, name) == 0)
	{
	  *found = true;
	  return e[i].start;
	}
    }
  *found = false;
  return 0;
}

int
kallsyms_read (struct kallsyms *ks, const char *path, const char *ref_name,
	       uint64_t ref_addr, char *error, size_t error_size)
{
  memset (ks, 0, sizeof *ks);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      snprintf (error, error_size, "%s: %s", path, strerror (errno));
      return -1;
    }
  char *text;
  ssize_t len = read_all (fd, &text);
  int saved = errno;
  close (fd);
  if (len < 0)
    {
      snprintf (error, error_size, "%s: %s", path, strerror (saved));
      return -1;
    }

  struct ksym *e;
  ssize_t n = parse (text, len, &e);
  if (n < 0)
    {
      free (text);
      snprintf (error, error_size, "out of memory");
      return -1;
    }
  ks->syms = e;
  ks->n = n;
  ks->text = text;
  bool nonzero = false;
  for (ssize_t i = 0; i < n && !nonzero; ++i)
    nonzero = e[i].start != 0;
  if (n == 0 || !nonzero)
    {
      snprintf (error, error_size,
		n == 0 ? "%s: no symbols in it"
		: "%s: every address is 0, hidden by kernel.kptr_restrict",
		path);
      kallsyms_free (ks);
      return -1;
    }

  /* The reference is looked for among all the functions, before the
     aliases go, as perf looks for it.  */
  uint64_t delta = 0;
  if (ref_name != NULL)
    {
      bool found;
      uint64_t addr = function_address (e, n, ref_name, &found);
      if (!found)
	{
	  snprintf (error, error_size, "%s: no function %s in it", path,
		    ref_name);
	  kallsyms_free (ks);
	  return -1;
	}
      delta = addr - ref_addr;
    }

  if (sort_rest (e, n, sizeof *e, compare_address) != 0)
    goto nomem;
  set_ends (e, n);
  ks->n = n = drop_aliases (e, n);
  for (ssize_t i = 0; i < n; ++i)
    if (e[i].module == NULL)
      {
	e[i].start -= delta;
	e[i].end -= delta;
      }
  if (sort_rest (e, n, sizeof *e, compare_ksym) != 0)
    goto nomem;
  return 0;

 nomem:
  kallsyms_free (ks);
  snprintf (error, error_size, "out of memory");
  return -1;
}

void
kallsyms_free (struct kallsyms *ks)
{
  free (ks->syms);
  free (ks->text);
  memset (ks, 0, sizeof *ks);
}

const struct ksym *
kallsyms_lookup (const struct kallsyms *ks, const char *module,
		 uint64_t addr)
{
  /* The number of symbols at or before ADDR in MODULE's order.  */
  size_t lo = 0;
  size_t hi = ks->n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (compare_module (&ks->syms[mid], module, addr) <= 0)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo == 0)
    return NULL;
  const struct ksym *s = &ks->syms[lo - 1];
  if ((s->module == NULL) != (module == NULL)
      || (module != NULL && strcmp (s->module, module) != 0)
      || addr < s->start || (addr >= s->end && addr != s->start))
    return NULL;
  return s;
}
