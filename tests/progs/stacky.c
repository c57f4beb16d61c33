// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stacky.c - direct reads through three nested functions, for the stack tests
 *
 * Usage: stacky DEV COUNT [SIZE [wait | exec CMD [ARG...]]]
 * Reads COUNT blocks of SIZE bytes (default 4096) with O_DIRECT, each through
 * outer_fn -> middle_fn -> inner_fn -> the pread64 system call. Built twice:
 * with frame pointers (stacky_fp) and without (stacky_dwarf, which only a DWARF
 * unwinder walks). With "wait" it reads a line from stdin first, so that a
 * tracer can start after the process (its mappings then come from /proc).
 * With "exec CMD ARG..." it execs CMD after the reads, in the same process.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* noclone keeps gcc from renaming the functions; clang never clones them. */
#ifdef __clang__
#define STACKY_FN __attribute__((noinline, used))
#else
#define STACKY_FN __attribute__((noinline, noclone, used))
#endif

long inner_fn(int fd, void *buf, size_t n, off_t off);
long middle_fn(int fd, void *buf, size_t n, off_t off);
long outer_fn(int fd, void *buf, size_t n, off_t off);

/*
 * sys_pread - pread64 made here rather than in libc: libc's wrapper keeps no
 * frame pointer, so a frame-pointer walk from inside it skips its caller.
 */
static inline __attribute__((always_inline)) long sys_pread(int fd, void *buf, size_t n, off_t off)
{
	register long r10 __asm__("r10") = off;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_pread64), "D"((long)fd), "S"(buf), "d"(n), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* inner_fn - the innermost frame: the system call itself */
STACKY_FN long inner_fn(int fd, void *buf, size_t n, off_t off)
{
	long r;

#ifdef STACKY_LEAF_FRAME
	/* GCC builds a leaf without a frame at -O1 and up, whatever -fno-omit-frame-pointer says. */
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
#endif
	r = sys_pread(fd, buf, n, off);
	/* Work after each call keeps the compiler from turning it into a jump. */
	__asm__ volatile("" ::: "memory");
	return r;
}

/* middle_fn - one frame between */
STACKY_FN long middle_fn(int fd, void *buf, size_t n, off_t off)
{
	long r = inner_fn(fd, buf, n, off);

	__asm__ volatile("" ::: "memory");
	return r;
}

/* outer_fn - the outermost of the three */
STACKY_FN long outer_fn(int fd, void *buf, size_t n, off_t off)
{
	long r = middle_fn(fd, buf, n, off);

	__asm__ volatile("" ::: "memory");
	return r;
}

/* main - COUNT direct reads of SIZE bytes from the start of DEV, wrapping at its end */
int main(int argc, char **argv)
{
	unsigned long long count, size, devsize;
	void *buf;
	int fd, ret = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: stacky DEV COUNT [SIZE [wait | exec CMD [ARG...]]]\n");
		return 2;
	}
	count = strtoull(argv[2], NULL, 0);
	size = argc > 3 ? strtoull(argv[3], NULL, 0) : 4096;
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	devsize = lseek(fd, 0, SEEK_END);
	if (!size || devsize < size || posix_memalign(&buf, 4096, size))
		return 1;
	if (argc > 4 && !strcmp(argv[4], "wait")) {
		char line[16];

		if (!fgets(line, sizeof(line), stdin))
			goto out_free;
	}
	for (unsigned long long i = 0; i < count; i++) {
		off_t off = (off_t)(i * size % (devsize / size * size));

		if (outer_fn(fd, buf, size, off) != (long)size) {
			fprintf(stderr, "stacky: read at %lld failed\n", (long long)off);
			goto out_free;
		}
	}
	ret = 0;
	/* exec: the same pid goes on as another program (stacks named after an exec). */
	if (argc > 5 && !strcmp(argv[4], "exec")) {
		execv(argv[5], argv + 5);
		perror(argv[5]);
		ret = 1;
	}
out_free:
	free(buf);
	close(fd);
	return ret;
}
