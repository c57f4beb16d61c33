// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uring.c - a known io_uring workload for the tests, on raw syscalls (no liburing, no fio:
 * it runs in the VM tier's small initramfs): N 4 KiB O_DIRECT random reads of DEV at
 * iodepth DEPTH through IORING_OP_READ, each request issued inline, punted to io-wq
 * (async: IOSQE_ASYNC) or submitted by an SQPOLL thread (sqpoll: with a registered file,
 * which 5.10's SQPOLL requires). Prints "uring: N reads" when every one read 4096 bytes.
 * Usage: uring DEV N DEPTH inline|async|sqpoll
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BS 4096
#define MAX_DEPTH 64

struct ring {
	int fd;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array, *sq_flags;
	struct io_uring_sqe *sqes;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

/* ring_setup - a ring of depth entries, SQPOLL if asked: 0 or -errno */
static int ring_setup(struct ring *r, unsigned int depth, int sqpoll)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	if (sqpoll) {
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 1000;
	}
	r->fd = (int)syscall(__NR_io_uring_setup, depth, &p);
	if (r->fd < 0)
		return -errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -errno;
	r->sq_head = (unsigned int *)(sq + p.sq_off.head);
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->sq_flags = (unsigned int *)(sq + p.sq_off.flags);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* enter - io_uring_enter: 0 or -errno */
static int enter(struct ring *r, unsigned int submit, unsigned int wait, unsigned int flags)
{
	return syscall(__NR_io_uring_enter, r->fd, submit, wait, flags, NULL, 0) < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	static char bufs[MAX_DEPTH][BS] __attribute__((aligned(BS)));
	unsigned int slots[MAX_DEPTH], nfree = 0, depth, queued = 0;
	unsigned long n, submitted = 0, done = 0;
	uint64_t blocks, seed = 88172645463325252ull;
	int fd, async, sqpoll, ret;
	struct ring r = { .fd = -1 };
	struct stat st;
	off_t size;

	if (argc != 5) {
		fprintf(stderr, "usage: uring DEV N DEPTH inline|async|sqpoll\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	depth = (unsigned int)strtoul(argv[3], NULL, 0);
	async = !strcmp(argv[4], "async");
	sqpoll = !strcmp(argv[4], "sqpoll");
	if (!n || !depth || depth > MAX_DEPTH || (!async && !sqpoll && strcmp(argv[4], "inline"))) {
		fprintf(stderr, "uring: bad arguments\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	size = lseek(fd, 0, SEEK_END);
	blocks = size / BS;
	if (blocks < 2) {
		fprintf(stderr, "uring: %s too small\n", argv[1]);
		return 1;
	}
	ret = ring_setup(&r, depth, sqpoll);
	if (!ret && sqpoll && syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_FILES, &fd, 1) < 0)
		ret = -errno;
	if (ret) {
		fprintf(stderr, "uring: io_uring setup: %s\n", strerror(-ret));
		return 1;
	}
	for (unsigned int i = 0; i < depth; i++)
		slots[nfree++] = i;
	while (done < n) {
		unsigned int tail = *r.sq_tail, head;

		while (nfree && submitted < n) {
			unsigned int slot = slots[--nfree], idx = tail & *r.sq_mask;
			struct io_uring_sqe *sqe = &r.sqes[idx];

			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			memset(sqe, 0, sizeof(*sqe));
			sqe->opcode = IORING_OP_READ;
			sqe->fd = sqpoll ? 0 : fd;
			sqe->flags = sqpoll ? IOSQE_FIXED_FILE : async ? IOSQE_ASYNC : 0;
			sqe->off = (seed % blocks) * BS;
			sqe->addr = (uintptr_t)bufs[slot];
			sqe->len = BS;
			sqe->user_data = slot;
			r.sq_array[idx] = idx;
			tail++;
			queued++;
			submitted++;
		}
		__atomic_store_n(r.sq_tail, tail, __ATOMIC_RELEASE);
		if (sqpoll) {
			if (__atomic_load_n(r.sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_NEED_WAKEUP)
				ret = enter(&r, 0, 0, IORING_ENTER_SQ_WAKEUP);
			if (!ret)
				ret = enter(&r, 0, 1, IORING_ENTER_GETEVENTS);
		} else {
			ret = enter(&r, queued, 1, IORING_ENTER_GETEVENTS);
		}
		queued = 0;
		if (ret && ret != -EINTR && ret != -EBUSY) {
			fprintf(stderr, "uring: io_uring_enter: %s\n", strerror(-ret));
			return 1;
		}
		head = *r.cq_head;
		while (head != __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE)) {
			struct io_uring_cqe *cqe = &r.cqes[head & *r.cq_mask];

			if (cqe->res != BS) {
				fprintf(stderr, "uring: read returned %d\n", cqe->res);
				return 1;
			}
			slots[nfree++] = (unsigned int)cqe->user_data;
			head++;
			done++;
		}
		__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
	}
	printf("uring: %lu reads\n", done);
	return 0;
}
