// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of idle wakeup attribution: which cause an idle period is
 * charged to, and how the per-CPU table counts them.
 */
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "wakeup_stats.h"

static void fn_a(void) { }
static void fn_b(void) { }

static struct wakeup_cause cause(enum wakeup_src src, const void *fn,
				 unsigned int irq, const char *name)
{
	struct wakeup_cause c = { .src = src, .fn = fn, .irq = irq };

	strscpy(c.name, name ?: "", sizeof(c.name));
	return c;
}

/* Run one wakeup with the given events; return what it is charged to. */
static struct wakeup_cause idle_period(struct kunit *test,
				       const struct wakeup_cause *ev,
				       const bool *provisional, int n)
{
	struct wakeup_cpu_state st = {};
	struct wakeup_cause got;
	int i;

	wakeup_begin(&st);
	for (i = 0; i < n; i++)
		wakeup_note(&st, &ev[i], provisional[i]);
	KUNIT_ASSERT_TRUE(test, wakeup_end(&st, &got, false));
	return got;
}

static void test_device_irq_is_charged(struct kunit *test)
{
	struct wakeup_cause ev[] = { cause(WAKEUP_IRQ, NULL, 11, "eth0") };
	bool prov[] = { false };
	struct wakeup_cause got = idle_period(test, ev, prov, 1);

	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_IRQ);
	KUNIT_EXPECT_EQ(test, got.irq, 11u);
	KUNIT_EXPECT_STREQ(test, got.name, "eth0");
}

static void test_timer_behind_tick_is_charged_not_tick(struct kunit *test)
{
	struct wakeup_cause ev[] = {
		cause(WAKEUP_TICK, NULL, 0, NULL),	/* timer interrupt */
		cause(WAKEUP_TICK, NULL, 0, NULL),	/* tick_sched_timer */
		cause(WAKEUP_TIMER, fn_a, 0, NULL),	/* expired timer_list */
		cause(WAKEUP_TIMER, fn_b, 0, NULL),
	};
	bool prov[] = { true, true, false, false };
	struct wakeup_cause got = idle_period(test, ev, prov, 4);

	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_TIMER);
	KUNIT_EXPECT_PTR_EQ(test, got.fn, (const void *)fn_a);
}

static void test_bare_tick_is_charged_to_tick(struct kunit *test)
{
	struct wakeup_cause ev[] = {
		cause(WAKEUP_TICK, NULL, 0, NULL),
		cause(WAKEUP_TICK, NULL, 0, NULL),
	};
	bool prov[] = { true, true };

	KUNIT_EXPECT_EQ(test, idle_period(test, ev, prov, 2).src, WAKEUP_TICK);
}

static void test_hrtimer_refines_tick(struct kunit *test)
{
	struct wakeup_cause ev[] = {
		cause(WAKEUP_TICK, NULL, 0, NULL),
		cause(WAKEUP_HRTIMER, fn_b, 0, NULL),
		cause(WAKEUP_IRQ, NULL, 5, "late"),
	};
	bool prov[] = { true, false, false };
	struct wakeup_cause got = idle_period(test, ev, prov, 3);

	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_HRTIMER);
	KUNIT_EXPECT_PTR_EQ(test, got.fn, (const void *)fn_b);
}

static void test_first_final_cause_wins(struct kunit *test)
{
	struct wakeup_cause ev[] = {
		cause(WAKEUP_IPI, NULL, 0, "reschedule"),
		cause(WAKEUP_TIMER, fn_a, 0, NULL),
		cause(WAKEUP_TICK, NULL, 0, NULL),
	};
	bool prov[] = { false, false, true };
	struct wakeup_cause got = idle_period(test, ev, prov, 3);

	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_IPI);
	KUNIT_EXPECT_STREQ(test, got.name, "reschedule");
}

static void test_no_handler_is_unknown(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, idle_period(test, NULL, NULL, 0).src,
			WAKEUP_UNKNOWN);
}

static void test_events_outside_idle_are_ignored(struct kunit *test)
{
	struct wakeup_cpu_state st = {};
	struct wakeup_cause c = cause(WAKEUP_IRQ, NULL, 3, "busy"), got;

	/* Events while no wakeup is open (CPU busy) are not wakeups. */
	wakeup_note(&st, &c, false);
	KUNIT_EXPECT_FALSE(test, wakeup_end(&st, &got, false));

	/* ...and do not leak into the next wakeup. */
	wakeup_begin(&st);
	KUNIT_ASSERT_TRUE(test, wakeup_end(&st, &got, false));
	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_UNKNOWN);
	KUNIT_EXPECT_FALSE(test, wakeup_end(&st, &got, false));
}

static void test_table_counts_and_times(struct kunit *test)
{
	struct wakeup_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct wakeup_cause a = cause(WAKEUP_TIMER, fn_a, 0, NULL);
	struct wakeup_cause b = cause(WAKEUP_TIMER, fn_b, 0, NULL);
	struct wakeup_cause i1 = cause(WAKEUP_IRQ, NULL, 7, "mmc0");
	struct wakeup_cause i2 = cause(WAKEUP_IRQ, NULL, 7, "mmc1");

	KUNIT_ASSERT_NOT_NULL(test, t);
	wakeup_table_charge(t, &a, 100);
	wakeup_table_charge(t, &b, 150);
	wakeup_table_charge(t, &a, 200);
	wakeup_table_charge(t, &i1, 250);
	wakeup_table_charge(t, &i2, 300);	/* shared irq, other action */

	KUNIT_EXPECT_EQ(test, t->wakeups, 5ull);
	KUNIT_EXPECT_EQ(test, t->nr, 4u);
	KUNIT_EXPECT_EQ(test, t->entry[0].count, 2ull);
	KUNIT_EXPECT_EQ(test, t->entry[0].first_ns, 100ull);
	KUNIT_EXPECT_EQ(test, t->entry[0].last_ns, 200ull);
	KUNIT_EXPECT_EQ(test, t->entry[1].count, 1ull);
	KUNIT_EXPECT_STREQ(test, t->entry[3].cause.name, "mmc1");
}

static void test_table_overflow_is_counted(struct kunit *test)
{
	struct wakeup_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct wakeup_cause c;
	u64 sum = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < WAKEUP_ENTRIES + 10; i++) {
		c = cause(WAKEUP_IRQ, NULL, i, "dev");
		wakeup_table_charge(t, &c, i);
	}
	KUNIT_EXPECT_EQ(test, t->nr, (unsigned int)WAKEUP_ENTRIES);
	KUNIT_EXPECT_EQ(test, t->overflow, 10ull);
	for (i = 0; i < t->nr; i++)
		sum += t->entry[i].count;
	/* Nothing is lost: every wakeup is in an entry or in overflow. */
	KUNIT_EXPECT_EQ(test, sum + t->overflow, t->wakeups);
}

/* A deferrable timer run by a tick that woke for another reason */
static void test_deferrable_keeps_tick(struct kunit *test)
{
	struct wakeup_cause ev[] = {
		cause(WAKEUP_TICK, NULL, 0, "max_deferment"),
		cause(WAKEUP_WORK, fn_a, 0, NULL),	/* deferrable */
	};
	bool prov[] = { true, true };
	struct wakeup_cause got = idle_period(test, ev, prov, 2);

	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_TICK);
	KUNIT_EXPECT_STREQ(test, got.name, "max_deferment");
}

/* ... and a real cause after a deferrable one replaces it */
static void test_deferrable_is_replaced(struct kunit *test)
{
	struct wakeup_cause ev[] = {
		cause(WAKEUP_WORK, fn_a, 0, NULL),	/* deferrable */
		cause(WAKEUP_TIMER, fn_b, 0, NULL),
	};
	bool prov[] = { true, false };
	struct wakeup_cause got = idle_period(test, ev, prov, 2);

	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_TIMER);
	KUNIT_EXPECT_PTR_EQ(test, got.fn, (const void *)fn_b);
}

/* Ticks for different reasons and works are told apart in the table */
static void test_tick_reasons_and_works_are_entries(struct kunit *test)
{
	struct wakeup_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct wakeup_cause t1 = cause(WAKEUP_TICK, NULL, 0, "next_timer");
	struct wakeup_cause t2 = cause(WAKEUP_TICK, NULL, 0, "rcu");
	struct wakeup_cause w = cause(WAKEUP_WORK, fn_a, 0, NULL);
	struct wakeup_cause tm = cause(WAKEUP_TIMER, fn_a, 0, NULL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	wakeup_table_charge(t, &t1, 1);
	wakeup_table_charge(t, &t2, 2);
	wakeup_table_charge(t, &t1, 3);
	wakeup_table_charge(t, &w, 4);
	wakeup_table_charge(t, &tm, 5);
	KUNIT_EXPECT_EQ(test, t->nr, 4u);
	KUNIT_EXPECT_EQ(test, t->entry[0].count, 2ull);
	KUNIT_EXPECT_EQ(test, t->wakeups, 5ull);
	KUNIT_EXPECT_STREQ(test, wakeup_src_name(WAKEUP_WORK), "work");
}

/* IPIs are told apart by what they ran */
static void test_ipis_by_function(struct kunit *test)
{
	struct wakeup_cause a = cause(WAKEUP_IPI, fn_a, 0, "call");
	struct wakeup_cause b = cause(WAKEUP_IPI, fn_b, 0, "call");
	struct wakeup_cause w1 = cause(WAKEUP_IPI, NULL, 0, "wake kworker/1:1");
	struct wakeup_cause w2 = cause(WAKEUP_IPI, NULL, 0, "wake rcu_sched");

	KUNIT_EXPECT_TRUE(test, wakeup_cause_equal(&a, &a));
	KUNIT_EXPECT_FALSE(test, wakeup_cause_equal(&a, &b));
	KUNIT_EXPECT_FALSE(test, wakeup_cause_equal(&w1, &w2));
	KUNIT_EXPECT_FALSE(test, wakeup_cause_equal(&a, &w1));
}

/*
 * The tick woke the CPU, and its timer softirq was left to ksoftirqd: the
 * CPU left idle with only the provisional tick seen.  The wakeup is held,
 * an interrupt taken by the CPU now busy does not name it, and the timer
 * callback ksoftirqd runs does, as if it had run on the way out of the
 * interrupt.
 */
static void test_timer_run_by_ksoftirqd_is_charged(struct kunit *test)
{
	struct wakeup_cause tick = cause(WAKEUP_TICK, NULL, 0, "next_timer");
	struct wakeup_cause busy = cause(WAKEUP_IRQ, NULL, 4, "busy");
	struct wakeup_cause a = cause(WAKEUP_TIMER, fn_a, 0, NULL);
	struct wakeup_cause b = cause(WAKEUP_TIMER, fn_b, 0, NULL);
	struct wakeup_cpu_state st = {};
	struct wakeup_cause got;

	wakeup_begin(&st);
	wakeup_note(&st, &tick, true);		/* timer interrupt */
	wakeup_note(&st, &tick, true);		/* tick_sched_timer */
	/* idle exit, TIMER_SOFTIRQ pending: nothing charged yet */
	KUNIT_EXPECT_FALSE(test, wakeup_end(&st, &got, true));
	KUNIT_EXPECT_FALSE(test, wakeup_end(&st, &got, true));
	wakeup_note(&st, &busy, false);		/* not a wakeup's cause */
	wakeup_note_timer(&st, &a, false);	/* run by ksoftirqd */
	wakeup_note_timer(&st, &b, false);
	KUNIT_ASSERT_TRUE(test, wakeup_end_held(&st, &got));
	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_TIMER);
	KUNIT_EXPECT_PTR_EQ(test, got.fn, (const void *)fn_a);
	/* charged once */
	KUNIT_EXPECT_FALSE(test, wakeup_end_held(&st, &got));
}

/* ...when it runs only a deferrable timer, the tick keeps the charge */
static void test_held_wakeup_without_timer_is_tick(struct kunit *test)
{
	struct wakeup_cause tick = cause(WAKEUP_TICK, NULL, 0, "rcu");
	struct wakeup_cause w = cause(WAKEUP_WORK, fn_a, 0, NULL);
	struct wakeup_cpu_state st = {};
	struct wakeup_cause got;

	wakeup_begin(&st);
	wakeup_note(&st, &tick, true);
	KUNIT_EXPECT_FALSE(test, wakeup_end(&st, &got, true));
	wakeup_note_timer(&st, &w, true);	/* deferrable */
	KUNIT_ASSERT_TRUE(test, wakeup_end_held(&st, &got));
	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_TICK);
	KUNIT_EXPECT_STREQ(test, got.name, "rcu");
}

/* A wakeup already named for good is charged at once, softirq or not */
static void test_final_cause_is_not_held(struct kunit *test)
{
	struct wakeup_cause irq = cause(WAKEUP_IRQ, NULL, 9, "eth0");
	struct wakeup_cause a = cause(WAKEUP_TIMER, fn_a, 0, NULL);
	struct wakeup_cpu_state st = {};
	struct wakeup_cause got;

	wakeup_begin(&st);
	wakeup_note(&st, &irq, false);
	KUNIT_ASSERT_TRUE(test, wakeup_end(&st, &got, true));
	KUNIT_EXPECT_EQ(test, got.src, WAKEUP_IRQ);
	wakeup_note_timer(&st, &a, false);
	KUNIT_EXPECT_FALSE(test, wakeup_end_held(&st, &got));
}

/*
 * What attribution costs an idle CPU per wakeup, at its worst: the timer
 * interrupt and the tick's hrtimer make provisional causes, a device
 * interrupt the final one, and the charge searches a full table to its
 * last entry.  The fastest of several batches is reported, so that the
 * host taking the CPU away for a while (UML, TCG) does not count; the
 * bound is only there to catch a change that makes the bookkeeping
 * orders of magnitude dearer, not to judge the machine.
 */
#define COST_BATCHES	10
#define COST_WAKEUPS	2000
#define COST_MAX_NS	20000

static void test_cost_of_a_wakeup(struct kunit *test)
{
	struct wakeup_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct wakeup_cause tick = cause(WAKEUP_TICK, NULL, 0, NULL);
	struct wakeup_cause c, got;
	struct wakeup_cpu_state st = {};
	u64 best = U64_MAX, t0, ns;
	unsigned int b, i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < WAKEUP_ENTRIES; i++) {
		c = cause(WAKEUP_IRQ, NULL, i, "dev");
		wakeup_table_charge(t, &c, 0);
	}
	/* c is the last entry's cause: every charge walks the whole table */
	for (b = 0; b < COST_BATCHES; b++) {
		t0 = ktime_get_ns();
		for (i = 0; i < COST_WAKEUPS; i++) {
			wakeup_begin(&st);
			wakeup_note(&st, &tick, true);
			wakeup_note(&st, &tick, true);
			wakeup_note(&st, &c, false);
			if (wakeup_end(&st, &got, false))
				wakeup_table_charge(t, &got, t0);
		}
		ns = ktime_get_ns() - t0;
		best = min(best, ns);
	}
	KUNIT_EXPECT_EQ(test, t->entry[WAKEUP_ENTRIES - 1].count,
			1ull + COST_BATCHES * COST_WAKEUPS);
	KUNIT_EXPECT_EQ(test, t->overflow, 0ull);
	kunit_info(test, "one wakeup: %llu ns of bookkeeping (full table)\n",
		   div_u64(best, COST_WAKEUPS));
	KUNIT_EXPECT_LT(test, div_u64(best, COST_WAKEUPS), (u64)COST_MAX_NS);
}

static struct kunit_case wakeup_stats_cases[] = {
	KUNIT_CASE(test_device_irq_is_charged),
	KUNIT_CASE(test_timer_behind_tick_is_charged_not_tick),
	KUNIT_CASE(test_bare_tick_is_charged_to_tick),
	KUNIT_CASE(test_hrtimer_refines_tick),
	KUNIT_CASE(test_first_final_cause_wins),
	KUNIT_CASE(test_no_handler_is_unknown),
	KUNIT_CASE(test_events_outside_idle_are_ignored),
	KUNIT_CASE(test_table_counts_and_times),
	KUNIT_CASE(test_table_overflow_is_counted),
	KUNIT_CASE(test_deferrable_keeps_tick),
	KUNIT_CASE(test_deferrable_is_replaced),
	KUNIT_CASE(test_tick_reasons_and_works_are_entries),
	KUNIT_CASE(test_ipis_by_function),
	KUNIT_CASE(test_timer_run_by_ksoftirqd_is_charged),
	KUNIT_CASE(test_held_wakeup_without_timer_is_tick),
	KUNIT_CASE(test_final_cause_is_not_held),
	KUNIT_CASE(test_cost_of_a_wakeup),
	{}
};

static struct kunit_suite wakeup_stats_suite = {
	.name = "wakeup_stats",
	.test_cases = wakeup_stats_cases,
};

kunit_test_suite(wakeup_stats_suite);

MODULE_LICENSE("GPL");
