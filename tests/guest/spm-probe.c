// SPDX-License-Identifier: GPL-2.0
/*
 * spm-probe: what user space can and cannot do with a node.
 *
 *   spm-probe policy NODE   try set_mempolicy(MPOL_BIND) and mbind(MPOL_BIND)
 *                           naming only NODE; prints "set_mempolicy: ok" or
 *                           "set_mempolicy: EINVAL" (same for mbind)
 *   spm-probe fill MIB [hold]
 *                           write MIB of anonymous memory, one distinct
 *                           pattern per page, then read every page back;
 *                           prints "pages N bad B" and exits 1 if B > 0.
 *                           In a memcg below MIB this goes through swap or
 *                           zswap and back. With "hold", it prints
 *                           "written N pages" after writing and waits for a
 *                           line on stdin before reading back, so the caller
 *                           can look at where the pages went.
 */
#include <errno.h>
#include <numaif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* A value per (page, word) that a swapped-in wrong page cannot match. */
static uint64_t pattern(size_t page, size_t word)
{
	uint64_t x = (page + 1) * 0x9e3779b97f4a7c15ULL ^ (word + 1) * 0xbf58476d1ce4e5b9ULL;

	return x ^ (x >> 31);
}

static int fill(long mib, int hold)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t words = psz / sizeof(uint64_t), npages, i, w, bad = 0;
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
	if (hold) {
		char line[16];

		printf("written %zu pages\n", npages);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 2;
	}
	for (i = 0; i < npages; i++)
		for (w = 0; w < words; w++)
			if (p[i * words + w] != pattern(i, w)) {
				bad++;
				break;
			}
	printf("pages %zu bad %zu\n", npages, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "policy"))
		return probe_policy(atoi(argv[2]));
	if ((argc == 3 || (argc == 4 && !strcmp(argv[3], "hold"))) &&
	    !strcmp(argv[1], "fill"))
		return fill(atol(argv[2]), argc == 4);
	fprintf(stderr, "usage: spm-probe policy NODE | spm-probe fill MIB [hold]\n");
	return 2;
}
