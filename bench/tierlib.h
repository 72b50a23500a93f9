/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The library of tiertool (tests/guest/tiertool.c), the guest's helpers
 * and the benchmark's workload: tierbench's parameters, the PRNG, the hot
 * set, the access sequences and the placement arithmetic, which need no
 * kernel (test-tierbench.c checks them on the host), and the one way the
 * applets ask the kernel where pages are and move them (tl_*).
 */
#ifndef TIERLIB_H
#define TIERLIB_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

enum tb_mode { TB_ANON, TB_FILE, TB_THP };
enum tb_pattern { TB_UNIFORM, TB_SKEWED };

#define TB_PAGE 4096L
#define TB_THP_PAGES 512L		/* 4K pages in a 2M huge page */
#define TB_STORE_BIT 0x80000000u	/* in a sequence entry: a store */
#define TB_COLD_BIT 0x40000000u		/* ... an index into the cold part */
#define TB_INDEX_MASK 0x3fffffffu	/* ... the page or cold index */
#define TB_COLD_STRIDE 1000003L		/* cold indexes shift by this per replay */
#define TB_SEQ_MAX (1L << 20)		/* entries kept per thread */

struct tb_params {
	enum tb_mode mode;
	enum tb_pattern pattern;
	long size_mib;
	double hot_frac;	/* share of the buffer that is the hot set */
	double hot_share;	/* skewed: percent of accesses to the hot set */
	int threads;
	long accesses;		/* per thread */
	uint64_t seed;
	int slow_node;
	int cpu_node;
	long interval_ms;
	long timeout_ms;
	int store_pct;
	long fill_free_mib;	/* -1: no filler; else MiB left free above the
				   high watermark of each top node */
	const char *file;
	int same_node_ok;	/* host smoke test on a one-node machine */
	long tlb_flush_ms;	/* 0, or flush our TLB this often (tlb-turnover.h) */
	long hold_ms;		/* -1: no hold; else hold the top nodes at their
				   high watermark with locked memory this long */
	const char *inject;	/* NULL, or the IBS sample injector's file */
	long inject_every;	/* with inject: report one access in this many */
};

/*
 * Parse the command line into @p. Returns 0, or -1 with a one-line reason
 * in @err. Defaults depend on the mode and pattern (see tierbench.c).
 */
int tb_parse(int argc, char **argv, struct tb_params *p, char *err, size_t errlen);

/* splitmix64: a tiny, well-mixed PRNG; the state is one word. */
uint64_t tb_next(uint64_t *state);
/* Uniform in [0, n), n > 0. */
uint64_t tb_below(uint64_t *state, uint64_t n);
/* The seed of thread @t, derived from the run's seed. */
uint64_t tb_thread_seed(uint64_t seed, int t);

/*
 * The hot set. The buffer is cut into groups of @granule pages (1, or 512
 * in THP mode so a huge page is either all hot or all cold); a seeded
 * shuffle of the groups puts the first @hot_groups in the hot set.
 */
struct tb_layout {
	long pages, granule, groups, hot_groups;
	uint32_t *order;		/* shuffled group numbers */
	unsigned char *is_hot;		/* per page */
};

int tb_layout_init(struct tb_layout *l, long pages, long granule,
		   double hot_frac, uint64_t seed);
void tb_layout_free(struct tb_layout *l);
static inline long tb_hot_pages(const struct tb_layout *l)
{
	return l->hot_groups * l->granule;
}

/* The @idx-th page of the cold part, 0 <= idx < pages - hot pages. */
static inline uint32_t tb_cold_page(const struct tb_layout *l, long idx)
{
	return l->order[l->hot_groups + idx / l->granule] * l->granule + idx % l->granule;
}

/*
 * Fill @seq with @n accesses of one thread, TB_STORE_BIT set for a store.
 * Uniform: every access goes to a random hot page, its number in the entry
 * (the cold pages, if any, are never touched). Skewed: @hot_share percent
 * (a real number: 99.99 leaves one access in 10000 to the cold part) go to
 * the hot set; the others hold TB_COLD_BIT and a random cold index.
 */
void tb_gen_sequence(const struct tb_layout *l, uint64_t seed,
		     enum tb_pattern pattern, double hot_share, int store_pct,
		     uint32_t *seq, long n);

/*
 * The page an entry touches when a thread replays its sequence for the
 * @round-th time (from 0). A cold index moves on by TB_COLD_STRIDE each
 * round, so the cold accesses of a replayed sequence do not keep hitting
 * the same few pages (which would make those pages hot): over the rounds
 * they spread over the whole cold part, each cold page touched at the
 * rate the hot share leaves it.
 */
static inline uint32_t tb_resolve(const struct tb_layout *l, uint32_t e, long round)
{
	long cold;

	if (!(e & TB_COLD_BIT))
		return e & TB_INDEX_MASK;
	cold = l->pages - tb_hot_pages(l);
	return tb_cold_page(l, ((e & TB_INDEX_MASK) + round * (TB_COLD_STRIDE % cold)) % cold);
}

/* Count pages on a top tier (status >= 0 and not @slow), hot and cold. */
void tb_count_top(const int *status, const unsigned char *is_hot, long n,
		  int slow, long *hot_top, long *cold_top);

struct tb_sample {
	long t_ms, hot_top, cold_top;
};

/* First sample time at which @pct percent of @hot pages are on top; -1. */
long tb_time_to(const struct tb_sample *s, long n, long hot, int pct);
/* Share of the promoted pages that are hot; -1 if nothing was promoted. */
double tb_precision(long hot_top, long cold_top);

/* Page placement through move_pages(2), for every applet. */

/* @pages[i] = @base + i * @stride, for i < @n. */
void tl_addrs(void **pages, void *base, long n, long stride);
/*
 * Ask where the @n pages at @pages are: @status[i] is the node of page i,
 * or a negative errno (-ENOENT: not present, e.g. swapped out). Returns how
 * many are on @node (-1 counts none), or -1 with errno if the query failed.
 */
long tl_count_on(void **pages, long n, int node, int *status);
/*
 * Move the @n pages to @node, up to @tries times while some are elsewhere
 * (a page can be busy for a moment). Returns how many are on @node
 * afterwards (@status as tl_count_on() leaves it), or -1 with errno.
 */
long tl_move_to(void **pages, long n, int node, int *status, int tries);
/* Of @n pages as tl_count_on() reported them, those present and not on @slow. */
long tl_count_off(const int *status, long n, int slow);


#endif
