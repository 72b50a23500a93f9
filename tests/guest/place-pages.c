// SPDX-License-Identifier: GPL-2.0
/*
 * place-pages FROM TO NPAGES: allocate NPAGES pages (under the caller's
 * memory policy), check with move_pages() that they sit on node FROM, move
 * them to node TO and check again. Prints "on FROM n/N" and "moved n/N";
 * exits 0 only if every page was where expected both times.
 */
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tierlib.h"
#include "tiertool.h"

static int count_on(void **pages, int *status, unsigned long n, int node)
{
	long on = tl_count_on(pages, n, node, status);

	if (on < 0) {
		perror("move_pages (query)");
		exit(2);
	}
	return on;
}

int place_pages_main(int argc, char **argv)
{
	unsigned long n, i;
	long psz = sysconf(_SC_PAGESIZE);
	int from, to, *status, on, moved;
	void **pages;
	char *buf;

	if (argc != 4) {
		fprintf(stderr, "usage: place-pages FROM TO NPAGES\n");
		return 2;
	}
	from = atoi(argv[1]);
	to = atoi(argv[2]);
	n = strtoul(argv[3], NULL, 0);
	buf = mmap(NULL, n * psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pages = calloc(n, sizeof(*pages));
	status = calloc(n, sizeof(*status));
	if (buf == MAP_FAILED || !pages || !status) {
		perror("allocation");
		return 2;
	}
	memset(buf, 0x5a, n * psz);
	tl_addrs(pages, buf, n, psz);
	on = count_on(pages, status, n, from);
	printf("on %d %d/%lu\n", from, on, n);
	/* one try: each page must move the first time */
	moved = tl_move_to(pages, n, to, status, 1);
	if (moved < 0) {
		perror("move_pages (move)");
		return 2;
	}
	printf("moved %d/%lu to node %d\n", moved, n, to);
	for (i = 0; i < n * psz; i++)
		if (buf[i] != 0x5a) {
			printf("data changed at byte %lu\n", i);
			return 1;
		}
	return on == (int)n && moved == (int)n ? 0 : 1;
}
