// SPDX-License-Identifier: GPL-2.0
/*
 * tiercheck: the integrity checker. Fill a buffer with a pattern that every
 * word of every page can be checked against, keep rewriting its pages from
 * worker threads while the kernel moves them (promotion, demotion, swap,
 * memory offline), and verify every word at the end.
 *
 *   tiercheck [-s MIB] [-n NODE] [-t THREADS] [-d MS] [-i MS] [-T FLUSH_MS]
 *             [-p PAUSE_US] [-z] [-r SEED] [-F PAGE:WORD]
 *
 * The buffer (-s, default 16 MiB) is anonymous memory, first written with
 * the task bound to NODE (-n; default: wherever the kernel puts it), and
 * left without a policy after that, so the kernel may move it anywhere.
 * Word w of page p holds a hash of (seed, p, w, gen[p]), where gen[p], the
 * page's write counter, is kept outside the buffer. THREADS workers
 * (default 2) own the pages p with p % THREADS == their number; each picks
 * one of its pages at random, checks all its words against gen[p], bumps
 * gen[p] and writes the page again, until DURATION (-d, default 10000 ms)
 * is over. Every INTERVAL (-i, default 200 ms) the main thread asks
 * move_pages() where each page is and counts the pages that changed node
 * since it last asked (moves; a page not present, e.g. swapped out,
 * counts as node "out"). With -T the workers' TLB is flushed every
 * FLUSH_MS ms (tlb-turnover.h), for page-table scans under TCG. With -p a
 * worker sleeps PAUSE_US microseconds after each page it writes, so that
 * the buffer is lukewarm rather than hot (pages for reclaim to demote or
 * swap). With -z only the first 16 words of a page are hashes and the
 * others repeat one per-page value, so that zswap can compress the page;
 * every word is still checked.
 *
 * Then every word of every page is verified. -F PAGE:WORD flips one bit of
 * that word just before, as the kernel would by copying a page wrongly:
 * the checker's own test (it must then report that word).
 *
 * Output, one line each:
 *   setup pages=N node=X threads=T seed=S
 *   nodes t_ms=T 0=a 1=b ... out=o moves=m       (every second)
 *   corrupt page=P word=W node=N seen=M gen=G want=0x.. got=0x..
 *                                                (at most 10 such lines)
 *   result pages=N words=W verified=V bad=B writes=K moves=M 0=a ... out=o
 * (words: in the buffer; verified: words checked in all, by the workers
 * before each write and at the end)
 * Exit status: 0 if every word was right, 1 if one was not, 2 on a setup
 * error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"
#include "tierlib.h"
#include "tlb-turnover.h"
#include "tiertool.h"

#define WORDS (TB_PAGE / (long)sizeof(uint64_t))
#define MAX_NODES 64
#define MAX_REPORTS 10
#define NODE_OUT MAX_NODES	/* not present: swapped out, or not yet */

static struct {
	long pages, duration_ms, interval_ms, flush_ms, pause_us;
	int node, threads, compressible;
	uint64_t seed;
	long flip_page, flip_word;
} C = { .pages = 16 * 256, .duration_ms = 10000, .interval_ms = 200,
	.node = -1, .threads = 2, .seed = 1, .flip_page = -1 };

static uint64_t *buf;
static uint32_t *gen;		/* per page: how many times it was written */
static int *seen;		/* per page: the node it was last seen on */
static volatile int stop;
static long reports;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* The word @w of page @p after its @g-th write. */
static inline uint64_t want(long p, long w, uint32_t g)
{
	uint64_t x;

	if (C.compressible && w >= 16)
		w = 16;
	x = C.seed + (uint64_t)p * 0x9e3779b97f4a7c15ULL +
	    (uint64_t)g * 0xbf58476d1ce4e5b9ULL +
	    (uint64_t)w * 0x94d049bb133111ebULL;
	return tb_next(&x);
}

static void fill(long p, uint32_t g)
{
	uint64_t *w = buf + p * WORDS;
	long i;

	for (i = 0; i < WORDS; i++)
		w[i] = want(p, i, g);
}

static int node_now(long p)
{
	void *addr = buf + p * WORDS;
	int status = -1;

	if (tl_count_on(&addr, 1, -1, &status) < 0)
		return -1;
	return status;
}

/* Check page @p against its counter; report its bad words. */
static long verify(long p)
{
	const uint64_t *w = buf + p * WORDS;
	uint32_t g = gen[p];
	long i, bad = 0;

	for (i = 0; i < WORDS; i++) {
		uint64_t x = want(p, i, g);

		if (w[i] == x)
			continue;
		bad++;
		pthread_mutex_lock(&report_lock);
		if (reports++ < MAX_REPORTS)
			printf("corrupt page=%ld word=%ld node=%d seen=%d gen=%u want=0x%016llx got=0x%016llx\n",
			       p, i, node_now(p), seen[p], g,
			       (unsigned long long)x, (unsigned long long)w[i]);
		pthread_mutex_unlock(&report_lock);
	}
	return bad;
}

struct worker {
	pthread_t tid;
	int id;
	long writes, bad;
};

static void *work(void *arg)
{
	struct worker *wk = arg;
	long mine = (C.pages - wk->id + C.threads - 1) / C.threads;
	uint64_t rng = tb_thread_seed(C.seed, wk->id);
	struct tlb_turnover tlb = { 0 };
	long last_flush = now_ms();

	if (C.flush_ms && tlb_turnover_init(&tlb))
		die("mmap (TLB turnover)");
	while (!stop && mine > 0) {
		long p = wk->id + (long)tb_below(&rng, mine) * C.threads;

		wk->bad += verify(p);
		fill(p, gen[p] + 1);
		/* Only this thread writes page p and gen[p]. */
		__atomic_store_n(&gen[p], gen[p] + 1, __ATOMIC_RELEASE);
		wk->writes++;
		if (C.pause_us)
			usleep(C.pause_us);
		if (C.flush_ms && now_ms() - last_flush >= C.flush_ms) {
			tlb_turnover(&tlb);
			last_flush = now_ms();
		}
	}
	return NULL;
}

/* Where each page is now; returns the pages that changed node. */
static long sample(void **addrs, int *status, long *count)
{
	long p, moved = 0;

	memset(count, 0, sizeof(long) * (MAX_NODES + 1));
	if (tl_count_on(addrs, C.pages, -1, status) < 0)
		die("move_pages (query)");
	for (p = 0; p < C.pages; p++) {
		int n = status[p] >= 0 && status[p] < MAX_NODES ? status[p] : NODE_OUT;

		count[n]++;
		if (seen[p] != -1 && seen[p] != n)
			moved++;
		seen[p] = n;
	}
	return moved;
}

static void print_nodes(const long *count)
{
	int n;

	for (n = 0; n < MAX_NODES; n++)
		if (count[n])
			printf(" %d=%ld", n, count[n]);
	printf(" out=%ld", count[NODE_OUT]);
}

static void usage(void)
{
	fprintf(stderr, "usage: tiercheck [-s MIB] [-n NODE] [-t THREADS] [-d MS] [-i MS] [-T FLUSH_MS] [-p PAUSE_US] [-z] [-r SEED] [-F PAGE:WORD]\n");
	exit(2);
}

static long number(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		usage();
	return v;
}

int tiercheck_main(int argc, char **argv)
{
	long count[MAX_NODES + 1], moves = 0, writes = 0, bad = 0, p, t0, next;
	struct worker *wk;
	void **addrs;
	int *status;
	int c, i;

	while ((c = getopt(argc, argv, "s:n:t:d:i:T:p:zr:F:")) != -1) {
		switch (c) {
		case 's': C.pages = number(optarg, 1) * 256; break;
		case 'n': C.node = number(optarg, 0); break;
		case 't': C.threads = number(optarg, 1); break;
		case 'd': C.duration_ms = number(optarg, 0); break;
		case 'i': C.interval_ms = number(optarg, 10); break;
		case 'T': C.flush_ms = number(optarg, 1); break;
		case 'p': C.pause_us = number(optarg, 0); break;
		case 'z': C.compressible = 1; break;
		case 'r': C.seed = number(optarg, 0); break;
		case 'F':
			if (sscanf(optarg, "%ld:%ld", &C.flip_page, &C.flip_word) != 2 ||
			    C.flip_page < 0 || C.flip_word < 0 || C.flip_word >= WORDS)
				usage();
			break;
		default: usage();
		}
	}
	if (optind != argc || C.node >= MAX_NODES || C.flip_page >= C.pages)
		usage();

	buf = mmap(NULL, C.pages * TB_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gen = calloc(C.pages, sizeof(*gen));
	seen = malloc(C.pages * sizeof(*seen));
	addrs = malloc(C.pages * sizeof(*addrs));
	status = malloc(C.pages * sizeof(*status));
	wk = calloc(C.threads, sizeof(*wk));
	if (buf == MAP_FAILED || !gen || !seen || !addrs || !status || !wk)
		die("allocating the buffer");
	tl_addrs(addrs, buf, C.pages, TB_PAGE);
	for (p = 0; p < C.pages; p++)
		seen[p] = -1;
	/* The first write places the pages; then the kernel may move them. */
	if (C.node >= 0) {
		unsigned long mask[MAX_NODES / 64] = { 0 };

		mask[C.node / 64] = 1UL << (C.node % 64);
		if (mbind(buf, C.pages * TB_PAGE, MPOL_BIND, mask, MAX_NODES, 0))
			die("mbind");
	}
	for (p = 0; p < C.pages; p++)
		fill(p, 0);
	if (C.node >= 0 && mbind(buf, C.pages * TB_PAGE, MPOL_DEFAULT, NULL, 0, 0))
		die("mbind (default)");
	sample(addrs, status, count);
	printf("setup pages=%ld node=%d threads=%d seed=%llu\n", C.pages, C.node,
	       C.threads, (unsigned long long)C.seed);
	fflush(stdout);

	for (i = 0; i < C.threads; i++) {
		wk[i].id = i;
		if (pthread_create(&wk[i].tid, NULL, work, &wk[i]))
			die("pthread_create");
	}
	t0 = now_ms();
	next = t0 + 1000;
	while (now_ms() - t0 < C.duration_ms) {
		usleep(C.interval_ms * 1000);
		moves += sample(addrs, status, count);
		if (now_ms() >= next) {
			printf("nodes t_ms=%ld", now_ms() - t0);
			print_nodes(count);
			printf(" moves=%ld\n", moves);
			fflush(stdout);
			next += 1000;
		}
	}
	stop = 1;
	for (i = 0; i < C.threads; i++) {
		pthread_join(wk[i].tid, NULL);
		writes += wk[i].writes;
		bad += wk[i].bad;
	}
	moves += sample(addrs, status, count);
	if (C.flip_page >= 0)
		buf[C.flip_page * WORDS + C.flip_word] ^= 1ULL << 17;
	for (p = 0; p < C.pages; p++)
		bad += verify(p);
	printf("result pages=%ld words=%ld verified=%ld bad=%ld writes=%ld moves=%ld",
	       C.pages, C.pages * WORDS, (C.pages + writes) * WORDS, bad, writes,
	       moves);
	print_nodes(count);
	printf("\n");
	return bad ? 1 : 0;
}
