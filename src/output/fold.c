// SPDX-License-Identifier: GPL-2.0-or-later
/* fold.c - folded stacks: frame names interned, stacks merged into a weighted tree (fold.h) */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "fold-local.h"

#define FOLD_UNKNOWN "[unknown]"
#define FOLD_MIN_NAMES 256
#define FOLD_MIN_NODES 256

/* fold_char_clean - the byte a frame name stores for c */
static inline char fold_char_clean(char c)
{
	if (c == ';')
		return ':';
	if (c == '\n' || c == '\r')
		return ' ';
	return c;
}

/* fold_name_hash - 64-bit FNV-1a of a name as it will be stored */
static uint64_t fold_name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)fold_char_clean(*s);
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* fold_name_equal - whether stored name a is the sanitised form of s */
static bool fold_name_equal(const char *a, const char *s)
{
	for (; *s; a++, s++) {
		if (*a != fold_char_clean(*s))
			return false;
	}
	return !*a;
}

/* fold_mix - spread the bits of x for a table index */
static inline uint64_t fold_mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return x;
}

/* fold_name_key - see fold-local.h */
uint64_t fold_name_key(const char *s)
{
	return fold_mix(fold_name_hash(s));
}

/* fold_names_init - empty name pool */
static int fold_names_init(struct fold_names *names)
{
	names->buf = malloc(FOLD_MIN_NAMES * 16);
	if (!names->buf)
		return -ENOMEM;
	names->cap = FOLD_MIN_NAMES * 16;
	if (hashtab_init(&names->index, FOLD_MIN_NAMES)) {
		free(names->buf);
		return -ENOMEM;
	}
	return 0;
}

/* fold_names_release - free the pool's memory */
static void fold_names_release(struct fold_names *names)
{
	free(names->buf);
	hashtab_release(&names->index);
}

/* fold_names_intern - offset of the sanitised name s, added if new */
static int fold_names_intern(struct fold_names *names, const char *s,
			     uint32_t *name)
{
	struct hashtab_pos pos;
	size_t len, cap;
	char *buf, *dst;
	uint32_t *off;

	if (!s || !*s)
		s = FOLD_UNKNOWN;
	for (off = hashtab_find(&names->index, (uint32_t)fold_name_key(s), &pos);
	     off; off = hashtab_find_next(&names->index, &pos)) {
		if (fold_name_equal(names->buf + *off, s)) {
			*name = *off;
			return 0;
		}
	}

	len = strlen(s) + 1;
	if (len > UINT32_MAX - 1 - names->len)
		return -ENOMEM;
	if (len > names->cap - names->len) {
		for (cap = names->cap; len > cap - names->len; cap *= 2)
			;
		buf = realloc(names->buf, cap);
		if (!buf)
			return -ENOMEM;
		names->buf = buf;
		names->cap = cap;
	}
	if (hashtab_add(&names->index, &pos, (uint32_t)names->len))
		return -ENOMEM;
	dst = names->buf + names->len;
	for (; *s; s++)
		*dst++ = fold_char_clean(*s);
	*dst = '\0';
	*name = (uint32_t)names->len;
	names->len += len;
	return 0;
}

/* fold_tree_init - tree holding only the root */
static int fold_tree_init(struct fold_tree *tree)
{
	tree->nodes = calloc(FOLD_MIN_NODES, sizeof(*tree->nodes));
	if (!tree->nodes)
		return -ENOMEM;
	tree->cap = FOLD_MIN_NODES;
	tree->n = 1;
	if (hashtab_init(&tree->edges, FOLD_MIN_NODES)) {
		free(tree->nodes);
		return -ENOMEM;
	}
	return 0;
}

/* fold_tree_release - see fold-local.h */
void fold_tree_release(struct fold_tree *tree)
{
	free(tree->nodes);
	hashtab_release(&tree->edges);
}

/* fold_edge_hash - table hash of the edge from parent to name */
static inline uint32_t fold_edge_hash(uint32_t parent, uint32_t name)
{
	return (uint32_t)fold_mix((uint64_t)parent << 32 | name);
}

/* fold_tree_child - the child of parent named name, added if new */
static int fold_tree_child(struct fold_tree *tree, uint32_t parent,
			   uint32_t name, uint32_t *child)
{
	struct fold_node *nodes, *node;
	struct hashtab_pos pos;
	uint32_t *i, cap;

	for (i = hashtab_find(&tree->edges, fold_edge_hash(parent, name), &pos);
	     i; i = hashtab_find_next(&tree->edges, &pos)) {
		node = &tree->nodes[*i];
		if (node->parent == parent && node->name == name) {
			*child = *i;
			return 0;
		}
	}

	if (tree->n == UINT32_MAX)
		return -ENOMEM;
	if (tree->n == tree->cap) {
		cap = tree->cap > UINT32_MAX / 2 ? UINT32_MAX : tree->cap * 2;
		nodes = realloc(tree->nodes, (size_t)cap * sizeof(*nodes));
		if (!nodes)
			return -ENOMEM;
		tree->nodes = nodes;
		tree->cap = cap;
	}
	if (hashtab_add(&tree->edges, &pos, tree->n))
		return -ENOMEM;
	node = &tree->nodes[tree->n];
	memset(node, 0, sizeof(*node));
	node->parent = parent;
	node->name = name;
	*child = tree->n++;
	return 0;
}

/* fold_tree_weigh - add weight to the stack ending at leaf */
static void fold_tree_weigh(struct fold_tree *tree, uint32_t leaf,
			    uint64_t weight)
{
	uint32_t i = leaf;

	tree->nodes[leaf].self += weight;
	for (;;) {
		tree->nodes[i].total += weight;
		if (!i)
			break;
		i = tree->nodes[i].parent;
	}
}

/* fold_alloc - empty fold */
struct fold *fold_alloc(void)
{
	struct fold *fold;

	fold = calloc(1, sizeof(*fold));
	if (!fold) {
		errno = ENOMEM;
		return NULL;
	}
	if (fold_names_init(&fold->names))
		goto free_fold;
	if (fold_tree_init(&fold->tree))
		goto release_names;
	return fold;

release_names:
	fold_names_release(&fold->names);
free_fold:
	free(fold);
	errno = ENOMEM;
	return NULL;
}

/* fold_free - release the fold; NULL is accepted */
void fold_free(struct fold *fold)
{
	if (!fold)
		return;
	fold_names_release(&fold->names);
	fold_tree_release(&fold->tree);
	free(fold);
}

/*
 * fold_add - add weight to a stack given root first
 *
 * Nodes are created before any weight moves, so a failure part way leaves
 * only weightless nodes, which neither output shows.
 */
int fold_add(struct fold *fold, const char *const *frames, size_t nr,
	     uint64_t weight)
{
	uint32_t node = 0, name;
	size_t i;
	int ret;

	if (!frames || !nr)
		return -EINVAL;
	if (!weight)
		return 0;
	if (weight > UINT64_MAX - fold->tree.nodes[0].total)
		return -EOVERFLOW;
	for (i = 0; i < nr; i++) {
		ret = fold_names_intern(&fold->names, frames[i], &name);
		if (ret)
			return ret;
		ret = fold_tree_child(&fold->tree, node, name, &node);
		if (ret)
			return ret;
	}
	fold_tree_weigh(&fold->tree, node, weight);
	return 0;
}

/* fold_line_cmp - qsort order of two folded lines */
static int fold_line_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * fold_write - write the folded stacks, one sorted line per stack
 *
 * Lines are built in one buffer, NUL-terminated, then sorted through an array
 * of pointers made once the buffer stops moving.
 */
int fold_write(const struct fold *fold, FILE *f, bool reverse)
{
	const struct fold_tree *tree = &fold->tree;
	const char *names = fold->names.buf;
	size_t len = 0, cap = 4096, nlines = 0, i, depth, d, need;
	uint32_t *path, n;
	const char **lines;
	size_t *starts;
	char *buf, *p;
	int ret = -ENOMEM;

	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	starts = malloc(tree->n * sizeof(*starts));
	if (!starts)
		goto free_buf;
	path = malloc(tree->n * sizeof(*path));
	if (!path)
		goto free_starts;

	for (n = 1; n < tree->n; n++) {
		if (!tree->nodes[n].self)
			continue;
		/* path[] from the leaf up: leaf first, as reverse wants */
		need = 22;
		for (depth = 0, i = n; i; i = tree->nodes[i].parent) {
			path[depth++] = (uint32_t)i;
			need += strlen(names + tree->nodes[i].name) + 1;
		}
		if (need > cap - len) {
			while (need > cap - len)
				cap *= 2;
			p = realloc(buf, cap);
			if (!p)
				goto free_path;
			buf = p;
		}
		starts[nlines++] = len;
		p = buf + len;
		for (d = 0; d < depth; d++) {
			i = path[reverse ? d : depth - 1 - d];
			if (d)
				*p++ = ';';
			p = stpcpy(p, names + tree->nodes[i].name);
		}
		p += sprintf(p, " %" PRIu64, tree->nodes[n].self);
		len = (size_t)(p - buf) + 1;
	}

	lines = malloc((nlines ? nlines : 1) * sizeof(*lines));
	if (!lines)
		goto free_path;
	for (i = 0; i < nlines; i++)
		lines[i] = buf + starts[i];
	if (nlines)
		qsort(lines, nlines, sizeof(*lines), fold_line_cmp);
	for (i = 0; i < nlines; i++) {
		fputs(lines[i], f);
		fputc('\n', f);
	}
	ret = ferror(f) ? -EIO : 0;
	free(lines);

free_path:
	free(path);
free_starts:
	free(starts);
free_buf:
	free(buf);
	return ret;
}

/*
 * fold_tree_reverse - see fold-local.h
 *
 * Walking a stack from its leaf to the root lists it reversed, ready to add.
 */
int fold_tree_reverse(const struct fold_tree *tree, struct fold_tree *rev)
{
	uint32_t i, up, node;
	int ret;

	ret = fold_tree_init(rev);
	if (ret)
		return ret;
	for (i = 1; i < tree->n; i++) {
		if (!tree->nodes[i].self)
			continue;
		node = 0;
		for (up = i; up; up = tree->nodes[up].parent) {
			ret = fold_tree_child(rev, node, tree->nodes[up].name,
					      &node);
			if (ret)
				goto release_rev;
		}
		fold_tree_weigh(rev, node, tree->nodes[i].self);
	}
	return 0;

release_rev:
	fold_tree_release(rev);
	return ret;
}
