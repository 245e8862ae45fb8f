/* A set of strings, each kept once: a chained hash table.  */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

struct strtab_node
{
  size_t hash;
  struct strtab_node *next;
  void *value;
  char s[];
};

void
strtab_init (struct strtab *tab)
{
  tab->buckets = NULL;
  tab->n_buckets = 0;
  tab->n = 0;
}

void
strtab_free (struct strtab *tab)
{
  for (size_t i = 0; i < tab->n_buckets; ++i)
    for (struct strtab_node *node = tab->buckets[i], *next; node != NULL;
	 node = next)
      {
	next = node->next;
	free (node);
      }
  free (tab->buckets);
  strtab_init (tab);
}

/* FNV-1a.  */
static size_t
hash_string (const char *s)
{
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s != '\0'; ++s)
    h = (h ^ (unsigned char) *s) * 0x100000001b3ULL;
  return h;
}

const char *
strtab_find (const struct strtab *tab, const char *s)
{
  if (tab->n_buckets == 0)
    return NULL;
  size_t hash = hash_string (s);
  for (struct strtab_node *node = tab->buckets[hash & (tab->n_buckets - 1)];
       node != NULL; node = node->next)
    if (node->hash == hash && strcmp (node->s, s) == 0)
      return node->s;
  return NULL;
}

static int
grow (struct strtab *tab)
{
  size_t n_buckets = tab->n_buckets ? 2 * tab->n_buckets : 256;
  struct strtab_node **buckets = calloc (n_buckets, sizeof *buckets);
  if (buckets == NULL)
    return -1;
  for (size_t i = 0; i < tab->n_buckets; ++i)
    for (struct strtab_node *node = tab->buckets[i], *next; node != NULL;
	 node = next)
      {
	next = node->next;
	struct strtab_node **b = &buckets[node->hash & (n_buckets - 1)];
	node->next = *b;
	*b = node;
      }
  free (tab->buckets);
  tab->buckets = buckets;
  tab->n_buckets = n_buckets;
  return 0;
}

const char *
strtab_add (struct strtab *tab, const char *s)
{
  const char *found = strtab_find (tab, s);
  if (found != NULL)
    return found;
  if (tab->n >= tab->n_buckets && grow (tab) != 0)
    return NULL;
  size_t len = strlen (s);
  struct strtab_node *node = malloc (sizeof *node + len + 1);
  if (node == NULL)
    return NULL;
  node->hash = hash_string (s);
  node->value = NULL;
  memcpy (node->s, s, len + 1);
  struct strtab_node **b = &tab->buckets[node->hash & (tab->n_buckets - 1)];
  node->next = *b;
  *b = node;
  ++tab->n;
  return node->s;
}

void **
strtab_value (const char *s)
{
  struct strtab_node *node = (struct strtab_node *)
    (s - offsetof (struct strtab_node, s));
  return &node->value;
}
