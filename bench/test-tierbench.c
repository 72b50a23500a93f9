// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tierbench's own logic (tierlib.c), on the host: the PRNG
 * and the access sequences, the hot set, the placement arithmetic and the
 * parameter checks. KTAP output; exit status 1 if any test failed.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tierlib.h"
#include "zoneinfo.h"

static int n_test, n_failed;

/* One result line; @ok decides; the message says what was checked. */
static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	n_test++;
	if (!ok)
		n_failed++;
	printf("%s %d ", ok ? "ok" : "not ok", n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static uint32_t *sequence(const struct tb_layout *l, uint64_t seed, enum tb_pattern pat,
			  double share, int store, long n)
{
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		abort();
	tb_gen_sequence(l, seed, pat, share, store, s, n);
	return s;
}

static void test_prng(void)
{
	uint64_t a = 42, b = 42, c = 43;
	int i, same = 1, differ = 0, in_range = 1;
	long buckets[10] = { 0 }, lo = 1L << 40, hi = 0;

	for (i = 0; i < 1000; i++) {
		uint64_t x = tb_next(&a), y = tb_next(&b), z = tb_next(&c);

		same &= x == y;
		differ += x != z;
	}
	check(same, "prng_same_seed_same_stream");
	check(differ == 1000, "prng_other_seed_other_stream");
	a = 7;
	for (i = 0; i < 100000; i++) {
		uint64_t v = tb_below(&a, 10);

		in_range &= v < 10;
		if (v < 10)
			buckets[v]++;
	}
	for (i = 0; i < 10; i++) {
		lo = buckets[i] < lo ? buckets[i] : lo;
		hi = buckets[i] > hi ? buckets[i] : hi;
	}
	check(in_range && lo > 9500 && hi < 10500,
	      "prng_below_is_uniform (buckets %ld..%ld of 10000)", lo, hi);
	check(tb_thread_seed(1, 0) != tb_thread_seed(1, 1) &&
	      tb_thread_seed(1, 0) != tb_thread_seed(2, 0) &&
	      tb_thread_seed(5, 3) == tb_thread_seed(5, 3),
	      "thread_seeds_distinct_and_stable");
}

static void test_sequences(void)
{
	struct tb_layout l;
	const long n = 200000;
	uint32_t *s1, *s2, *s3, *s4;
	long i, stores = 0, outside = 0, diff = 0;

	tb_layout_init(&l, 4096, 1, 0.25, 9);
	s1 = sequence(&l, tb_thread_seed(9, 0), TB_UNIFORM, 90, 50, n);
	s2 = sequence(&l, tb_thread_seed(9, 0), TB_UNIFORM, 90, 50, n);
	s3 = sequence(&l, tb_thread_seed(9, 1), TB_UNIFORM, 90, 50, n);
	s4 = sequence(&l, tb_thread_seed(10, 0), TB_UNIFORM, 90, 50, n);
	check(!memcmp(s1, s2, n * sizeof(*s1)), "sequence_same_seed_same_accesses");
	for (i = 0; i < n; i++)
		diff += s1[i] != s3[i];
	check(diff > n / 2, "sequence_other_thread_differs (%ld of %ld differ)", diff, n);
	check(memcmp(s1, s4, n * sizeof(*s1)) != 0, "sequence_other_seed_differs");
	for (i = 0; i < n; i++) {
		uint32_t pg = tb_resolve(&l, s1[i], 0);

		stores += !!(s1[i] & TB_STORE_BIT);
		outside += pg >= 4096 || !l.is_hot[pg];
	}
	check(!outside, "uniform_touches_only_hot_set (%ld outside)", outside);
	check(stores > n * 48 / 100 && stores < n * 52 / 100,
	      "store_share_is_50pct (%ld of %ld)", stores, n);
	free(s2);
	s2 = sequence(&l, 3, TB_UNIFORM, 90, 0, n);
	for (stores = 0, i = 0; i < n; i++)
		stores += !!(s2[i] & TB_STORE_BIT);
	check(stores == 0, "store_pct_0_gives_loads_only");
	free(s1);
	free(s2);
	free(s3);
	free(s4);
	tb_layout_free(&l);
}

static void test_skewed(void)
{
	struct tb_layout l;
	const long n = 400000;
	uint32_t *s;
	long i, hot = 0, cold_seen = 0, cold;
	unsigned char *seen;
	double shares[] = { 90, 70, 100, 99.9 };
	int k;

	tb_layout_init(&l, 16384, 1, 0.05, 77);
	cold = l.pages - tb_hot_pages(&l);
	seen = calloc(l.pages, 1);
	for (k = 0; k < 4; k++) {
		s = sequence(&l, 123, TB_SKEWED, shares[k], 50, n);
		for (hot = 0, i = 0; i < n; i++) {
			uint32_t pg = tb_resolve(&l, s[i], 0);

			hot += l.is_hot[pg];
			if (!l.is_hot[pg] && !seen[pg]) {
				seen[pg] = 1;
				cold_seen++;
			}
		}
		check(fabs(100.0 * hot / n - shares[k]) <= 0.5,
		      "skewed_hot_share_%g (%.3f%% of accesses hot)", shares[k], 100.0 * hot / n);
		free(s);
	}
	/* the cold part is touched, rarely, and spread over all of it */
	check(cold_seen > cold * 9 / 10, "skewed_touches_cold_part (%ld of %ld cold pages)",
	      cold_seen, cold);
	free(seen);

	/*
	 * Replayed, a sequence with few cold accesses must not keep touching
	 * the same cold pages: over the rounds they reach most of the cold
	 * part, and each round hits other pages than the one before.
	 */
	s = sequence(&l, 5, TB_SKEWED, 99.9, 0, 20000);
	seen = calloc(l.pages, 1);
	{
		long r, repeat = 0, ncold = 0, reached = 0, on_hot = 0;

		for (r = 0; r < 2000; r++)
			for (i = 0; i < 20000; i++) {
				uint32_t pg = tb_resolve(&l, s[i], r);

				if (!(s[i] & TB_COLD_BIT))
					continue;
				ncold++;
				reached += !seen[pg];
				seen[pg] = 1;
				repeat += r && tb_resolve(&l, s[i], r - 1) == pg;
				on_hot += l.is_hot[pg];
			}
		diag("%ld cold accesses per round", ncold / 2000);
		check(repeat == 0, "cold_entries_move_every_round (%ld repeats)", repeat);
		check(on_hot == 0, "cold_entries_stay_cold (%ld on hot pages)", on_hot);
		check(reached > cold / 2, "replayed_cold_accesses_spread (%ld of %ld cold pages in 2000 rounds)",
		      reached, cold);
	}
	free(seen);
	free(s);
	tb_layout_free(&l);
}

static void test_layout(void)
{
	struct tb_layout a, b, c, t;
	long i, count = 0, same = 1, whole = 1, g;

	check(!tb_layout_init(&a, 10000, 1, 0.1, 5), "layout_init_ok");
	for (i = 0; i < a.pages; i++)
		count += a.is_hot[i];
	check(count == 1000 && tb_hot_pages(&a) == 1000,
	      "hot_set_has_configured_size (%ld)", count);
	tb_layout_init(&b, 10000, 1, 0.1, 5);
	tb_layout_init(&c, 10000, 1, 0.1, 6);
	check(!memcmp(a.is_hot, b.is_hot, a.pages), "hot_set_same_seed_same_pages");
	check(memcmp(a.is_hot, c.is_hot, a.pages) != 0, "hot_set_other_seed_other_pages");
	for (i = 0; i < a.hot_groups; i++)
		same &= a.is_hot[a.order[i]];
	for (; i < a.groups; i++)
		same &= !a.is_hot[a.order[i]];
	check(same, "membership_matches_shuffled_order");
	/* a scattered hot set: not just the first pages of the buffer */
	for (count = 0, i = 0; i < 1000; i++)
		count += a.is_hot[i];
	check(count < 500, "hot_set_is_scattered (%ld of the first 1000 pages)", count);
	check(!tb_layout_init(&t, 512 * 40, 512, 0.25, 1), "thp_layout_init_ok");
	for (g = 0; g < t.groups; g++)
		for (i = 1; i < 512; i++)
			whole &= t.is_hot[g * 512 + i] == t.is_hot[g * 512];
	check(whole && tb_hot_pages(&t) == 10 * 512,
	      "thp_hot_set_is_whole_huge_pages (%ld pages)", tb_hot_pages(&t));
	check(tb_layout_init(&t, 1000, 512, 0.5, 1) == -1, "layout_rejects_partial_huge_page");
	tb_layout_free(&a);
	tb_layout_free(&b);
	tb_layout_free(&c);
}

static void test_placement(void)
{
	int status[8] = { 2, 0, 1, 2, -14, 0, 2, 1 };
	unsigned char hot[8] = { 1, 1, 1, 1, 1, 0, 0, 0 };
	long ht, ct;
	struct tb_sample s[] = {
		{ 0, 0, 0 }, { 100, 10, 0 }, { 200, 49, 1 }, { 300, 50, 1 },
		{ 400, 94, 2 }, { 500, 95, 2 }, { 600, 100, 3 },
	};

	tb_count_top(status, hot, 8, 2, &ht, &ct);
	check(ht == 2 && ct == 2, "count_top_skips_slow_and_errors (hot %ld cold %ld)", ht, ct);
	check(tb_time_to(s, 7, 100, 50) == 300, "t50_first_sample_at_half");
	check(tb_time_to(s, 7, 100, 95) == 500, "t95_first_sample_at_95pct");
	check(tb_time_to(s, 5, 100, 95) == -1, "t95_never_reached_is_minus_1");
	check(tb_time_to(s, 7, 0, 50) == -1, "t50_of_empty_hot_set_is_minus_1");
	check(tb_time_to(s, 7, 20, 50) == 100, "t50_small_hot_set");
	check(tb_precision(0, 0) == -1, "precision_nothing_promoted_is_minus_1");
	check(tb_precision(3, 1) == 0.75, "precision_3_hot_1_cold_is_0.75");
	check(tb_precision(5, 0) == 1, "precision_all_hot_is_1");
}

static void test_zoneinfo(void)
{
	static const char zi[] =
		"Node 0, zone      DMA\n"
		"  per-node stats\n"
		"      nr_inactive_anon 12\n"
		"  pages free     3840\n"
		"        boost    0\n"
		"        min      32\n"
		"        low      40\n"
		"        high     48\n"
		"        promo    56\n"
		"  pagesets\n"
		"    cpu: 0\n"
		"              count: 5\n"
		"              high:  378\n"
		"Node 0, zone    DMA32\n"
		"  pages free     100000\n"
		"        high     1000\n"
		"Node 1, zone   Normal\n"
		"        high     7\n";
	FILE *f;

	f = fmemopen((void *)zi, sizeof(zi) - 1, "r");
	check(zoneinfo_high_wmark(f, 0) == 1048, "zoneinfo_high_sums_the_node_zones");
	fclose(f);
	f = fmemopen((void *)zi, sizeof(zi) - 1, "r");
	check(zoneinfo_high_wmark(f, 1) == 7, "zoneinfo_high_of_another_node");
	fclose(f);
	f = fmemopen((void *)zi, sizeof(zi) - 1, "r");
	check(zoneinfo_high_wmark(f, 2) == -1, "zoneinfo_unknown_node_is_minus_1");
	fclose(f);
}

struct argcase {
	const char *args;
	int ok;
};

static int parse_str(const char *line, struct tb_params *p, char *err, size_t len)
{
	char copy[512], *argv[32], *tok, *save;
	int argc = 0;

	snprintf(copy, sizeof(copy), "tierbench %s", line);
	for (tok = strtok_r(copy, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return tb_parse(argc, argv, p, err, len);
}

static void test_parse(void)
{
	static const struct argcase cases[] = {
		{ "", 1 },
		{ "-m thp -s 64 -t 2 -a 1000 -r 0x10", 1 },
		{ "--mode file --pattern skewed --hot-frac 0.2 --hot-share 80", 1 },
		{ "-F 32 -p skewed -H 0.25", 1 },
		{ "-m bogus", 0 },
		{ "-p zipf", 0 },
		{ "-s 0", 0 },
		{ "-s 12x", 0 },
		{ "-s", 0 },
		{ "-H 0", 0 },
		{ "-H 1.5", 0 },
		{ "-H abc", 0 },
		{ "-t 0", 0 },
		{ "-t 1000", 0 },
		{ "-a -5", 0 },
		{ "-r -1", 0 },
		{ "-n 0 -c 0", 0 },
		{ "-n 0 -c 0 --allow-same-node", 1 },
		{ "-m thp -s 3", 0 },
		{ "-m file -w 50", 0 },
		{ "-S 50", 0 },
		{ "-p skewed -H 1", 0 },
		{ "-p skewed -S 0", 0 },
		{ "-p skewed -S 100.5", 0 },
		{ "-p skewed -S 99.99", 1 },
		{ "-p skewed -S 9x", 0 },
		{ "-i 5", 0 },
		{ "-L 10", 1 },
		{ "--tlb-flush-ms 1001", 0 },
		{ "-T 10", 0 },
		{ "-K 20000", 1 },
		{ "--hold-ms -1", 0 },
		{ "--hold-ms 1s", 0 },
		{ "--inject /x --inject-every 64", 1 },
		{ "-I /x -E 1", 1 },
		{ "--inject-every 0", 0 },
		{ "--inject-every 2000000000", 0 },
		{ "--inject-every 8k", 0 },
		{ "--inject", 0 },
		{ "-s 1 -H 0.0000001", 0 },
		{ "--no-such-option", 0 },
		{ "extra", 0 },
	};
	struct tb_params p;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		err[0] = 0;
		rc = parse_str(cases[i].args, &p, err, sizeof(err));
		check((rc == 0) == cases[i].ok && (rc == 0 || (err[0] && !strchr(err, '\n'))),
		      "parse_%s '%s'%s%s", cases[i].ok ? "accepts" : "rejects", cases[i].args,
		      rc ? ": " : "", rc ? err : "");
	}
	parse_str("-m file", &p, err, sizeof(err));
	check(p.store_pct == 0 && p.mode == TB_FILE, "parse_file_mode_defaults_to_loads");
	parse_str("-p skewed", &p, err, sizeof(err));
	check(p.hot_frac == 0.1 && p.hot_share == 90, "parse_skewed_defaults");
	parse_str("", &p, err, sizeof(err));
	check(p.seed == 1 && p.slow_node == 2 && p.cpu_node == 0 && p.interval_ms == 100 &&
	      p.hot_frac == 1 && p.fill_free_mib == -1 && p.hold_ms == -1, "parse_defaults");
}

int main(void)
{
	printf("KTAP version 1\n");
	printf("# tierbench unit tests\n");
	test_prng();
	test_sequences();
	test_skewed();
	test_layout();
	test_placement();
	test_zoneinfo();
	test_parse();
	printf("1..%d\n", n_test);
	diag("%d passed, %d failed", n_test - n_failed, n_failed);
	return n_failed ? 1 : 0;
}
