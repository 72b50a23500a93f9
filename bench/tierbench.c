// SPDX-License-Identifier: GPL-2.0
/*
 * tierbench: the promotion workload of the pghot cover letter, with the
 * placement of the hot set sampled while it runs.
 *
 *   tierbench [--mode anon|file|thp] [--pattern uniform|skewed]
 *             [--size-mib N] [--hot-frac F] [--hot-share PCT]
 *             [--threads N] [--accesses N] [--seed S]
 *             [--slow-node N] [--cpu-node N] [--interval-ms N]
 *             [--timeout-ms N] [--store-pct PCT] [--fill-free-mib N]
 *             [--file PATH] [--allow-same-node] [--tlb-flush-ms N]
 *             [--hold-ms N] [--inject FILE [--inject-every N]]
 *   (short forms: -m -p -s -H -S -t -a -r -n -c -i -T -w -F -f -A -L -K -I -E)
 *
 * A buffer of --size-mib is put on the slow node: anon (MAP_POPULATE),
 * file (a file read into the page cache, then mapped MAP_SHARED |
 * MAP_POPULATE, loads only) or thp (madvise(MADV_HUGEPAGE)). Its pages
 * are split into a hot set (--hot-frac of them, chosen by the seed; in
 * thp mode whole huge pages) and the cold rest. Each thread gets a
 * sequence of page accesses generated from the seed before the clock
 * starts (uniform over the hot set, or skewed: --hot-share percent to the
 * hot set, the rest to cold pages), --store-pct of them stores; a thread
 * replays its sequence (at most 2^20 entries, repeated) until it has done
 * --accesses. Threads are pinned to the CPUs of --cpu-node. With
 * --fill-free-mib, every other node that has CPUs is first filled with
 * anonymous memory, touched once and never again, until only that much is
 * free above the node's high watermark: a top tier nearly full of cold
 * data, which the kernel must demote (or swap) to make room for more
 * promotions.
 *
 * With --tlb-flush-ms N, a thread on the workers' CPUs flushes the
 * process's TLB every N ms (tests/guest/tlb-turnover.h, which
 * promote-watch uses too). A page-table scanner (pgtscan) sees an access
 * only through the Accessed bit a TLB miss sets; a real CPU misses all
 * the time, but QEMU's TCG keeps every translation until a flush, so
 * without one the scans after the first find the hot set idle. bench/run
 * gives every variant the same flushes.
 *
 * With --inject FILE, each thread reports one access in --inject-every
 * (default 256) to FILE, the IBS sample injector of the kernel
 * (<debugfs>/ibs_access/inject), as if IBS had sampled it: a line with
 * the accessed address, " w" for a store, written in batches of whole
 * lines. It stands in for IBS where there is none (QEMU's TCG). A failed
 * write ends the run with exit status 2.
 *
 * --allow-same-node lets --slow-node equal --cpu-node, for a smoke test on
 * a one-node host (nothing can be promoted there).
 *
 * A sampler thread asks move_pages() every --interval-ms where each page
 * is. Output, one line each:
 *   setup mode=.. pattern=.. pages=N hot=H cold=C ... thp=0|1 setup_ms=..
 *   fill node=N mib=M free_mib=F high_wmark_mib=W
 *   sample t_ms=T hot_top=X hot=H cold_top=Y cold=C
 *   result elapsed_us=.. elapsed_ms=.. timed_out=0|1 t50_ms=.. t95_ms=..
 *          hot_top=X hot=H cold_top=Y cold=C precision=P samples=N checksum=..
 *          tlb_flushes=F max_gap_ms=G max_query_ms=Q injected=N
 *   hold mib=M topups=T hold_ms=H released_ms=R    (with --hold-ms; see there)
 *   left hot_slow=N off_lru=N unevictable=N rec_none=N rec_counting=N
 *        rec_queued=N rec_ready_not_queued=N rec_na=N pfns=..
 *        (the hot pages on the slow node at the end: off the LRU, and in
 *        which state pghot's record of each is; see report_left())
 *   left_first pfn=.. (<debugfs>/pghot/record of the first such page)
 *   stall query_ms=Q or stall no_sample_ms=G, then stall COMM[PID] FRAME
 *        lines  (a sampler query blocked, or no sample, for more than 3 s:
 *        see stall_watch())
 * t50/t95 are the first samples with 50%/95% of the hot set on a top tier
 * (-1: never); precision is the share of promoted pages that are hot (-1:
 * none promoted); max_gap_ms is the longest time between the starts of two
 * samples (the sampler is late when the guest stalls) and max_query_ms the
 * longest move_pages() query (it is slow when the kernel holds it up).
 * Exit: 0 with a result line, 2 on bad input or a failed setup (one line
 * on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tierlib.h"
#include "ibs-inject.h"
#include "thp-backed.h"
#include "tlb-turnover.h"
#include "zoneinfo.h"
#include "tiertool.h"

#define HUGE_SZ (2UL << 20)

static struct tb_params P;
static struct tb_layout L;
static char *buf;
static size_t buf_bytes;
static void **pages;
static int *status;
static uint32_t **seqs;
static long seq_len;
static atomic_int stop, done_threads, go, inject_errno;
static atomic_ulong checksum;
static atomic_long injected;

/* --inject: count what was injected; the first error stops the run. */
static void inject_result(long r)
{
	int zero = 0;

	if (r > 0)
		atomic_fetch_add(&injected, r);
	if (r >= 0)
		return;
	atomic_compare_exchange_strong(&inject_errno, &zero, (int)-r);
	atomic_store(&stop, 1);
}

static void fatal(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tierbench: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p)
		fatal("out of memory (%zu x %zu bytes)", n, sz);
	return p;
}

static void bind_to(int node)
{
	struct bitmask *m = numa_allocate_nodemask();

	numa_bitmask_setbit(m, node);
	if (set_mempolicy(MPOL_BIND, m->maskp, m->size + 1))
		fatal("set_mempolicy(bind to node %d): %s", node, strerror(errno));
	numa_free_nodemask(m);
}

static void unbind(void)
{
	if (set_mempolicy(MPOL_DEFAULT, NULL, 0))
		fatal("set_mempolicy(default): %s", strerror(errno));
}

/* Allocate and populate the buffer, allocating on the slow node. */
static void provision(void)
{
	char *p;

	buf_bytes = (size_t)P.size_mib << 20;
	bind_to(P.slow_node);
	if (P.mode == TB_FILE) {
		size_t off;
		char *chunk = xcalloc(1, 1 << 20);
		int fd = open(P.file, O_RDWR | O_CREAT | O_TRUNC, 0600);

		if (fd < 0)
			fatal("open %s: %s", P.file, strerror(errno));
		memset(chunk, 0x5a, 1 << 20);
		for (off = 0; off < buf_bytes; off += 1 << 20)
			if (write(fd, chunk, 1 << 20) != 1 << 20)
				fatal("write %s: %s", P.file, strerror(errno));
		/* clean pages: the kernel does not promote dirty file pages */
		if (fsync(fd))
			fatal("fsync %s: %s", P.file, strerror(errno));
		/*
		 * Writable, though only read: NUMA balancing skips read-only
		 * file mappings (taken for shared libraries), so with PROT_READ
		 * alone mode 2 would never see a hint fault.
		 */
		buf = mmap(NULL, buf_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			   fd, 0);
		close(fd);
		free(chunk);
		if (buf == MAP_FAILED)
			fatal("mmap %s: %s", P.file, strerror(errno));
	} else if (P.mode == TB_THP) {
		p = mmap(NULL, buf_bytes + HUGE_SZ, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			fatal("mmap %zu bytes: %s", buf_bytes, strerror(errno));
		buf = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
		if (madvise(buf, buf_bytes, MADV_HUGEPAGE))
			fatal("madvise(MADV_HUGEPAGE): %s", strerror(errno));
		memset(buf, 1, buf_bytes);
	} else {
		buf = mmap(NULL, buf_bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (buf == MAP_FAILED)
			fatal("mmap %zu bytes: %s", buf_bytes, strerror(errno));
	}
	/* from now on the kernel may place pages where it likes */
	unbind();
}

/* Move what is not on the slow node there; a few tries for busy pages. */
static void move_to_slow(void)
{
	long on = tl_move_to(pages, L.pages, P.slow_node, status, 5);

	if (on < 0)
		fatal("move_pages to node %d: %s", P.slow_node, strerror(errno));
	if (on < L.pages)
		fatal("only %ld of %ld pages are on node %d after moving them there",
		      on, L.pages, P.slow_node);
}

/* The high watermark of @node, in bytes, from /proc/zoneinfo. */
static long long high_wmark_bytes(int node)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	long pages;

	if (!f)
		fatal("cannot read /proc/zoneinfo: %s", strerror(errno));
	pages = zoneinfo_high_wmark(f, node);
	fclose(f);
	if (pages < 0)
		fatal("node %d has no zone in /proc/zoneinfo", node);
	return (long long)pages * TB_PAGE;
}

/*
 * A nearly full top tier: on every other node with CPUs, allocate and touch
 * cold anonymous memory until only fill_free_mib MiB are free above the
 * node's high watermark, in steps of 16 MiB and then less, re-reading the
 * free memory each time. Below the low watermark kswapd would start reclaiming during the
 * fill; above the high one the node is, to the kernel, not short of
 * memory, so every page promoted beyond those MiB needs room that the
 * kernel must first make by demoting (or swapping) cold pages. The memory
 * is not locked, so it can.
 *
 * MemFree does not count the free pages parked on per-CPU lists, and after
 * a process that freed a lot of memory exits (the previous run), those
 * lists can hold tens of MiB: the first steps are served from them without
 * MemFree moving. What is truly free is never less than MemFree, so that
 * is harmless. The fill must end within a step of its target, or the run
 * is void.
 */
static void fill_top_tier(void)
{
	int node;
	const long step = 16L << 20;

	for (node = 0; node <= numa_max_node(); node++) {
		struct bitmask *cpus = numa_allocate_cpumask();
		long long fr = 0, size, target;
		long mib = 0;
		int has_cpu;

		numa_node_to_cpus(node, cpus);
		has_cpu = numa_bitmask_weight(cpus) > 0;
		numa_free_cpumask(cpus);
		if (!has_cpu || node == P.slow_node)
			continue;
		size = numa_node_size64(node, &fr);
		if (size <= 0)
			continue;
		target = high_wmark_bytes(node) + (P.fill_free_mib << 20);
		bind_to(node);
		/* 16 MiB at a time, then what is left down to the target */
		while (fr - target >= 1 << 20 && (long long)mib << 20 < size) {
			long len = fr - target < step ? (fr - target) & ~((1L << 20) - 1) : step;
			void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				fatal("filling node %d: cannot map %ld MiB more: %s",
				      node, len >> 20, strerror(errno));
			/* 4K pages, demoted one by one like the rest */
			madvise(p, len, MADV_NOHUGEPAGE);
			if (madvise(p, len, MADV_POPULATE_WRITE))
				fatal("filling node %d: cannot populate %ld MiB more: %s",
				      node, len >> 20, strerror(errno));
			mib += len >> 20;
			numa_node_size64(node, &fr);
		}
		unbind();
		numa_node_size64(node, &fr);
		printf("fill node=%d mib=%ld free_mib=%lld high_wmark_mib=%lld\n",
		       node, mib, fr >> 20, high_wmark_bytes(node) >> 20);
		if (fr >= target + step)
			fatal("filling node %d: %lld MiB still free, wanted %lld",
			      node, fr >> 20, target >> 20);
	}
	fflush(stdout);
}

/*
 * --hold-ms: a top tier that can take no page for a while. Every other
 * node with CPUs gets locked memory, 1 MiB at a time, until its free
 * memory is at or below its high watermark (before the clock starts);
 * then a thread takes back every 20 ms whatever kswapd freed there, until
 * --hold-ms after the accesses started, and frees it all. Locked memory
 * cannot be demoted or swapped: while the hold lasts nothing can be
 * promoted and the kernel cannot make room, and after it promotion must
 * resume. (tests/guest/hold-node.c does the same for the guest tests.)
 */
#define HOLD_STEP (1L << 20)
#define HOLD_MAX 8192
static void *held[HOLD_MAX];
static long n_held, hold_topups, hold_released_ms = -1, t0_us;

/* Lock memory on every top node above its high watermark; steps taken. */
static long hold_top_up(void)
{
	long added = 0;
	int node;

	for (node = 0; node <= numa_max_node(); node++) {
		struct bitmask *cpus = numa_allocate_cpumask();
		long long fr = 0, high;
		int has_cpu;

		numa_node_to_cpus(node, cpus);
		has_cpu = numa_bitmask_weight(cpus) > 0;
		numa_free_cpumask(cpus);
		if (!has_cpu || node == P.slow_node || numa_node_size64(node, &fr) <= 0)
			continue;
		high = high_wmark_bytes(node);
		bind_to(node);
		while (fr > high && n_held < HOLD_MAX) {
			void *p = mmap(NULL, HOLD_STEP, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				fatal("holding node %d: cannot map 1 MiB more: %s", node, strerror(errno));
			madvise(p, HOLD_STEP, MADV_NOHUGEPAGE);
			if (mlock(p, HOLD_STEP))
				fatal("holding node %d: cannot lock 1 MiB more: %s", node, strerror(errno));
			held[n_held++] = p;
			added++;
			numa_node_size64(node, &fr);
		}
		unbind();
	}
	return added;
}

static void *holder(void *arg)
{
	struct timespec tick = { 0, 20 * 1000000L };

	(void)arg;
	while (now_us() - t0_us < P.hold_ms * 1000 && !atomic_load(&stop) &&
	       atomic_load(&done_threads) < P.threads) {
		hold_topups += hold_top_up();
		nanosleep(&tick, NULL);
	}
	hold_released_ms = (now_us() - t0_us) / 1000;
	while (n_held > 0)
		munmap(held[--n_held], HOLD_STEP);
	return NULL;
}

static void pin_to_node(int node, int invert)
{
	struct bitmask *cpus = numa_allocate_cpumask();
	cpu_set_t set;
	unsigned int c;
	int n = 0;

	numa_node_to_cpus(node, cpus);
	CPU_ZERO(&set);
	for (c = 0; c < cpus->size && c < CPU_SETSIZE; c++) {
		if (c >= (unsigned int)numa_num_configured_cpus())
			break;
		if (!!numa_bitmask_isbitset(cpus, c) != !!invert) {
			CPU_SET(c, &set);
			n++;
		}
	}
	numa_free_cpumask(cpus);
	if (n)
		sched_setaffinity(0, sizeof(set), &set);
}

static long tlb_flushes;	/* reported in the result line */

/*
 * See --tlb-flush-ms above: flush at once, then every N ms until the
 * workers are done. The first flush makes the count a check that the
 * flusher runs at all, whatever the timing.
 */
static void *flusher(void *arg)
{
	struct tlb_turnover *tt = arg;
	struct timespec ts = { P.tlb_flush_ms / 1000, P.tlb_flush_ms % 1000 * 1000000L };

	pin_to_node(P.cpu_node, 0);
	do {
		tlb_turnover(tt);
		tlb_flushes++;
		nanosleep(&ts, NULL);
	} while (atomic_load(&done_threads) < P.threads && !atomic_load(&stop));
	return NULL;
}

static void *worker(void *arg)
{
	long t = (long)arg, i, k = 0, round = 0;
	const uint32_t *seq = seqs[t];
	unsigned long sum = 0;
	struct ibs_inject *ib = NULL;

	pin_to_node(P.cpu_node, 0);
	if (P.inject) {
		ib = calloc(1, sizeof(*ib));
		if (!ib)
			fatal("out of memory");
		ib->fd = open(P.inject, O_WRONLY);
		if (ib->fd < 0)
			fatal("cannot open %s: %s", P.inject, strerror(errno));
	}
	while (!atomic_load(&go))
		sched_yield();
	for (i = 0; i < P.accesses; i++) {
		uint32_t e = seq[k];
		uint32_t pg = tb_resolve(&L, e, round);
		/* vary the line inside the page so caches do not hide much */
		volatile unsigned char *b =
			(volatile unsigned char *)buf + (size_t)pg * TB_PAGE + (i & 63) * 64;

		if (e & TB_STORE_BIT)
			*b = (unsigned char)i;
		else
			sum += *b;
		if (ib && i % P.inject_every == 0)
			inject_result(ibs_inject_add(ib, b, e & TB_STORE_BIT));
		if (++k == seq_len) {
			k = 0;
			round++;
		}
		if (!(i & 0xffff) && atomic_load(&stop))
			break;
	}
	if (ib) {
		inject_result(ibs_inject_flush(ib));
		close(ib->fd);
		free(ib);
	}
	atomic_fetch_add(&checksum, sum);
	atomic_fetch_add(&done_threads, 1);
	return NULL;
}

/*
 * A move_pages() query of the sampler that takes more than STALL_MS, or a
 * sampler that does not get to start a sample for that long past its
 * interval, is looked into once per run, while it lasts: the stacks of every
 * kmigrated and klruscand thread (/proc/PID/stack) go to the output as
 * "stall" lines, and SysRq l and w (backtraces of the CPUs and of the
 * blocked tasks) to the kernel log, which bench/run keeps. One bench run
 * had kmigrated use 100 s of CPU while a query waited 49.5 s.
 */
#define STALL_MS 3000
static atomic_long query_started_us;	/* 0: no query under way */
static atomic_long last_sample_us;	/* when the sampler last started one */
static atomic_int sampling_done;

static void dump_thread_stacks(long waited_ms)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int fd;

	if (waited_ms >= 0)
		printf("stall query_ms=%ld\n", waited_ms);
	else
		printf("stall no_sample_ms=%ld\n", -waited_ms);
	while (d && (e = readdir(d))) {
		char path[300], comm[64] = "", stack[2048];
		ssize_t n;
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
		if (strncmp(comm, "kmigrated", 9) && strcmp(comm, "klruscand"))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stack", e->d_name);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, stack, sizeof(stack) - 1);
		if (fd >= 0)
			close(fd);
		stack[n > 0 ? n : 0] = 0;
		for (char *l = strtok(stack, "\n"); l; l = strtok(NULL, "\n"))
			printf("stall %s[%s] %s\n", comm, e->d_name, l);
	}
	if (d)
		closedir(d);
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "l", 1) != 1 || write(fd, "w", 1) != 1)
			printf("stall sysrq=failed\n");
		close(fd);
	}
	fflush(stdout);
}

static void *stall_watch(void *arg)
{
	int dumped = 0;

	(void)arg;
	while (!atomic_load(&sampling_done)) {
		long started = atomic_load(&query_started_us);

		long last = atomic_load(&last_sample_us);

		usleep(200 * 1000);
		if (!dumped && started && started == atomic_load(&query_started_us) &&
		    now_us() - started > STALL_MS * 1000L) {
			dumped = 1;
			dump_thread_stacks((now_us() - started) / 1000);
		}
		/* the sampler itself not getting to run shows as a gap */
		if (!dumped && last && last == atomic_load(&last_sample_us) &&
		    now_us() - last > (STALL_MS + P.interval_ms) * 1000L) {
			dumped = 1;
			dump_thread_stacks(-(now_us() - last) / 1000);
		}
	}
	return NULL;
}

struct sampler {
	long t0_us;
	struct tb_sample *s;
	long n, cap;
	/* the longest move_pages() query, and the longest time between the
	 * starts of two samples: a stalled guest or a blocked query shows */
	long max_query_ms, max_gap_ms;
};

static void take_sample(struct sampler *sp)
{
	long hot_top, cold_top, hot = tb_hot_pages(&L), t_ms, query_ms;

	/* the time the query starts: a long query must not look like a late one */
	t_ms = (now_us() - sp->t0_us) / 1000;
	atomic_store(&last_sample_us, now_us());
	atomic_store(&query_started_us, now_us());
	if (tl_count_on(pages, L.pages, -1, status) < 0)
		fatal("move_pages (query): %s", strerror(errno));
	atomic_store(&query_started_us, 0);
	query_ms = (now_us() - sp->t0_us) / 1000 - t_ms;
	if (query_ms > sp->max_query_ms)
		sp->max_query_ms = query_ms;
	if (sp->n && t_ms - sp->s[sp->n - 1].t_ms > sp->max_gap_ms)
		sp->max_gap_ms = t_ms - sp->s[sp->n - 1].t_ms;
	tb_count_top(status, L.is_hot, L.pages, P.slow_node, &hot_top, &cold_top);
	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 1024;
		sp->s = realloc(sp->s, sp->cap * sizeof(*sp->s));
		if (!sp->s)
			fatal("out of memory for samples");
	}
	sp->s[sp->n] = (struct tb_sample){ t_ms, hot_top, cold_top };
	printf("sample t_ms=%ld hot_top=%ld hot=%ld cold_top=%ld cold=%ld\n",
	       sp->s[sp->n].t_ms, hot_top, hot, cold_top, L.pages - hot);
	fflush(stdout);
	sp->n++;
}

#define PGHOT_RECORD "/sys/kernel/debug/pghot/record"

/* What pghot holds for @pfn, from <debugfs>/pghot/record; 0 if readable. */
static int pghot_record_of(uint64_t pfn, char *line, size_t len)
{
	char num[32];
	int fd = open(PGHOT_RECORD, O_RDWR), n = -1;

	if (fd < 0)
		return -1;
	snprintf(num, sizeof(num), "%#llx", (unsigned long long)pfn);
	if (write(fd, num, strlen(num)) == (ssize_t)strlen(num) &&
	    lseek(fd, 0, SEEK_SET) == 0)
		n = read(fd, line, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	line[n] = 0;
	return 0;
}

/*
 * The hot pages still on the slow node at the end, and how many of them are
 * off the LRU (isolated, or in a per-CPU batch) or unevictable, from
 * /proc/self/pagemap and /proc/kpageflags (root only; "NA" otherwise), and,
 * where the kernel has <debugfs>/pghot/record, in which state pghot holds
 * them: no record, counted but not ready, ready and queued for kmigrated,
 * ready but not queued. A page that no source can promote shows here; the
 * first few PFNs are printed for a closer look.
 */
static void report_left(void)
{
	enum { KPF_LRU = 5, KPF_UNEVICTABLE = 18 };
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	long i, left = 0, off_lru = 0, unevictable = 0, shown = 0;
	long rec_none = 0, rec_counting = 0, rec_queued = 0, rec_lost = 0, rec_na = 0;
	char pfns[160] = "", line[256];
	int got;

	for (i = 0; pm >= 0 && kf >= 0 && i < L.pages; i++) {
		uint64_t ent, flags;
		size_t n = strlen(pfns);

		if (!L.is_hot[i] || status[i] != P.slow_node)
			continue;
		left++;
		if (pread(pm, &ent, 8, ((uintptr_t)pages[i] / 4096) * 8) != 8 ||
		    !(ent & (1ULL << 63)) || !(ent & ((1ULL << 55) - 1)))
			continue;
		ent &= (1ULL << 55) - 1;
		if (pread(kf, &flags, 8, ent * 8) != 8)
			continue;
		off_lru += !(flags & (1ULL << KPF_LRU));
		unevictable += !!(flags & (1ULL << KPF_UNEVICTABLE));
		got = !pghot_record_of(ent, line, sizeof(line));
		if (!got)
			rec_na++;
		else if (strstr(line, "record=0 ") || strstr(line, "untracked"))
			rec_none++;
		else if (strstr(line, "ready=0"))
			rec_counting++;
		else if (strstr(line, "queued=1"))
			rec_queued++;
		else
			rec_lost++;
		/* the first such page's whole record, for a closer look */
		if (got && !shown)
			printf("left_first %s", line);
		if (shown++ < 4 && n + 24 < sizeof(pfns))
			snprintf(pfns + n, sizeof(pfns) - n, "%s%#llx", n ? "," : "",
				 (unsigned long long)ent);
	}
	if (pm < 0 || kf < 0)
		printf("left hot_slow=NA\n");
	else
		printf("left hot_slow=%ld off_lru=%ld unevictable=%ld rec_none=%ld "
		       "rec_counting=%ld rec_queued=%ld rec_ready_not_queued=%ld rec_na=%ld pfns=%s\n",
		       left, off_lru, unevictable, rec_none, rec_counting, rec_queued,
		       rec_lost, rec_na, shown ? pfns : "-");
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
}

int tierbench_main(int argc, char **argv)
{
	char err[256];
	long t, i, setup_us, elapsed_us, hot;
	pthread_t *tids, flush_tid, hold_tid, stall_tid;
	long hold_mib = 0;
	struct tlb_turnover tt;
	struct sampler sp = { 0 };
	int timed_out = 0, thp = 0;
	struct bitmask *cpus;

	if (tb_parse(argc, argv, &P, err, sizeof(err))) {
		fprintf(stderr, "tierbench: error: %s\n", err);
		return 2;
	}
	if (numa_available() < 0)
		fatal("this kernel has no NUMA support");
	if (P.slow_node > numa_max_node() || numa_node_size64(P.slow_node, NULL) <= 0)
		fatal("--slow-node %d has no memory", P.slow_node);
	cpus = numa_allocate_cpumask();
	if (P.cpu_node > numa_max_node() || numa_node_to_cpus(P.cpu_node, cpus) ||
	    !numa_bitmask_weight(cpus))
		fatal("--cpu-node %d has no CPUs", P.cpu_node);
	numa_free_cpumask(cpus);

	if (P.tlb_flush_ms && tlb_turnover_init(&tt))
		fatal("mmap (TLB turnover): %s", strerror(errno));
	setup_us = now_us();
	if (tb_layout_init(&L, P.size_mib * (1048576 / TB_PAGE),
			   P.mode == TB_THP ? TB_THP_PAGES : 1, P.hot_frac, P.seed))
		fatal("cannot lay out %ld MiB", P.size_mib);
	hot = tb_hot_pages(&L);
	/* the accesses, fixed before anything runs */
	seq_len = P.accesses < TB_SEQ_MAX ? P.accesses : TB_SEQ_MAX;
	seqs = xcalloc(P.threads, sizeof(*seqs));
	for (t = 0; t < P.threads; t++) {
		seqs[t] = xcalloc(seq_len, sizeof(**seqs));
		tb_gen_sequence(&L, tb_thread_seed(P.seed, t), P.pattern,
				P.hot_share, P.store_pct, seqs[t], seq_len);
	}
	pages = xcalloc(L.pages, sizeof(*pages));
	status = xcalloc(L.pages, sizeof(*status));
	provision();
	for (i = 0; i < L.pages; i++)
		pages[i] = buf + i * TB_PAGE;
	move_to_slow();
	if (P.mode == TB_THP)
		thp = thp_backed(buf);
	if (P.fill_free_mib >= 0)
		fill_top_tier();
	if (P.hold_ms >= 0)
		hold_mib = hold_top_up();
	printf("setup mode=%s pattern=%s pages=%ld hot=%ld cold=%ld threads=%d "
	       "accesses=%ld seed=%llu slow=%d cpu_node=%d store_pct=%d hot_share=%g "
	       "tlb_flush_ms=%ld thp=%d setup_ms=%ld\n",
	       P.mode == TB_ANON ? "anon" : P.mode == TB_FILE ? "file" : "thp",
	       P.pattern == TB_UNIFORM ? "uniform" : "skewed", L.pages, hot,
	       L.pages - hot, P.threads, P.accesses, (unsigned long long)P.seed,
	       P.slow_node, P.cpu_node, P.store_pct,
	       P.pattern == TB_SKEWED ? P.hot_share : 100.0, P.tlb_flush_ms, thp,
	       (now_us() - setup_us) / 1000);
	fflush(stdout);

	/* the sampler is this thread, on CPUs away from the workers if any */
	pin_to_node(P.cpu_node, 1);
	tids = xcalloc(P.threads, sizeof(*tids));
	for (t = 0; t < P.threads; t++)
		if (pthread_create(&tids[t], NULL, worker, (void *)t))
			fatal("pthread_create failed");
	if (P.tlb_flush_ms && pthread_create(&flush_tid, NULL, flusher, &tt))
		fatal("pthread_create failed");
	sp.t0_us = t0_us = now_us();
	if (P.hold_ms >= 0 && pthread_create(&hold_tid, NULL, holder, NULL))
		fatal("pthread_create failed");
	if (pthread_create(&stall_tid, NULL, stall_watch, NULL))
		fatal("pthread_create failed");
	atomic_store(&go, 1);
	take_sample(&sp);
	for (;;) {
		long next = sp.t0_us + (sp.n) * P.interval_ms * 1000, now;

		while ((now = now_us()) < next && atomic_load(&done_threads) < P.threads)
			usleep(next - now < 5000 ? next - now : 5000);
		if (atomic_load(&done_threads) == P.threads)
			break;
		if (now - sp.t0_us >= P.timeout_ms * 1000) {
			timed_out = 1;
			atomic_store(&stop, 1);
			break;
		}
		take_sample(&sp);
	}
	for (t = 0; t < P.threads; t++)
		pthread_join(tids[t], NULL);
	elapsed_us = now_us() - sp.t0_us;
	if (P.tlb_flush_ms)
		pthread_join(flush_tid, NULL);
	take_sample(&sp);	/* where things ended */
	atomic_store(&sampling_done, 1);
	pthread_join(stall_tid, NULL);
	report_left();
	if (P.hold_ms >= 0) {
		pthread_join(hold_tid, NULL);
		printf("hold mib=%ld topups=%ld hold_ms=%ld released_ms=%ld\n",
		       hold_mib, hold_topups, P.hold_ms, hold_released_ms);
	}

	printf("result elapsed_us=%ld elapsed_ms=%ld timed_out=%d t50_ms=%ld t95_ms=%ld "
	       "hot_top=%ld hot=%ld cold_top=%ld cold=%ld precision=%.4f samples=%ld "
	       "checksum=%lu tlb_flushes=%ld max_gap_ms=%ld max_query_ms=%ld injected=%ld\n",
	       elapsed_us, elapsed_us / 1000, timed_out,
	       tb_time_to(sp.s, sp.n, hot, 50), tb_time_to(sp.s, sp.n, hot, 95),
	       sp.s[sp.n - 1].hot_top, hot, sp.s[sp.n - 1].cold_top, L.pages - hot,
	       tb_precision(sp.s[sp.n - 1].hot_top, sp.s[sp.n - 1].cold_top), sp.n,
	       atomic_load(&checksum), tlb_flushes, sp.max_gap_ms, sp.max_query_ms,
	       atomic_load(&injected));
	if (P.mode == TB_FILE)
		unlink(P.file);
	if (atomic_load(&inject_errno)) {
		fatal("writing to %s failed: %s", P.inject,
		      strerror(atomic_load(&inject_errno)));
	}
	return 0;
}
