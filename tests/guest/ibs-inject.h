/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing to the kernel's IBS sample injector (<debugfs>/ibs_access/inject,
 * CONFIG_IBS_ACCESS_PROFILING_INJECT): one line per sampled access, the
 * address and " w" for a store, in writes of whole lines well under the
 * injector's 64 KiB limit. Shared by promote-watch and the bench's
 * tierbench.
 */
#ifndef IBS_INJECT_H
#define IBS_INJECT_H

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

struct ibs_inject {
	int fd;
	size_t len;
	long n;		/* lines in the buffer */
	char b[16384];
};

/*
 * Write out the buffered lines. Return: how many were injected, or
 * -errno (the buffer is emptied either way).
 */
static inline long ibs_inject_flush(struct ibs_inject *ib)
{
	long n = ib->n;

	if (ib->len && write(ib->fd, ib->b, ib->len) != (ssize_t)ib->len)
		n = -(errno ? errno : EIO);
	ib->len = 0;
	ib->n = 0;
	return n;
}

/*
 * Add the access at @addr; flushes when the buffer is nearly full.
 * Return: as ibs_inject_flush() when it flushed, else 0.
 */
static inline long ibs_inject_add(struct ibs_inject *ib, const volatile void *addr,
				  int store)
{
	ib->len += snprintf(ib->b + ib->len, sizeof(ib->b) - ib->len, "%#lx%s\n",
			    (unsigned long)addr, store ? " w" : "");
	ib->n++;
	return ib->len > sizeof(ib->b) - 32 ? ibs_inject_flush(ib) : 0;
}

#endif /* IBS_INJECT_H */
