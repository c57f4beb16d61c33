/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FOLD_LOCAL_H
#define IOTAP_FOLD_LOCAL_H

/*
 * The layout of a fold (fold.h), for the SVG drawing (flame.c) to read: the
 * name pool and the tree of merged stacks. Only fold.c changes a fold; the
 * drawing reads it, and owns only the trees it makes with fold_tree_reverse.
 */
#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"

/*
 * Frame names are interned once in a character pool and named by their
 * offset; the index maps a name's hash to its offset.
 */
struct fold_names {
	char *buf;
	size_t len;
	size_t cap;
	struct hashtab index;
};

/*
 * The stacks form a tree: node 0 is the root ("all"), and a child is always
 * created after its parent, so parent < child.  The edge table finds the
 * child of a parent by name.
 */
struct fold_node {
	uint64_t self;		/* weight of stacks ending here */
	uint64_t total;		/* self plus every child's total */
	uint32_t parent;
	uint32_t name;		/* offset in fold_names.buf */
};

struct fold_tree {
	struct fold_node *nodes;
	uint32_t n;
	uint32_t cap;
	struct hashtab edges;	/* hash of (parent, name) -> child node */
};

struct fold {
	struct fold_names names;
	struct fold_tree tree;
};

/* fold_name_key - the hash of a name as the fold stores it, well mixed: the same for equal names */
uint64_t fold_name_key(const char *s);

/*
 * fold_tree_reverse - into rev, a tree of tree's stacks merged from the leaf;
 * the caller owns rev (fold_tree_release). 0 or -ENOMEM (rev then holds nothing)
 */
int fold_tree_reverse(const struct fold_tree *tree, struct fold_tree *rev);

/* fold_tree_release - free a tree's memory */
void fold_tree_release(struct fold_tree *tree);

#endif
