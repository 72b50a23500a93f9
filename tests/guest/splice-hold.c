// SPDX-License-Identifier: GPL-2.0
/*
 * splice-hold: hot pages on a lower-tier node that cannot be migrated for
 * a while, because a pipe holds a reference to each of them (vmsplice),
 * and that nobody touches once they can be.
 *
 *   splice-hold [-n PAGES] [-s SLOW_NODE] [-C CPU] [-a ACCESS_MS] [-t TIMEOUT_MS]
 *
 * PAGES (default 256) pages are moved to SLOW_NODE (default 2) and spliced
 * into a pipe. They are read for ACCESS_MS ms (default 4000): NUMA
 * balancing finds them hot, but every migration fails on the pipe's
 * references. Then the pipe is closed and the pages are left alone; their
 * placement is sampled every 100 ms until 95% of them left SLOW_NODE or
 * TIMEOUT_MS (default 30000) passed. Whatever was found hot while they
 * could not move has to be remembered for them to move now.
 *
 * Output, for tests/guest/pghot.sh:
 *   held pages=N slow=S failed=F top=X      (after the access phase;
 *                                           F: pgmigrate_fail meanwhile)
 *   result ms=T top=X pages=N
 * Exit status: 0 when the result line was printed, 2 on a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "tierlib.h"
#include "tiertool.h"

/* Pages of @p not on @slow; with @to, move them all there first. */
static long place(char *p, long n, long psz, int slow, int to)
{
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));
	long top;

	if (!pages || !status)
		die("calloc");
	tl_addrs(pages, p, n, psz);
	if ((to ? tl_move_to(pages, n, slow, status, 1) :
		  tl_count_on(pages, n, slow, status)) < 0)
		die("move_pages");
	top = tl_count_off(status, n, slow);
	free(pages);
	free(status);
	return top;
}

int splice_hold_main(int argc, char **argv)
{
	long n = 256, access_ms = 4000, timeout = 30000, psz, i, t0, fail0, top;
	int slow = 2, cpu = 0, opt, fds[2];
	unsigned long sum = 0;
	cpu_set_t set;
	char *p;

	psz = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "n:s:C:a:t:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 's': slow = atoi(optarg); break;
		case 'C': cpu = atoi(optarg); break;
		case 'a': access_ms = atol(optarg); break;
		case 't': timeout = atol(optarg); break;
		default:
			fprintf(stderr, "splice-hold: bad option; see the top of splice-hold.c\n");
			return 2;
		}
	}
	if (n <= 0 || access_ms <= 0 || timeout <= 0) {
		fprintf(stderr, "splice-hold: -n, -a and -t want positive numbers\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");

	p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 1, n * psz);
	if (place(p, n, psz, slow, 1)) {
		fprintf(stderr, "splice-hold: the pages did not all move to node %d\n", slow);
		return 2;
	}
	/* One pipe buffer, holding a page reference, per page. */
	if (pipe(fds) || fcntl(fds[1], F_SETPIPE_SZ, n * psz) < n * psz)
		die("pipe of PAGES pages (see /proc/sys/fs/pipe-max-size)");
	for (i = 0; i < n; i++) {
		struct iovec iov = { .iov_base = p + i * psz, .iov_len = psz };

		if (vmsplice(fds[1], &iov, 1, 0) != psz)
			die("vmsplice");
	}

	fail0 = vmstat("pgmigrate_fail");
	t0 = now_ms();
	while (now_ms() - t0 < access_ms)
		for (i = 0; i < n; i++)
			sum += *(volatile char *)(p + i * psz);
	top = place(p, n, psz, slow, 0);
	printf("held pages=%ld slow=%d failed=%ld top=%ld\n", n, slow,
	       vmstat("pgmigrate_fail") - fail0, top);
	fflush(stdout);

	/* Drop the references; the pages are not touched any more. */
	close(fds[0]);
	close(fds[1]);
	t0 = now_ms();
	do {
		usleep(100000);
		top = place(p, n, psz, slow, 0);
	} while (top * 100 < n * 95 && now_ms() - t0 < timeout);
	printf("result ms=%ld top=%ld pages=%ld sum=%lu\n", now_ms() - t0, top, n, sum);
	return 0;
}
