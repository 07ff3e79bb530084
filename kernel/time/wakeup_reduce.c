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
 * short (wakeup_reduce_idle_stop_tick(), below).
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
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/debug.h>
#include <linux/tick.h>
#include <linux/timer.h>
#include <linux/wakeup_reduce.h>

#include "tick-sched.h"

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

/*
 * The idle loop without a cpuidle driver (kernel/sched/idle.c) stops the
 * tick, in the base tree, only when the last idle period ended with a
 * tick: after a wakeup that ran a task it enters idle with the tick
 * running, and takes one more tick before it stops it.  On an idle system
 * that is a needless wakeup after every wakeup.  Stopping the tick at
 * every idle entry instead costs, when the CPU is soon woken again, two
 * reprogrammings of its clock event device for nothing (one to stop the
 * tick, one at idle exit to start it again), each an exit to the
 * hypervisor in a virtual machine: a pipe ping-pong between two CPUs is
 * made of such idle periods.
 *
 * So the tick is stopped at idle entry only when the idle period is not
 * likely to be short, with "short" below idle_stop_tick_us (a tick by
 * default): the next timer of the CPU is further away than that, and its
 * last idle period did not end sooner than that without a tick, the sign
 * of a CPU woken by interrupts or wakeups in quick succession.  Otherwise
 * the base tree's rule stays: one more tick, then the stop.  No governor
 * predicts better here, and with a cpuidle driver the governor decides.
 *
 * "idle_stop_tick=off" keeps the base tree's rule; idle_stop_tick_us=0
 * stops the tick at every idle entry.  Both read-only after boot but the
 * threshold, which a benchmark may change at run time.
 */
static bool idle_stop_tick __ro_after_init = true;
core_param(idle_stop_tick, idle_stop_tick, bool, 0444);

unsigned int idle_stop_tick_us __read_mostly = TICK_USEC;
core_param(idle_stop_tick_us, idle_stop_tick_us, uint, 0644);

/**
 * struct idle_stop_state - the last idle period of a CPU without cpuidle
 * @entry: local_clock() at its entry
 * @short_idle: it ended before idle_stop_tick_us without a tick
 */
struct idle_stop_state {
	u64 entry;
	bool short_idle;
};

static DEFINE_PER_CPU(struct idle_stop_state, idle_stop_state);

/**
 * wakeup_reduce_idle_stop_tick - stop the tick at this idle entry?
 * @stop_tick: what the idle loop would do: true after a tick
 *
 * Called by the idle loop of a CPU without a cpuidle driver, with
 * interrupts disabled, before it stops or retains the tick.
 *
 * Return: @stop_tick, or true where the idle period is not likely to be
 * short.
 */
bool wakeup_reduce_idle_stop_tick(bool stop_tick)
{
	struct idle_stop_state *s = this_cpu_ptr(&idle_stop_state);
	u64 min_ns = (u64)READ_ONCE(idle_stop_tick_us) * NSEC_PER_USEC;
	ktime_t delta_next;

	s->entry = local_clock();
	if (stop_tick || !wakeup_reduce_enabled() || !idle_stop_tick)
		return stop_tick;
	if (!min_ns)
		return true;
	if (s->short_idle)
		return false;
	return tick_nohz_get_sleep_length(&delta_next) >= (s64)min_ns;
}

/**
 * wakeup_reduce_idle_exit - note how the idle period ended
 *
 * Called by the idle loop of a CPU without a cpuidle driver when the CPU
 * leaves the idle state, after the interrupt that woke it.
 */
void wakeup_reduce_idle_exit(void)
{
	struct idle_stop_state *s = this_cpu_ptr(&idle_stop_state);
	u64 min_ns = (u64)READ_ONCE(idle_stop_tick_us) * NSEC_PER_USEC;
	struct tick_sched *ts = tick_get_tick_sched(smp_processor_id());

	s->short_idle = !ts->got_idle_tick &&
			local_clock() - s->entry < min_ns;
}
