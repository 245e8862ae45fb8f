/* Demangling symbol names as perf does (perf's demangle_sym, without
   its verbose mode).  */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "demangle.h"

/* The value of the hexadecimal digit C.  */
static int
digit_value (char c)
{
  return isdigit ((unsigned char) c) ? c - '0' : tolower (c) - 'a' + 10;
}

/* An OCaml name, "caml" and a capital (camlList__map_123): the module
   path with "__" written as '.', "$XX" as the character of code XX.  */
static char *
demangle_ocaml (const char *name)
{
  if (strncmp (name, "caml", 4) != 0 || !isupper ((unsigned char) name[4]))
    return NULL;
  char *s = malloc (strlen (name) + 1);
  if (s == NULL)
    return NULL;
  size_t j = 0;
  for (const char *p = name + 4; *p != '\0';)
    if (p[0] == '_' && p[1] == '_')
      {
	s[j++] = '.';
	p += 2;
      }
    else if (p[0] == '$' && isxdigit ((unsigned char) p[1])
	     && isxdigit ((unsigned char) p[2]))
      {
	s[j++] = digit_value (p[1]) << 4 | digit_value (p[2]);
	p += 3;
      }
    else
      s[j++] = *p++;
  s[j] = '\0';
  return s;
}

char *
demangle_as_perf (const char *name)
{
  /* DMGL_NO_OPTS: no parameters (nor the return type, nor a clone
     suffix, which libiberty only reads with them), no "const" of
     DMGL_ANSI.  perf passes DMGL_PARAMS | DMGL_ANSI only when
     verbose.  */
  char *s = cplus_demangle (name, DMGL_NO_OPTS);
  if (s == NULL)
    s = demangle_ocaml (name);
  return s;
}
