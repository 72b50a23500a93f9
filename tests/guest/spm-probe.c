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
 *                           prints "pages N bad B unreadable U sigbus S"
 *                           and exits 1 if B > 0 (U: pages that could not
 *                           be read back, not counted as bad; S: 1 if a
 *                           child touching the first of them died of
 *                           SIGBUS).
 *                           In a memcg below MIB this goes through swap or
 *                           zswap and back. With "hold", it prints
 *                           "written N pages" after writing and waits for a
 *                           line on stdin before reading back, so the caller
 *                           can look at where the pages went. With
 *                           "poison", the same, then the read back prints
 *                           "read pages ...", waits for a second line and
 *                           reads everything again ("reread pages ...");
 *                           exits 1 if either B > 0. Only the pages it
 *                           writes may be swapped out (mlockall()).
 *   spm-probe poison-first PFN NR
 *                           mark poisoned (hard_offline_page) the first page
 *                           of PFN..PFN+NR-1 that the kernel holds, taking
 *                           the free ones before it out of use: "poisoned P
 *                           free F flag 0|1" (P -1 if none)
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
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* 1 if a child touching @addr dies of SIGBUS, 0 otherwise */
static int touch_sigbus(volatile const uint64_t *addr)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 0;
	}
	if (!pid)	/* the read is what matters, not the value */
		_exit(*addr == 0x5aa5 ? 3 : 0);
	if (waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS;
}

/*
 * Read back the @npages pages at @p that fill wrote, each copied through a
 * pipe: the write fails with EFAULT where the page's swap-in fails, instead
 * of raising a signal. Print "@what pages N bad B unreadable U sigbus S"
 * and return B. U counts the pages that could not be read (not counted in
 * B); S is 1 if a child reading the first of them directly died of
 * SIGBUS, as a real access would.
 */
static size_t check_pages(const char *what, uint64_t *p, size_t npages,
			  size_t words)
{
	static uint64_t buf[512];
	size_t psz = words * sizeof(uint64_t), i, w, bad = 0, unreadable = 0;
	int sigbus = 0, fd[2];

	if (psz > sizeof(buf) || pipe(fd)) {
		perror("spm-probe: pipe, or pages larger than 4 KiB");
		return npages;
	}
	for (i = 0; i < npages; i++) {
		if (write(fd[1], p + i * words, psz) != (ssize_t)psz) {
			if (errno != EFAULT) {
				perror("write to a pipe");
				bad++;
			} else if (!unreadable++) {
				sigbus = touch_sigbus(p + i * words);
			}
			continue;
		}
		if (read(fd[0], buf, psz) != (ssize_t)psz) {
			perror("read from a pipe");
			bad++;
			continue;
		}
		for (w = 0; w < words; w++)
			if (buf[w] != pattern(i, w)) {
				bad++;
				break;
			}
	}
	close(fd[0]);
	close(fd[1]);
	printf("%spages %zu bad %zu unreadable %zu sigbus %d\n", what, npages,
	       bad, unreadable, sigbus);
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
	/*
	 * With "poison", every page of the process but those it writes stays
	 * in memory (stack, data, stdout's buffer), so that a page poisoned
	 * in swap is one of those, which it checks.
	 */
	if (poison) {
		static char outbuf[4096];

		setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
		if (mlockall(MCL_CURRENT)) {
			perror("mlockall");
			return 2;
		}
	}
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

static int read_u64(int fd, unsigned long pfn, uint64_t *v)
{
	return pread(fd, v, 8, pfn * 8) == 8 ? 0 : -1;
}

/*
 * Mark poisoned, through memory-failure handling, the first page from
 * @first on (up to @nr pages) that the kernel holds. A page neither
 * mapped nor flagged is free or held by the kernel, which /proc cannot
 * tell apart; memory_failure() takes a free one out of use and succeeds,
 * and refuses (EBUSY) one it cannot take, after marking it. Prints
 * "poisoned P free F" (P the page marked, -1 if none; F the free pages
 * taken out of use on the way) and "flag 0|1", the page's poison flag
 * in /proc/kpageflags afterwards.
 */
static int poison_first(unsigned long first, unsigned long nr)
{
	unsigned long pfn, taken = 0;
	uint64_t count, flags = 0;
	long found = -1;
	char addr[32];
	int fc, ff, hw;

	fc = open("/proc/kpagecount", O_RDONLY);
	ff = open("/proc/kpageflags", O_RDONLY);
	if (fc < 0 || ff < 0) {
		perror("/proc/kpagecount or /proc/kpageflags");
		return 2;
	}
	for (pfn = first; pfn < first + nr && found < 0; pfn++) {
		if (read_u64(fc, pfn, &count) || read_u64(ff, pfn, &flags)) {
			fprintf(stderr, "spm-probe: cannot read pfn %#lx\n", pfn);
			return 2;
		}
		if (count || flags)
			continue;
		hw = open("/sys/devices/system/memory/hard_offline_page", O_WRONLY);
		if (hw < 0) {
			perror("hard_offline_page");
			return 2;
		}
		snprintf(addr, sizeof(addr), "%#lx", pfn << 12);
		if (write(hw, addr, strlen(addr)) > 0)
			taken++;
		else if (errno == EBUSY)
			found = pfn;
		else
			perror("hard_offline_page");
		close(hw);
	}
	if (found >= 0 && read_u64(ff, found, &flags))
		return 2;
	printf("poisoned %ld free %lu flag %d\n", found, taken,
	       found >= 0 && (flags & (1ULL << KPF_HWPOISON)) ? 1 : 0);
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
	if (argc == 4 && !strcmp(argv[1], "poison-first"))
		return poison_first(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	if ((argc == 3 || (argc == 4 && (!strcmp(argv[3], "hold") ||
					 !strcmp(argv[3], "poison")))) &&
	    !strcmp(argv[1], "fill"))
		return fill(atol(argv[2]), argc == 4 ? argv[3] : NULL);
	fprintf(stderr, "usage: spm-probe policy NODE | fill MIB [hold|poison] | leftover DEV MIB | map MIB | homenode NODE | relbind NODE | poison-first PFN NR\n");
	return 2;
}
