// SPDX-License-Identifier: GPL-2.0-or-later
/* uprobe_target.c - calls a probe-able function with known arguments */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long iotap_target(long v);

/* iotap_target - the probed function; its argument is what the test decodes */
__attribute__((noinline)) long iotap_target(long v)
{
	__asm__ volatile("" ::: "memory");
	return v * 2;
}

/* main - wait for a byte on stdin (so the tracer can attach), then call iotap_target(1..N) */
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, sum = 0;
	char c;

	if (argc > 2 && read(0, &c, 1) < 0)
		return 1;
	for (long i = 1; i <= n; i++)
		sum += iotap_target(i);
	printf("%ld\n", sum);
	return 0;
}
