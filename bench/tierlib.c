// SPDX-License-Identifier: GPL-2.0
/*
 * tiertool's library: see tierlib.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <numaif.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tierlib.h"

static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A whole decimal (or 0x hex) number in [lo, hi], nothing after it. */
static int num(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A whole real number in (lo, hi], nothing after it. */
static int real(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

static const struct option longopts[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "pattern", required_argument, NULL, 'p' },
	{ "size-mib", required_argument, NULL, 's' },
	{ "hot-frac", required_argument, NULL, 'H' },
	{ "hot-share", required_argument, NULL, 'S' },
	{ "threads", required_argument, NULL, 't' },
	{ "accesses", required_argument, NULL, 'a' },
	{ "seed", required_argument, NULL, 'r' },
	{ "slow-node", required_argument, NULL, 'n' },
	{ "cpu-node", required_argument, NULL, 'c' },
	{ "interval-ms", required_argument, NULL, 'i' },
	{ "timeout-ms", required_argument, NULL, 'T' },
	{ "store-pct", required_argument, NULL, 'w' },
	{ "fill-free-mib", required_argument, NULL, 'F' },
	{ "file", required_argument, NULL, 'f' },
	{ "allow-same-node", no_argument, NULL, 'A' },
	{ "tlb-flush-ms", required_argument, NULL, 'L' },
	{ "hold-ms", required_argument, NULL, 'K' },
	{ "inject", required_argument, NULL, 'I' },
	{ "inject-every", required_argument, NULL, 'E' },
	{ NULL, 0, NULL, 0 },
};

int tb_parse(int argc, char **argv, struct tb_params *p, char *err, size_t errlen)
{
	int opt, share_set = 0, store_set = 0, frac_set = 0;
	long v;
	char *end;

	*p = (struct tb_params){
		.mode = TB_ANON, .pattern = TB_UNIFORM, .size_mib = 128,
		.hot_frac = 1.0, .hot_share = 90, .threads = 4,
		.accesses = 4000000, .seed = 1, .slow_node = 2, .cpu_node = 0,
		.interval_ms = 100, .timeout_ms = 300000, .store_pct = 50,
		.fill_free_mib = -1, .file = "/root/tierbench.data",
		.hold_ms = -1, .inject_every = 256,
	};
	optind = 0;	/* glibc: start over, so the tests can parse again */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":m:p:s:H:S:t:a:r:n:c:i:T:w:F:f:AL:K:I:E:",
				  longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (!strcmp(optarg, "anon"))
				p->mode = TB_ANON;
			else if (!strcmp(optarg, "file"))
				p->mode = TB_FILE;
			else if (!strcmp(optarg, "thp"))
				p->mode = TB_THP;
			else
				return bad(err, errlen, "--mode takes anon, file or thp, not '%s'", optarg);
			break;
		case 'p':
			if (!strcmp(optarg, "uniform"))
				p->pattern = TB_UNIFORM;
			else if (!strcmp(optarg, "skewed"))
				p->pattern = TB_SKEWED;
			else
				return bad(err, errlen, "--pattern takes uniform or skewed, not '%s'", optarg);
			break;
		case 's':
			if (num(optarg, 1, 1L << 20, &p->size_mib))
				return bad(err, errlen, "--size-mib wants 1..1048576, not '%s'", optarg);
			break;
		case 'H':
			if (real(optarg, 0, 1, &p->hot_frac))
				return bad(err, errlen, "--hot-frac wants a number in (0, 1], not '%s'", optarg);
			frac_set = 1;
			break;
		case 'S':
			if (real(optarg, 0, 100, &p->hot_share))
				return bad(err, errlen, "--hot-share wants a percentage in (0, 100], not '%s'", optarg);
			share_set = 1;
			break;
		case 't':
			if (num(optarg, 1, 256, &v))
				return bad(err, errlen, "--threads wants 1..256, not '%s'", optarg);
			p->threads = v;
			break;
		case 'a':
			if (num(optarg, 1, 10000000000L, &p->accesses))
				return bad(err, errlen, "--accesses wants 1..10000000000 per thread, not '%s'", optarg);
			break;
		case 'r':
			errno = 0;
			if (!*optarg || *optarg == '-')
				return bad(err, errlen, "--seed wants an unsigned number, not '%s'", optarg);
			p->seed = strtoull(optarg, &end, 0);
			if (errno || *end)
				return bad(err, errlen, "--seed wants an unsigned number, not '%s'", optarg);
			break;
		case 'n':
			if (num(optarg, 0, 1023, &v))
				return bad(err, errlen, "--slow-node wants a node number, not '%s'", optarg);
			p->slow_node = v;
			break;
		case 'c':
			if (num(optarg, 0, 1023, &v))
				return bad(err, errlen, "--cpu-node wants a node number, not '%s'", optarg);
			p->cpu_node = v;
			break;
		case 'i':
			if (num(optarg, 10, 60000, &p->interval_ms))
				return bad(err, errlen, "--interval-ms wants 10..60000, not '%s'", optarg);
			break;
		case 'T':
			if (num(optarg, 100, 86400000, &p->timeout_ms))
				return bad(err, errlen, "--timeout-ms wants 100..86400000, not '%s'", optarg);
			break;
		case 'w':
			if (num(optarg, 0, 100, &v))
				return bad(err, errlen, "--store-pct wants 0..100, not '%s'", optarg);
			p->store_pct = v;
			store_set = 1;
			break;
		case 'F':
			if (num(optarg, 0, 1L << 20, &p->fill_free_mib))
				return bad(err, errlen, "--fill-free-mib wants 0..1048576, not '%s'", optarg);
			break;
		case 'f':
			if (!*optarg)
				return bad(err, errlen, "--file wants a path");
			p->file = optarg;
			break;
		case 'A':
			p->same_node_ok = 1;
			break;
		case 'L':
			if (num(optarg, 0, 1000, &p->tlb_flush_ms))
				return bad(err, errlen, "--tlb-flush-ms wants 0..1000, not '%s'", optarg);
			break;
		case 'K':
			if (num(optarg, 0, 86400000, &p->hold_ms))
				return bad(err, errlen, "--hold-ms wants 0..86400000, not '%s'", optarg);
			break;
		case 'I':
			p->inject = optarg;
			break;
		case 'E':
			if (num(optarg, 1, 1L << 30, &p->inject_every))
				return bad(err, errlen, "--inject-every wants 1..%ld, not '%s'",
					   1L << 30, optarg);
			break;
		case ':':
			return bad(err, errlen, "option '%s' wants a value", argv[optind - 1]);
		default:
			return bad(err, errlen, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (p->slow_node == p->cpu_node && !p->same_node_ok)
		return bad(err, errlen, "--slow-node and --cpu-node are both %d", p->cpu_node);
	if (p->mode == TB_THP && p->size_mib % 2)
		return bad(err, errlen, "--mode thp wants --size-mib in whole 2 MiB huge pages");
	if (p->mode == TB_FILE) {
		/* a dirty file page is not promoted: the file mode only reads */
		if (store_set && p->store_pct)
			return bad(err, errlen, "--mode file only loads: --store-pct must be 0");
		p->store_pct = 0;
	}
	if (p->pattern == TB_UNIFORM && share_set)
		return bad(err, errlen, "--hot-share only applies to --pattern skewed");
	if (p->pattern == TB_SKEWED) {
		if (!frac_set)
			p->hot_frac = 0.1;
		if (p->hot_frac >= 1)
			return bad(err, errlen, "--pattern skewed wants --hot-frac below 1 (a cold part)");
	}
	{
		long granule = p->mode == TB_THP ? TB_THP_PAGES : 1;
		long groups = p->size_mib * (1048576 / TB_PAGE) / granule;
		long hot = lround(p->hot_frac * groups);

		if (hot < 1)
			return bad(err, errlen, "--hot-frac %g of %ld MiB leaves an empty hot set",
				   p->hot_frac, p->size_mib);
		if (p->pattern == TB_SKEWED && hot >= groups)
			return bad(err, errlen, "--hot-frac %g of %ld MiB leaves no cold part",
				   p->hot_frac, p->size_mib);
	}
	return 0;
}

uint64_t tb_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t tb_below(uint64_t *state, uint64_t n)
{
	/* multiply-shift: no modulo bias worth caring about for n < 2^32 */
	return (uint64_t)(((unsigned __int128)tb_next(state) * n) >> 64);
}

uint64_t tb_thread_seed(uint64_t seed, int t)
{
	uint64_t s = seed ^ (0xd1b54a32d192ed03ULL * (uint64_t)(t + 1));

	return tb_next(&s);
}

int tb_layout_init(struct tb_layout *l, long pages, long granule,
		   double hot_frac, uint64_t seed)
{
	long g, i, p;
	uint64_t st = seed ^ 0x5eed0f407ULL;

	memset(l, 0, sizeof(*l));
	if (pages < 1 || granule < 1 || pages % granule || pages > TB_INDEX_MASK ||
	    !(hot_frac > 0 && hot_frac <= 1))
		return -1;
	l->pages = pages;
	l->granule = granule;
	l->groups = pages / granule;
	l->hot_groups = lround(hot_frac * l->groups);
	if (l->hot_groups < 1)
		return -1;
	l->order = malloc(l->groups * sizeof(*l->order));
	l->is_hot = calloc(pages, 1);
	if (!l->order || !l->is_hot) {
		tb_layout_free(l);
		return -1;
	}
	for (g = 0; g < l->groups; g++)
		l->order[g] = g;
	/* Fisher-Yates: a seeded shuffle of the groups */
	for (g = l->groups - 1; g > 0; g--) {
		long j = tb_below(&st, g + 1);
		uint32_t t = l->order[g];

		l->order[g] = l->order[j];
		l->order[j] = t;
	}
	for (i = 0; i < l->hot_groups; i++)
		for (p = 0; p < granule; p++)
			l->is_hot[(long)l->order[i] * granule + p] = 1;
	return 0;
}

void tb_layout_free(struct tb_layout *l)
{
	free(l->order);
	free(l->is_hot);
	l->order = NULL;
	l->is_hot = NULL;
}

/* A random page of the groups order[from, to). */
static uint32_t pick(const struct tb_layout *l, uint64_t *st, long from, long to)
{
	long g = l->order[from + tb_below(st, to - from)];

	return g * l->granule + tb_below(st, l->granule);
}

void tb_gen_sequence(const struct tb_layout *l, uint64_t seed,
		     enum tb_pattern pattern, double hot_share, int store_pct,
		     uint32_t *seq, long n)
{
	uint64_t st = seed, hot_ppm = llround(hot_share * 10000);
	long cold = l->pages - tb_hot_pages(l);
	long i;

	for (i = 0; i < n; i++) {
		uint32_t e;

		if (pattern == TB_SKEWED && cold && tb_below(&st, 1000000) >= hot_ppm)
			e = TB_COLD_BIT | tb_below(&st, cold);
		else
			e = pick(l, &st, 0, l->hot_groups);
		if (tb_below(&st, 100) < (uint64_t)store_pct)
			e |= TB_STORE_BIT;
		seq[i] = e;
	}
}

void tb_count_top(const int *status, const unsigned char *is_hot, long n,
		  int slow, long *hot_top, long *cold_top)
{
	long i, h = 0, c = 0;

	for (i = 0; i < n; i++) {
		if (status[i] < 0 || status[i] == slow)
			continue;
		if (is_hot[i])
			h++;
		else
			c++;
	}
	*hot_top = h;
	*cold_top = c;
}

long tb_time_to(const struct tb_sample *s, long n, long hot, int pct)
{
	long i;

	for (i = 0; i < n; i++)
		if (hot > 0 && s[i].hot_top * 100 >= hot * (long)pct)
			return s[i].t_ms;
	return -1;
}

double tb_precision(long hot_top, long cold_top)
{
	if (hot_top + cold_top <= 0)
		return -1;
	return (double)hot_top / (double)(hot_top + cold_top);
}

void tl_addrs(void **pages, void *base, long n, long stride)
{
	long i;

	for (i = 0; i < n; i++)
		pages[i] = (char *)base + i * stride;
}

long tl_count_on(void **pages, long n, int node, int *status)
{
	long i, on = 0;

	if (move_pages(0, n, pages, NULL, status, 0) < 0)
		return -1;
	for (i = 0; i < n; i++)
		on += status[i] == node;
	return on;
}

long tl_move_to(void **pages, long n, int node, int *status, int tries)
{
	int *nodes = malloc(n * sizeof(*nodes));
	long i, on = 0;

	if (!nodes)
		return -1;
	for (i = 0; i < n; i++)
		nodes[i] = node;
	while (tries-- > 0 && on < n) {
		if (move_pages(0, n, pages, nodes, status, MPOL_MF_MOVE) < 0) {
			on = -1;
			break;
		}
		on = tl_count_on(pages, n, node, status);
		if (on < 0)
			break;
	}
	free(nodes);
	return on;
}

long tl_count_off(const int *status, long n, int slow)
{
	long i, off = 0;

	for (i = 0; i < n; i++)
		off += status[i] >= 0 && status[i] != slow;
	return off;
}
