/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Idle wakeup attribution: the bookkeeping, kept free of hooks and per-CPU
 * data so that KUnit can drive it directly.
 */
#ifndef _KERNEL_TIME_WAKEUP_STATS_H
#define _KERNEL_TIME_WAKEUP_STATS_H

#include <linux/types.h>

enum wakeup_src {
	WAKEUP_UNKNOWN,		/* left idle with no handler seen */
	WAKEUP_TICK,		/* the tick itself, no timer expired */
	WAKEUP_HRTIMER,		/* an hrtimer other than the tick */
	WAKEUP_TIMER,		/* a timer_list callback run by the tick */
	WAKEUP_WORK,		/* the timer of a delayed work: its work */
	WAKEUP_IRQ,		/* a device interrupt */
	WAKEUP_IPI,		/* an inter-processor interrupt */
	WAKEUP_SRC_NR
};

#define WAKEUP_NAME_LEN		24

/**
 * struct wakeup_cause - what woke an idle CPU
 * @src: kind of source
 * @fn: the callback for %WAKEUP_HRTIMER and %WAKEUP_TIMER, the work
 *	function for %WAKEUP_WORK, the function a %WAKEUP_IPI ran if known
 * @irq: the interrupt number for %WAKEUP_IRQ
 * @name: irq action name, IPI type or why the tick ran (%WAKEUP_TICK),
 *	copied (actions can go away)
 */
struct wakeup_cause {
	enum wakeup_src src;
	const void *fn;
	unsigned int irq;
	char name[WAKEUP_NAME_LEN];
};

/**
 * struct wakeup_cpu_state - the wakeup a CPU is handling
 * @open: between the interrupt that woke the CPU and the return to idle
 * @held: the wakeup ended with the timer softirq it raised still to run
 *	(left to ksoftirqd): it is charged once that has run, and only the
 *	timer_list callbacks it runs may still name it
 * @final: @cause can no longer be refined
 * @seen: a cause has been noted in this wakeup
 * @cause: the cause so far
 *
 * The first event of a wakeup decides, with one exception: the timer
 * interrupt and the tick's own hrtimer are only plumbing.  They make a
 * provisional %WAKEUP_TICK that an hrtimer or timer_list callback run in
 * the same wakeup replaces, so a wakeup is charged to the timer that asked
 * for it, not to the tick that delivered it, even when the timer softirq
 * runs the callback in ksoftirqd after the CPU left idle.
 */
struct wakeup_cpu_state {
	bool open;
	bool held;
	bool final;
	bool seen;
	struct wakeup_cause cause;
};

/**
 * struct wakeup_entry - the wakeups of one CPU charged to one cause
 * @cause: the cause
 * @count: number of wakeups
 * @first_ns: time of the first (local_clock())
 * @last_ns: time of the last
 */
struct wakeup_entry {
	struct wakeup_cause cause;
	u64 count;
	u64 first_ns;
	u64 last_ns;
};

#define WAKEUP_ENTRIES		48

/**
 * struct wakeup_table - the wakeups of one CPU
 * @wakeups: wakeups charged, @overflow included
 * @overflow: wakeups whose cause did not fit in @entry
 * @nr: entries in use
 * @entry: charged causes
 */
struct wakeup_table {
	u64 wakeups;
	u64 overflow;
	unsigned int nr;
	struct wakeup_entry entry[WAKEUP_ENTRIES];
};

void wakeup_begin(struct wakeup_cpu_state *st);
void wakeup_note(struct wakeup_cpu_state *st, const struct wakeup_cause *c,
		 bool provisional);
void wakeup_note_timer(struct wakeup_cpu_state *st,
		       const struct wakeup_cause *c, bool provisional);
bool wakeup_end(struct wakeup_cpu_state *st, struct wakeup_cause *c,
		bool timer_softirq_pending);
bool wakeup_end_held(struct wakeup_cpu_state *st, struct wakeup_cause *c);
bool wakeup_cause_equal(const struct wakeup_cause *a,
			const struct wakeup_cause *b);
void wakeup_table_charge(struct wakeup_table *t, const struct wakeup_cause *c,
			 u64 now);
const char *wakeup_src_name(enum wakeup_src src);

#endif /* _KERNEL_TIME_WAKEUP_STATS_H */
