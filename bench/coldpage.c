// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coldpage.c - what keeping what a tracer reads costs on this host: a 4 KiB
 * page read from a pipe (as a tracer reads a spliced ftrace sub-buffer) into
 * one page read over and over (biolatency, the exporter), into the next page
 * of a ring of REGION MiB (the flight recorder keeps what it reads, so it
 * writes memory it last wrote a ring ago), and into the same ring backed by
 * huge pages. One page every GAP µs, as a tracer at tens of thousands of
 * I/Os a second reads them; the three interleaved, ROUNDS rounds of N pages.
 * Each ring goes round once before. Prints the ns per page of each (min /
 * median / max over the rounds) and the rings' extra over the one page.
 * Usage: coldpage [REGION_MIB [GAP_US [N [ROUNDS]]]]   (default 16 60 5000 7)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define HUGE (2u << 20)
#define MODES 3

static const char *const mode_names[MODES] = { "one page", "ring", "ring, huge pages" };

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* region - len bytes written once, on huge pages when asked (NULL: no memory) */
static char *region(size_t len, int huge)
{
	char *m = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (m == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)m + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	if (huge && madvise(a, len, MADV_HUGEPAGE))
		fprintf(stderr, "coldpage: no huge pages (madvise: %m): the third ring is like the second\n");
	memset(a, 0, len);
	return a;
}

/* run - ns per page of n pages read from the pipe into mode's memory, one every gap_ns */
static double run(int mode, char *ring, size_t pages, size_t n, double gap_ns, int fd[2])
{
	static char src[PAGE], one[PAGE];
	double sum = 0;

	memset(src, 1, sizeof(src));
	for (size_t i = 0; i < n; i++) {
		char *dst = mode ? ring + (i % pages) * PAGE : one;
		volatile const char *v = dst;
		double t0 = now_ns(), end;
		char x = 0;

		if (write(fd[1], src, PAGE) != PAGE || read(fd[0], dst, PAGE) != PAGE)
			return -1;
		for (size_t j = 0; j < PAGE; j += 64)	/* and decoded */
			x ^= v[j];
		(void)x;
		sum += now_ns() - t0;
		end = now_ns() + gap_ns;
		while (now_ns() < end)
			;
	}
	return sum / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
	double gap = (argc > 2 ? atof(argv[2]) : 60) * 1000;
	size_t n = argc > 3 ? strtoul(argv[3], NULL, 10) : 5000;
	int rounds = argc > 4 ? atoi(argv[4]) : 7;
	char *rings[MODES];
	double ns[MODES][64];
	int fd[2];

	if (!mib || !n || rounds < 1 || rounds > 64 || pipe(fd)) {
		fprintf(stderr, "usage: coldpage [REGION_MIB [GAP_US [N [ROUNDS]]]] (ROUNDS 1..64)\n");
		return 2;
	}
	rings[0] = NULL;
	rings[1] = region(mib << 20, 0);
	rings[2] = region(mib << 20, 1);
	if (!rings[1] || !rings[2]) {
		fprintf(stderr, "coldpage: no memory for two rings of %zu MiB\n", mib);
		return 1;
	}
	/* Once round each ring first, as a tracer's ring has gone round before it is measured. */
	for (int m = 1; m < MODES; m++)
		run(m, rings[m], (mib << 20) / PAGE, (mib << 20) / PAGE, gap, fd);
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < MODES; k++) {
			int m = (k + r) % MODES;

			ns[m][r] = run(m, rings[m], (mib << 20) / PAGE, n, gap, fd);
			if (ns[m][r] < 0) {
				perror("coldpage: pipe");
				return 1;
			}
		}
	printf("4 KiB from a pipe, one every %.0f µs, ring of %zu MiB, %d rounds of %zu: ns per page min / median / max\n",
	       gap / 1000, mib, rounds, n);
	for (int m = 0; m < MODES; m++)
		qsort(ns[m], rounds, sizeof(double), cmp);
	for (int m = 0; m < MODES; m++) {
		printf("%-18s %7.0f %7.0f %7.0f", mode_names[m], ns[m][0], ns[m][rounds / 2],
		       ns[m][rounds - 1]);
		if (m)
			printf("   median %+.0f over one page", ns[m][rounds / 2] - ns[0][rounds / 2]);
		printf("\n");
	}
	return 0;
}
