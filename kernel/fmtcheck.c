// SPDX-License-Identifier: GPL-2.0-or-later
/* fmtcheck.c - is an event format text one the kernel could have written */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fmtcheck.h"

/* fmt_name_ok - a subsystem or event name: printable, no ':' or '/' */
bool fmt_name_ok(const void *name, size_t len)
{
	const uint8_t *p = name;

	if (!len || len > 64)
		return false;
	for (size_t i = 0; i < len; i++)
		if (p[i] <= ' ' || p[i] >= 0x7f || p[i] == ':' || p[i] == '/')
			return false;
	return true;
}

/* ident_char - a letter, digit or underscore */
static bool ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ident_len - length of the C identifier at p (at most n bytes) */
static size_t ident_len(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && ident_char(p[i]) && (i || p[i] < '0' || p[i] > '9'))
		i++;
	return i;
}

/* fmt_has_field - whether a "field:TYPE NAME[...];" line of the text declares name */
static bool fmt_has_field(const char *text, size_t len, const char *name, size_t nlen)
{
	for (const char *p = text, *end = text + len; (p = memmem(p, end - p, "field:", 6)); p += 6) {
		const char *semi = memchr(p, ';', end - p), *q;

		if (!semi)
			return false;
		q = semi;
		if (q > p && q[-1] == ']')
			while (q > p && *q != '[')
				q--;
		if (q - p >= (ptrdiff_t)nlen && !memcmp(q - nlen, name, nlen) &&
		    (q - nlen == p || !ident_char(q[-(ptrdiff_t)nlen - 1])))
			return true;
	}
	return false;
}

/* skip_lit - p past the literal lit, or NULL when it is not there */
static const char *skip_lit(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return end - p >= (ptrdiff_t)n && !memcmp(p, lit, n) ? p + n : NULL;
}

/* skip_num - p past a decimal number of at most 9 digits, or NULL */
static const char *skip_num(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && q - p < 10 && *q >= '0' && *q <= '9')
		q++;
	return q > p && q - p < 10 ? q : NULL;
}

/*
 * decl_ok - a field declaration: words, spaces and '*', then closed array bounds
 * that hold words and spaces or nothing ("char comm[16]", "__data_loc char[] name"). An
 * unclosed '[' sends libtraceevent 1.7 past the field into the print fmt, where
 * it dereferences NULL (found by fuzz_report: "unsigned in[ nr_sector").
 */
static bool decl_ok(const char *p, const char *end)
{
	bool in_bound = false;

	for (; p < end; p++) {
		char c = *p;

		if (c == '[' || c == ']') {
			if (in_bound != (c == ']'))
				return false;
			in_bound = !in_bound;
		} else if (!ident_char(c) && c != ' ' && (in_bound || c != '*')) {
			return false;
		}
	}
	return !in_bound;
}

/* field_line_ok - "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:0|1;", as the kernel writes it */
static bool field_line_ok(const char *p, const char *end)
{
	const char *semi;

	if (!(p = skip_lit(p, end, "\tfield:")))
		return false;
	semi = memchr(p, ';', end - p);
	if (!semi || semi == p || !decl_ok(p, semi))
		return false;
	p = skip_lit(semi, end, ";\toffset:");
	p = p ? skip_num(p, end) : NULL;
	p = p ? skip_lit(p, end, ";\tsize:") : NULL;
	p = p ? skip_num(p, end) : NULL;
	p = p ? skip_lit(p, end, ";\tsigned:") : NULL;
	return p && end - p == 2 && (*p == '0' || *p == '1') && p[1] == ';';
}

/* skip_string - p (at a '"') past the end of its string literal, or NULL */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\' && p + 1 < end)
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/*
 * divisor_ok - what follows a '/' or '%' operator at p, past spaces and '(': a
 * number from 1, a field (REC->) or a sizeof (the dma events divide by
 * sizeof(u64)). libtraceevent 1.7 folds constants as it parses, and divides by
 * zero on an unknown name (found by fuzz_report: "(u64)/EC->sector").
 */
static bool divisor_ok(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '('))
		p++;
	return (p < end && *p >= '1' && *p <= '9') || skip_lit(p, end, "REC->") ||
	       skip_lit(p, end, "sizeof(");
}

/*
 * print_fmt_ok - the arguments of a print fmt: string literals closed, (), [] and {}
 * nested, no tab or line end outside a string, nothing but a number, a field or a
 * sizeof to divide by. libtraceevent 1.7 dereferences NULL on some that are not (an unclosed
 * __print_symbolic( whose table holds "{ X[1] }").
 */
static bool print_fmt_ok(const char *p, const char *end)
{
	char open[64];
	int depth = 0;

	for (; p < end; p++) {
		char c = *p, want;

		if ((c == '/' || c == '%') && !divisor_ok(p + 1, end))
			return false;

		if (c == '"') {
			p = skip_string(p, end);
			if (!p)
				return false;
			p--;
			continue;
		}
		if (c == '\t' || c == '\n')
			return false;
		if (c == '(' || c == '[' || c == '{') {
			if (depth == (int)sizeof(open))
				return false;
			open[depth++] = c;
			continue;
		}
		if (c != ')' && c != ']' && c != '}')
			continue;
		want = c == ')' ? '(' : c == ']' ? '[' : '{';
		if (!depth || open[--depth] != want)
			return false;
	}
	return depth == 0;
}

/*
 * fmt_text_ok - a format text laid out as the kernel writes them, in printable
 * ASCII, whose print format names only declared fields and ends the text.
 * libtraceevent 1.7 dereferences NULL on some texts that are not (a size that
 * is no number, a control character in a declaration, a REC->field that does
 * not exist, a malformed symbol table); the kernel never writes those, but a
 * file can hold anything.
 */
bool fmt_text_ok(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl, *pf = NULL;
	int line = 0;

	/* Printable ASCII, tabs and line ends: libtraceevent's tokenizer knows nothing else. */
	for (size_t i = 0; i < len; i++)
		if ((text[i] < ' ' || text[i] > '~') && text[i] != '\t' && text[i] != '\n')
			return false;

	for (; p < end && !pf; p = nl + 1, line++) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			return false;
		if (line == 0 ? !skip_lit(p, nl, "name: ") :
		    line == 1 ? !skip_lit(p, nl, "ID: ") || skip_num(p + 4, nl) != nl :
		    line == 2 ? nl - p != 7 || !skip_lit(p, nl, "format:") :
		    skip_lit(p, nl, "print fmt: ") ? !(pf = p) : nl != p && !field_line_ok(p, nl))
			return false;
	}
	/* The print fmt is the last thing, one line but for line ends inside its string. */
	if (!pf || end[-1] != '\n' || !print_fmt_ok(pf + 11, end - 1))
		return false;
	for (p = pf; (p = memmem(p, end - p, "REC->", 5)); ) {
		size_t n;

		p += 5;
		n = ident_len(p, end - p);
		if (!n || !fmt_has_field(text, pf - text, p, n))
			return false;
		p += n;
	}
	return true;
}
