/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Segregated-fit SLOB: what its KUnit tests look at.
 */
#ifndef MM_SLOB_SEG_H
#define MM_SLOB_SEG_H

#include <linux/types.h>

/* Free objects a CPU may hold per size class, out of the pool's count. */
#define SLOB_SEG_CPU_MAX	8

/* Live objects and pages of the size class that serves kmalloc(size). */
struct slob_seg_usage {
	unsigned int slot;		/* bytes per object */
	unsigned long objects;		/* live objects */
	unsigned long slabs;		/* pages */
};

bool slob_seg_kmalloc_usage(size_t size, struct slob_seg_usage *u);

/* Corruptions the debug checks have reported since boot. */
unsigned long slob_seg_debug_errors(void);

#endif /* MM_SLOB_SEG_H */
