// SPDX-License-Identifier: GPL-2.0-or-later
/* flame.c - interactive SVG flame graphs of folded stacks (flame.h) */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "fold-local.h"

/* Geometry, in px; text widths are estimated, as in the script. */
#define FLAME_WIDTH 1200
#define FLAME_MIN_IMAGE 100
#define FLAME_XPAD 10
#define FLAME_FRAME_H 16
#define FLAME_FONT 12
#define FLAME_CHAR_W 7.08		/* 0.59 em of the 12 px font */
#define FLAME_TOP (FLAME_FONT * 3)
#define FLAME_SUBTITLE (FLAME_FONT * 2)
#define FLAME_BOTTOM (FLAME_FONT * 2 + 10)
#define FLAME_MIN_WIDTH 0.1
#define FLAME_HIDDEN UINT32_MAX

struct flame_kid {
	const char *name;
	uint32_t node;
};

/*
 * Where each node of a tree goes: kids[start[i]..start[i + 1]) are node i's
 * children, sorted by name when i is drawn; xoff[i] the weight drawn left of
 * it (set only when its parent is drawn); depth[i] its row, or FLAME_HIDDEN
 * when it or an ancestor is narrower than min_width.
 */
struct flame_layout {
	const struct fold_tree *tree;
	const char *names;
	uint32_t *start;
	struct flame_kid *kids;
	uint64_t *xoff;
	uint32_t *depth;
	uint32_t max_depth;
	double scale;		/* px per unit of weight */
};

/* flame_kid_cmp - qsort order of siblings: by name */
static int flame_kid_cmp(const void *a, const void *b)
{
	return strcmp(((const struct flame_kid *)a)->name,
		      ((const struct flame_kid *)b)->name);
}

/* flame_layout_release - free the layout's arrays */
static void flame_layout_release(struct flame_layout *lay)
{
	free(lay->start);
	free(lay->kids);
	free(lay->xoff);
	free(lay->depth);
}

/* flame_layout_init - sort siblings, then place every node */
static int flame_layout_init(struct flame_layout *lay,
			     const struct fold_tree *tree, const char *names,
			     double span, double min_width)
{
	const struct fold_node *nodes = tree->nodes;
	uint32_t n = tree->n, i, k, p;
	uint64_t off;

	memset(lay, 0, sizeof(*lay));
	lay->tree = tree;
	lay->names = names;
	lay->start = calloc((size_t)n + 1, sizeof(*lay->start));
	lay->kids = malloc((size_t)n * sizeof(*lay->kids));
	lay->xoff = malloc((size_t)n * sizeof(*lay->xoff));
	lay->depth = malloc((size_t)n * sizeof(*lay->depth));
	if (!lay->start || !lay->kids || !lay->xoff || !lay->depth) {
		flame_layout_release(lay);
		return -ENOMEM;
	}

	/*
	 * Counting sort by parent: count into start[p + 1], sum so start[p]
	 * begins p's range, fill (which moves start[p] to the end of the
	 * range), then shift back by one.
	 */
	for (i = 1; i < n; i++)
		lay->start[nodes[i].parent + 1]++;
	for (p = 0; p < n; p++)
		lay->start[p + 1] += lay->start[p];
	for (i = 1; i < n; i++) {
		k = lay->start[nodes[i].parent]++;
		lay->kids[k].name = names + nodes[i].name;
		lay->kids[k].node = i;
	}
	for (p = n; p > 0; p--)
		lay->start[p] = lay->start[p - 1];
	lay->start[0] = 0;

	lay->scale = nodes[0].total ? span / (double)nodes[0].total : 0;
	lay->xoff[0] = 0;
	lay->depth[0] = nodes[0].total ? 0 : FLAME_HIDDEN;
	/* parents come before their children: each is placed when reached */
	for (p = 0; p < n; p++) {
		if (lay->depth[p] == FLAME_HIDDEN) {
			for (k = lay->start[p]; k < lay->start[p + 1]; k++)
				lay->depth[lay->kids[k].node] = FLAME_HIDDEN;
			continue;
		}
		qsort(lay->kids + lay->start[p],
		      lay->start[p + 1] - lay->start[p], sizeof(*lay->kids),
		      flame_kid_cmp);
		off = lay->xoff[p];
		for (k = lay->start[p]; k < lay->start[p + 1]; k++) {
			i = lay->kids[k].node;
			lay->xoff[i] = off;
			off += nodes[i].total;
			if ((double)nodes[i].total * lay->scale < min_width) {
				lay->depth[i] = FLAME_HIDDEN;
				continue;
			}
			lay->depth[i] = lay->depth[p] + 1;
			if (lay->depth[i] > lay->max_depth)
				lay->max_depth = lay->depth[i];
		}
	}
	return 0;
}

/* flame_fixed_write - write v with two decimals, locale-free */
static void flame_fixed_write(FILE *f, double v, bool trim)
{
	long long c = (long long)(v * 100 + (v < 0 ? -0.5 : 0.5));

	if (c < 0) {
		fputc('-', f);
		c = -c;
	}
	fprintf(f, "%lld", c / 100);
	c %= 100;
	if (!trim || c % 10)
		fprintf(f, ".%02lld", c);
	else if (c)
		fprintf(f, ".%lld", c / 10);
}

/* flame_num_write - write a coordinate: two decimals, no trailing zeros */
static void flame_num_write(FILE *f, double v)
{
	flame_fixed_write(f, v, true);
}

/* flame_count_write - write v with thousands separated by commas */
static void flame_count_write(FILE *f, uint64_t v)
{
	char digits[21];
	int len, i;

	len = snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			fputc(',', f);
		fputc(digits[i], f);
	}
}

/*
 * flame_utf8_len - bytes of the valid UTF-8 character XML accepts at s, or 0
 *
 * Rejects stray continuation bytes, overlong forms, surrogates, code points
 * past U+10FFFF, and U+FFFE and U+FFFF, which XML 1.0 forbids.
 */
static size_t flame_utf8_len(const unsigned char *s)
{
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	if (s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
		return 0;
	return len;
}

/* flame_chars - characters in s, counting each invalid byte as one */
static size_t flame_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, len;

	for (; *p; n++) {
		len = flame_utf8_len(p);
		p += len ? len : 1;
	}
	return n;
}

/*
 * flame_text_write - write at most max characters of s as XML text
 *
 * Markup characters become entities; control characters and bytes that are
 * not valid UTF-8 become '?', so any input yields a well-formed document.
 */
static void flame_text_write(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	for (; *p && max; max--) {
		len = flame_utf8_len(p);
		if (!len || *p < 0x20) {
			fputc('?', f);
			p++;
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fwrite(p, 1, len, f);
		}
		p += len;
	}
}

/* flame_label_write - the part of name that fits w px, ".." when cut */
static void flame_label_write(FILE *f, const char *name, double w)
{
	double room = (w - 6) / FLAME_CHAR_W;
	size_t fit, chars;

	if (room < 3)
		return;
	fit = (size_t)room;
	chars = flame_chars(name);
	if (chars <= fit) {
		flame_text_write(f, name, chars);
		return;
	}
	flame_text_write(f, name, fit - 2);
	fputs("..", f);
}

/* flame_fill_write - warm colour of a frame, the same for the same name */
static void flame_fill_write(FILE *f, const char *name)
{
	uint64_t h = fold_name_key(name);

	fprintf(f, "rgb(%u,%u,%u)", 210 + (unsigned int)(h % 46),
		50 + (unsigned int)((h >> 16) % 171),
		(unsigned int)((h >> 32) % 56));
}

/* flame_frame_write - one frame: tooltip, box and label; row 0 at y0 */
static void flame_frame_write(FILE *f, const struct flame_layout *lay,
			      uint32_t i, double y0, double dy,
			      const char *units)
{
	const struct fold_node *node = &lay->tree->nodes[i];
	const char *name = i ? lay->names + node->name : "all";
	double x = FLAME_XPAD + (double)lay->xoff[i] * lay->scale;
	double w = (double)node->total * lay->scale;
	double y = y0 + (double)lay->depth[i] * dy;

	fputs("<g><title>", f);
	flame_text_write(f, name, SIZE_MAX);
	fputs(" (", f);
	flame_count_write(f, node->total);
	fputc(' ', f);
	flame_text_write(f, units, SIZE_MAX);
	fputs(", ", f);
	flame_fixed_write(f, (double)node->total * 100 /
			     (double)lay->tree->nodes[0].total, false);
	fputs("%)</title><rect x=\"", f);
	flame_num_write(f, x);
	fputs("\" y=\"", f);
	flame_num_write(f, y);
	fputs("\" width=\"", f);
	flame_num_write(f, w);
	fprintf(f, "\" height=\"%d\" fill=\"", FLAME_FRAME_H - 1);
	flame_fill_write(f, name);
	fputs("\" rx=\"2\" ry=\"2\"/><text x=\"", f);
	flame_num_write(f, x + 3);
	fputs("\" y=\"", f);
	flame_num_write(f, y + 11.5);
	fputs("\">", f);
	flame_label_write(f, name, w);
	fputs("</text></g>\n", f);
}

/* flame_frames_write - every drawn frame, depth first, siblings by name */
static int flame_frames_write(FILE *f, const struct flame_layout *lay,
			      double y0, double dy, const char *units)
{
	uint32_t *stack, top = 0, i, k;

	if (lay->depth[0] == FLAME_HIDDEN)
		return 0;
	stack = malloc((size_t)lay->tree->n * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	stack[top++] = 0;
	while (top) {
		i = stack[--top];
		flame_frame_write(f, lay, i, y0, dy, units);
		for (k = lay->start[i + 1]; k > lay->start[i]; k--) {
			if (lay->depth[lay->kids[k - 1].node] != FLAME_HIDDEN)
				stack[top++] = lay->kids[k - 1].node;
		}
	}
	free(stack);
	return 0;
}

/* The page's behaviour: zoom, search and the details line. */
static const char flame_script[] =
"(function (cfg) {\n"
"	'use strict';\n"
"	var box = document.getElementById('frames');\n"
"	var details = document.getElementById('details');\n"
"	var matched = document.getElementById('matched');\n"
"	var unzoomButton = document.getElementById('unzoom');\n"
"	var searchButton = document.getElementById('search');\n"
"	var titleParts = /^([\\s\\S]*) \\([0-9,]+ [\\s\\S]*, [0-9.]+%\\)$/;\n"
"	var eps = 0.02, highlight = 'rgb(230,0,230)';\n"
"	var frames = [], zoomed = null, query = null;\n"
"\n"
"	/* the label fitting w px, cut with '..' as the writer does */\n"
"	function label(name, w) {\n"
"		var n = Math.floor((w - 6) / cfg.charWidth);\n"
"		if (n < 3)\n"
"			return '';\n"
"		return name.length <= n ? name : name.substring(0, n - 2) + '..';\n"
"	}\n"
"\n"
"	function place(f, x, w) {\n"
"		f.rect.setAttribute('x', x.toFixed(2));\n"
"		f.rect.setAttribute('width', w.toFixed(2));\n"
"		f.text.setAttribute('x', (x + 3).toFixed(2));\n"
"		f.text.textContent = label(f.name, w);\n"
"	}\n"
"\n"
"	function show(f, visible, faded) {\n"
"		f.g.style.display = visible ? '' : 'none';\n"
"		f.g.style.opacity = faded ? '0.5' : '';\n"
"	}\n"
"\n"
"	/* whether a sits nearer the root than b (below it; above if icicle) */\n"
"	function outer(a, b) {\n"
"		return cfg.inverted ? a.y < b.y : a.y > b.y;\n"
"	}\n"
"\n"
"	function inside(a, b) {\n"
"		return a.x >= b.x - eps && a.x + a.w <= b.x + b.w + eps;\n"
"	}\n"
"\n"
"	function covers(a, b) {\n"
"		return a.x <= b.x + eps && a.x + a.w >= b.x + b.w - eps;\n"
"	}\n"
"\n"
"	/* in the zoomed frame's subtree, or anywhere when not zoomed */\n"
"	function inScope(f) {\n"
"		return !zoomed || (!outer(f, zoomed) && inside(f, zoomed));\n"
"	}\n"
"\n"
"	function zoom(z) {\n"
"		var full = cfg.width - 2 * cfg.xpad, k = full / z.w;\n"
"\n"
"		zoomed = z;\n"
"		frames.forEach(function (f) {\n"
"			if (outer(f, z) && covers(f, z)) {\n"
"				place(f, cfg.xpad, full);\n"
"				show(f, true, true);\n"
"			} else if (inScope(f)) {\n"
"				place(f, cfg.xpad + (f.x - z.x) * k, f.w * k);\n"
"				show(f, true, false);\n"
"			} else {\n"
"				show(f, false, false);\n"
"			}\n"
"		});\n"
"		unzoomButton.setAttribute('class', 'button');\n"
"		if (query !== null)\n"
"			search(query);\n"
"	}\n"
"\n"
"	function unzoom() {\n"
"		zoomed = null;\n"
"		frames.forEach(function (f) {\n"
"			place(f, f.x, f.w);\n"
"			show(f, true, false);\n"
"		});\n"
"		unzoomButton.setAttribute('class', 'button hidden');\n"
"		if (query !== null)\n"
"			search(query);\n"
"	}\n"
"\n"
"	/* highlight matches; report the share of the view they cover once */\n"
"	function search(source) {\n"
"		var re, spans = [], sum = 0, end = -Infinity, base;\n"
"\n"
"		try {\n"
"			re = new RegExp(source);\n"
"		} catch (e) {\n"
"			alert(e.message);\n"
"			return;\n"
"		}\n"
"		query = source;\n"
"		frames.forEach(function (f) {\n"
"			var hit = re.test(f.name);\n"
"\n"
"			f.rect.setAttribute('fill', hit ? highlight : f.fill);\n"
"			if (hit && inScope(f))\n"
"				spans.push(f);\n"
"		});\n"
"		spans.sort(function (a, b) { return a.x - b.x; });\n"
"		spans.forEach(function (f) {\n"
"			var from = Math.max(f.x, end), to = f.x + f.w;\n"
"\n"
"			if (to > from)\n"
"				sum += to - from;\n"
"			end = Math.max(end, to);\n"
"		});\n"
"		base = zoomed ? zoomed.w : frames.length ? frames[0].w : 1;\n"
"		matched.textContent = 'Matched: ' +\n"
"			(100 * sum / base).toFixed(1) + '%';\n"
"		searchButton.textContent = 'Reset Search';\n"
"	}\n"
"\n"
"	function clearSearch() {\n"
"		query = null;\n"
"		frames.forEach(function (f) {\n"
"			f.rect.setAttribute('fill', f.fill);\n"
"		});\n"
"		matched.textContent = ' ';\n"
"		searchButton.textContent = 'Search';\n"
"	}\n"
"\n"
"	function ask() {\n"
"		var source = prompt('Search frames (regular expression):',\n"
"				    query === null ? '' : query);\n"
"\n"
"		if (source === null)\n"
"			return;\n"
"		if (source === '')\n"
"			clearSearch();\n"
"		else\n"
"			search(source);\n"
"	}\n"
"\n"
"	function frameOf(el) {\n"
"		for (; el && el !== box; el = el.parentNode) {\n"
"			if (el.flameFrame)\n"
"				return el.flameFrame;\n"
"		}\n"
"		return null;\n"
"	}\n"
"\n"
"	Array.prototype.forEach.call(box.getElementsByTagName('g'), function (g) {\n"
"		var rect = g.getElementsByTagName('rect')[0];\n"
"		var title = g.getElementsByTagName('title')[0].textContent;\n"
"		var parts = titleParts.exec(title);\n"
"		var f = {\n"
"			g: g, rect: rect, text: g.getElementsByTagName('text')[0],\n"
"			title: title, name: parts ? parts[1] : title,\n"
"			x: parseFloat(rect.getAttribute('x')),\n"
"			y: parseFloat(rect.getAttribute('y')),\n"
"			w: parseFloat(rect.getAttribute('width')),\n"
"			fill: rect.getAttribute('fill')\n"
"		};\n"
"\n"
"		g.flameFrame = f;\n"
"		frames.push(f);\n"
"	});\n"
"	box.addEventListener('click', function (e) {\n"
"		var f = frameOf(e.target);\n"
"\n"
"		if (f)\n"
"			zoom(f);\n"
"	});\n"
"	box.addEventListener('mouseover', function (e) {\n"
"		var f = frameOf(e.target);\n"
"\n"
"		if (f)\n"
"			details.textContent = f.title;\n"
"	});\n"
"	box.addEventListener('mouseout', function () {\n"
"		details.textContent = ' ';\n"
"	});\n"
"	unzoomButton.addEventListener('click', unzoom);\n"
"	searchButton.addEventListener('click', function () {\n"
"		if (query === null)\n"
"			ask();\n"
"		else\n"
"			clearSearch();\n"
"	});\n"
"	window.addEventListener('keydown', function (e) {\n"
"		var find = (e.ctrlKey || e.metaKey) &&\n"
"			(e.key === 'f' || e.key === 'F');\n"
"\n"
"		if (find || e.key === 'F3') {\n"
"			e.preventDefault();\n"
"			ask();\n"
"		} else if (e.key === 'Escape' && query !== null) {\n"
"			clearSearch();\n"
"		}\n"
"	});\n"
"})(flameConfig);\n";

/* Looks; frame colours are attributes so the search can restore them. */
static const char flame_style[] =
"text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
"#title { font-size: 17px; text-anchor: middle; }\n"
"#subtitle { text-anchor: middle; fill: rgb(110,110,110); }\n"
"#search, #matched { text-anchor: end; }\n"
".button { cursor: pointer; }\n"
".button:hover { text-decoration: underline; }\n"
".hidden { visibility: hidden; }\n"
"#frames g { cursor: pointer; }\n"
"#frames g:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
"#frames text { pointer-events: none; }\n";

/* flame_head_write - document start up to the frames */
static void flame_head_write(FILE *f, unsigned int width, double height,
			     const char *title, const char *subtitle,
			     bool inverted, bool in_html)
{
	/* An HTML page's parser knows <svg> by name, and the page names no URL at all. */
	if (in_html)
		fputs("<svg version=\"1.1\" ", f);
	else
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		      "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" ", f);
	fprintf(f, "width=\"%u\" height=\"", width);
	flame_num_write(f, height);
	fprintf(f, "\" viewBox=\"0 0 %u ", width);
	flame_num_write(f, height);
	fprintf(f, "\">\n<style type=\"text/css\"><![CDATA[\n%s]]></style>\n"
		"<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" "
		"x2=\"0\" y2=\"1\"><stop offset=\"5%%\" stop-color=\"%s\"/>"
		"<stop offset=\"95%%\" stop-color=\"%s\"/></linearGradient>"
		"</defs>\n<rect x=\"0\" y=\"0\" width=\"%u\" height=\"",
		flame_style, inverted ? "rgb(232,232,240)" : "rgb(238,238,238)",
		inverted ? "rgb(248,248,248)" : "rgb(238,238,176)", width);
	flame_num_write(f, height);
	fprintf(f, "\" fill=\"url(#background)\"/>\n"
		"<text id=\"title\" x=\"%u\" y=\"%d\">", width / 2,
		FLAME_FONT * 2);
	flame_text_write(f, title, SIZE_MAX);
	fputs("</text>\n", f);
	if (subtitle) {
		fprintf(f, "<text id=\"subtitle\" x=\"%u\" y=\"%d\">",
			width / 2, FLAME_FONT * 4);
		flame_text_write(f, subtitle, SIZE_MAX);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text id=\"unzoom\" class=\"button hidden\" x=\"%d\" "
		"y=\"%d\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"button\" x=\"%u\" y=\"%d\">"
		"Search</text>\n", FLAME_XPAD, FLAME_FONT * 2,
		width - FLAME_XPAD, FLAME_FONT * 2);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"", FLAME_XPAD);
	flame_num_write(f, height - FLAME_BOTTOM / 2);
	fprintf(f, "\"> </text>\n<text id=\"matched\" x=\"%u\" y=\"",
		width - FLAME_XPAD);
	flame_num_write(f, height - FLAME_BOTTOM / 2);
	fputs("\"> </text>\n<g id=\"frames\">\n", f);
}

/* flame_tail_write - document end: the script with its settings */
static void flame_tail_write(FILE *f, unsigned int width, bool inverted)
{
	fprintf(f, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n"
		"var flameConfig = { width: %u, xpad: %d, charWidth: ",
		width, FLAME_XPAD);
	flame_num_write(f, FLAME_CHAR_W);
	fprintf(f, ", inverted: %s };\n%s]]></script>\n</svg>\n",
		inverted ? "true" : "false", flame_script);
}

/* flame_write_svg - write the fold as an interactive SVG flame graph */
int flame_write_svg(const struct fold *fold, FILE *f,
		    const struct flame_opts *opts)
{
	static const struct flame_opts defaults;
	const struct flame_opts *o = opts ? opts : &defaults;
	unsigned int width = o->width ? o->width : FLAME_WIDTH;
	double min_width = o->min_width > 0 ? o->min_width : FLAME_MIN_WIDTH;
	const char *units = o->units ? o->units : "samples";
	const char *title = o->title;
	const struct fold_tree *tree = &fold->tree;
	struct flame_layout lay;
	struct fold_tree rev;
	double top, height;
	int ret;

	if (width < FLAME_MIN_IMAGE)
		return -EINVAL;
	if (!title)
		title = o->inverted ? "Icicle Graph" : "Flame Graph";
	if (o->reverse) {
		ret = fold_tree_reverse(&fold->tree, &rev);
		if (ret)
			return ret;
		tree = &rev;
	}
	ret = flame_layout_init(&lay, tree, fold->names.buf,
				width - 2.0 * FLAME_XPAD, min_width);
	if (ret)
		goto release_rev;

	top = FLAME_TOP + (o->subtitle ? FLAME_SUBTITLE : 0);
	height = top + (double)(lay.max_depth + 1) * FLAME_FRAME_H +
		 FLAME_BOTTOM;
	flame_head_write(f, width, height, title, o->subtitle, o->inverted, o->in_html);
	if (o->inverted)
		ret = flame_frames_write(f, &lay, top, FLAME_FRAME_H, units);
	else
		ret = flame_frames_write(f, &lay,
					 height - FLAME_BOTTOM - FLAME_FRAME_H,
					 -FLAME_FRAME_H, units);
	if (ret)
		goto release_layout;
	flame_tail_write(f, width, o->inverted);
	ret = ferror(f) ? -EIO : 0;

release_layout:
	flame_layout_release(&lay);
release_rev:
	if (o->reverse)
		fold_tree_release(&rev);
	return ret;
}

