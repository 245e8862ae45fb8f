/* Parsing the piece tuples all contenders are fed.  The parse is part of
   every contender's timed loop, as it is part of a profiler's work.  */

#include <stdlib.h>
#include <sys/mman.h>

#include "bench.h"

/* Parse the hex number at *P and skip the blank after it.  */
static bool
parse_hex (const char **p, uint64_t *value)
{
  char *end;
  *value = strtoull (*p, &end, 16);
  if (end == *p || *end != ' ')
    return false;
  *p = end + 1;
  return true;
}

/* Parse maps' "rwx" letters, or "?" for unknown.  */
static bool
parse_prot (const char **p, int *prot)
{
  const char *s = *p;
  if (s[0] == '?' && s[1] == ' ')
    {
      *prot = -1;
      *p = s + 2;
      return true;
    }
  if (s[0] == '\0' || s[1] == '\0' || s[2] == '\0' || s[3] != ' ')
    return false;
  *prot = ((s[0] == 'r' ? PROT_READ : 0)
	   | (s[1] == 'w' ? PROT_WRITE : 0)
	   | (s[2] == 'x' ? PROT_EXEC : 0));
  *p = s + 4;
  return true;
}

bool
piece_parse (const char *line, struct piece *piece)
{
  char *end;
  piece->pid = strtol (line, &end, 10);
  if (end == line || *end != ' ')
    return false;
  const char *p = end + 1;
  if (! parse_hex (&p, &piece->start)
      || ! parse_hex (&p, &piece->len)
      || ! parse_hex (&p, &piece->pgoff)
      || ! parse_prot (&p, &piece->prot)
      || *p != '/')
    return false;
  piece->path = p;
  return true;
}

void
prot_letters (int prot, char out[4])
{
  if (prot < 0)
    {
      out[0] = '?';
      out[1] = '\0';
      return;
    }
  out[0] = (prot & PROT_READ) ? 'r' : '-';
  out[1] = (prot & PROT_WRITE) ? 'w' : '-';
  out[2] = (prot & PROT_EXEC) ? 'x' : '-';
  out[3] = '\0';
}
