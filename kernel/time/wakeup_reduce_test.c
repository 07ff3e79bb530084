// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the deferrable timeouts of CONFIG_IDLE_WAKEUP_REDUCE.
 *
 * The rule the polls made deferrable must keep: on a CPU that is awake, a
 * deferrable timeout expires no earlier than asked and no later than the
 * timer wheel lets a timer_list timeout of the same length expire (its
 * level's granularity, computed here as kernel/time/timer.c does); and a
 * wake_up() ends a deferrable wait at once, whatever its timeout.  A
 * thread that spins on the test's CPU keeps the CPU awake, as the CPUs
 * whose housekeeping must still run are.  And the point of it all: on an
 * idle CPU, a deferrable timeout does not wake the CPU, it waits for the
 * CPU's next wakeup.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/tick.h>
#include <linux/wait.h>
#include <linux/wakeup_reduce.h>

#include "tick-internal.h"

/*
 * The lateness the timer wheel allows a timer @delta jiffies away: it is
 * queued in the bucket after its expiry at the granularity of its level
 * (8 times coarser each level, level 0 up to 62 jiffies), so it expires
 * up to one granularity late, never early.
 */
static unsigned long wheel_slack(unsigned long delta)
{
	unsigned long start = 63;	/* LVL_START(1) */
	unsigned int lvl = 0;

	while (delta >= start && lvl < 8) {
		lvl++;
		start <<= 3;
	}
	return 1UL << (3 * lvl);
}

static int spin_fn(void *unused)
{
	while (!kthread_should_stop()) {
		cpu_relax();
		cond_resched();
	}
	return 0;
}

static struct task_struct *start_spinner(struct kunit *test)
{
	struct task_struct *t = kthread_create(spin_fn, NULL, "wakeup_spin");

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, raw_smp_processor_id());
	wake_up_process(t);
	return t;
}

static void test_wheel_slack(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wheel_slack(1), 1ul);
	KUNIT_EXPECT_EQ(test, wheel_slack(62), 1ul);
	KUNIT_EXPECT_EQ(test, wheel_slack(63), 8ul);
	KUNIT_EXPECT_EQ(test, wheel_slack(503), 8ul);
	KUNIT_EXPECT_EQ(test, wheel_slack(504), 64ul);
}

/* Never early, and on an awake CPU never later than a timer_list timeout */
static void test_timeout_expiry_window(struct kunit *test)
{
	static const long timeouts[] = { 1, 2, 5, 20, 70, 130 };
	struct task_struct *spinner;
	unsigned long t0, elapsed;
	unsigned int i;
	long left;

	KUNIT_ASSERT_TRUE(test, wakeup_reduce_enabled());
	spinner = start_spinner(test);
	for (i = 0; i < ARRAY_SIZE(timeouts); i++) {
		long to = timeouts[i];

		t0 = jiffies;
		set_current_state(TASK_UNINTERRUPTIBLE);
		left = schedule_timeout_deferrable(to);
		elapsed = jiffies - t0;
		KUNIT_EXPECT_EQ_MSG(test, left, 0l, "timeout %ld", to);
		KUNIT_EXPECT_GE_MSG(test, elapsed, (unsigned long)to,
				    "timeout %ld expired early", to);
		/* one more jiffy: the tick that runs the timer wakes us */
		KUNIT_EXPECT_LE_MSG(test, elapsed, to + wheel_slack(to) + 1,
				    "timeout %ld expired late", to);
	}
	kthread_stop(spinner);
}

struct waker {
	wait_queue_head_t wq;
	bool done;
};

static int waker_fn(void *data)
{
	struct waker *w = data;

	msleep(20);
	WRITE_ONCE(w->done, true);
	wake_up(&w->wq);
	return 0;
}

/* A wake_up() ends a deferrable wait at once, long before its timeout */
static void test_wake_up_ends_wait(struct kunit *test)
{
	struct waker *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct task_struct *t;
	unsigned long t0;
	long ret;

	KUNIT_ASSERT_NOT_NULL(test, w);
	init_waitqueue_head(&w->wq);
	t = kthread_run(waker_fn, w, "wakeup_waker");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	t0 = jiffies;
	ret = wait_event_freezable_timeout_deferrable(w->wq, READ_ONCE(w->done),
						      60 * HZ);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(w->done));
	KUNIT_EXPECT_GT(test, ret, 0l);
	KUNIT_EXPECT_LT(test, jiffies - t0, (unsigned long)HZ);
}

/* The condition is checked first: no sleep at all when it holds */
static void test_condition_true_does_not_sleep(struct kunit *test)
{
	DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);
	long ret = wait_event_freezable_timeout_deferrable(wq, true, 10);

	KUNIT_EXPECT_EQ(test, ret, 10l);
}

/*
 * On an idle CPU the deferrable timeout waits for the CPU's next wakeup.
 * The task sleeps DEFER_TIMEOUT jiffies with no spinner, so the CPU goes
 * idle; an hrtimer DEFER_ANCHOR ticks away is the next wakeup the test
 * knows of.  A timer_list timeout would wake the task long before the
 * hrtimer fires; the deferrable one must not, and wakes after it.  Any
 * other wakeup of the CPU in between (RCU, a device) ends the wait
 * earlier, as it should, so only most rounds have to wait for the
 * hrtimer: a timeout that is not deferred waits for it in none, unless
 * the host stops the whole kernel for DEFER_ANCHOR ticks in most rounds.
 */
#define DEFER_ROUNDS	10
#define DEFER_TIMEOUT	2
#define DEFER_ANCHOR	10

struct defer_anchor {
	struct hrtimer timer;
	ktime_t fired;
};

static enum hrtimer_restart defer_anchor_fn(struct hrtimer *t)
{
	struct defer_anchor *a = container_of(t, struct defer_anchor, timer);

	a->fired = ktime_get();
	return HRTIMER_NORESTART;
}

static void test_deferred_on_idle_cpu(struct kunit *test)
{
	struct defer_anchor *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	unsigned int i, deferred = 0;
	ktime_t t0, woke;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_TRUE(test, wakeup_reduce_enabled());
	if (!tick_nohz_active)
		kunit_skip(test, "the tick is not stopped in idle (nohz off)");
	hrtimer_init(&a->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	a->timer.function = defer_anchor_fn;
	migrate_disable();
	for (i = 0; i < DEFER_ROUNDS; i++) {
		a->fired = 0;
		t0 = ktime_get();
		hrtimer_start(&a->timer, ns_to_ktime(DEFER_ANCHOR * TICK_NSEC),
			      HRTIMER_MODE_REL_HARD);
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_timeout_deferrable(DEFER_TIMEOUT);
		woke = ktime_get();
		hrtimer_cancel(&a->timer);
		KUNIT_EXPECT_GE(test, ktime_to_ns(ktime_sub(woke, t0)),
				(s64)(DEFER_TIMEOUT - 1) * TICK_NSEC);
		if (a->fired && ktime_compare(woke, a->fired) >= 0)
			deferred++;
	}
	migrate_enable();
	kunit_info(test, "%u of %u timeouts waited for the next wakeup\n",
		   deferred, DEFER_ROUNDS);
	KUNIT_EXPECT_GE_MSG(test, deferred, DEFER_ROUNDS / 2u,
			    "a deferrable timeout woke an idle CPU");
}

static struct kunit_case wakeup_reduce_cases[] = {
	KUNIT_CASE(test_wheel_slack),
	KUNIT_CASE(test_timeout_expiry_window),
	KUNIT_CASE(test_wake_up_ends_wait),
	KUNIT_CASE(test_condition_true_does_not_sleep),
	KUNIT_CASE(test_deferred_on_idle_cpu),
	{}
};

static struct kunit_suite wakeup_reduce_suite = {
	.name = "wakeup_reduce",
	.test_cases = wakeup_reduce_cases,
};

kunit_test_suite(wakeup_reduce_suite);

MODULE_LICENSE("GPL");
