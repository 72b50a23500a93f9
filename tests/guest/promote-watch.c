// SPDX-License-Identifier: GPL-2.0
/*
 * promote-watch: put a hot set and a cold set of pages on a lower-tier
 * node, keep reading and writing the hot set from a CPU of a top-tier
 * node, and ask the kernel with move_pages() where the pages are.
 *
 *   promote-watch [-m anon|file|thp] [-n HOT] [-c COLD] [-s SLOW_NODE]
 *                 [-C CPU] [-t TIMEOUT_MS] [-f FILE] [-T FLUSH_MS] [-B BOUND]
 *                 [-o SPAN_MS [-R ROUNDS] [-G GAP_MS,... | -a DELAY_MS]] [-w] [-r]
 *                 [-l [-S]] [-p PFN_FILE] [-I INJECT_FILE]
 *
 * The hot and cold sets are allocated, touched once, and moved to
 * SLOW_NODE (default 2). Then the hot set is accessed in a loop, and every
 * 100 ms the placement of both sets is sampled. It stops when at least 95%
 * of the hot set is on a top-tier node (not SLOW_NODE), or at the timeout;
 * with -w it always runs to the timeout (to show that nothing moves).
 * Accesses are a read and a write of one byte per page, or only reads with
 * -r (the default for -m file: the kernel does not migrate dirty file
 * pages, so a written file page would never be promoted). With -T, the
 * loop also flushes its own TLB every FLUSH_MS ms, for page-table scans
 * under TCG (see tlb-turnover.h). With -B, the last BOUND pages of the hot
 * set are bound to SLOW_NODE with mbind(MPOL_BIND) once they are there:
 * they are accessed like the others but must stay, and they are counted
 * apart (bound_top); hot= and hot_top= then count the other hot pages.
 * With -o, the cold set is touched once, a byte read from each page: 3 s
 * after the hot set reached 95% (well past NUMA balancing's hot threshold,
 * 1 s by default and 2 s at most as it adapts), one page after the other
 * over SPAN_MS ms; the run ends 2 s after the last touch. The hint faults
 * taken meanwhile (numa_hint_faults; the promoted hot set takes none in
 * memory tiering mode) are printed as once_faults, and the accesses pghot
 * recorded meanwhile (pghot_recorded_accesses, -1 without pghot: it counts
 * only pages of lower tier nodes, so hardly any of the promoted hot set)
 * as once_recorded. With -R, the cold set is touched that way ROUNDS
 * times, round after round, so that each cold page is read every SPAN_MS
 * ms, ROUNDS times in all. With -G, round k + 1 starts the k-th GAP_MS
 * after round k (one gap per round after the first, each at least
 * SPAN_MS), instead of SPAN_MS after it. With -a, round k + 1 starts
 * DELAY_MS after the first NUMA balancing scan that armed the cold set
 * again once round k was over (numa_pte_updates grew by half the cold set
 * or more), so that each hint fault of the round comes about DELAY_MS after
 * the scan that armed it (NUMA balancing's hot threshold measures that
 * latency); the hint faults of the last round, from its start to the end,
 * are printed as last_faults, the accesses pghot recorded then as
 * last_recorded (-1 without pghot), and with -a the time from seeing the
 * last scan to the last read of the round as last_lag_ms (DELAY_MS plus
 * the reads; -1 without -a).
 *
 * With -l (and -o, -a), the cold set is only allocated (and moved to
 * SLOW_NODE) once the hot set is up, when no scan has armed its pages yet,
 * and the first round, even with -R 1, starts DELAY_MS after the first
 * scan that arms them: each page takes one hint fault per round, the
 * first one too, DELAY_MS after the scan that armed it.
 *
 * With -S (and -l), the cold set, once on SLOW_NODE, is swapped out
 * (MADV_PAGEOUT) and read back at once, a byte of each page, with the task
 * bound to SLOW_NODE so that the pages come back there: the fault that
 * swaps a page in is its one access before the first round. It needs swap;
 * fewer than half the cold pages swapped out is a setup error.
 *
 * With -p, once the cold set is on SLOW_NODE, its page frame numbers
 * (from /proc/self/pagemap, which needs CAP_SYS_ADMIN) are compared with
 * those PFN_FILE lists, if it exists, and then written to it, one per
 * line: a second run with the same file tells how many of its cold pages
 * took the frames of the first run's (reused=, -1 with no file).
 *
 * With -I, every 100 ms the address of the byte accessed in each hot page
 * is also written to INJECT_FILE (the IBS sample injector,
 * <debugfs>/ibs_access/inject), as if IBS had sampled each of those
 * accesses; the cold set is never reported. A failed write is a setup
 * error (exit 2), with the errno.
 *
 * Output, one line each, for the test scripts to check:
 *   setup mode=M hot=N cold=M slow=S thp=0|1 setup_ms=T
 *   sample ms=T hot_top=X cold_top=Y          (every 100 ms)
 *   result ms=T hot_top=X hot=N cold_top=Y cold=M bound_top=Z bound=B data=ok|corrupt
 *   once touched=K rounds=R once_faults=F once_recorded=A last_faults=L
 *        last_recorded=E last_lag_ms=D                       (with -o)
 *   pfns cold=N reused=K                                     (with -p)
 *   swap out=N back_on_slow=M                                (with -S)
 * Exit status: 0 if the result line was printed and the data survived,
 * 1 if the data changed, 2 on a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "ibs-inject.h"
#include "thp-backed.h"
#include "tlb-turnover.h"
#include "tierlib.h"
#include "tiertool.h"

#define HUGE_SZ (2UL << 20)

static long psz;
static long round_at[100];

/*
 * -I: report the accessed byte of each of the @n pages at @h to the IBS
 * sample injector @path.
 */
static void inject_hot(const char *path, const char *h, long n)
{
	static struct ibs_inject ib;
	long i, r = 0;

	ib.fd = open(path, O_WRONLY);
	if (ib.fd < 0)
		die("open inject file");
	for (i = 0; i < n && r >= 0; i++)
		r = ibs_inject_add(&ib, h + i * psz + (i % 64) * 8, 0);
	if (r >= 0)
		r = ibs_inject_flush(&ib);
	close(ib.fd);
	if (r < 0) {
		fprintf(stderr, "promote-watch: inject: %s\n", strerror(-r));
		exit(2);
	}
}

/* Map @bytes for mode @mode; file mappings are MAP_SHARED on @path. */
static char *map_region(const char *mode, size_t bytes, const char *path)
{
	char *p;
	int fd;

	if (!strcmp(mode, "file")) {
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, bytes))
			die("file");
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (p == MAP_FAILED)
			die("mmap file");
		return p;
	}
	if (!strcmp(mode, "thp")) {
		/* Over-allocate to align on a huge page boundary. */
		p = mmap(NULL, bytes + HUGE_SZ, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap thp");
		p = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
		if (madvise(p, bytes, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
		return p;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap anon");
	return p;
}

/* Pages of [p, p + n pages) on @node, as the kernel reports them. */
static long count_on(char *p, long n, int node, void **pages, int *status)
{
	long on;

	tl_addrs(pages, p, n, psz);
	on = tl_count_on(pages, n, node, status);
	if (on < 0)
		die("move_pages (query)");
	return on;
}

/*
 * Move every page of [p, p + n pages) to @node; return how many are there
 * afterwards. A page can be briefly busy (a huge page being moved as a
 * whole reports on its subpages differently): tl_move_to() asks again, a
 * few times.
 */
static long move_to(char *p, long n, int node, void **pages, int *status)
{
	long on;

	tl_addrs(pages, p, n, psz);
	on = tl_move_to(pages, n, node, status, 5);
	if (on < 0)
		die("move_pages (move)");
	return on;
}

/* Pages of [p, p + n pages) not on @slow (i.e. promoted to a top tier). */
static long count_top(char *p, long n, int slow, void **pages, int *status)
{
	count_on(p, n, slow, pages, status);
	return tl_count_off(status, n, slow);
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * -p: compare the PFNs of [p, p + n pages) with those listed in @path, then
 * list them there instead. Returns how many were listed, or -1 if @path
 * did not exist.
 */
static long pfns_reused(const char *path, char *p, long n)
{
	long *old = NULL, nold = 0, cap = 0, v, i, reused = -1, *cur;
	unsigned long long e;
	FILE *f;
	int fd;

	cur = calloc(n, sizeof(*cur));
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (!cur || fd < 0)
		die("/proc/self/pagemap");
	for (i = 0; i < n; i++) {
		if (pread(fd, &e, sizeof(e), (uintptr_t)(p + i * psz) / psz * sizeof(e)) != sizeof(e))
			die("reading /proc/self/pagemap");
		/* bit 63: present; bits 0-54: the PFN, 0 without CAP_SYS_ADMIN */
		cur[i] = (e >> 63) ? (long)(e & ((1ULL << 55) - 1)) : -1;
		if (!cur[i]) {
			fprintf(stderr, "promote-watch: -p: pagemap shows no PFNs (not root?)\n");
			exit(2);
		}
	}
	close(fd);
	f = fopen(path, "r");
	if (f) {
		while (fscanf(f, "%ld", &v) == 1) {
			if (nold == cap) {
				cap = cap ? 2 * cap : 1024;
				old = realloc(old, cap * sizeof(*old));
				if (!old)
					die("realloc");
			}
			old[nold++] = v;
		}
		fclose(f);
		qsort(old, nold, sizeof(*old), cmp_long);
		for (reused = 0, i = 0; i < n; i++)
			reused += cur[i] >= 0 &&
				  bsearch(&cur[i], old, nold, sizeof(*old), cmp_long);
	}
	f = fopen(path, "w");
	if (!f)
		die(path);
	for (i = 0; i < n; i++)
		fprintf(f, "%ld\n", cur[i]);
	if (fclose(f))
		die(path);
	free(old);
	free(cur);
	return reused;
}

/* The cold set: @cold pages, mapped (for -m file on @path.cold) and written. */
static char *cold_map(const char *mode, long cold, const char *path)
{
	char cpath[512], *c;

	snprintf(cpath, sizeof(cpath), "%s.cold", path);
	c = map_region(mode, cold * psz, cpath);
	memset(c, 0xc0, cold * psz);
	return c;
}

/* Move the cold set to @slow; with -p, print how many frames were reused. */
static void cold_place(char *c, long cold, int slow, const char *pfn_file,
		       void **pages, int *status)
{
	if (move_to(c, cold, slow, pages, status) != cold) {
		fprintf(stderr, "promote-watch: cold pages did not all move to node %d\n", slow);
		exit(2);
	}
	if (pfn_file)
		printf("pfns cold=%ld reused=%ld\n", cold, pfns_reused(pfn_file, c, cold));
}

/*
 * -S: swap the cold set out (MADV_PAGEOUT) and back in, a byte of each page
 * read with the task bound to @slow so that the pages come back there: each
 * page's one access before the rounds is the fault that swapped it in.
 * Prints how many pages were out (mincore) and how many came back on
 * @slow; a cold set that did not go out is a setup error.
 */
static unsigned long swap_round_trip(char *c, long cold, int slow,
				     void **pages, int *status)
{
	unsigned long mask = 1UL << slow, sum = 0;
	unsigned char *vec = calloc(cold, 1);
	long i, out = 0, back;

	if (!vec)
		die("calloc");
	if (madvise(c, cold * psz, MADV_PAGEOUT))
		die("madvise(MADV_PAGEOUT)");
	if (mincore(c, cold * psz, vec))
		die("mincore");
	for (i = 0; i < cold; i++)
		out += !(vec[i] & 1);
	free(vec);
	if (set_mempolicy(MPOL_BIND, &mask, sizeof(mask) * 8))
		die("set_mempolicy(MPOL_BIND)");
	for (i = 0; i < cold; i++)
		sum += *(volatile unsigned char *)(c + i * psz);
	if (set_mempolicy(MPOL_DEFAULT, NULL, 0))
		die("set_mempolicy(MPOL_DEFAULT)");
	back = count_on(c, cold, slow, pages, status);
	printf("swap out=%ld back_on_slow=%ld\n", out, back);
	if (out * 2 < cold) {
		fprintf(stderr, "promote-watch: only %ld of %ld cold pages were swapped out (is swap on?)\n",
			out, cold);
		exit(2);
	}
	return sum;
}

int promote_watch_main(int argc, char **argv)
{
	const char *mode = "anon", *path = "/root/promote-watch.data", *pfn_file = NULL;
	const char *inject = NULL;
	long hot = 2048, cold = 2048, timeout = 30000, i, t0, next, hot_top = 0,
	     cold_top = 0, n, moved, flush_ms = 0, next_flush = 0, start_ms,
	     bound = 0, bound_top = 0, free_hot, once_span = -1, once_start = -1,
	     touched = 0, faults0 = 0, rec0 = 0, rounds = 1, gaps[100] = { 0 },
	     ngaps = 0, delay = -1, pte0 = 0, next_poll = 0, last0 = 0,
	     lastrec0 = 0, seen_ms = 0, last_end = 0, late = 0, swapped = 0;
	struct tlb_turnover tt = { 0 };
	int slow = 2, cpu = 0, wait_all = 0, reads_only = -1, opt, corrupt = 0;
	unsigned long sum = 0, csum = 0;
	int *status;
	void **pages;
	char *h, *c;
	cpu_set_t set;
	unsigned char round = 1;

	start_ms = now_ms();
	psz = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "m:n:c:s:C:t:f:T:B:o:R:G:a:p:I:lwrS")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'n': hot = atol(optarg); break;
		case 'c': cold = atol(optarg); break;
		case 's': slow = atoi(optarg); break;
		case 'C': cpu = atoi(optarg); break;
		case 't': timeout = atol(optarg); break;
		case 'f': path = optarg; break;
		case 'T': flush_ms = atol(optarg); break;
		case 'B': bound = atol(optarg); break;
		case 'o': once_span = atol(optarg); break;
		case 'R': rounds = atol(optarg); break;
		case 'G': {
			char *p = optarg, *end;

			for (ngaps = 0; ngaps < 100 && *p; ngaps++) {
				gaps[ngaps] = strtol(p, &end, 10);
				if (end == p || (*end && *end != ','))
					break;
				p = *end ? end + 1 : end;
			}
			if (*p)
				ngaps = -1;
			break;
		}
		case 'a': delay = atol(optarg); break;
		case 'p': pfn_file = optarg; break;
		case 'l': late = 1; break;
		case 'S': swapped = 1; break;
		case 'w': wait_all = 1; break;
		case 'r': reads_only = 1; break;
		case 'I': inject = optarg; break;
		default:
			fprintf(stderr, "promote-watch: bad option; see the top of promote-watch.c\n");
			return 2;
		}
	}
	if (strcmp(mode, "anon") && strcmp(mode, "file") && strcmp(mode, "thp")) {
		fprintf(stderr, "promote-watch: -m takes anon, file or thp\n");
		return 2;
	}
	if (hot <= 0 || cold < 0 || timeout <= 0 || flush_ms < 0) {
		fprintf(stderr, "promote-watch: -n, -c, -t and -T want positive numbers\n");
		return 2;
	}
	if (bound < 0 || bound >= hot || (bound && strcmp(mode, "anon"))) {
		fprintf(stderr, "promote-watch: -B wants fewer pages than -n, with -m anon\n");
		return 2;
	}
	free_hot = hot - bound;
	if (once_span != -1 && (once_span <= 0 || !cold)) {
		fprintf(stderr, "promote-watch: -o wants a positive span and a cold set\n");
		return 2;
	}
	if (rounds < 1 || rounds > 100 || (rounds > 1 && once_span == -1)) {
		fprintf(stderr, "promote-watch: -R wants 1 to 100 rounds, with -o\n");
		return 2;
	}
	if (ngaps && (ngaps != rounds - 1 || once_span == -1)) {
		fprintf(stderr, "promote-watch: -G wants one gap per round after the first (-R), with -o\n");
		return 2;
	}
	if (delay != -1 && (delay < 0 || (rounds < 2 && !late) || ngaps)) {
		fprintf(stderr, "promote-watch: -a wants a delay of 0 or more, with -R 2 or more (or -l) and no -G\n");
		return 2;
	}
	if (late && (delay == -1 || strcmp(mode, "anon"))) {
		fprintf(stderr, "promote-watch: -l wants -o and -a, with -m anon\n");
		return 2;
	}
	if (swapped && !late) {
		fprintf(stderr, "promote-watch: -S wants -l\n");
		return 2;
	}
	for (i = 0; i < ngaps; i++) {
		if (gaps[i] < once_span) {
			fprintf(stderr, "promote-watch: -G gaps must be at least the -o span\n");
			return 2;
		}
	}
	/*
	 * round_at[k]: when round k starts, from the start of the first; with
	 * -a, not known until the scan that comes after round k - 1.
	 */
	for (i = 0; i < rounds; i++)
		round_at[i] = i ? round_at[i - 1] + (ngaps ? gaps[i - 1] : once_span) : 0;
	for (i = !late; delay >= 0 && i < rounds; i++)
		round_at[i] = LONG_MAX / 4;
	if (flush_ms && tlb_turnover_init(&tt))
		die("mmap (TLB turnover)");
	if (reads_only < 0)
		reads_only = !strcmp(mode, "file");
	if (!strcmp(mode, "thp")) {
		/* Whole huge pages. */
		hot = (hot * psz + HUGE_SZ - 1) / HUGE_SZ * (HUGE_SZ / psz);
		cold = (cold * psz + HUGE_SZ - 1) / HUGE_SZ * (HUGE_SZ / psz);
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");

	n = hot > cold ? hot : cold;
	pages = calloc(n, sizeof(*pages));
	status = calloc(n, sizeof(*status));
	if (!pages || !status)
		die("calloc");
	/* Hot and cold sets in separate mappings: one file each for -m file. */
	h = map_region(mode, hot * psz, path);
	c = cold && !late ? cold_map(mode, cold, path) : NULL;
	memset(h, 0, hot * psz);
	/* Clean file pages: dirty ones are neither moved nor promoted. */
	if (!strcmp(mode, "file") &&
	    (msync(h, hot * psz, MS_SYNC) || (c && msync(c, cold * psz, MS_SYNC))))
		die("msync");

	moved = move_to(h, hot, slow, pages, status);
	if (moved != hot) {
		fprintf(stderr, "promote-watch: only %ld/%ld hot pages moved to node %d\n",
			moved, hot, slow);
		return 2;
	}
	if (pfn_file && !cold) {
		fprintf(stderr, "promote-watch: -p wants a cold set\n");
		return 2;
	}
	if (c)
		cold_place(c, cold, slow, pfn_file, pages, status);
	if (bound) {
		unsigned long mask = 1UL << slow;

		if (mbind(h + free_hot * psz, bound * psz, MPOL_BIND, &mask,
			  sizeof(mask) * 8, 0))
			die("mbind(MPOL_BIND)");
	}
	printf("setup mode=%s hot=%ld cold=%ld slow=%d thp=%d setup_ms=%ld\n", mode,
	       hot, cold, slow, thp_backed(h), now_ms() - start_ms);
	fflush(stdout);

	t0 = now_ms();
	next = t0 + 100;
	for (;;) {
		/* One round: read (and write) a byte of every hot page. */
		for (i = 0; i < hot; i++) {
			unsigned char *b = (unsigned char *)h + i * psz + (i % 64) * 8;

			if (reads_only) {
				sum += *(volatile unsigned char *)b;
				continue;
			}
			if (*b != (unsigned char)(round - 1))
				corrupt = 1;
			*b = round;
		}
		if (reads_only && sum)
			corrupt = 1; /* the hot set was written as zeroes */
		round++;
		/* -o: touch the next cold page when its time has come */
		if (once_start >= 0 && touched < cold * rounds &&
		    now_ms() >= once_start + round_at[touched / cold] +
				(touched % cold) * once_span / cold) {
			if (!touched) {
				faults0 = vmstat("numa_hint_faults");
				rec0 = vmstat("pghot_recorded_accesses");
			}
			if (touched == cold * (rounds - 1)) {
				last0 = vmstat("numa_hint_faults");
				lastrec0 = vmstat("pghot_recorded_accesses");
			}
			csum += *(volatile unsigned char *)(c + (touched % cold) * psz);
			touched++;
			if (touched == cold * rounds)
				last_end = now_ms();
			if (delay >= 0 && touched % cold == 0)
				pte0 = vmstat("numa_pte_updates");
		}
		/* -a: the next round starts DELAY_MS after the next scan */
		if (delay >= 0 && (touched || (late && c)) && touched % cold == 0 &&
		    touched < cold * rounds && round_at[touched / cold] == LONG_MAX / 4 &&
		    now_ms() >= next_poll) {
			next_poll = now_ms() + 5;
			if (vmstat("numa_pte_updates") - pte0 >= cold / 2) {
				seen_ms = now_ms();
				round_at[touched / cold] = seen_ms + delay - once_start;
			}
		}
		if (flush_ms && now_ms() >= next_flush) {
			tlb_turnover(&tt);
			next_flush = now_ms() + flush_ms;
		}
		if (now_ms() < next)
			continue;
		next += 100;
		if (inject)
			inject_hot(inject, h, hot);
		hot_top = count_top(h, free_hot, slow, pages, status);
		cold_top = c ? count_top(c, cold, slow, pages, status) : 0;
		bound_top = bound ? count_top(h + free_hot * psz, bound, slow,
					      pages, status) : 0;
		printf("sample ms=%ld hot_top=%ld cold_top=%ld bound_top=%ld\n",
		       now_ms() - t0, hot_top, cold_top, bound_top);
		fflush(stdout);
		if (now_ms() - t0 >= timeout)
			break;
		if (once_span > 0) {
			if (once_start < 0 && hot_top * 100 >= free_hot * 95 && late) {
				/* -l: the cold set comes now, unarmed */
				c = cold_map(mode, cold, path);
				cold_place(c, cold, slow, pfn_file, pages, status);
				if (swapped)
					csum += swap_round_trip(c, cold, slow, pages, status);
				pte0 = vmstat("numa_pte_updates");
				once_start = now_ms();
			}
			if (once_start < 0 && hot_top * 100 >= free_hot * 95)
				once_start = now_ms() + 3000;
			if (touched == cold * rounds &&
			    now_ms() >= once_start + round_at[rounds - 1] + once_span + 2000)
				break;
			continue;
		}
		if (!wait_all && hot_top * 100 >= free_hot * 95)
			break;
	}
	/*
	 * The cold set is not read back: that would be an access, and the
	 * kernel would rightly promote it before the caller reads the
	 * counters. The hot set checks that promoted data survives.
	 */
	printf("result ms=%ld hot_top=%ld hot=%ld cold_top=%ld cold=%ld bound_top=%ld bound=%ld data=%s\n",
	       now_ms() - t0, hot_top, free_hot, cold_top, cold, bound_top,
	       bound, corrupt ? "corrupt" : "ok");
	if (once_span > 0)
		printf("once touched=%ld rounds=%ld once_faults=%ld once_recorded=%ld last_faults=%ld last_recorded=%ld last_lag_ms=%ld sum=%lu\n",
		       touched, rounds,
		       touched ? vmstat("numa_hint_faults") - faults0 : 0,
		       rec0 < 0 ? -1 : vmstat("pghot_recorded_accesses") - rec0,
		       touched > cold * (rounds - 1) ? vmstat("numa_hint_faults") - last0 : 0,
		       touched > cold * (rounds - 1) && lastrec0 >= 0 ?
		       vmstat("pghot_recorded_accesses") - lastrec0 : -1,
		       seen_ms && last_end ? last_end - seen_ms : -1, csum);
	if (!strcmp(mode, "file")) {
		char cpath[512];

		snprintf(cpath, sizeof(cpath), "%s.cold", path);
		unlink(path);
		unlink(cpath);
	}
	return corrupt ? 1 : 0;
}
