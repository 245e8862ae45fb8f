/* Counting the samples by call stack: a hash table of stacks whose
   frames are kept once each, so that stacks compare as arrays of
   pointers.  */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

void
stacks_init (struct stacks *st)
{
  memset (st, 0, sizeof *st);
  strtab_init (&st->names);
}

void
stacks_free (struct stacks *st)
{
  for (size_t i = 0; i < st->n_buckets; ++i)
    for (struct stack *s = st->buckets[i], *next; s != NULL; s = next)
      {
	next = s->next;
	free (s->frames);
	free (s);
      }
  free (st->buckets);
  for (size_t i = 0; i < st->n_frames; ++i)
    free (st->frames[i]);
  free (st->frames);
  free (st->key);
  strtab_free (&st->names);
  memset (st, 0, sizeof *st);
}

/* Whether the file name BASE is that of a shared library: *.so or
   *.so.VERSION.  */
static bool
library_name (const char *base)
{
  for (const char *p = strstr (base, ".so"); p != NULL;
       p = strstr (p + 1, ".so"))
    if (p[3] == '\0' || p[3] == '.')
      return true;
  return false;
}

static enum frame_kind
frame_kind (const struct symbol_info *info)
{
  if (info->kernel)
    return FRAME_KERNEL;
  if (info->dso[0] == '/')
    {
      const char *base = strrchr (info->dso, '/') + 1;
      return library_name (base) ? FRAME_LIBRARY : FRAME_USER;
    }
  if (strcmp (info->dso, "[vdso]") == 0)
    return FRAME_LIBRARY;
  return FRAME_OTHER;
}

/* Make room for SIZE bytes in ST's key buffer.  */
static int
key_room (struct stacks *st, size_t size)
{
  if (size <= st->key_size)
    return 0;
  size_t n = st->key_size ? st->key_size : 256;
  while (n < size)
    n *= 2;
  char *key = realloc (st->key, n);
  if (key == NULL)
    return -1;
  st->key = key;
  st->key_size = n;
  return 0;
}

/* Write S with ';' as ':' to OUT; returns the end.  */
static char *
copy_label (char *out, const char *s)
{
  for (; *s != '\0'; ++s)
    *out++ = *s == ';' ? ':' : *s;
  *out = '\0';
  return out;
}

/* The label of the frame INFO names, in ST's key buffer.  */
static int
make_label (struct stacks *st, const struct symbol_info *info)
{
  const char *dso = info->dso;
  if (info->name != NULL)
    {
      if (key_room (st, strlen (info->name) + 1) != 0)
	return -1;
      copy_label (st->key, info->name);
      return 0;
    }
  if (dso[0] == '[')
    {
      if (key_room (st, strlen (dso) + 1) != 0)
	return -1;
      copy_label (st->key, dso);
      return 0;
    }
  /* A file by its name, as perf report shows it; //anon as it is.  */
  const char *slash = strrchr (dso, '/');
  if (dso[1] != '/' && slash != NULL)
    dso = slash + 1;
  if (key_room (st, strlen (dso) + 3) != 0)
    return -1;
  st->key[0] = '[';
  strcpy (copy_label (st->key + 1, dso), "]");
  return 0;
}

/* The frame INFO names, kept once in ST; NULL if out of memory.  */
static const struct stack_frame *
intern_frame (struct stacks *st, const struct symbol_info *info)
{
  if (make_label (st, info) != 0)
    return NULL;
  const char *label = strtab_add (&st->names, st->key);
  if (label == NULL)
    return NULL;
  enum frame_kind kind = frame_kind (info);
  /* The key: the kind, the label and the module.  */
  size_t size = 2 + strlen (label) + 1 + strlen (info->dso) + 1;
  if (key_room (st, size) != 0)
    return NULL;
  snprintf (st->key, size, "%c%s\n%s", '0' + kind, label, info->dso);
  const char *key = strtab_add (&st->names, st->key);
  if (key == NULL)
    return NULL;
  struct stack_frame **frame = (struct stack_frame **) strtab_value (key);
  if (*frame != NULL)
    return *frame;

  if (st->n_frames == st->cap_frames)
    {
      size_t cap = st->cap_frames ? 2 * st->cap_frames : 256;
      struct stack_frame **frames = realloc (st->frames,
					     cap * sizeof *frames);
      if (frames == NULL)
	return NULL;
      st->frames = frames;
      st->cap_frames = cap;
    }
  struct stack_frame *f = malloc (sizeof *f);
  const char *dso = strtab_add (&st->names, info->dso);
  if (f == NULL || dso == NULL)
    {
      free (f);
      return NULL;
    }
  f->label = label;
  f->dso = dso;
  f->kind = kind;
  st->frames[st->n_frames++] = f;
  *frame = f;
  return f;
}

static size_t
stack_hash (const char *comm, const struct stack_frame *const *frames,
	    size_t n)
{
  size_t h = (size_t) comm;
  for (size_t i = 0; i < n; ++i)
    h = h * 0x100000001b3ULL ^ (size_t) frames[i];
  return h ^ (h >> 29);
}

static int
grow (struct stacks *st)
{
  size_t n_buckets = st->n_buckets ? 2 * st->n_buckets : 1024;
  struct stack **buckets = calloc (n_buckets, sizeof *buckets);
  if (buckets == NULL)
    return -1;
  for (size_t i = 0; i < st->n_buckets; ++i)
    for (struct stack *s = st->buckets[i], *next; s != NULL; s = next)
      {
	next = s->next;
	s->next = buckets[s->hash & (n_buckets - 1)];
	buckets[s->hash & (n_buckets - 1)] = s;
      }
  free (st->buckets);
  st->buckets = buckets;
  st->n_buckets = n_buckets;
  return 0;
}

int
stacks_add (struct stacks *st, const char *comm,
	    const struct symbol_info *infos, size_t n)
{
  if (key_room (st, strlen (comm) + 1) != 0)
    return -1;
  copy_label (st->key, comm);
  comm = strtab_add (&st->names, st->key);
  const struct stack_frame **frames = malloc ((n + 1) * sizeof *frames);
  if (comm == NULL || frames == NULL)
    {
      free (frames);
      return -1;
    }
  for (size_t i = 0; i < n; ++i)
    if ((frames[n - 1 - i] = intern_frame (st, &infos[i])) == NULL)
      {
	free (frames);
	return -1;
      }

  ++st->samples;
  if (st->n >= st->n_buckets && grow (st) != 0)
    {
      free (frames);
      return -1;
    }
  size_t hash = stack_hash (comm, frames, n);
  struct stack **bucket = &st->buckets[hash & (st->n_buckets - 1)];
  for (struct stack *s = *bucket; s != NULL; s = s->next)
    if (s->hash == hash && s->comm == comm && s->n_frames == n
	&& memcmp (s->frames, frames, n * sizeof *frames) == 0)
      {
	++s->samples;
	free (frames);
	return 0;
      }
  struct stack *s = malloc (sizeof *s);
  if (s == NULL)
    {
      free (frames);
      return -1;
    }
  s->comm = comm;
  s->frames = frames;
  s->n_frames = n;
  s->samples = 1;
  s->hash = hash;
  s->next = *bucket;
  *bucket = s;
  ++st->n;
  return 0;
}

static int
compare_stacks (const void *a, const void *b)
{
  const struct stack *x = *(const struct stack *const *) a;
  const struct stack *y = *(const struct stack *const *) b;
  int c = strcmp (x->comm, y->comm);
  for (size_t i = 0; c == 0 && i < x->n_frames && i < y->n_frames; ++i)
    c = strcmp (x->frames[i]->label, y->frames[i]->label);
  if (c == 0 && x->n_frames != y->n_frames)
    c = x->n_frames < y->n_frames ? -1 : 1;
  /* Stacks that print alike (a name in two modules) in the order of
     their modules: the same in every run.  */
  for (size_t i = 0; c == 0 && i < x->n_frames; ++i)
    c = strcmp (x->frames[i]->dso, y->frames[i]->dso);
  return c;
}

struct stack **
stacks_sorted (const struct stacks *st)
{
  struct stack **sorted = malloc ((st->n + 1) * sizeof *sorted);
  if (sorted == NULL)
    return NULL;
  size_t n = 0;
  for (size_t i = 0; i < st->n_buckets; ++i)
    for (struct stack *s = st->buckets[i]; s != NULL; s = s->next)
      sorted[n++] = s;
  qsort (sorted, n, sizeof *sorted, compare_stacks);
  return sorted;
}
