/* A set of strings, each kept once: equal strings get the same pointer,
   so that they can be compared and hashed as pointers.  */

#ifndef STRTAB_H
#define STRTAB_H

#include <stddef.h>

struct strtab_node;

struct strtab
{
  struct strtab_node **buckets;
  size_t n_buckets;
  size_t n;
};

extern void strtab_init (struct strtab *tab);

/* Free the table and every string in it.  */
extern void strtab_free (struct strtab *tab);

/* The copy of S in TAB, added if it was not there; NULL if out of
   memory.  It lives as long as TAB.  */
extern const char *strtab_add (struct strtab *tab, const char *s);

/* The copy of S in TAB, or NULL if it is not there.  */
extern const char *strtab_find (const struct strtab *tab, const char *s);

/* A pointer the caller may keep with the string S returned by
   strtab_add, NULL at first; what it points to is the caller's.  */
extern void **strtab_value (const char *s);

#endif /* strtab.h */
