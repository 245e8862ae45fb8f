/* Drawing the flame graph: the sorted stacks merged into a tree of
   frames, laid out bottom up, written as SVG.  */

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph-script.h"
#include "flamegraph.h"

/* The picture's width, its margins, the top of the row of controls the
   script makes (flamegraph-script.c), the height of the header above
   the frames and of a row, in pixels (SVG user units).  */
#define WIDTH 1200
#define MARGIN 10
#define CONTROLS 68
#define HEADER 94
#define ROW 16
/* The font size, and the advance of a character of the monospaced font
   at that size, to cut names to their box before the box clips them.  */
#define FONT_SIZE 11
#define CHAR_WIDTH 6.7
/* Frames narrower than this are left out, with their callees: nobody
   could see them, and a system-wide profile has many thousands.  */
#define MIN_WIDTH 0.1

/* A frame of the tree: the samples whose stacks go through this frame
   after the same callers.  */
struct node
{
  const char *label;
  const char *dso;
  enum frame_kind kind;
  uint64_t samples;
  /* Indices in the tree's nodes; 0 is the root, so none.  */
  size_t first_child;
  size_t last_child;
  size_t next_sibling;
};

struct tree
{
  struct node *nodes;
  size_t n;
  size_t cap;
  size_t depth;
};

/* Add a child of PARENT, after its others; returns its index, 0 if out
   of memory.  */
static size_t
add_child (struct tree *t, size_t parent, const char *label,
	   const char *dso, enum frame_kind kind)
{
  if (t->n == t->cap)
    {
      size_t cap = t->cap ? 2 * t->cap : 1024;
      struct node *nodes = realloc (t->nodes, cap * sizeof *nodes);
      if (nodes == NULL)
	return 0;
      t->nodes = nodes;
      t->cap = cap;
    }
  size_t i = t->n++;
  t->nodes[i] = (struct node) { .label = label, .dso = dso, .kind = kind };
  struct node *p = &t->nodes[parent];
  if (p->last_child != 0)
    t->nodes[p->last_child].next_sibling = i;
  else
    p->first_child = i;
  p->last_child = i;
  return i;
}

/* The child of PARENT labelled LABEL, made if need be.  The stacks come
   sorted, so that it can only be the last child made.  */
static size_t
child (struct tree *t, size_t parent, const char *label, const char *dso,
       enum frame_kind kind)
{
  size_t last = t->nodes[parent].last_child;
  if (last != 0 && t->nodes[last].label == label)
    return last;
  return add_child (t, parent, label, dso, kind);
}

/* Merge the stacks of ST into T: the root, the commands, the frames.  */
static int
build_tree (struct tree *t, const struct stacks *st)
{
  struct stack **sorted = stacks_sorted (st);
  t->nodes = malloc (1024 * sizeof *t->nodes);
  if (sorted == NULL || t->nodes == NULL)
    {
      free (sorted);
      return -1;
    }
  t->cap = 1024;
  t->n = 1;
  t->nodes[0] = (struct node) { .label = "all", .kind = FRAME_OTHER };
  for (size_t i = 0; i < st->n; ++i)
    {
      const struct stack *s = sorted[i];
      t->nodes[0].samples += s->samples;
      size_t node = child (t, 0, s->comm, NULL, FRAME_OTHER);
      for (size_t j = 0; j < s->n_frames && node != 0; ++j)
	{
	  t->nodes[node].samples += s->samples;
	  const struct stack_frame *f = s->frames[j];
	  node = child (t, node, f->label, f->dso, f->kind);
	}
      if (node == 0)
	{
	  free (sorted);
	  return -1;
	}
      t->nodes[node].samples += s->samples;
      if (s->n_frames + 1 > t->depth)
	t->depth = s->n_frames + 1;
    }
  free (sorted);
  return 0;
}

static void
put_escaped (FILE *out, const char *s, size_t max)
{
  for (size_t i = 0; s[i] != '\0' && i < max; ++i)
    switch (s[i])
      {
      case '&':
	fputs ("&amp;", out);
	break;
      case '<':
	fputs ("&lt;", out);
	break;
      case '>':
	fputs ("&gt;", out);
	break;
      case '"':
	fputs ("&quot;", out);
	break;
      default:
	putc (s[i], out);
	break;
      }
}

/* A colour for a frame of KIND labelled LABEL: a hue for each kind,
   varied by the name so that neighbours stand apart, and the same for
   one name wherever it is.  */
static void
colour (enum frame_kind kind, const char *label, unsigned int rgb[3])
{
  uint32_t h = 2166136261u;
  for (const char *p = label; *p != '\0'; ++p)
    h = (h ^ (unsigned char) *p) * 16777619u;
  unsigned int a = h % 32;
  unsigned int b = (h >> 8) % 64;
  switch (kind)
    {
    case FRAME_USER:		/* red to orange */
      rgb[0] = 224 + a;
      rgb[1] = 80 + b;
      rgb[2] = 48 + a / 2;
      break;
    case FRAME_LIBRARY:		/* amber to yellow */
      rgb[0] = 224 + a;
      rgb[1] = 160 + b;
      rgb[2] = 40 + a;
      break;
    case FRAME_KERNEL:		/* blue */
      rgb[0] = 100 + b / 2;
      rgb[1] = 160 + b / 2;
      rgb[2] = 220 + a;
      break;
    default:			/* grey */
      rgb[0] = rgb[1] = rgb[2] = 190 + a;
      break;
    }
}

static const char *
kind_name (enum frame_kind kind, const struct node *n, bool root)
{
  if (root)
    return "every sample";
  switch (kind)
    {
    case FRAME_USER:
      return "program";
    case FRAME_LIBRARY:
      return "library";
    case FRAME_KERNEL:
      return "kernel";
    default:
      return n->dso != NULL ? "unknown" : "command";
    }
}

/* Draw node I, DEPTH rows above the bottom one, with OFFSET samples
   left of it, and its callees above it, inside its group: a <g> of
   class "f" with the name, samples and offset the script reads, the
   tooltip, the box, the groups of the callees.  SCALE is pixels per
   sample.  Adds to *OMITTED the samples of the frames left out.  */
static void
draw (const struct tree *t, size_t i, size_t depth, uint64_t offset,
      double scale, uint64_t *omitted, FILE *out)
{
  const struct node *n = &t->nodes[i];
  double width = n->samples * scale;
  if (width < MIN_WIDTH)
    {
      *omitted += n->samples;
      return;
    }
  double x = MARGIN + offset * scale;
  double y = HEADER + (t->depth - depth) * ROW;
  unsigned int rgb[3];
  colour (n->kind, n->label, rgb);

  fputs ("<g class=\"f\" data-name=\"", out);
  put_escaped (out, n->label, SIZE_MAX);
  fprintf (out, "\" data-samples=\"%" PRIu64 "\" data-offset=\"%" PRIu64
	   "\"><title>", n->samples, offset);
  put_escaped (out, n->label, SIZE_MAX);
  if (n->dso != NULL)
    {
      fputs (" (", out);
      put_escaped (out, n->dso, SIZE_MAX);
      putc (')', out);
    }
  fprintf (out, "&#10;%s: %" PRIu64 " samples, %.2f%%</title>",
	   kind_name (n->kind, n, i == 0), n->samples,
	   100.0 * n->samples / t->nodes[0].samples);
  /* An inner svg clips what is drawn in it to its box.  The rectangle
     leaves a pixel free on the right, to tell neighbours of one colour
     apart, but in the narrowest boxes.  */
  fprintf (out, "<svg x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\">"
	   "<rect width=\"%.2f\" height=\"100%%\" rx=\"2\""
	   " fill=\"#%02x%02x%02x\"/>", x, y, width, ROW - 1,
	   width > 2 ? width - 1 : width, rgb[0], rgb[1], rgb[2]);
  size_t len = strlen (n->label);
  size_t fits = width > 6 ? (size_t) ((width - 6) / CHAR_WIDTH) : 0;
  if (fits >= len || fits >= 3)
    {
      fprintf (out, "<text x=\"3\" y=\"%d\">", ROW - 4);
      if (fits >= len)
	put_escaped (out, n->label, len);
      else
	{
	  put_escaped (out, n->label, fits - 2);
	  fputs ("..", out);
	}
      fputs ("</text>", out);
    }
  fputs ("</svg>\n", out);

  for (size_t c = n->first_child; c != 0; c = t->nodes[c].next_sibling)
    {
      draw (t, c, depth + 1, offset, scale, omitted, out);
      offset += t->nodes[c].samples;
    }
  fputs ("</g>\n", out);
}

/* The key to the colours, at Y.  */
static void
legend (FILE *out, double y)
{
  static const struct
  {
    enum frame_kind kind;
    const char *what;
  } keys[] =
    {
      { FRAME_USER, "program code" },
      { FRAME_LIBRARY, "shared libraries, vdso" },
      { FRAME_KERNEL, "kernel and modules" },
      { FRAME_OTHER, "commands, unknown" },
    };
  double x = MARGIN;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
    {
      unsigned int rgb[3];
      colour (keys[i].kind, "", rgb);
      fprintf (out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\""
	       " fill=\"#%02x%02x%02x\"/><text x=\"%.0f\" y=\"%.0f\">%s"
	       "</text>\n", x, y, rgb[0], rgb[1], rgb[2], x + 16, y + 10,
	       keys[i].what);
      x += 16 + CHAR_WIDTH * strlen (keys[i].what) + 24;
    }
}

int
flamegraph_write (const struct stacks *st, FILE *out, const char *title,
		  const char *subtitle)
{
  struct tree t = { 0 };
  if (build_tree (&t, st) != 0)
    {
      free (t.nodes);
      return -1;
    }
  int height = HEADER + (t.depth + 1) * ROW + MARGIN;
  fprintf (out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
	   " height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans"
	   " Mono, monospace\" font-size=\"%d\">\n", WIDTH, height, WIDTH,
	   height, FONT_SIZE);
  fputs ("<title>", out);
  put_escaped (out, title, SIZE_MAX);
  fputs ("</title>\n", out);
  /* For the script: frames to click, the callers of the frame zoomed
     into dimmed, the controls.  */
  fputs ("<style>\n"
	 ".f { cursor: pointer }\n"
	 ".f > svg:hover > rect { stroke: #000000; stroke-width: 1 }\n"
	 ".caller > svg { opacity: 0.6 }\n"
	 ".control { cursor: pointer; fill: #1a4d99 }\n"
	 ".control.off { cursor: default; fill: #aaaaaa }\n"
	 "</style>\n", out);
  fprintf (out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
	   "<text x=\"%d\" y=\"24\" font-size=\"17\" text-anchor=\"middle\">",
	   WIDTH / 2);
  put_escaped (out, title, SIZE_MAX);
  fputs ("</text>\n", out);
  if (subtitle != NULL)
    {
      fprintf (out, "<text x=\"%d\" y=\"42\" text-anchor=\"middle\""
	       " fill=\"#555555\">", WIDTH / 2);
      put_escaped (out, subtitle, SIZE_MAX);
      fputs ("</text>\n", out);
    }
  legend (out, 50);
  fputs ("<g id=\"frames\">\n", out);
  uint64_t omitted = 0;
  if (t.nodes[0].samples > 0)
    draw (&t, 0, 0, 0, (WIDTH - 2.0 * MARGIN) / t.nodes[0].samples,
	  &omitted, out);
  fputs ("</g>\n", out);
  /* The script, with the sizes it needs to lay the frames out again;
     OMITTED is the samples of the frames left out, which a search
     cannot find.  Without frames, it has nothing to do.  */
  if (t.nodes[0].samples > 0)
    {
      fprintf (out, "<script type=\"text/ecmascript\"><![CDATA[\n"
	       "const layout = { width: %d, margin: %d, controls: %d,"
	       " row: %d, charWidth: %g, minWidth: %g, omitted: %" PRIu64
	       " };\n", WIDTH, MARGIN, CONTROLS, ROW, CHAR_WIDTH, MIN_WIDTH,
	       omitted);
      fputs (flamegraph_script, out);
      fputs ("]]></script>\n", out);
    }
  fputs ("</svg>\n", out);
  free (t.nodes);
  return 0;
}
