// SPDX-License-Identifier: GPL-2.0-or-later
/* test_flame.c - folded text equals golden strings; the SVG is sound XML */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "flame.h"

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* fold_text - fold_write() output as a string to free */
static char *fold_text(const struct fold *fold, bool reverse)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fold_write(fold, f, reverse), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* svg_text - flame_write_svg() output as a string to free */
static char *svg_text(const struct fold *fold, const struct flame_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(flame_write_svg(fold, f, opts), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* count - occurrences of needle in s */
static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (s = strstr(s, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

/* add - fold_add() that must succeed */
static void add(struct fold *fold, const char *const *frames, size_t nr,
		uint64_t weight)
{
	assert_int_equal(fold_add(fold, frames, nr, weight), 0);
}

/*
 * xml_entity_len - length of the entity at s ('&' included), 0 if invalid
 */
static size_t xml_entity_len(const char *s)
{
	static const char *const names[] = {
		"&amp;", "&lt;", "&gt;", "&quot;", "&apos;",
	};
	size_t i;

	for (i = 0; i < NR(names); i++) {
		if (!strncmp(s, names[i], strlen(names[i])))
			return strlen(names[i]);
	}
	return 0;
}

/* xml_name_len - length of the XML name at s */
static size_t xml_name_len(const char *s)
{
	size_t n = 0;

	while (s[n] && (strchr("_:-.", s[n]) ||
			(s[n] >= 'a' && s[n] <= 'z') ||
			(s[n] >= 'A' && s[n] <= 'Z') ||
			(s[n] >= '0' && s[n] <= '9')))
		n++;
	return n;
}

/*
 * xml_well_formed - whether doc is well-formed XML, checked in C
 *
 * Enough of XML for what the writer emits: a declaration, CDATA sections,
 * elements with quoted attributes, and text with the five entities.  Tags
 * must nest, one root element, no stray '<', '&' or "]]>", no control bytes
 * and no byte that cannot occur in UTF-8.
 */
static bool xml_well_formed(const char *doc)
{
	const char *stack[512];
	size_t depth = 0, roots = 0, n, len;
	const char *p = doc, *end;

	while (*p) {
		if ((unsigned char)*p < 0x20 && !strchr("\t\n\r", *p))
			return false;
		if ((unsigned char)*p == 0xff || (unsigned char)*p == 0xfe ||
		    (unsigned char)*p == 0xc0 || (unsigned char)*p == 0xc1)
			return false;
		if (*p == '&') {
			len = xml_entity_len(p);
			if (!len || !depth)
				return false;
			p += len;
			continue;
		}
		if (!strncmp(p, "]]>", 3))
			return false;
		if (*p != '<') {
			if (!depth && !strchr(" \t\n\r", *p))
				return false;
			p++;
			continue;
		}
		if (!strncmp(p, "<?", 2)) {
			if (p != doc)
				return false;
			end = strstr(p, "?>");
			if (!end)
				return false;
			p = end + 2;
			continue;
		}
		if (!strncmp(p, "<![CDATA[", 9)) {
			end = strstr(p, "]]>");
			if (!end || !depth)
				return false;
			p = end + 3;
			continue;
		}
		if (p[1] == '/') {
			n = xml_name_len(p + 2);
			if (!n || !depth || p[2 + n] != '>' ||
			    strncmp(stack[depth - 1], p + 2, n) ||
			    xml_name_len(stack[depth - 1]) != n)
				return false;
			depth--;
			p += 3 + n;
			continue;
		}
		n = xml_name_len(p + 1);
		if (!n)
			return false;
		if (!depth && roots++)
			return false;
		if (depth == NR(stack))
			return false;
		stack[depth++] = p + 1;
		p += 1 + n;
		for (;;) {
			while (*p == ' ' || *p == '\n')
				p++;
			if (*p == '>') {
				p++;
				break;
			}
			if (p[0] == '/' && p[1] == '>') {
				depth--;
				p += 2;
				break;
			}
			n = xml_name_len(p);
			if (!n || p[n] != '=' || p[n + 1] != '"')
				return false;
			for (p += n + 2; *p != '"'; p++) {
				if (!*p || *p == '<')
					return false;
				if (*p == '&') {
					len = xml_entity_len(p);
					if (!len)
						return false;
					p += len - 1;
				}
			}
			p++;
		}
	}
	return !depth && roots == 1;
}

/* xmllint_ok - xmllint's verdict on svg when installed, else true */
static bool xmllint_ok(const char *svg)
{
	char path[] = "/tmp/test_flame_XXXXXX";
	char cmd[64];
	int fd, status;
	FILE *f;

	if (system("command -v xmllint >/dev/null 2>&1"))
		return true;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(svg, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	status = system(cmd);
	unlink(path);
	return status == 0;
}

/* frame_attr - numeric attribute attr of the frame called name */
static double frame_attr(const char *svg, const char *name, const char *attr)
{
	char key[256], want[32];
	const char *p;

	snprintf(key, sizeof(key), "<g><title>%s (", name);
	p = strstr(svg, key);
	assert_non_null(p);
	/* names are unique in these tests: a second frame would be ambiguous */
	assert_null(strstr(p + 1, key));
	snprintf(want, sizeof(want), " %s=\"", attr);
	p = strstr(p, want);
	assert_non_null(p);
	return strtod(p + strlen(want), NULL);
}

/* frame_label - the text drawn in frame name, to free */
static char *frame_label(const char *svg, const char *name)
{
	char key[256];
	const char *p, *end;

	snprintf(key, sizeof(key), "<g><title>%s (", name);
	p = strstr(svg, key);
	assert_non_null(p);
	p = strstr(p, "<text ");
	assert_non_null(p);
	p = strchr(p, '>') + 1;
	end = strstr(p, "</text>");
	assert_non_null(end);
	return strndup(p, (size_t)(end - p));
}

static const char *const st_read[] = {
	"dd", "ksys_read", "vfs_read", "submit_bio",
};
static const char *const st_write[] = {
	"dd", "ksys_write", "vfs_write", "submit_bio",
};
static const char *const st_flush[] = {
	"kworker", "wb_workfn", "submit_bio",
};

/* sample_fold - 1,250 samples over 10 frames besides the root */
static struct fold *sample_fold(void)
{
	struct fold *fold = fold_alloc();

	assert_non_null(fold);
	add(fold, st_read, NR(st_read), 300);
	add(fold, st_write, NR(st_write), 100);
	add(fold, st_flush, NR(st_flush), 600);
	add(fold, st_read, 2, 50);	/* stack ending at ksys_read */
	add(fold, st_read, NR(st_read), 200);
	return fold;
}

/* test_fold_golden - equal stacks merge; lines sorted; exact text */
static void test_fold_golden(void **state)
{
	struct fold *fold = sample_fold();
	char *text = fold_text(fold, false);

	(void)state;
	assert_string_equal(text,
		"dd;ksys_read 50\n"
		"dd;ksys_read;vfs_read;submit_bio 500\n"
		"dd;ksys_write;vfs_write;submit_bio 100\n"
		"kworker;wb_workfn;submit_bio 600\n");
	free(text);
	fold_free(fold);
}

/* test_fold_reverse_golden - reverse writes each stack leaf first */
static void test_fold_reverse_golden(void **state)
{
	struct fold *fold = sample_fold();
	char *text = fold_text(fold, true);

	(void)state;
	assert_string_equal(text,
		"ksys_read;dd 50\n"
		"submit_bio;vfs_read;ksys_read;dd 500\n"
		"submit_bio;vfs_write;ksys_write;dd 100\n"
		"submit_bio;wb_workfn;kworker 600\n");
	free(text);
	fold_free(fold);
}

/* test_fold_sanitize - ';' and newlines replaced, empty names named */
static void test_fold_sanitize(void **state)
{
	const char *const odd[] = { "a;b", "line\nbreak\r", "", NULL, "x y" };
	const char *const same[] = { "a:b", "line break ", "[unknown]",
				     "[unknown]", "x y" };
	struct fold *fold = fold_alloc();
	char *text;

	(void)state;
	assert_non_null(fold);
	add(fold, odd, NR(odd), 3);
	add(fold, same, NR(same), 4);
	text = fold_text(fold, false);
	assert_string_equal(text,
			    "a:b;line break ;[unknown];[unknown];x y 7\n");
	free(text);
	text = fold_text(fold, true);
	assert_string_equal(text,
			    "x y;[unknown];[unknown];line break ;a:b 7\n");
	free(text);
	fold_free(fold);
}

/* test_fold_sort_bytewise - sorting compares whole lines bytewise */
static void test_fold_sort_bytewise(void **state)
{
	const char *const s1[] = { "b" };
	const char *const s2[] = { "a", "z" };
	const char *const s3[] = { "a-x" };
	const char *const s4[] = { "B" };
	struct fold *fold = fold_alloc();
	char *text;

	(void)state;
	assert_non_null(fold);
	add(fold, s1, 1, 1);
	add(fold, s2, 2, 2);
	add(fold, s3, 1, 3);
	add(fold, s4, 1, 4);
	text = fold_text(fold, false);
	assert_string_equal(text, "B 4\na-x 3\na;z 2\nb 1\n");
	free(text);
	fold_free(fold);
}

/* test_fold_errors - bad arguments, zero weight and overflow */
static void test_fold_errors(void **state)
{
	const char *const s[] = { "a", "b" };
	const char *const t[] = { "a", "c" };
	struct fold *fold = fold_alloc();
	char *text;

	(void)state;
	assert_non_null(fold);
	assert_int_equal(fold_add(fold, s, 0, 1), -EINVAL);
	assert_int_equal(fold_add(fold, NULL, 2, 1), -EINVAL);
	assert_int_equal(fold_add(fold, s, 2, 0), 0);
	text = fold_text(fold, false);
	assert_string_equal(text, "");
	free(text);

	add(fold, s, 2, UINT64_MAX - 5);
	assert_int_equal(fold_add(fold, t, 2, 6), -EOVERFLOW);
	add(fold, t, 2, 5);
	text = fold_text(fold, false);
	assert_string_equal(text, "a;b 18446744073709551610\na;c 5\n");
	free(text);
	fold_free(fold);
	fold_free(NULL);
}

/* test_fold_many - thousands of stacks and names through table growth */
static void test_fold_many(void **state)
{
	struct fold *fold = fold_alloc();
	char names[3][32];
	const char *frames[3] = { names[0], names[1], names[2] };
	uint64_t sum = 0, w;
	size_t lines = 0;
	char *text, *line;
	int i;

	(void)state;
	assert_non_null(fold);
	for (i = 0; i < 20000; i++) {
		snprintf(names[0], sizeof(names[0]), "proc%d", i % 10);
		snprintf(names[1], sizeof(names[1]), "mid%d", i % 100);
		snprintf(names[2], sizeof(names[2]), "leaf%05d", i);
		add(fold, frames, 3, (uint64_t)i + 1);
	}
	/* the same again: every stack merges */
	for (i = 0; i < 20000; i++) {
		snprintf(names[0], sizeof(names[0]), "proc%d", i % 10);
		snprintf(names[1], sizeof(names[1]), "mid%d", i % 100);
		snprintf(names[2], sizeof(names[2]), "leaf%05d", i);
		add(fold, frames, 3, 1);
	}
	text = fold_text(fold, false);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		w = strtoull(strrchr(line, ' ') + 1, NULL, 10);
		assert_true(w >= 2);
		sum += w;
		lines++;
	}
	assert_int_equal(lines, 20000);
	assert_int_equal(sum, 20000ULL * 20001 / 2 + 20000);
	free(text);
	fold_free(fold);
}

/* test_svg_structure - one rect, text and tooltip per frame; valid XML */
static void test_svg_structure(void **state)
{
	struct fold *fold = sample_fold();
	struct flame_opts opts = {
		.title = "I/O stacks", .subtitle = "block_rq_issue",
		.units = "bytes",
	};
	char *svg = svg_text(fold, &opts);
	const size_t frames = 10 + 1;

	(void)state;
	assert_true(xml_well_formed(svg));
	assert_true(xmllint_ok(svg));
	assert_true(!strncmp(svg, "<?xml ", 6));
	assert_int_equal(count(svg, "<svg "), 1);
	assert_int_equal(count(svg, "<rect "), frames + 1);
	assert_int_equal(count(svg, "<g><title>"), frames);
	assert_int_equal(count(svg, "<title>"), frames);
	/* frames, title, subtitle, zoom, search, details, matched */
	assert_int_equal(count(svg, "<text "), frames + 6);
	assert_non_null(strstr(svg, "width=\"1200\""));
	assert_non_null(strstr(svg, ">I/O stacks</text>"));
	assert_non_null(strstr(svg, ">block_rq_issue</text>"));
	assert_non_null(strstr(svg, ">Reset Zoom</text>"));
	assert_non_null(strstr(svg, ">Search</text>"));
	assert_non_null(strstr(svg, "<title>all (1,250 bytes, 100.00%)"));
	assert_non_null(strstr(svg, "<title>submit_bio (600 bytes, 48.00%)"));
	assert_non_null(strstr(svg, "<title>ksys_read (550 bytes, 44.00%)"));
	assert_non_null(strstr(svg, "<title>ksys_write (100 bytes, 8.00%)"));
	/* the script: zoom, reset, regex search, Ctrl-F, match share */
	assert_int_equal(count(svg, "<script type=\"text/ecmascript\">"), 1);
	assert_non_null(strstr(svg, "function zoom("));
	assert_non_null(strstr(svg, "function unzoom("));
	assert_non_null(strstr(svg, "new RegExp("));
	assert_non_null(strstr(svg, "prompt("));
	assert_non_null(strstr(svg, "e.ctrlKey"));
	assert_non_null(strstr(svg, "'Matched: '"));
	assert_non_null(strstr(svg, "inverted: false"));
	free(svg);
	fold_free(fold);
}

/* test_svg_widths - widths proportional to weights, children in parents */
static void test_svg_widths(void **state)
{
	struct fold *fold = sample_fold();
	char *svg = svg_text(fold, NULL);
	double all = frame_attr(svg, "all", "width");
	double dd = frame_attr(svg, "dd", "width");
	double kw = frame_attr(svg, "kworker", "width");
	double rd = frame_attr(svg, "ksys_read", "width");
	double wr = frame_attr(svg, "ksys_write", "width");
	double vr = frame_attr(svg, "vfs_read", "width");

	(void)state;
	assert_true(all > 1179.99 && all < 1180.01);
	assert_true(dd / all > 650.0 / 1250 - 1e-4 &&
		    dd / all < 650.0 / 1250 + 1e-4);
	assert_true(kw / all > 600.0 / 1250 - 1e-4 &&
		    kw / all < 600.0 / 1250 + 1e-4);
	assert_true(rd / wr > 5.5 - 0.01 && rd / wr < 5.5 + 0.01);
	assert_true(vr / wr > 5.0 - 0.01 && vr / wr < 5.0 + 0.01);
	/* siblings sorted by name, side by side from the parent's left */
	assert_true(frame_attr(svg, "dd", "x") == frame_attr(svg, "all", "x"));
	assert_true(frame_attr(svg, "ksys_read", "x") ==
		    frame_attr(svg, "dd", "x"));
	assert_true(frame_attr(svg, "ksys_write", "x") > rd + 9.99 &&
		    frame_attr(svg, "ksys_write", "x") < rd + 10.01);
	assert_true(frame_attr(svg, "kworker", "x") > dd + 9.99 &&
		    frame_attr(svg, "kworker", "x") < dd + 10.01);
	/* a flame graph grows upwards */
	assert_true(frame_attr(svg, "dd", "y") < frame_attr(svg, "all", "y"));
	assert_true(frame_attr(svg, "dd", "y") - frame_attr(svg, "all", "y") ==
		    -16);
	free(svg);
	fold_free(fold);
}

/* test_svg_escaping - markup in names and titles is escaped */
static void test_svg_escaping(void **state)
{
	const char *const odd[] = { "<script>", "a&b", "\"q'", "caf\xc3\xa9",
				    "bad\xff\xfe", "ctl\x01" };
	struct flame_opts opts = { .title = "x < y & \"z\"",
				   .units = "<b>" };
	struct fold *fold = fold_alloc();
	char *svg;

	(void)state;
	assert_non_null(fold);
	add(fold, odd, NR(odd), 10);
	svg = svg_text(fold, &opts);
	assert_true(xml_well_formed(svg));
	assert_true(xmllint_ok(svg));
	assert_int_equal(count(svg, "<script"), 1);
	assert_non_null(strstr(svg, "<title>&lt;script&gt; (10 &lt;b&gt;, "));
	assert_non_null(strstr(svg, "<title>a&amp;b (10 "));
	assert_non_null(strstr(svg, "<title>&quot;q&apos; (10 "));
	assert_non_null(strstr(svg, "<title>caf\xc3\xa9 (10 "));
	assert_non_null(strstr(svg, "<title>bad?? (10 "));
	assert_non_null(strstr(svg, "<title>ctl? (10 "));
	assert_non_null(strstr(svg, ">x &lt; y &amp; &quot;z&quot;</text>"));
	free(svg);
	fold_free(fold);
}

/* test_svg_min_width - narrow frames go, their weight stays in parents */
static void test_svg_min_width(void **state)
{
	const char *const big[] = { "p", "big" };
	const char *const tiny[] = { "p", "tiny", "tinier" };
	struct flame_opts opts = { .min_width = 2 };
	struct fold *fold = fold_alloc();
	char *svg;

	(void)state;
	assert_non_null(fold);
	add(fold, big, 2, 10000);
	add(fold, tiny, 3, 10);		/* 1.18 px wide */
	svg = svg_text(fold, &opts);
	assert_true(xml_well_formed(svg));
	assert_null(strstr(svg, "tiny"));
	assert_int_equal(count(svg, "<rect "), 3 + 1);
	assert_non_null(strstr(svg, "<title>p (10,010 samples, 100.00%)"));
	assert_true(frame_attr(svg, "p", "width") > 1179.99);
	free(svg);

	opts.min_width = 1;
	svg = svg_text(fold, &opts);
	assert_int_equal(count(svg, "<rect "), 5 + 1);
	assert_true(frame_attr(svg, "tiny", "width") > 1.17 &&
		    frame_attr(svg, "tiny", "width") < 1.19);
	free(svg);
	fold_free(fold);
}

/* test_svg_labels - labels fit their box, cut with ".." */
static void test_svg_labels(void **state)
{
	const char *const wide[] = { "short_enough_name" };
	const char *const mid[] = { "a_rather_long_function_name_here" };
	const char *const thin[] = { "invisible" };
	struct fold *fold = fold_alloc();
	char *svg, *label;
	double w;

	(void)state;
	assert_non_null(fold);
	add(fold, wide, 1, 1000);
	add(fold, mid, 1, 15);		/* 17.4 px: room for 1 char */
	add(fold, thin, 1, 2);
	svg = svg_text(fold, &(struct flame_opts){ .width = 1200 });
	label = frame_label(svg, "short_enough_name");
	assert_string_equal(label, "short_enough_name");
	free(label);
	label = frame_label(svg, "a_rather_long_function_name_here");
	assert_string_equal(label, "");
	free(label);
	label = frame_label(svg, "invisible");
	assert_string_equal(label, "");
	free(label);
	free(svg);
	fold_free(fold);

	fold = fold_alloc();
	assert_non_null(fold);
	add(fold, wide, 1, 900);
	add(fold, mid, 1, 100);
	svg = svg_text(fold, NULL);
	w = frame_attr(svg, "a_rather_long_function_name_here", "width");
	label = frame_label(svg, "a_rather_long_function_name_here");
	/* 118 px: floor((118 - 6) / 7.08) = 15 characters, ".." included */
	assert_true(w > 117.99 && w < 118.01);
	assert_string_equal(label, "a_rather_long..");
	free(label);
	free(svg);
	fold_free(fold);
}

/* test_svg_inverted - icicle graphs hang from the top */
static void test_svg_inverted(void **state)
{
	struct fold *fold = sample_fold();
	struct flame_opts opts = { .inverted = true };
	char *svg = svg_text(fold, &opts);

	(void)state;
	assert_true(xml_well_formed(svg));
	assert_non_null(strstr(svg, ">Icicle Graph</text>"));
	assert_non_null(strstr(svg, "inverted: true"));
	assert_true(frame_attr(svg, "all", "y") == 36);
	assert_true(frame_attr(svg, "dd", "y") == 36 + 16);
	assert_true(frame_attr(svg, "ksys_read", "y") == 36 + 2 * 16);
	assert_true(frame_attr(svg, "vfs_read", "y") == 36 + 3 * 16);
	free(svg);
	fold_free(fold);
}

/* test_svg_reverse - stacks merged from the leaf */
static void test_svg_reverse(void **state)
{
	struct fold *fold = sample_fold();
	struct flame_opts opts = { .reverse = true };
	char *svg = svg_text(fold, &opts);

	(void)state;
	assert_true(xml_well_formed(svg));
	/* submit_bio, now a root child, gathers all three stacks */
	assert_int_equal(count(svg, "<title>submit_bio ("), 1);
	assert_non_null(strstr(svg,
			       "<title>submit_bio (1,200 samples, 96.00%)"));
	assert_int_equal(count(svg, "<title>dd ("), 3);
	/* root, submit_bio, vfs_read, vfs_write, wb_workfn, ksys_read x2,
	 * ksys_write, kworker, dd x3 */
	assert_int_equal(count(svg, "<rect "), 12 + 1);
	assert_true(frame_attr(svg, "submit_bio", "y") <
		    frame_attr(svg, "all", "y"));
	free(svg);
	fold_free(fold);
}

/* fill_at - the fill of the frame starting at p, to free */
static char *fill_at(const char *p)
{
	const char *end;

	assert_non_null(p);
	p = strstr(p, "fill=\"");
	assert_non_null(p);
	p += 6;
	end = strchr(p, '"');
	assert_non_null(end);
	return strndup(p, (size_t)(end - p));
}

/* test_svg_colors - warm, and the same for the same name anywhere */
static void test_svg_colors(void **state)
{
	const char *const a[] = { "x", "common" };
	const char *const b[] = { "y", "common" };
	struct fold *fold = fold_alloc();
	char *svg, *fill, *again;
	unsigned int r, g, bl;
	const char *p;
	size_t n = 0;

	(void)state;
	assert_non_null(fold);
	add(fold, a, 2, 5);
	add(fold, b, 2, 7);
	svg = svg_text(fold, NULL);
	p = strstr(svg, "<g><title>common (");
	fill = fill_at(p);
	again = fill_at(strstr(p + 1, "<g><title>common ("));
	assert_string_equal(fill, again);
	free(again);
	free(fill);
	for (p = strstr(svg, "<g><title>"); p; p = strstr(p + 1, "<g><title>")) {
		fill = fill_at(p);
		assert_int_equal(sscanf(fill, "rgb(%u,%u,%u)", &r, &g, &bl), 3);
		assert_in_range(r, 210, 255);
		assert_in_range(g, 50, 220);
		assert_in_range(bl, 0, 55);
		free(fill);
		n++;
	}
	assert_int_equal(n, 5);
	free(svg);
	fold_free(fold);
}

/* test_svg_deterministic - the same stacks in any order, the same bytes */
static void test_svg_deterministic(void **state)
{
	struct fold *one = sample_fold();
	struct fold *two = fold_alloc();
	char *a, *b;

	(void)state;
	assert_non_null(two);
	add(two, st_flush, NR(st_flush), 600);
	add(two, st_read, NR(st_read), 500);
	add(two, st_read, 2, 50);
	add(two, st_write, NR(st_write), 100);
	a = svg_text(one, NULL);
	b = svg_text(two, NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	fold_free(one);
	fold_free(two);
}

/* test_svg_empty - no stacks: a valid document with no frames */
static void test_svg_empty(void **state)
{
	struct fold *fold = fold_alloc();
	char *svg;

	(void)state;
	assert_non_null(fold);
	svg = svg_text(fold, NULL);
	assert_true(xml_well_formed(svg));
	assert_true(xmllint_ok(svg));
	assert_int_equal(count(svg, "<rect "), 1);
	assert_non_null(strstr(svg, ">Flame Graph</text>"));
	free(svg);
	fold_free(fold);
}

/* test_svg_bad_width - an image too narrow to draw is refused */
static void test_svg_bad_width(void **state)
{
	struct fold *fold = sample_fold();
	struct flame_opts opts = { .width = 50 };
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(flame_write_svg(fold, f, &opts), -EINVAL);
	fclose(f);
	fold_free(fold);
}

/* test_xml_checker - the C checker itself rejects broken documents */
static void test_xml_checker(void **state)
{
	(void)state;
	assert_true(xml_well_formed("<?xml version=\"1.0\"?>\n<a b=\"1\">"
				    "<c/>x &amp; y<![CDATA[<&]]></a>\n"));
	assert_false(xml_well_formed("<a><b></a></b>"));
	assert_false(xml_well_formed("<a>x & y</a>"));
	assert_false(xml_well_formed("<a>x < y</a>"));
	assert_false(xml_well_formed("<a t=\"<\"/>"));
	assert_false(xml_well_formed("<a></a><b></b>"));
	assert_false(xml_well_formed("<a>\xff</a>"));
	assert_false(xml_well_formed("<a>"));
}

/* main - run the fold and flame graph tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_checker),
		cmocka_unit_test(test_fold_golden),
		cmocka_unit_test(test_fold_reverse_golden),
		cmocka_unit_test(test_fold_sanitize),
		cmocka_unit_test(test_fold_sort_bytewise),
		cmocka_unit_test(test_fold_errors),
		cmocka_unit_test(test_fold_many),
		cmocka_unit_test(test_svg_structure),
		cmocka_unit_test(test_svg_widths),
		cmocka_unit_test(test_svg_escaping),
		cmocka_unit_test(test_svg_min_width),
		cmocka_unit_test(test_svg_labels),
		cmocka_unit_test(test_svg_inverted),
		cmocka_unit_test(test_svg_reverse),
		cmocka_unit_test(test_svg_colors),
		cmocka_unit_test(test_svg_deterministic),
		cmocka_unit_test(test_svg_empty),
		cmocka_unit_test(test_svg_bad_width),
	};

	return cmocka_run_group_tests_name("flame", tests, NULL, NULL);
}
