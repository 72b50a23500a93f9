// SPDX-License-Identifier: GPL-2.0
/*
 * hold-node NODE: keep NODE at its high watermark with locked memory, so
 * that nothing can be promoted to it and nothing on it can be reclaimed or
 * demoted to make room.
 *
 * Memory bound to NODE is locked in 1 MiB steps while the node's free
 * memory is above its high watermark (the sum over its zones, from
 * /proc/zoneinfo), and topped up every 20 ms: when kswapd frees something
 * on the node, the room is taken back at once. On SIGTERM or SIGINT the
 * memory is freed and the program exits.
 *
 * Output, one line each:
 *   held node=N mib=M free_kib=F high_kib=H       (once the node is full)
 *   released node=N mib=M topups=T                 (on exit)
 * Exit status: 0 after a release, 2 on a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <numaif.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "zoneinfo.h"
#include "tiertool.h"

#define STEP (1L << 20)
#define MAX_STEPS 4096

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "hold-node: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long node_free_kib(int node)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "MemFree:"))
			sscanf(strstr(line, "MemFree:") + 8, "%ld", &kib);
	fclose(f);
	return kib;
}

/* Sum of the "high" watermarks of NODE's zones, in KiB. */
static long node_high_kib(int node)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	long pages;

	if (!f)
		die("/proc/zoneinfo");
	pages = zoneinfo_high_wmark(f, node);
	fclose(f);
	if (pages < 0) {
		errno = ENOENT;
		die("no zone of that node in /proc/zoneinfo");
	}
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

int hold_node_main(int argc, char **argv)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	static void *steps[MAX_STEPS];
	unsigned long mask;
	long n = 0, topups = 0, high;
	int node, held = 0;

	if (argc != 2 || (node = atoi(argv[1])) < 0 || node >= 64) {
		fprintf(stderr, "usage: hold-node NODE\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	high = node_high_kib(node);
	mask = 1UL << node;
	while (!stop) {
		while (!stop && node_free_kib(node) > high && n < MAX_STEPS) {
			void *p = mmap(NULL, STEP, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				die("mmap");
			madvise(p, STEP, MADV_NOHUGEPAGE);
			if (mbind(p, STEP, MPOL_BIND, &mask, sizeof(mask) * 8, 0))
				die("mbind");
			if (mlock(p, STEP))
				die("mlock");
			steps[n++] = p;
			topups += held;
		}
		if (!held) {
			printf("held node=%d mib=%ld free_kib=%ld high_kib=%ld\n",
			       node, n, node_free_kib(node), high);
			fflush(stdout);
			held = 1;
		}
		nanosleep(&tick, NULL);
	}
	printf("released node=%d mib=%ld topups=%ld\n", node, n, topups);
	while (n > 0)
		munmap(steps[--n], STEP);
	return 0;
}
