/* A hash table from (string, a, b) to a pointer, with open addressing and
   linear probing.  The contenders need a map from a file to what they
   know of it and from a file and bias to a module; one small table serves
   them all, so that none is faster for a better hash.  */

#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct entry
{
  uint64_t hash;
  const char *str;		/* NULL for an empty slot.  */
  uint64_t a, b;
  void *value;
};

struct table
{
  struct entry *entries;
  size_t size;			/* A power of two.  */
  size_t count;
};

struct table *
table_new (void)
{
  struct table *table = calloc (1, sizeof *table);
  if (table == NULL)
    bench_fail ("out of memory");
  table->size = 64;
  table->entries = calloc (table->size, sizeof table->entries[0]);
  if (table->entries == NULL)
    bench_fail ("out of memory");
  return table;
}

void
table_free (struct table *table, void (*free_value) (void *))
{
  for (size_t i = 0; i < table->size; ++i)
    if (table->entries[i].str != NULL)
      {
	if (free_value != NULL && table->entries[i].value != NULL)
	  free_value (table->entries[i].value);
	free ((char *) table->entries[i].str);
      }
  free (table->entries);
  free (table);
}

/* FNV-1a over the string, then the numbers mixed in.  */
static uint64_t
hash_key (const char *str, uint64_t a, uint64_t b)
{
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char *p = (const unsigned char *) str; *p != '\0'; ++p)
    h = (h ^ *p) * 0x100000001b3ULL;
  h ^= a * 0x9e3779b97f4a7c15ULL;
  h ^= (b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;
  return h ^ (h >> 29);
}

static struct entry *
probe (struct table *table, uint64_t hash, const char *str,
       uint64_t a, uint64_t b)
{
  size_t mask = table->size - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask)
    {
      struct entry *e = &table->entries[i];
      if (e->str == NULL
	  || (e->hash == hash && e->a == a && e->b == b
	      && strcmp (e->str, str) == 0))
	return e;
    }
}

/* Double the size when three quarters are used.  */
static void
grow (struct table *table)
{
  struct entry *old = table->entries;
  size_t old_size = table->size;
  table->size *= 2;
  table->entries = calloc (table->size, sizeof table->entries[0]);
  if (table->entries == NULL)
    bench_fail ("out of memory");
  for (size_t i = 0; i < old_size; ++i)
    if (old[i].str != NULL)
      *probe (table, old[i].hash, old[i].str, old[i].a, old[i].b) = old[i];
  free (old);
}

void **
table_slot (struct table *table, const char *str, uint64_t a, uint64_t b,
	    bool insert)
{
  uint64_t hash = hash_key (str, a, b);
  struct entry *e = probe (table, hash, str, a, b);
  if (e->str != NULL)
    return &e->value;
  if (! insert)
    return NULL;
  if (4 * (table->count + 1) > 3 * table->size)
    {
      grow (table);
      e = probe (table, hash, str, a, b);
    }
  e->str = strdup (str);
  if (e->str == NULL)
    bench_fail ("out of memory");
  e->hash = hash;
  e->a = a;
  e->b = b;
  e->value = NULL;
  table->count++;
  return &e->value;
}

const char *
table_key (struct table *table, const char *str, uint64_t a, uint64_t b)
{
  return probe (table, hash_key (str, a, b), str, a, b)->str;
}

void
table_each (struct table *table, void (*fn) (void *value, void *arg),
	    void *arg)
{
  for (size_t i = 0; i < table->size; ++i)
    if (table->entries[i].str != NULL && table->entries[i].value != NULL)
      fn (table->entries[i].value, arg);
}

size_t
table_count (const struct table *table)
{
  return table->count;
}
