// SPDX-License-Identifier: GPL-2.0
/*
 * Fewer wakeups of idle CPUs: the tick stop at idle entry of a CPU without
 * a cpuidle driver (CONFIG_IDLE_WAKEUP_REDUCE).
 */

#include <linux/cache.h>
#include <linux/init.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/tick.h>
#include <linux/wakeup_reduce.h>

#include "tick-sched.h"

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
bool idle_stop_tick __ro_after_init = true;
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

	/* off, or every entry: no bookkeeping */
	if (!wakeup_reduce_enabled() || !idle_stop_tick)
		return stop_tick;
	if (!min_ns)
		return true;
	s->entry = local_clock();
	if (stop_tick)
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
	struct tick_sched *ts;

	if (!wakeup_reduce_enabled() || !idle_stop_tick || !min_ns) {
		s->short_idle = false;
		return;
	}
	ts = tick_get_tick_sched(smp_processor_id());
	s->short_idle = !ts->got_idle_tick &&
			local_clock() - s->entry < min_ns;
}

/**
 * wakeup_reduce_idle_short - did the last idle period of this CPU end short?
 *
 * For the KUnit suite: what the next idle entry will go by.
 *
 * Return: its last idle period ended sooner than idle_stop_tick_us
 * without a tick.
 */
bool wakeup_reduce_idle_short(void)
{
	return this_cpu_ptr(&idle_stop_state)->short_idle;
}
