// SPDX-License-Identifier: GPL-2.0-or-later
/* pprof-encode.c - a profile (pprof.h) as pprof's protocol buffer, through protobuf-c, gzipped */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pprof-local.h"
#include "pprof.pb-c.h"

/* The messages of one profile, pointing into its tables while they are packed. */
struct pprof_msgs {
	IotapPprof__Profile prof;
	IotapPprof__ValueType types[PPROF_TYPES_MAX], *type_ptrs[PPROF_TYPES_MAX];
	IotapPprof__Sample *samples, **sample_ptrs;
	IotapPprof__Label *labels, **label_ptrs;
	IotapPprof__Location *locs, **loc_ptrs;
	IotapPprof__Line *lines, **line_ptrs;
	IotapPprof__Function *funcs, **func_ptrs;
	IotapPprof__Mapping *maps, **map_ptrs;
	int64_t *comments;
};

/* pprof_msgs_free - what pprof_msgs_make allocated */
static void pprof_msgs_free(struct pprof_msgs *m)
{
	free(m->samples);
	free(m->sample_ptrs);
	free(m->labels);
	free(m->label_ptrs);
	free(m->locs);
	free(m->loc_ptrs);
	free(m->lines);
	free(m->line_ptrs);
	free(m->funcs);
	free(m->func_ptrs);
	free(m->maps);
	free(m->map_ptrs);
	free(m->comments);
	free(m->prof.string_table);
}

/* pprof_msgs_alloc - room for every message: 0 or -ENOMEM */
static int pprof_msgs_alloc(struct pprof_msgs *m, const struct pprof *p, size_t nr_labels,
			    size_t nr_lines)
{
	size_t ns = p->samples.nr, nl = p->locations.nr, nf = p->functions.nr, nm = p->mappings.nr;

	/* calloc(0) may give NULL: one more of each keeps NULL for failures only. */
	m->samples = calloc(ns + 1, sizeof(*m->samples));
	m->sample_ptrs = calloc(ns + 1, sizeof(*m->sample_ptrs));
	m->labels = calloc(nr_labels + 1, sizeof(*m->labels));
	m->label_ptrs = calloc(nr_labels + 1, sizeof(*m->label_ptrs));
	m->locs = calloc(nl + 1, sizeof(*m->locs));
	m->loc_ptrs = calloc(nl + 1, sizeof(*m->loc_ptrs));
	m->lines = calloc(nr_lines + 1, sizeof(*m->lines));
	m->line_ptrs = calloc(nr_lines + 1, sizeof(*m->line_ptrs));
	m->funcs = calloc(nf + 1, sizeof(*m->funcs));
	m->func_ptrs = calloc(nf + 1, sizeof(*m->func_ptrs));
	m->maps = calloc(nm + 1, sizeof(*m->maps));
	m->map_ptrs = calloc(nm + 1, sizeof(*m->map_ptrs));
	m->comments = calloc(p->nr_comments + 1, sizeof(*m->comments));
	m->prof.string_table = calloc(p->strings.nr + 1, sizeof(*m->prof.string_table));
	if (!m->samples || !m->sample_ptrs || !m->labels || !m->label_ptrs || !m->locs ||
	    !m->loc_ptrs || !m->lines || !m->line_ptrs || !m->funcs || !m->func_ptrs || !m->maps ||
	    !m->map_ptrs || !m->comments || !m->prof.string_table)
		return -ENOMEM;
	return 0;
}

/* pprof_msgs_samples - a Sample per sample: its locations, values and labels */
static void pprof_msgs_samples(struct pprof_msgs *m, const struct pprof *p)
{
	size_t nlab = 0;

	for (size_t i = 0; i < p->samples.nr; i++) {
		IotapPprof__Sample *s = &m->samples[i];
		uint32_t nr;
		const uint64_t *w = pprof_rec_words(&p->samples, i + 1, &nr);

		iotap_pprof__sample__init(s);
		s->n_location_id = w[0];
		s->location_id = (uint64_t *)(w + 1);
		s->n_value = p->nr_types;
		s->value = p->values + i * p->nr_types;
		s->label = m->label_ptrs + nlab;
		for (uint32_t k = 1 + w[0]; k + 1 < nr; k += 2) {
			IotapPprof__Label *l = &m->labels[nlab];

			iotap_pprof__label__init(l);
			l->key = (int64_t)w[k];
			l->str = (int64_t)w[k + 1];
			m->label_ptrs[nlab++] = l;
			s->n_label++;
		}
		m->sample_ptrs[i] = s;
	}
}

/* pprof_msgs_locations - a Location per location, with its lines; what its mapping knows */
static void pprof_msgs_locations(struct pprof_msgs *m, const struct pprof *p)
{
	size_t nline = 0;

	for (size_t i = 0; i < p->locations.nr; i++) {
		IotapPprof__Location *l = &m->locs[i];
		uint32_t nr;
		const uint64_t *w = pprof_rec_words(&p->locations, i + 1, &nr);
		IotapPprof__Mapping *map = w[PPROF_LOC_MAPPING] ?
			&m->maps[w[PPROF_LOC_MAPPING] - 1] : NULL;

		iotap_pprof__location__init(l);
		l->id = i + 1;
		l->mapping_id = w[PPROF_LOC_MAPPING];
		l->address = w[PPROF_LOC_ADDRESS];
		l->line = m->line_ptrs + nline;
		for (uint32_t k = PPROF_LOC_LINES; k + 1 < nr; k += 2) {
			IotapPprof__Line *ln = &m->lines[nline];
			uint32_t nf;
			const uint64_t *fw = pprof_rec_words(&p->functions, w[k], &nf);

			iotap_pprof__line__init(ln);
			ln->function_id = w[k];
			ln->line = (int64_t)w[k + 1];
			m->line_ptrs[nline++] = ln;
			l->n_line++;
			if (map) {
				map->has_filenames |= fw[1] != 0;
				map->has_line_numbers |= ln->line != 0;
			}
		}
		if (map && l->n_line > 1)
			map->has_inline_frames = true;
		m->loc_ptrs[i] = l;
	}
}

/* pprof_msgs_make - the Profile message of p; 0 or -ENOMEM (free m either way) */
static int pprof_msgs_make(struct pprof_msgs *m, const struct pprof *p)
{
	size_t nr_labels = 0, nr_lines = 0;
	uint32_t nr;
	int ret;

	for (size_t i = 0; i < p->samples.nr; i++) {
		const uint64_t *w = pprof_rec_words(&p->samples, i + 1, &nr);

		nr_labels += (nr - 1 - w[0]) / 2;
	}
	for (size_t i = 0; i < p->locations.nr; i++) {
		pprof_rec_words(&p->locations, i + 1, &nr);
		nr_lines += (nr - PPROF_LOC_LINES) / 2;
	}
	iotap_pprof__profile__init(&m->prof);
	ret = pprof_msgs_alloc(m, p, nr_labels, nr_lines);
	if (ret)
		return ret;
	for (size_t i = 0; i < p->nr_types; i++) {
		iotap_pprof__value_type__init(&m->types[i]);
		m->types[i].type = (int64_t)p->types[i][0];
		m->types[i].unit = (int64_t)p->types[i][1];
		m->type_ptrs[i] = &m->types[i];
	}
	m->prof.n_sample_type = p->nr_types;
	m->prof.sample_type = m->type_ptrs;
	for (size_t i = 0; i < p->mappings.nr; i++) {
		const uint64_t *w = pprof_rec_words(&p->mappings, i + 1, &nr);

		iotap_pprof__mapping__init(&m->maps[i]);
		m->maps[i].id = i + 1;
		m->maps[i].filename = (int64_t)w[0];
		/*
		 * Symbolized already, as far as it goes: a mapping has no address range here, so
		 * a viewer that named its unnamed frames from the binary would name them wrong.
		 */
		m->maps[i].has_functions = true;
		m->map_ptrs[i] = &m->maps[i];
	}
	for (size_t i = 0; i < p->functions.nr; i++) {
		const uint64_t *w = pprof_rec_words(&p->functions, i + 1, &nr);

		iotap_pprof__function__init(&m->funcs[i]);
		m->funcs[i].id = i + 1;
		m->funcs[i].name = m->funcs[i].system_name = (int64_t)w[0];
		m->funcs[i].filename = (int64_t)w[1];
		m->func_ptrs[i] = &m->funcs[i];
	}
	pprof_msgs_samples(m, p);
	pprof_msgs_locations(m, p);
	for (size_t i = 0; i < p->strings.nr; i++)
		m->prof.string_table[i] = (char *)pprof_string(p, i);
	for (size_t i = 0; i < p->nr_comments; i++)
		m->comments[i] = (int64_t)p->comments[i];
	m->prof.n_sample = p->samples.nr;
	m->prof.sample = m->sample_ptrs;
	m->prof.n_mapping = p->mappings.nr;
	m->prof.mapping = m->map_ptrs;
	m->prof.n_location = p->locations.nr;
	m->prof.location = m->loc_ptrs;
	m->prof.n_function = p->functions.nr;
	m->prof.function = m->func_ptrs;
	m->prof.n_string_table = p->strings.nr;
	m->prof.n_comment = p->nr_comments;
	m->prof.comment = m->comments;
	m->prof.time_nanos = p->time_ns;
	m->prof.duration_nanos = p->duration_ns;
	m->prof.default_sample_type = (int64_t)p->types[p->default_type][0];
	return 0;
}

/* A protobuf-c output buffer that deflates what it is given into a gzip stream on a file. */
struct pprof_gz {
	ProtobufCBuffer base;
	z_stream z;
	FILE *f;
	int err;			/* the first error, -errno; nothing is written after it */
	unsigned char out[16384];
};

/* pprof_gz_run - deflate what z holds (flush: to the stream's end), writing what comes out */
static void pprof_gz_run(struct pprof_gz *g, int flush)
{
	int zr;

	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		zr = deflate(&g->z, flush);
		if (zr == Z_STREAM_ERROR) {
			g->err = -EIO;
			return;
		}
		if (fwrite(g->out, 1, sizeof(g->out) - g->z.avail_out, g->f) !=
		    sizeof(g->out) - g->z.avail_out) {
			g->err = -EIO;
			return;
		}
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
}

/* pprof_gz_append - protobuf-c's output: deflated onto the file */
static void pprof_gz_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
	struct pprof_gz *g = (struct pprof_gz *)buf;

	/* zlib counts in uInt: a large piece goes in several. */
	while (len && !g->err) {
		uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;

		g->z.next_in = (Bytef *)data;
		g->z.avail_in = n;
		pprof_gz_run(g, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

/* pprof_supported - this build writes profiles */
bool pprof_supported(void)
{
	return true;
}

/* pprof_write - the profile, encoded and gzipped, to f */
int pprof_write(const struct pprof *p, FILE *f)
{
	struct pprof_msgs m = { 0 };
	struct pprof_gz *g;
	int ret = pprof_msgs_make(&m, p);

	if (ret)
		goto out_msgs;
	g = calloc(1, sizeof(*g));
	if (!g) {
		ret = -ENOMEM;
		goto out_msgs;
	}
	g->base.append = pprof_gz_append;
	g->f = f;
	/* 16 + the window bits: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		ret = -ENOMEM;
		goto out_gz;
	}
	iotap_pprof__profile__pack_to_buffer(&m.prof, &g->base);
	if (!g->err) {
		g->z.next_in = NULL;
		g->z.avail_in = 0;
		pprof_gz_run(g, Z_FINISH);
	}
	ret = g->err ? g->err : ferror(f) ? -EIO : 0;
	deflateEnd(&g->z);
out_gz:
	free(g);
out_msgs:
	pprof_msgs_free(&m);
	return ret;
}
