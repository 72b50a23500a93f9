/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TLB turnover for workloads that a page-table scanner must see, under
 * QEMU's TCG.
 *
 * A scanner sees an access only through the Accessed bit, which the CPU
 * sets when it walks the page table on a TLB miss: in the PTE, and in the
 * PMD above it, which MGLRU's walker checks first and skips the whole PTE
 * table when it is clear. A real CPU misses all the time. TCG keeps every
 * translation until the guest flushes its TLB, so once a scan has cleared
 * the bits, a loop over the same pages never sets them again. A context
 * switch to another process flushes, but a busy neighbour on the CPU was
 * not enough: in about one run in five the scans still found the hot set
 * idle for tens of seconds while it switched 80 times a second.
 *
 * tlb_turnover() flushes the TLB of this process wherever it runs: it
 * write-protects a private region of more pages than x86 flushes one at
 * a time (33), so the kernel flushes the whole TLB of the mm. Call it
 * every few milliseconds from the workload.
 * Shared by tests/guest/promote-watch.c and bench/tierbench.c.
 */
#ifndef TLB_TURNOVER_H
#define TLB_TURNOVER_H

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TLB_TURNOVER_PAGES 64

struct tlb_turnover {
	char *buf;
	size_t bytes;
};

static inline int tlb_turnover_init(struct tlb_turnover *t)
{
	t->bytes = TLB_TURNOVER_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	t->buf = mmap(NULL, t->bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->buf == MAP_FAILED)
		return -1;
	memset(t->buf, 1, t->bytes);
	return 0;
}

static inline void tlb_turnover(struct tlb_turnover *t)
{
	/* Writable to read-only changes every PTE: a flush of the mm. */
	mprotect(t->buf, t->bytes, PROT_READ);
	mprotect(t->buf, t->bytes, PROT_READ | PROT_WRITE);
	/* Make the PTEs writable again if mprotect left them read-only. */
	memset(t->buf, 1, t->bytes);
}

#endif
