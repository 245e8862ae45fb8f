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

/* A hash of the LEN bytes at S, eight at a time, each word mixed in by
   a multiplication and a shift as in MurmurHash3's finalizer: the
   strings are paths and C++ names of tens of bytes, which a byte at a
   time (FNV-1a) took several times as long to hash.  */
static size_t
hash_string (const char *s, size_t len)
{
  uint64_t h = len * 0x9e3779b97f4a7c15ULL;
  uint64_t w;
  for (; len >= 8; s += 8, len -= 8)
    {
      memcpy (&w, s, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdULL;
      h ^= h >> 32;
    }
  w = 0;
  memcpy (&w, s, len);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

/* The node of S, of hash HASH, in TAB, or NULL.  */
static struct strtab_node *
find_node (const struct strtab *tab, const char *s, size_t hash)
{
  if (tab->n_buckets == 0)
    return NULL;
  for (struct strtab_node *node = tab->buckets[hash & (tab->n_buckets - 1)];
       node != NULL; node = node->next)
    if (node->hash == hash && strcmp (node->s, s) == 0)
      return node;
  return NULL;
}

const char *
strtab_find (const struct strtab *tab, const char *s)
{
  size_t len = strlen (s);
  struct strtab_node *node = find_node (tab, s, hash_string (s, len));
  return node != NULL ? node->s : NULL;
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
  size_t len = strlen (s);
  size_t hash = hash_string (s, len);
  struct strtab_node *node = find_node (tab, s, hash);
  if (node != NULL)
    return node->s;
  if (tab->n >= tab->n_buckets && grow (tab) != 0)
    return NULL;
  node = malloc (sizeof *node + len + 1);
  if (node == NULL)
    return NULL;
  node->hash = hash;
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
