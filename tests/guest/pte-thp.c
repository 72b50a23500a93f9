// SPDX-License-Identifier: GPL-2.0
/*
 * pte-thp: a transparent huge page on a lower-tier node, mapped by PTEs,
 * touched once, then touched again and again; for page-table scans.
 *
 *   pte-thp [-s SLOW_NODE] [-C CPU] [-t TIMEOUT_MS] [-T FLUSH_MS]
 *
 * The huge page is allocated on SLOW_NODE (default 2) under MPOL_BIND,
 * the policy is dropped again, and an mprotect() of one of its pages
 * splits the PMD mapping: the folio stays whole, with 512 PTEs. Writing
 * it set their Accessed bits, which is the one touch.
 *
 * Phase "once": wait until pghot_recorded_pgtscans has moved (a scan saw
 * the touch), then watch the folio for as long again plus 2 s: one touch
 * is not a hot page, so it must stay. Phase "loop": read the folio every
 * round, flushing the TLB every FLUSH_MS ms (default 10, see
 * tlb-turnover.h), until it leaves SLOW_NODE or TIMEOUT_MS (default
 * 60000) passes: that it can be promoted shows the first phase had the
 * chance.
 *
 * Output, for tests/guest/klruscand.sh:
 *   setup slow=S large=0|1
 *   once scanned_ms=T recorded=R node=N
 *   loop ms=T node=N large=0|1
 * Exit status: 0 when both phases ran, 2 on a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "tlb-turnover.h"
#include "tierlib.h"
#include "tiertool.h"

#define HUGE_SZ (2UL << 20)
#define KPF_THP 22

static long psz;

/* The node of the page at @p, as move_pages() reports it. */
static int node_of(void *p)
{
	int status = -1;

	if (tl_count_on(&p, 1, -1, &status) < 0)
		die("move_pages (query)");
	return status;
}

/* Whether the page at @p belongs to a transparent huge page (kpageflags). */
static int large(void *p)
{
	uint64_t ent, flags;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0 || pread(fd, &ent, 8, (uintptr_t)p / psz * 8) != 8)
		die("pagemap");
	close(fd);
	if (!(ent >> 63))
		return 0;
	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0 || pread(fd, &flags, 8, (ent & ((1ULL << 55) - 1)) * 8) != 8)
		die("kpageflags");
	close(fd);
	return (flags >> KPF_THP) & 1;
}

int pte_thp_main(int argc, char **argv)
{
	long timeout = 60000, flush_ms = 10, t0, scanned, rec0, i;
	struct tlb_turnover tt = { 0 };
	unsigned long mask, sum = 0;
	int slow = 2, cpu = 0, opt, node;
	cpu_set_t set;
	char *p;

	psz = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "s:C:t:T:")) != -1) {
		switch (opt) {
		case 's': slow = atoi(optarg); break;
		case 'C': cpu = atoi(optarg); break;
		case 't': timeout = atol(optarg); break;
		case 'T': flush_ms = atol(optarg); break;
		default:
			fprintf(stderr, "pte-thp: bad option; see the top of pte-thp.c\n");
			return 2;
		}
	}
	if (timeout <= 0 || flush_ms <= 0 || slow < 0 || slow >= 64) {
		fprintf(stderr, "pte-thp: -t and -T want positive numbers, -s a node below 64\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	if (tlb_turnover_init(&tt))
		die("mmap (TLB turnover)");

	p = mmap(NULL, 2 * HUGE_SZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	p = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	mask = 1UL << slow;
	if (madvise(p, HUGE_SZ, MADV_HUGEPAGE) ||
	    mbind(p, HUGE_SZ, MPOL_BIND, &mask, 64, 0))
		die("madvise/mbind");
	rec0 = vmstat("pghot_recorded_pgtscans");
	memset(p, 1, HUGE_SZ);
	if (mbind(p, HUGE_SZ, MPOL_DEFAULT, NULL, 0, 0))
		die("mbind(MPOL_DEFAULT)");
	/* Split the PMD mapping, not the folio. */
	if (mprotect(p + psz, psz, PROT_READ) ||
	    mprotect(p + psz, psz, PROT_READ | PROT_WRITE))
		die("mprotect");
	printf("setup slow=%d large=%d\n", slow, large(p) && large(p + HUGE_SZ - psz));
	fflush(stdout);
	if (node_of(p) != slow) {
		fprintf(stderr, "pte-thp: the folio is on node %d, not %d\n", node_of(p), slow);
		return 2;
	}

	/* Phase once: a scan reports the touch; then the folio must stay. */
	t0 = now_ms();
	while (vmstat("pghot_recorded_pgtscans") == rec0) {
		if (now_ms() - t0 >= timeout) {
			fprintf(stderr, "pte-thp: no page-table scan was recorded in %ld ms\n", timeout);
			return 2;
		}
		usleep(20000);
	}
	scanned = now_ms() - t0;
	/* an observation window, not a wait for a condition */
	usleep((scanned + 2000) * 1000);
	node = node_of(p);
	printf("once scanned_ms=%ld recorded=%ld node=%d\n", scanned,
	       vmstat("pghot_recorded_pgtscans") - rec0, node);
	fflush(stdout);

	/* Phase loop: accessed on every scan, the folio is hot. */
	t0 = now_ms();
	while (node == slow && now_ms() - t0 < timeout) {
		for (i = 0; i < (long)(HUGE_SZ / psz); i++)
			sum += *(volatile char *)(p + i * psz);
		tlb_turnover(&tt);
		usleep(flush_ms * 1000);
		node = node_of(p);
	}
	printf("loop ms=%ld node=%d large=%d sum=%lu\n", now_ms() - t0, node,
	       large(p), sum);
	return 0;
}
