/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fewer wakeups of idle CPUs (CONFIG_IDLE_WAKEUP_REDUCE): what the hooks in
 * the compaction, vsprintf, random and idle loop code use.  Without the
 * option each helper is what mainline does, so the hooks compile away;
 * with it, the "wakeup_reduce=off" boot parameter gives mainline's
 * behaviour back.
 * See Documentation/timers/wakeup-reduce.rst.
 */
#ifndef _LINUX_WAKEUP_REDUCE_H
#define _LINUX_WAKEUP_REDUCE_H

#include <linux/compiler.h>
#include <linux/wait.h>

#ifdef CONFIG_IDLE_WAKEUP_REDUCE
extern bool wakeup_reduce_on;

static inline bool wakeup_reduce_enabled(void)
{
	return READ_ONCE(wakeup_reduce_on);
}

long schedule_timeout_deferrable(long timeout);

/* The idle loop without a cpuidle driver: the tick stop at idle entry */
extern bool idle_stop_tick;
extern unsigned int idle_stop_tick_us;
bool wakeup_reduce_idle_stop_tick(bool stop_tick);
void wakeup_reduce_idle_exit(void);
bool wakeup_reduce_idle_short(void);

/*
 * wait_event_freezable_timeout() for housekeeping threads that poll: the
 * timeout is a deferrable timer, which expires no earlier than asked but
 * does not wake an idle CPU; it runs when the CPU wakes for something
 * else.  A wake_up() of @wq_head still ends the wait at once.
 */
#define wait_event_freezable_timeout_deferrable(wq_head, condition, timeout) \
({									\
	might_sleep();							\
	___wait_event(wq_head, ___wait_cond_timeout(condition),		\
		      (TASK_INTERRUPTIBLE | TASK_FREEZABLE), 0, timeout, \
		      __ret = schedule_timeout_deferrable(__ret));	\
})
#else
static inline bool wakeup_reduce_enabled(void)
{
	return false;
}

static inline bool wakeup_reduce_idle_stop_tick(bool stop_tick)
{
	return stop_tick;
}

static inline void wakeup_reduce_idle_exit(void)
{
}

#define wait_event_freezable_timeout_deferrable(wq_head, condition, timeout) \
	wait_event_freezable_timeout(wq_head, condition, timeout)
#endif

#endif /* _LINUX_WAKEUP_REDUCE_H */
