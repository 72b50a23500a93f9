// SPDX-License-Identifier: GPL-2.0
/*
 * spm-probe: what user space can and cannot do with a node.
 *
 *   spm-probe policy NODE   try set_mempolicy(MPOL_BIND) and mbind(MPOL_BIND)
 *                           naming only NODE; prints "set_mempolicy: ok" or
 *                           "set_mempolicy: EINVAL" (same for mbind)
 *   spm-probe fill MIB [hold|poison]
 *                           write MIB of anonymous memory, one distinct
 *                           pattern per page, then read every page back;
 *                           prints "pages N bad B sigbus S" and exits 1 if
 *                           B > 0.
 *                           In a memcg below MIB this goes through swap or
 *                           zswap and back. With "hold", it prints
 *                           "written N pages" after writing and waits for a
 *                           line on stdin before reading back, so the caller
 *                           can look at where the pages went. With
 *                           "poison", the same, then the read back prints
 *                           "read pages N bad B sigbus S" (S: pages whose
 *                           read raised SIGBUS, not counted as bad), waits
 *                           for a second line and reads everything again
 *                           ("reread ..."); exits 1 if either B > 0.
 *   spm-probe kpages PFN NR count the pages PFN..PFN+NR-1 with one reference
 *                           and no page flag (/proc/kpagecount and
 *                           kpageflags): "used U first P poisoned H", P the
 *                           first such pfn or -1, H those marked poisoned
 *   spm-probe leftover DEV MIB
 *                           map the first MIB of device-dax DEV and count its
 *                           pages that still hold what fill wrote; prints
 *                           "pages N nonzero Z filled F"
 *   spm-probe map MIB       mmap MIB of private anonymous memory, not
 *                           touched; prints "mmap: ok" or an errno name
 *                           (the overcommit check refuses with ENOMEM)
 *   spm-probe homenode NODE map 1 MiB bound (MPOL_BIND) to nodes 0-2 and
 *                           try set_mempolicy_home_node() to NODE; prints
 *                           "set_mempolicy_home_node: ok" or an errno name
 *   spm-probe relbind NODE  map 64 pages with mbind(MPOL_BIND |
 *                           MPOL_F_RELATIVE_NODES) naming NODE, print
 *                           "before policy=P" (P as /proc/self/numa_maps
 *                           shows it, with the nodes NODE maps onto now),
 *                           wait for a line on stdin, print "after
 *                           policy=P", and
 *                           then, only if the policy did not change, touch
 *                           the pages and print "pages on=N" (their node,
 *                           move_pages(), or "mixed"). A relative policy names
 *                           the n-th allowed node, so the allowed nodes
 *                           changing under it (memory onlined) remaps it.
 */
#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tierlib.h"
#include "tiertool.h"

/* <linux/mempolicy.h>; numaif.h does not have it */
#ifndef MPOL_F_RELATIVE_NODES
#define MPOL_F_RELATIVE_NODES	(1 << 14)
#endif

static const char *err_name(int e)
{
	switch (e) {
	case 0: return "ok";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	default: return strerror(e);
	}
}

static int probe_policy(int node)
{
	unsigned long mask[16] = { 0 };
	size_t len = 1 << 20;
	void *p;
	int e;

	if (node < 0 || node >= (int)(8 * sizeof(mask))) {
		fprintf(stderr, "spm-probe: node %d out of range\n", node);
		return 2;
	}
	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));

	e = set_mempolicy(MPOL_BIND, mask, 8 * sizeof(mask)) ? errno : 0;
	printf("set_mempolicy: %s\n", err_name(e));
	set_mempolicy(MPOL_DEFAULT, NULL, 0);

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	e = mbind(p, len, MPOL_BIND, mask, 8 * sizeof(mask), 0) ? errno : 0;
	printf("mbind: %s\n", err_name(e));
	munmap(p, len);
	return 0;
}

static int probe_map(long mib)
{
	size_t len = (size_t)mib << 20;
	void *p;

	if (mib <= 0) {
		fprintf(stderr, "spm-probe: map wants a size in MiB > 0\n");
		return 2;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("mmap: %s\n", err_name(p == MAP_FAILED ? errno : 0));
	if (p != MAP_FAILED)
		munmap(p, len);
	return 0;
}

static int probe_home_node(int node)
{
	unsigned long mask[16] = { 0x7 };
	size_t len = 1 << 20;
	void *p;
	int e;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	if (mbind(p, len, MPOL_BIND, mask, 8 * sizeof(mask), 0)) {
		perror("mbind");
		return 2;
	}
	e = syscall(__NR_set_mempolicy_home_node, (unsigned long)p, len,
		    (unsigned long)node, 0UL) ? errno : 0;
	printf("set_mempolicy_home_node: %s\n", err_name(e));
	munmap(p, len);
	return 0;
}

/*
 * A value per (page, word) that a swapped-in wrong page cannot match: the
 * page's term and the word's term mixed, then one xorshift.
 */
static uint64_t page_term(size_t page) { return (page + 1) * 0x9e3779b97f4a7c15ULL; }
static uint64_t word_term(size_t word) { return (word + 1) * 0xbf58476d1ce4e5b9ULL; }

static uint64_t pattern(size_t page, size_t word)
{
	uint64_t x = page_term(page) ^ word_term(word);

	return x ^ (x >> 31);
}

/* x from x ^ (x >> 31), on 64 bits */
static uint64_t unshift31(uint64_t y)
{
	return y ^ (y >> 31) ^ (y >> 62);
}

/*
 * Pages of device-dax @dev that still hold what fill wrote, wherever it
 * was: with the xorshift undone, the first two words of such a page differ
 * by what the two word terms differ by, whatever the page's index.
 */
#define DAX_ALIGN_MAX	(1UL << 30)

static int leftover(const char *dev, long mib)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t words = psz / sizeof(uint64_t), npages, i, w, nonzero = 0, filled = 0;
	uint64_t *p;
	void *r;
	int fd;

	if (mib <= 0) {
		fprintf(stderr, "spm-probe: leftover wants a size in MiB > 0\n");
		return 2;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		perror(dev);
		return 2;
	}
	npages = (size_t)mib * (1 << 20) / psz;
	/*
	 * device-dax maps only at addresses aligned to the device's alignment
	 * (2 MiB by default, at most 1 GiB): reserve room, map at a 1 GiB
	 * boundary in it.
	 */
	r = mmap(NULL, npages * psz + DAX_ALIGN_MAX, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	p = mmap((void *)(((uintptr_t)r + DAX_ALIGN_MAX - 1) & ~(uintptr_t)(DAX_ALIGN_MAX - 1)),
		 npages * psz, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap of the device");
		return 2;
	}
	for (i = 0; i < npages; i++) {
		const uint64_t *q = p + i * words;

		for (w = 0; w < words && !q[w]; w++)
			;
		if (w == words)
			continue;
		nonzero++;
		if ((unshift31(q[0]) ^ unshift31(q[1])) == (word_term(0) ^ word_term(1)))
			filled++;
	}
	printf("pages %zu nonzero %zu filled %zu\n", npages, nonzero, filled);
	munmap(p, npages * psz);
	close(fd);
	return 0;
}

static sigjmp_buf bus_env;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_env, 1);
}

/*
 * Read back the @npages pages at @p that fill wrote: print "@what pages N
 * bad B sigbus S" and return B. A page whose read raises SIGBUS (its
 * swap-in failed) counts in S, not B.
 */
static size_t check_pages(const char *what, uint64_t *p, size_t npages,
			  size_t words)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	volatile size_t bad = 0, sigbus = 0;
	size_t i, w;

	sigaction(SIGBUS, &sa, NULL);
	for (i = 0; i < npages; i++) {
		if (sigsetjmp(bus_env, 1)) {
			sigbus++;
			continue;
		}
		for (w = 0; w < words; w++)
			if (p[i * words + w] != pattern(i, w)) {
				bad++;
				break;
			}
	}
	signal(SIGBUS, SIG_DFL);
	printf("%spages %zu bad %zu sigbus %zu\n", what, npages, bad, sigbus);
	fflush(stdout);
	return bad;
}

static int wait_line(void)
{
	char line[16];

	return fgets(line, sizeof(line), stdin) ? 0 : -1;
}

static int fill(long mib, const char *mode)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t words = psz / sizeof(uint64_t), npages, i, w, bad;
	int poison = mode && !strcmp(mode, "poison");
	uint64_t *p;

	if (mib <= 0) {
		fprintf(stderr, "spm-probe: fill wants a size in MiB > 0\n");
		return 2;
	}
	npages = (size_t)mib * (1 << 20) / psz;
	p = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (i = 0; i < npages; i++)
		for (w = 0; w < words; w++)
			p[i * words + w] = pattern(i, w);
	if (mode) {
		printf("written %zu pages\n", npages);
		fflush(stdout);
		if (wait_line())
			return 2;
	}
	bad = check_pages(poison ? "read " : "", p, npages, words);
	if (poison) {
		if (wait_line())
			return 2;
		bad += check_pages("reread ", p, npages, words);
	}
	return bad ? 1 : 0;
}

/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define KPF_HWPOISON	19

/*
 * Pages @first .. @first + @nr - 1 by /proc/kpagecount and /proc/kpageflags:
 * "used U first P poisoned H", U the pages with one reference and no flag
 * (what zswap allocates on a compressed-RAM node), P the first of them (-1
 * if none), H the pages marked poisoned.
 */
static int kpages(unsigned long first, unsigned long nr)
{
	unsigned long pfn, used = 0, poisoned = 0;
	uint64_t count, flags;
	long found = -1;
	FILE *fc, *ff;

	fc = fopen("/proc/kpagecount", "r");
	ff = fopen("/proc/kpageflags", "r");
	if (!fc || !ff) {
		perror("/proc/kpagecount or /proc/kpageflags");
		return 2;
	}
	if (fseek(fc, first * 8, SEEK_SET) || fseek(ff, first * 8, SEEK_SET)) {
		perror("fseek");
		return 2;
	}
	for (pfn = first; pfn < first + nr; pfn++) {
		if (fread(&count, 8, 1, fc) != 1 || fread(&flags, 8, 1, ff) != 1) {
			fprintf(stderr, "spm-probe: cannot read pfn %#lx\n", pfn);
			return 2;
		}
		if (flags & (1ULL << KPF_HWPOISON))
			poisoned++;
		if (count == 1 && !flags) {
			if (found < 0)
				found = pfn;
			used++;
		}
	}
	printf("used %lu first %ld poisoned %lu\n", used, found, poisoned);
	return 0;
}

#define RELBIND_PAGES	64

/*
 * The policy of the mapping at @addr as /proc/self/numa_maps shows it
 * ("bind=relative:0"): get_mempolicy() would give the nodes the caller
 * named, not the ones the kernel maps them onto.
 */
static int numa_maps_policy(void *addr, char *buf, size_t len)
{
	char line[512], want[32];
	FILE *f = fopen("/proc/self/numa_maps", "r");

	if (!f) {
		perror("/proc/self/numa_maps");
		return -1;
	}
	snprintf(want, sizeof(want), "%lx ", (unsigned long)addr);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)))
			continue;
		fclose(f);
		if (sscanf(line + strlen(want), "%31s", want) != 1)
			return -1;
		snprintf(buf, len, "%s", want);
		return 0;
	}
	fclose(f);
	fprintf(stderr, "spm-probe: %p not in /proc/self/numa_maps\n", addr);
	return -1;
}

static int relbind(int node)
{
	unsigned long mask[16] = { 0 };
	long psz = sysconf(_SC_PAGESIZE);
	char line[16], before[32], after[32], *p;
	void *pages[RELBIND_PAGES];
	int status[RELBIND_PAGES], i;

	if (node < 0 || node >= (int)(8 * sizeof(mask))) {
		fprintf(stderr, "spm-probe: node %d out of range\n", node);
		return 2;
	}
	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	p = mmap(NULL, RELBIND_PAGES * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	if (mbind(p, RELBIND_PAGES * psz, MPOL_BIND | MPOL_F_RELATIVE_NODES,
		  mask, 8 * sizeof(mask), 0)) {
		perror("mbind");
		return 2;
	}
	if (numa_maps_policy(p, before, sizeof(before)))
		return 2;
	printf("before policy=%s\n", before);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	if (numa_maps_policy(p, after, sizeof(after)))
		return 2;
	printf("after policy=%s\n", after);
	fflush(stdout);
	if (strcmp(before, after))
		return 1;
	for (i = 0; i < RELBIND_PAGES; i++)
		p[i * psz] = 1;
	tl_addrs(pages, p, RELBIND_PAGES, psz);
	if (tl_count_on(pages, RELBIND_PAGES, -1, status) < 0) {
		perror("move_pages");
		return 2;
	}
	for (i = 1; i < RELBIND_PAGES; i++)
		if (status[i] != status[0]) {
			printf("pages on=mixed\n");
			return 0;
		}
	printf("pages on=%d\n", status[0]);
	return 0;
}

int spm_probe_main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "policy"))
		return probe_policy(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "map"))
		return probe_map(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "homenode"))
		return probe_home_node(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "leftover"))
		return leftover(argv[2], atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "relbind"))
		return relbind(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "kpages"))
		return kpages(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	if ((argc == 3 || (argc == 4 && (!strcmp(argv[3], "hold") ||
					 !strcmp(argv[3], "poison")))) &&
	    !strcmp(argv[1], "fill"))
		return fill(atol(argv[2]), argc == 4 ? argv[3] : NULL);
	fprintf(stderr, "usage: spm-probe policy NODE | fill MIB [hold|poison] | leftover DEV MIB | map MIB | homenode NODE | relbind NODE | kpages PFN NR\n");
	return 2;
}
