/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_PPROF_LOCAL_H
#define IOTAP_PPROF_LOCAL_H

/*
 * The tables of a profile (pprof.h), for the encoder (pprof-encode.c) to read. Only pprof.c
 * changes them. Every table is a set of records of 64-bit words, each record kept once: its
 * id in the profile is its index + 1, which is what the records of other tables hold.
 */
#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"
#include "pprof.h"

struct pprof_set {
	uint64_t *words;
	size_t len, cap;
	struct pprof_rec {
		size_t off;		/* into words */
		uint32_t nr;
	} *recs;
	size_t nr, cap_recs;
	struct hashtab index;		/* hash of a record's words -> its index */
};

/* The string table: strings[0] is "", as the format wants. */
struct pprof_strings {
	char *buf;
	size_t len, cap;
	size_t *offs;			/* string i at buf + offs[i] */
	size_t nr, cap_offs;
	struct hashtab index;		/* hash of a string -> its index */
};

/*
 * The records' words:
 *   function  name, file (string indexes)
 *   mapping   file
 *   location  mapping id (0: none), address, then function id and line of each line,
 *             innermost first
 *   sample    number of locations, their ids (innermost first), then key and value
 *             (string indexes) of each label
 */
#define PPROF_LOC_MAPPING	0
#define PPROF_LOC_ADDRESS	1
#define PPROF_LOC_LINES		2

struct pprof {
	struct pprof_strings strings;
	struct pprof_set functions, mappings, locations, samples;
	int64_t *values;		/* nr_types per sample, in sample order */
	size_t cap_values;
	uint64_t types[PPROF_TYPES_MAX][2];	/* type, unit (string indexes) */
	size_t nr_types;
	uint64_t *comments;		/* string indexes */
	size_t nr_comments, cap_comments;
	int64_t time_ns, duration_ns;
	size_t default_type;
};

/* pprof_string - string i of the table */
static inline const char *pprof_string(const struct pprof *p, uint64_t i)
{
	return p->strings.buf + p->strings.offs[i];
}

/* pprof_rec_words - the words of record id (1-based) of a set, their number in *nr */
static inline const uint64_t *pprof_rec_words(const struct pprof_set *s, uint64_t id,
					      uint32_t *nr)
{
	*nr = s->recs[id - 1].nr;
	return s->words + s->recs[id - 1].off;
}

#endif
