/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the guest's C tools (promote-watch, pte-thp,
 * splice-hold): a fatal error, a monotonic clock in ms, and a line of
 * /proc/vmstat.
 */
#ifndef GUEST_HELPERS_H
#define GUEST_HELPERS_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Exit 2 (a setup error to the test scripts), naming the tool. */
static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(errno));
	exit(2);
}

static inline long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The value of counter @name in /proc/vmstat, or -1 if there is none. */
static inline long vmstat(const char *name)
{
	char key[64];
	long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		die("/proc/vmstat");
	while (fscanf(f, "%63s %ld", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

#endif
