/* A map from process or thread ids to pointers: a chained hash table.  */

#include <stdlib.h>

#include "pidmap.h"

struct pidmap_node
{
  int32_t key;
  void *value;
  struct pidmap_node *next;
};

void
pidmap_init (struct pidmap *map)
{
  map->buckets = NULL;
  map->n_buckets = 0;
  map->n = 0;
}

void
pidmap_free (struct pidmap *map)
{
  for (size_t i = 0; i < map->n_buckets; ++i)
    for (struct pidmap_node *node = map->buckets[i], *next; node != NULL;
	 node = next)
      {
	next = node->next;
	free (node);
      }
  free (map->buckets);
  pidmap_init (map);
}

static size_t
bucket_of (int32_t key, size_t n_buckets)
{
  return ((uint32_t) key * 2654435761u) & (n_buckets - 1);
}

void *
pidmap_get (const struct pidmap *map, int32_t key)
{
  if (map->n_buckets == 0)
    return NULL;
  for (struct pidmap_node *node = map->buckets[bucket_of (key,
							  map->n_buckets)];
       node != NULL; node = node->next)
    if (node->key == key)
      return node->value;
  return NULL;
}

static int
grow (struct pidmap *map)
{
  size_t n_buckets = map->n_buckets ? 2 * map->n_buckets : 64;
  struct pidmap_node **buckets = calloc (n_buckets, sizeof *buckets);
  if (buckets == NULL)
    return -1;
  for (size_t i = 0; i < map->n_buckets; ++i)
    for (struct pidmap_node *node = map->buckets[i], *next; node != NULL;
	 node = next)
      {
	next = node->next;
	size_t b = bucket_of (node->key, n_buckets);
	node->next = buckets[b];
	buckets[b] = node;
      }
  free (map->buckets);
  map->buckets = buckets;
  map->n_buckets = n_buckets;
  return 0;
}

int
pidmap_set (struct pidmap *map, int32_t key, void *value)
{
  if (map->n_buckets > 0)
    for (struct pidmap_node *node = map->buckets[bucket_of (key,
							    map->n_buckets)];
	 node != NULL; node = node->next)
      if (node->key == key)
	{
	  node->value = value;
	  return 0;
	}
  if (map->n >= map->n_buckets && grow (map) != 0)
    return -1;
  struct pidmap_node *node = malloc (sizeof *node);
  if (node == NULL)
    return -1;
  size_t b = bucket_of (key, map->n_buckets);
  node->key = key;
  node->value = value;
  node->next = map->buckets[b];
  map->buckets[b] = node;
  ++map->n;
  return 0;
}

void *
pidmap_remove (struct pidmap *map, int32_t key)
{
  if (map->n_buckets == 0)
    return NULL;
  for (struct pidmap_node **link = &map->buckets[bucket_of (key,
							    map->n_buckets)];
       *link != NULL; link = &(*link)->next)
    if ((*link)->key == key)
      {
	struct pidmap_node *node = *link;
	void *value = node->value;
	*link = node->next;
	free (node);
	--map->n;
	return value;
      }
  return NULL;
}

void
pidmap_foreach (const struct pidmap *map, void (*fn) (void *value, void *arg),
		void *arg)
{
  for (size_t i = 0; i < map->n_buckets; ++i)
    for (struct pidmap_node *node = map->buckets[i]; node != NULL;
	 node = node->next)
      fn (node->value, arg);
}
