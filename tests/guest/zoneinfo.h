/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zoneinfo_high_wmark(f, node): the sum of the "high" watermarks of the
 * zones of @node in /proc/zoneinfo, read from @f, in pages; -1 if the node
 * has no zone there. For the guest helpers and tierbench, which hold or
 * fill a node up to that watermark.
 */
#ifndef ZONEINFO_H
#define ZONEINFO_H

#include <stdio.h>
#include <string.h>

static inline long zoneinfo_high_wmark(FILE *f, int node)
{
	char line[256], word[32];
	long sum = -1, v;
	int n, in_node = 0;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone", &n) == 1) {
			in_node = n == node;
			continue;
		}
		/* "high" alone: the per-CPU lists' "high:" is another thing */
		if (in_node && sscanf(line, " %31s %ld", word, &v) == 2 &&
		    !strcmp(word, "high"))
			sum = (sum < 0 ? 0 : sum) + v;
	}
	return sum;
}

#endif
