/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thp_backed(p): whether the mapping that holds address p has transparent
 * huge pages (AnonHugePages > 0 in /proc/self/smaps). Shared by
 * tests/guest/promote-watch.c and bench/tierbench.c.
 */
#ifndef THP_BACKED_H
#define THP_BACKED_H

#include <stdint.h>
#include <stdio.h>

static inline int thp_backed(const void *p)
{
	char line[256];
	unsigned long start, end, kb;
	int in = 0, thp = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &start, &end) == 2)
			in = (uintptr_t)p >= start && (uintptr_t)p < end;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			thp = kb > 0;
	}
	fclose(f);
	return thp;
}

#endif
