// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the idle tick of CONFIG_IDLE_WAKEUP_REDUCE.
 *
 * Without a cpuidle driver, the idle loop of the base tree stops the tick
 * only when the last idle period ended with a tick: after a wakeup that
 * ran a task, it enters idle with the tick running, takes one more tick a
 * jiffy later and only then stops it.  With wakeup_reduce on, it stops the
 * tick at idle entry, unless the idle period is likely to be short: the
 * last one ended sooner than idle_stop_tick_us without a tick.
 *
 * The test goes through the real idle loop.  A task wakes from a timer
 * (the wakeup that runs a task), then sleeps until an hrtimer 3.5 ticks
 * away; the hrtimer's callback counts the interrupts the CPU took while
 * idle.  With the tick stopped at idle entry there is one, the hrtimer's
 * own; with the tick retained there are at least two, the retained tick
 * and the hrtimer.  Interrupts that have nothing to do with the test (RCU
 * keeping the tick, a device) can only add to the count, so the smallest
 * count of a few rounds is taken.  The timer interrupt must be counted in
 * kstat_cpu_irqs_sum(), as on UML where make kunit runs; elsewhere the
 * test is skipped.  Seeing no idle period at all is a failure.  The one
 * thing the idle loop cannot show on UML, an idle period that ended
 * without a tick, is tested on the hooks themselves.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpuidle.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel_stat.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/tick.h>
#include <linux/wakeup_reduce.h>

#include "tick-internal.h"
#include "tick-sched.h"

#define ROUNDS		20
#define MAX_TRIES	(10 * ROUNDS)

struct idle_probe {
	struct hrtimer timer;
	struct completion done;
	unsigned long irqs;
	bool idle;
	bool stopped;
};

static enum hrtimer_restart idle_probe_fn(struct hrtimer *t)
{
	struct idle_probe *p = container_of(t, struct idle_probe, timer);

	p->irqs = kstat_cpu_irqs_sum(smp_processor_id());
	p->idle = is_idle_task(current);
	p->stopped = tick_nohz_tick_stopped();
	complete(&p->done);
	return HRTIMER_NORESTART;
}

/*
 * One idle period right after a timer wakeup that ran this task: the
 * interrupts the CPU took until the probe fired; p->idle says whether the
 * probe found the CPU idle.
 */
static unsigned long idle_period_irqs(struct idle_probe *p)
{
	unsigned long irqs0;

	migrate_disable();
	schedule_timeout_uninterruptible(1);
	irqs0 = kstat_cpu_irqs_sum(smp_processor_id());
	reinit_completion(&p->done);
	hrtimer_start(&p->timer, ns_to_ktime(3 * TICK_NSEC + TICK_NSEC / 2),
		      HRTIMER_MODE_REL_HARD);
	wait_for_completion(&p->done);
	migrate_enable();
	return p->irqs - irqs0;
}

/*
 * The fewest interrupts of ROUNDS idle periods with wakeup_reduce @on;
 * @stopped says whether the tick was stopped in a round with that count.
 * A round whose probe did not find the
 * CPU idle (another task ran) does not count: up to MAX_TRIES rounds are
 * run to find ROUNDS idle ones.  The case fails when it finds none, as a
 * case that did not see what it tests proves nothing; it is skipped only
 * when the architecture does not count the timer interrupt, which the
 * probe finds out.
 */
static unsigned long fewest_irqs(struct kunit *test, bool on, bool *stopped)
{
	struct idle_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned long n, fewest = 0;
	unsigned int idle = 0, tries;

	KUNIT_ASSERT_NOT_NULL(test, p);
	init_completion(&p->done);
	hrtimer_init(&p->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	p->timer.function = idle_probe_fn;
	WRITE_ONCE(wakeup_reduce_on, on);
	*stopped = false;
	for (tries = 0; tries < MAX_TRIES && idle < ROUNDS; tries++) {
		n = idle_period_irqs(p);
		if (!p->idle)
			continue;
		idle++;
		if (!n)
			continue;
		if (!fewest || n < fewest) {
			fewest = n;
			*stopped = p->stopped;
		} else if (n == fewest) {
			*stopped |= p->stopped;
		}
	}
	hrtimer_cancel(&p->timer);
	KUNIT_ASSERT_GT_MSG(test, idle, 0u,
			    "no idle period seen in %u rounds", tries);
	if (!fewest)
		kunit_skip(test, "timer interrupts not counted in kstat_cpu_irqs_sum()");
	return fewest;
}

static bool saved_on;
static unsigned int saved_us;

static int idle_tick_init(struct kunit *test)
{
	struct cpuidle_device *dev;
	bool no_driver;

	/* first: the exit function restores it even after a skip */
	saved_on = READ_ONCE(wakeup_reduce_on);
	saved_us = READ_ONCE(idle_stop_tick_us);
	WRITE_ONCE(idle_stop_tick_us, jiffies_to_usecs(1));
	if (!tick_nohz_active)
		kunit_skip(test, "the tick is not stopped in idle (nohz off)");
	if (!idle_stop_tick)
		kunit_skip(test, "booted with idle_stop_tick=off");
	preempt_disable();
	dev = cpuidle_get_device();
	no_driver = cpuidle_not_available(cpuidle_get_cpu_driver(dev), dev);
	preempt_enable();
	if (!no_driver)
		kunit_skip(test, "the CPU has a cpuidle driver");
	return 0;
}

static void idle_tick_exit(struct kunit *test)
{
	WRITE_ONCE(wakeup_reduce_on, saved_on);
	WRITE_ONCE(idle_stop_tick_us, saved_us);
}

/*
 * wakeup_reduce on: after an idle period that lasted until the tick, the
 * tick is stopped at the first idle entry
 */
static void test_tick_stopped_at_idle_entry(struct kunit *test)
{
	unsigned long irqs;
	bool stopped;

	irqs = fewest_irqs(test, true, &stopped);
	kunit_info(test, "wakeup_reduce on: %lu interrupt(s), tick %s\n", irqs,
		   stopped ? "stopped" : "running");
	KUNIT_EXPECT_EQ_MSG(test, irqs, 1ul,
			    "the tick ran on after the wakeup that ran a task");
	KUNIT_EXPECT_TRUE(test, stopped);
}

/*
 * wakeup_reduce on, the next timer nearer than idle_stop_tick_us: the idle
 * period is likely to be short, and the tick is kept, as the base tree
 * does.  The probe is 3.5 ticks away; the threshold is set to 5.
 */
static void test_near_timer_retains_tick(struct kunit *test)
{
	unsigned long irqs;
	bool stopped;

	WRITE_ONCE(idle_stop_tick_us, 5 * jiffies_to_usecs(1));
	irqs = fewest_irqs(test, true, &stopped);
	kunit_info(test, "next timer nearer than idle_stop_tick_us: %lu interrupt(s)\n",
		   irqs);
	KUNIT_EXPECT_GE_MSG(test, irqs, 2ul,
			    "the tick was stopped with the next timer near");
}

/*
 * The other half of the filter: an idle period that ended sooner than
 * idle_stop_tick_us without a tick makes the next idle entry keep the
 * tick.  Every wakeup on UML comes with the tick (no high resolution
 * timers), so the hooks are called here as the idle loop calls them, with
 * interrupts off and a threshold of a second: an entry after a tick,
 * which stops the tick without asking for the next timer, an exit at
 * once, and, if that idle period was taken for short, the next entry,
 * which must keep the tick without asking either.  An exit with the
 * filter off then forgets the short idle period for the real idle loop.
 */
static void test_short_idle_retains_tick(struct kunit *test)
{
	bool first, is_short, next = true;
	struct tick_sched *ts;
	unsigned long flags;

	WRITE_ONCE(wakeup_reduce_on, true);
	WRITE_ONCE(idle_stop_tick_us, USEC_PER_SEC);
	local_irq_save(flags);
	ts = tick_get_tick_sched(smp_processor_id());
	first = wakeup_reduce_idle_stop_tick(true);
	wakeup_reduce_idle_exit();
	is_short = wakeup_reduce_idle_short() && !ts->got_idle_tick;
	if (is_short)
		next = wakeup_reduce_idle_stop_tick(false);
	WRITE_ONCE(idle_stop_tick_us, 0);
	wakeup_reduce_idle_exit();
	local_irq_restore(flags);
	KUNIT_EXPECT_TRUE(test, first);
	KUNIT_ASSERT_TRUE_MSG(test, is_short,
			      "an idle period of no time was not taken for short");
	KUNIT_EXPECT_FALSE_MSG(test, next,
			       "the tick would be stopped after a short idle period");
}

/* idle_stop_tick_us=0: the tick is stopped at every idle entry */
static void test_zero_threshold_stops_always(struct kunit *test)
{
	unsigned long irqs;
	bool stopped;

	WRITE_ONCE(idle_stop_tick_us, 0);
	irqs = fewest_irqs(test, true, &stopped);
	kunit_info(test, "idle_stop_tick_us=0: %lu interrupt(s)\n", irqs);
	KUNIT_EXPECT_EQ_MSG(test, irqs, 1ul,
			    "the tick ran on with idle_stop_tick_us=0");
	KUNIT_EXPECT_TRUE(test, stopped);
}

/* wakeup_reduce=off: the base tree's rule, one more tick before it stops */
static void test_off_retains_tick(struct kunit *test)
{
	unsigned long irqs;
	bool stopped;

	irqs = fewest_irqs(test, false, &stopped);
	kunit_info(test, "wakeup_reduce off: %lu interrupt(s)\n", irqs);
	KUNIT_EXPECT_GE_MSG(test, irqs, 2ul,
			    "the tick was stopped at idle entry with wakeup_reduce=off");
}

static struct kunit_case wakeup_reduce_idle_cases[] = {
	KUNIT_CASE(test_tick_stopped_at_idle_entry),
	KUNIT_CASE(test_near_timer_retains_tick),
	KUNIT_CASE(test_short_idle_retains_tick),
	KUNIT_CASE(test_zero_threshold_stops_always),
	KUNIT_CASE(test_off_retains_tick),
	{}
};

static struct kunit_suite wakeup_reduce_idle_suite = {
	.name = "wakeup_reduce_idle",
	.init = idle_tick_init,
	.exit = idle_tick_exit,
	.test_cases = wakeup_reduce_idle_cases,
};

kunit_test_suite(wakeup_reduce_idle_suite);

MODULE_LICENSE("GPL");
