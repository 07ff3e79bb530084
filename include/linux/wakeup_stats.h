/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks of idle wakeup attribution (CONFIG_IDLE_WAKEUP_STATS) in the tick,
 * timer, interrupt and IPI code.  Each is a static branch that stays off
 * until attribution is enabled, and nothing at all without the option.
 * See Documentation/timers/wakeup-stats.rst.
 */
#ifndef _LINUX_WAKEUP_STATS_H
#define _LINUX_WAKEUP_STATS_H

#include <linux/types.h>

struct task_struct;
struct timer_list;

#ifdef CONFIG_IDLE_WAKEUP_STATS
#include <linux/jump_label.h>

DECLARE_STATIC_KEY_FALSE(wakeup_stats_key);

void __wakeup_stats_begin(void);
void __wakeup_stats_end(bool no_irq);
void __wakeup_stats_irq(unsigned int irq, const char *name);
void __wakeup_stats_hrtimer(const void *timer, const void *fn);
void __wakeup_stats_timer(struct timer_list *timer, const void *fn);
void __wakeup_stats_timer_softirq_done(void);
void __wakeup_stats_tick_why(const char *why);
void __wakeup_stats_ipi(const char *name);
void __wakeup_stats_ipi_fn(const void *fn);
void __wakeup_stats_ipi_wake(struct task_struct *p);

/* An interrupt ends an idle period (tick_irq_enter) */
static __always_inline void wakeup_stats_begin(void)
{
	if (static_branch_unlikely(&wakeup_stats_key))
		__wakeup_stats_begin();
}

/*
 * The CPU goes back to idle or leaves the idle loop; @no_irq: it left
 * without an interrupt (a polling wakeup or an IPI that skips irq_enter).
 */
static __always_inline void wakeup_stats_end(bool no_irq)
{
	if (static_branch_unlikely(&wakeup_stats_key))
		__wakeup_stats_end(no_irq);
}

static __always_inline void wakeup_stats_irq(unsigned int irq,
					     const char *name)
{
	if (static_branch_unlikely(&wakeup_stats_key))
		__wakeup_stats_irq(irq, name);
}

static __always_inline void wakeup_stats_hrtimer(const void *timer,
						 const void *fn)
{
	if (static_branch_unlikely(&wakeup_stats_key))
		__wakeup_stats_hrtimer(timer, fn);
}

static __always_inline void wakeup_stats_timer(struct timer_list *timer,
					       const void *fn)
{
	if (static_branch_unlikely(&wakeup_stats_key))
		__wakeup_stats_timer(timer, fn);
}

/*
 * The timer softirq has run this CPU's expired timers: a wakeup whose
 * timer softirq was left to ksoftirqd is charged now, to the first timer
 * callback it ran.
 */
static __always_inline void wakeup_stats_timer_softirq_done(void)
{
	if (static_branch_unlikely(&wakeup_stats_key))
		__wakeup_stats_timer_softirq_done();
}

/*
 * Why the tick of an idle CPU stays on or is programmed when it is (a
 * string constant; NULL: RCU, the architecture, irq_work or a pending
 * timer softirq keeps it on, which the callee finds out).  A wakeup by
 * the tick that runs no timer is charged to it.
 */
static __always_inline void wakeup_stats_tick_why(const char *why)
{
	if (static_branch_unlikely(&wakeup_stats_key))
		__wakeup_stats_tick_why(why);
}

static __always_inline void wakeup_stats_ipi(const char *name)
{
	if (static_branch_unlikely(&wakeup_stats_key))
		__wakeup_stats_ipi(name);
}
#else
static inline void wakeup_stats_begin(void) { }
static inline void wakeup_stats_end(bool no_irq) { }
static inline void wakeup_stats_irq(unsigned int irq, const char *name) { }
static inline void wakeup_stats_hrtimer(const void *timer, const void *fn) { }
static inline void wakeup_stats_timer(struct timer_list *timer,
				      const void *fn) { }
static inline void wakeup_stats_timer_softirq_done(void) { }
static inline void wakeup_stats_tick_why(const char *why) { }
static inline void wakeup_stats_ipi(const char *name) { }
#endif

#endif /* _LINUX_WAKEUP_STATS_H */
