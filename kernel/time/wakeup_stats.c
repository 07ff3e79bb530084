// SPDX-License-Identifier: GPL-2.0
/*
 * Idle wakeup attribution.
 *
 * A tickless CPU saves power only while nothing wakes it.  This charges
 * every wakeup of an idle CPU to its cause: the hrtimer or timer_list
 * callback that asked for it, the device interrupt, the IPI, or the tick
 * itself.  It replaces what /proc/timer_stats once told, for idle CPUs only
 * and at no cost while it is not enabled.
 *
 * Hooks in tick-sched.c open a wakeup when an interrupt arrives on an idle
 * CPU (tick_irq_enter) and close it when the CPU goes back to idle or
 * leaves the idle loop; hooks in the interrupt, hrtimer, timer and IPI
 * code name the cause in between.  A wakeup whose timer softirq is left to
 * ksoftirqd stays held for its timer callbacks until that softirq has run.
 * The hooks are static branches, enabled only while attribution is on
 * (debugfs "wakeups/enable" or the "wakeup_stats" boot parameter).
 *
 * Locking: each CPU updates only its own state and table, from its own
 * interrupt entry and exit and idle loop.  The table is also read and reset
 * from other CPUs through debugfs, so it has a raw spinlock; the per-CPU
 * state is only ever touched by its CPU with interrupts off.
 */

#include <linux/debugfs.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/tick.h>
#include <linux/timer.h>
#include <linux/wakeup_stats.h>
#include <linux/workqueue.h>

#include "tick-internal.h"
#include "tick-sched.h"
#include "wakeup_stats.h"

/* Bookkeeping (also exercised by wakeup_stats_test.c) */

static const char * const wakeup_src_names[WAKEUP_SRC_NR] = {
	[WAKEUP_UNKNOWN] = "unknown",
	[WAKEUP_TICK] = "tick",
	[WAKEUP_HRTIMER] = "hrtimer",
	[WAKEUP_TIMER] = "timer",
	[WAKEUP_WORK] = "work",
	[WAKEUP_IRQ] = "irq",
	[WAKEUP_IPI] = "ipi",
};

const char *wakeup_src_name(enum wakeup_src src)
{
	return src < WAKEUP_SRC_NR ? wakeup_src_names[src] : "?";
}

void wakeup_begin(struct wakeup_cpu_state *st)
{
	st->open = true;
	st->held = false;
	st->final = false;
	st->seen = false;
}

static void wakeup_set_cause(struct wakeup_cpu_state *st,
			     const struct wakeup_cause *c, bool provisional)
{
	/* A provisional cause never replaces one already seen. */
	if (st->final || (provisional && st->seen))
		return;
	st->cause = *c;
	st->seen = true;
	st->final = !provisional;
}

/* An interrupt, an IPI or an hrtimer: only while the wakeup is open */
void wakeup_note(struct wakeup_cpu_state *st, const struct wakeup_cause *c,
		 bool provisional)
{
	if (st->open)
		wakeup_set_cause(st, c, provisional);
}

/* A timer_list callback: also while the wakeup is held for its softirq */
void wakeup_note_timer(struct wakeup_cpu_state *st,
		       const struct wakeup_cause *c, bool provisional)
{
	if (st->open || st->held)
		wakeup_set_cause(st, c, provisional);
}

static void wakeup_take_cause(struct wakeup_cpu_state *st,
			      struct wakeup_cause *c)
{
	if (st->seen) {
		*c = st->cause;
	} else {
		memset(c, 0, sizeof(*c));
		c->src = WAKEUP_UNKNOWN;
	}
}

/*
 * The CPU goes back to idle or leaves the idle loop.  Returns true and the
 * cause when a wakeup was open and is to be charged now: every wakeup
 * that ends is counted, whether or not a handler was seen.  When the
 * timer softirq is still pending, left to ksoftirqd instead of run on
 * the way out of the interrupt, and nothing final named the wakeup yet,
 * the timer callbacks that softirq runs are what woke the CPU: the
 * wakeup is held, and charged by wakeup_end_held() once they have run.
 */
bool wakeup_end(struct wakeup_cpu_state *st, struct wakeup_cause *c,
		bool timer_softirq_pending)
{
	if (!st->open)
		return false;
	st->open = false;
	if (timer_softirq_pending && !st->final) {
		st->held = true;
		return false;
	}
	wakeup_take_cause(st, c);
	return true;
}

/* The timer softirq has run: returns true and the cause of a held wakeup */
bool wakeup_end_held(struct wakeup_cpu_state *st, struct wakeup_cause *c)
{
	if (!st->held)
		return false;
	st->held = false;
	wakeup_take_cause(st, c);
	return true;
}

bool wakeup_cause_equal(const struct wakeup_cause *a,
			const struct wakeup_cause *b)
{
	if (a->src != b->src)
		return false;
	switch (a->src) {
	case WAKEUP_HRTIMER:
	case WAKEUP_TIMER:
	case WAKEUP_WORK:
		return a->fn == b->fn;
	case WAKEUP_IRQ:
		return a->irq == b->irq && !strcmp(a->name, b->name);
	case WAKEUP_IPI:
		return a->fn == b->fn && !strcmp(a->name, b->name);
	case WAKEUP_TICK:
		return !strcmp(a->name, b->name);
	default:
		return true;
	}
}

void wakeup_table_charge(struct wakeup_table *t, const struct wakeup_cause *c,
			 u64 now)
{
	struct wakeup_entry *e;
	unsigned int i;

	t->wakeups++;
	for (i = 0; i < t->nr; i++) {
		e = &t->entry[i];
		if (wakeup_cause_equal(&e->cause, c))
			goto found;
	}
	if (t->nr == WAKEUP_ENTRIES) {
		t->overflow++;
		return;
	}
	e = &t->entry[t->nr++];
	e->cause = *c;
	e->count = 0;
	e->first_ns = now;
found:
	e->count++;
	e->last_ns = now;
}

/* Per-CPU data and the hooks */

struct wakeup_cpu {
	struct wakeup_cpu_state st;
	const char *tick_why;		/* see wakeup_stats_tick_why() */
	raw_spinlock_t lock;		/* protects table */
	struct wakeup_table table;
};

DEFINE_STATIC_KEY_FALSE(wakeup_stats_key);
static DEFINE_PER_CPU(struct wakeup_cpu, wakeup_cpus);
static DEFINE_MUTEX(wakeup_mutex);	/* enable, disable, reset */
static bool wakeup_enabled;
static u64 wakeup_since_ns;

/*
 * The hooks run for every interrupt and timer callback, on busy CPUs too:
 * test first, without building a cause, whether this CPU has a wakeup
 * whose cause is still open (@timer: or held for the timer softirq).
 * Only this CPU changes its state, and never from an interrupt nested
 * inside a wakeup, so the unlocked read is safe.
 */
static bool wakeup_wants_cause(bool timer)
{
	struct wakeup_cpu_state *st = this_cpu_ptr(&wakeup_cpus.st);

	return (READ_ONCE(st->open) || (timer && READ_ONCE(st->held))) &&
	       !READ_ONCE(st->final);
}

static void wakeup_note_this_cpu(const struct wakeup_cause *c,
				 bool provisional)
{
	unsigned long flags;

	local_irq_save(flags);
	wakeup_note(this_cpu_ptr(&wakeup_cpus.st), c, provisional);
	local_irq_restore(flags);
}

/* Interrupts off */
static void wakeup_charge(struct wakeup_cpu *wc, const struct wakeup_cause *c)
{
	raw_spin_lock(&wc->lock);
	wakeup_table_charge(&wc->table, c, local_clock());
	raw_spin_unlock(&wc->lock);
}

/*
 * Interrupts off.  A held wakeup is charged when the timer softirq has
 * run; should a new wakeup start first, it is charged then.
 */
static void wakeup_charge_held(struct wakeup_cpu *wc)
{
	struct wakeup_cause c;

	if (wakeup_end_held(&wc->st, &c))
		wakeup_charge(wc, &c);
}

void __wakeup_stats_begin(void)
{
	struct wakeup_cpu *wc = this_cpu_ptr(&wakeup_cpus);

	wakeup_charge_held(wc);
	wakeup_begin(&wc->st);
}

void __wakeup_stats_end(bool no_irq)
{
	struct wakeup_cpu *wc;
	struct wakeup_cause c;
	unsigned long flags;

	local_irq_save(flags);
	wc = this_cpu_ptr(&wakeup_cpus);
	if (no_irq) {
		wakeup_charge_held(wc);
		wakeup_begin(&wc->st);
	}
	/*
	 * Nothing was handled, yet a task is to run: another CPU asked for
	 * it, by an IPI that bypasses irq_enter() or by a polling wakeup.
	 */
	if (!wc->st.seen && need_resched()) {
		c = (struct wakeup_cause){ .src = WAKEUP_IPI,
					   .name = "reschedule" };
		wakeup_note(&wc->st, &c, false);
	}
	/*
	 * The interrupt's exit runs the softirqs before this, unless it
	 * leaves them to ksoftirqd (already running, or threadirqs): then
	 * the timer callbacks have yet to run.
	 */
	if (wakeup_end(&wc->st, &c,
		       local_softirq_pending() & BIT(TIMER_SOFTIRQ)))
		wakeup_charge(wc, &c);
	local_irq_restore(flags);
}

/* The timer softirq has run its callbacks on this CPU */
void __wakeup_stats_timer_softirq_done(void)
{
	unsigned long flags;

	local_irq_save(flags);
	wakeup_charge_held(this_cpu_ptr(&wakeup_cpus));
	local_irq_restore(flags);
}

/* The tick, named after the reason it ran that tick-sched.c gave last. */
static void wakeup_tick_cause(struct wakeup_cause *c)
{
	const char *why = __this_cpu_read(wakeup_cpus.tick_why);

	memset(c, 0, sizeof(*c));
	c->src = WAKEUP_TICK;
	if (why)
		strscpy(c->name, why, sizeof(c->name));
}

void __wakeup_stats_tick_why(const char *why)
{
	if (!why)
		why = rcu_needs_cpu() ? "rcu" :
		      arch_needs_cpu() ? "arch" :
		      irq_work_needs_cpu() ? "irq_work" : "timer_softirq";
	__this_cpu_write(wakeup_cpus.tick_why, why);
}

void __wakeup_stats_irq(unsigned int irq, const char *name)
{
	struct clock_event_device *dev;
	struct wakeup_cause c = { .src = WAKEUP_IRQ, .irq = irq };

	if (!wakeup_wants_cause(false))
		return;
	/* The timer interrupt only delivers the timers that expired. */
	dev = __this_cpu_read(tick_cpu_device.evtdev);
	if (dev && dev->irq >= 0 && dev->irq == irq) {
		wakeup_tick_cause(&c);
		wakeup_note_this_cpu(&c, true);
		return;
	}
	if (name)
		strscpy(c.name, name, sizeof(c.name));
	wakeup_note_this_cpu(&c, false);
}

void __wakeup_stats_hrtimer(const void *timer, const void *fn)
{
	struct wakeup_cause c = { .src = WAKEUP_HRTIMER, .fn = fn };
	bool tick;

	if (!wakeup_wants_cause(false))
		return;
	tick = timer == &tick_get_tick_sched(smp_processor_id())->sched_timer;
	if (tick)
		wakeup_tick_cause(&c);
	wakeup_note_this_cpu(&c, tick);
}

void __wakeup_stats_timer(struct timer_list *timer, const void *fn)
{
	struct wakeup_cause c = { .src = WAKEUP_TIMER, .fn = fn };
	unsigned long flags;

	if (!wakeup_wants_cause(true))
		return;
	/*
	 * Every delayed work expires through delayed_work_timer_fn(): name
	 * the work instead, which says who asked for it.
	 */
	if (fn == delayed_work_timer_fn) {
		c.src = WAKEUP_WORK;
		c.fn = container_of(timer, struct delayed_work, timer)->work.func;
	}
	/*
	 * A deferrable timer never wakes an idle CPU: it runs because the
	 * CPU woke for something else, which keeps the charge.
	 */
	local_irq_save(flags);
	wakeup_note_timer(this_cpu_ptr(&wakeup_cpus.st), &c,
			  timer->flags & TIMER_DEFERRABLE);
	local_irq_restore(flags);
}

void __wakeup_stats_ipi(const char *name)
{
	struct wakeup_cause c = { .src = WAKEUP_IPI };

	if (!wakeup_wants_cause(false))
		return;
	strscpy(c.name, name, sizeof(c.name));
	wakeup_note_this_cpu(&c, false);
}

/* A function-call IPI that runs @fn (smp_call_function*(), irq_work) */
void __wakeup_stats_ipi_fn(const void *fn)
{
	struct wakeup_cause c = { .src = WAKEUP_IPI, .fn = fn };

	if (!wakeup_wants_cause(false))
		return;
	strscpy(c.name, "call", sizeof(c.name));
	wakeup_note_this_cpu(&c, false);
}

/*
 * A function-call IPI that wakes @p, queued by ttwu_queue_wakelist():
 * another CPU made @p runnable here.  @p is on this CPU's wake list, so it
 * cannot go away; its name is read without the task lock, as a name that
 * changes under us is still a name.
 */
void __wakeup_stats_ipi_wake(struct task_struct *p)
{
	struct wakeup_cause c = { .src = WAKEUP_IPI };
	char comm[TASK_COMM_LEN];

	if (!wakeup_wants_cause(false))
		return;
	memcpy(comm, p->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	snprintf(c.name, sizeof(c.name), "wake %s", comm);
	wakeup_note_this_cpu(&c, false);
}

/* Only while disabled: no hook runs, so no CPU touches its state. */
static void wakeup_reset_states(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu_ptr(&wakeup_cpus, cpu)->st.open = false;
		per_cpu_ptr(&wakeup_cpus, cpu)->st.held = false;
	}
}

static void wakeup_reset(void)
{
	unsigned long flags;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct wakeup_cpu *wc = per_cpu_ptr(&wakeup_cpus, cpu);

		raw_spin_lock_irqsave(&wc->lock, flags);
		memset(&wc->table, 0, sizeof(wc->table));
		raw_spin_unlock_irqrestore(&wc->lock, flags);
	}
	wakeup_since_ns = local_clock();
}

static void wakeup_set_enabled(bool on)
{
	mutex_lock(&wakeup_mutex);
	if (on && !wakeup_enabled) {
		wakeup_reset_states();
		wakeup_reset();
		static_branch_enable(&wakeup_stats_key);
	} else if (!on && wakeup_enabled) {
		static_branch_disable(&wakeup_stats_key);
		/* Let hooks that saw the branch enabled finish. */
		synchronize_rcu();
	}
	wakeup_enabled = on;
	mutex_unlock(&wakeup_mutex);
}

/* debugfs: wakeups/enable, wakeups/reset, wakeups/stats */

struct wakeup_row {
	unsigned int cpu;
	struct wakeup_entry e;
};

static int wakeup_row_cmp(const void *a, const void *b)
{
	const struct wakeup_row *x = a, *y = b;

	if (x->e.count != y->e.count)
		return x->e.count < y->e.count ? 1 : -1;
	return x->cpu - y->cpu;
}

static void wakeup_show_what(struct seq_file *m, const struct wakeup_cause *c)
{
	switch (c->src) {
	case WAKEUP_HRTIMER:
	case WAKEUP_TIMER:
	case WAKEUP_WORK:
		seq_printf(m, "%ps\n", c->fn);
		break;
	case WAKEUP_IRQ:
		seq_printf(m, "%u:%s\n", c->irq, c->name);
		break;
	case WAKEUP_IPI:
		if (c->fn)
			seq_printf(m, "%s %ps\n", c->name, c->fn);
		else
			seq_printf(m, "%s\n", c->name);
		break;
	case WAKEUP_TICK:
		seq_printf(m, "%s\n", c->name[0] ? c->name : "-");
		break;
	default:
		seq_puts(m, "-\n");
	}
}

static int wakeup_stats_show(struct seq_file *m, void *v)
{
	struct wakeup_row *rows;
	unsigned int n = 0, i, max = num_possible_cpus() * WAKEUP_ENTRIES;
	u64 now = local_clock(), period, since;
	unsigned long flags;
	int cpu;

	rows = kvmalloc_array(max, sizeof(*rows), GFP_KERNEL);
	if (!rows)
		return -ENOMEM;

	mutex_lock(&wakeup_mutex);
	since = wakeup_since_ns;
	period = wakeup_enabled ? now - since : 0;
	seq_printf(m, "# enabled %d period_ms %llu\n", wakeup_enabled,
		   div_u64(period, NSEC_PER_MSEC));
	seq_puts(m, "# cpu wakeups overflow\n");
	for_each_possible_cpu(cpu) {
		struct wakeup_cpu *wc = per_cpu_ptr(&wakeup_cpus, cpu);

		raw_spin_lock_irqsave(&wc->lock, flags);
		seq_printf(m, "cpu %d %llu %llu\n", cpu, wc->table.wakeups,
			   wc->table.overflow);
		for (i = 0; i < wc->table.nr && n < max; i++, n++) {
			rows[n].cpu = cpu;
			rows[n].e = wc->table.entry[i];
		}
		raw_spin_unlock_irqrestore(&wc->lock, flags);
	}
	mutex_unlock(&wakeup_mutex);

	sort(rows, n, sizeof(*rows), wakeup_row_cmp, NULL);
	seq_puts(m, "# cpu count first_ms last_ms source what\n");
	for (i = 0; i < n; i++) {
		seq_printf(m, "%u %llu %llu %llu %s ", rows[i].cpu,
			   rows[i].e.count,
			   div_u64(rows[i].e.first_ns - since, NSEC_PER_MSEC),
			   div_u64(rows[i].e.last_ns - since, NSEC_PER_MSEC),
			   wakeup_src_name(rows[i].e.cause.src));
		wakeup_show_what(m, &rows[i].e.cause);
	}
	kvfree(rows);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wakeup_stats);

static int wakeup_enable_get(void *data, u64 *val)
{
	*val = wakeup_enabled;
	return 0;
}

static int wakeup_enable_set(void *data, u64 val)
{
	wakeup_set_enabled(!!val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(wakeup_enable_fops, wakeup_enable_get,
			 wakeup_enable_set, "%llu\n");

static int wakeup_reset_set(void *data, u64 val)
{
	mutex_lock(&wakeup_mutex);
	wakeup_reset();
	mutex_unlock(&wakeup_mutex);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(wakeup_reset_fops, NULL, wakeup_reset_set, "%llu\n");

static bool wakeup_boot_enable __initdata;

static int __init wakeup_stats_setup(char *str)
{
	wakeup_boot_enable = true;
	return 1;
}
__setup("wakeup_stats", wakeup_stats_setup);

static int __init wakeup_stats_init(void)
{
	struct dentry *dir;
	int cpu;

	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(&wakeup_cpus, cpu)->lock);

	dir = debugfs_create_dir("wakeups", NULL);
	debugfs_create_file_unsafe("enable", 0600, dir, NULL,
				   &wakeup_enable_fops);
	debugfs_create_file_unsafe("reset", 0200, dir, NULL,
				   &wakeup_reset_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &wakeup_stats_fops);

	if (wakeup_boot_enable)
		wakeup_set_enabled(true);
	return 0;
}
late_initcall(wakeup_stats_init);
