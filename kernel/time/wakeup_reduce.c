// SPDX-License-Identifier: GPL-2.0
/*
 * Fewer wakeups of idle CPUs.
 *
 * What still wakes an idle tickless 6.1 system, once the attribution of
 * CONFIG_IDLE_WAKEUP_STATS names it, is mostly housekeeping that polls:
 * a thread that looks every half second whether there is work (kcompactd's
 * proactive compaction), a work item that re-arms itself until a condition
 * holds (the %p hashing key waiting for the RNG).  Nothing is gained by
 * running such a poll on a CPU that is otherwise idle: whatever it would
 * find is made by code that runs on an awake CPU.
 *
 * The tool here is the deferrable timer, which mainline already uses for
 * the vmstat and writeback housekeeping: it never expires before its
 * expiry time and, on an awake CPU, no later than a timer_list timer of
 * the same timeout; on an idle CPU it waits for the next wakeup of that
 * CPU instead of causing one.  Only polls whose result cannot change
 * while the CPU sleeps, or that something else wakes explicitly when it
 * must run (a wake_up(), a queue_work()), are made deferrable: the hooks
 * say why for each.  Timers that must be on time are left alone.
 *
 * Without a cpuidle driver, the idle loop also stops the tick at idle
 * entry instead of one tick later, unless the idle period is likely to be
 * short (wakeup_reduce_idle.c).
 *
 * The "wakeup_reduce=off" boot parameter turns all of it off, so that
 * one kernel can be measured both ways; "idle_stop_tick=off" turns off
 * only the tick stop at idle entry.
 */

#include <linux/cache.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/timer.h>
#include <linux/wakeup_reduce.h>

/*
 * "wakeup_reduce=off" at boot; read-only later, as the polls choose their
 * timers when they start.  Shown in /sys/module/kernel/parameters/.
 */
bool wakeup_reduce_on __read_mostly = true;
core_param(wakeup_reduce, wakeup_reduce_on, bool, 0444);

struct wakeup_reduce_sleeper {
	struct timer_list timer;
	struct task_struct *task;
};

static void wakeup_reduce_timeout(struct timer_list *t)
{
	struct wakeup_reduce_sleeper *s = from_timer(s, t, timer);

	wake_up_process(s->task);
}

/**
 * schedule_timeout_deferrable - sleep until timeout, without waking an idle CPU
 * @timeout: timeout value in jiffies
 *
 * schedule_timeout() with a deferrable timer: the task state must be set
 * before the call, and the remaining jiffies are returned as there.  The
 * timeout expires no earlier than @timeout jiffies from now, and on a CPU
 * that is awake then no later than schedule_timeout()'s would; on an idle
 * CPU it waits until the CPU wakes for another reason.  Only for sleepers
 * that another path wakes when they must run.  With wakeup_reduce=off,
 * and for MAX_SCHEDULE_TIMEOUT or a negative timeout, this is
 * schedule_timeout().
 *
 * Return: 0 when the timer expired, otherwise the jiffies that remained.
 */
long __sched schedule_timeout_deferrable(long timeout)
{
	struct wakeup_reduce_sleeper s;
	unsigned long expire;

	if (!wakeup_reduce_enabled() || timeout < 0 ||
	    timeout == MAX_SCHEDULE_TIMEOUT)
		return schedule_timeout(timeout);

	expire = timeout + jiffies;
	s.task = current;
	timer_setup_on_stack(&s.timer, wakeup_reduce_timeout, TIMER_DEFERRABLE);
	mod_timer(&s.timer, expire);
	schedule();
	del_timer_sync(&s.timer);
	destroy_timer_on_stack(&s.timer);

	timeout = expire - jiffies;
	return timeout < 0 ? 0 : timeout;
}
EXPORT_SYMBOL(schedule_timeout_deferrable);
