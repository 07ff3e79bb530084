// SPDX-License-Identifier: GPL-2.0
/*
 * Dependency-aware parallel device probing.
 *
 * The driver core can already probe a device from an async worker
 * (driver_allows_async_probing(), __device_attach_async_helper()), but it
 * starts the probe as soon as the device or the driver is registered.  A
 * consumer whose suppliers are still probing then fails the supplier check
 * in really_probe(), lands on the deferred list and is retried every time
 * any device binds; a child can probe while its parent's probe is still
 * running.
 *
 * This scheduler sits between the request for an asynchronous probe and
 * the async worker.  A request is launched at once when the device is
 * ready: its parent has no probe queued or running, and every managed
 * device link to a supplier (those fw_devlink creates from firmware
 * included) has a bound supplier, which is exactly the condition under
 * which device_links_check_suppliers() lets the probe go on.  Otherwise
 * the device is parked, holding a reference, and looked at again when a
 * driver binds (driver_deferred_probe_trigger()), when a probe it may wait
 * for ends, and when it is removed.  So declared dependencies never cost
 * an -EPROBE_DEFER, independent devices probe concurrently, and
 * undeclared dependencies still go through the deferred probe list.
 *
 * A device that becomes ready in a probe (an async worker) is launched in
 * another async worker; one requested from anywhere else is queued on the
 * requester's CPU, which waits until the probe has ended or sleeps, so a
 * probe that does not wait for its hardware costs what a synchronous one
 * costs (see pprobe_launch()).
 *
 * A parked device is in the state a deferred one is in: wait_for_device_probe()
 * does not wait for it, and it probes when what it waits for binds.  A
 * launched one is an ordinary async_schedule_dev() entry, so the barriers
 * built on async_synchronize_full() still cover it; its dependents are
 * launched from inside its own async entry, before that entry completes,
 * so a barrier cannot slip between a probe and the probes it unblocks.
 */

#define pr_fmt(fmt) "parallel_probe: " fmt

#include <linux/async.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "base.h"
#include "parallel_probe.h"

enum {
	PPROBE_IDLE,		/* not known to the scheduler */
	PPROBE_PARKED,		/* waiting for its parent or a supplier */
	PPROBE_QUEUED,		/* handed to async_schedule_dev() */
	PPROBE_RUNNING,		/* the async helper is running */
};

/*
 * "driver_parallel_probe=" holds a comma separated list: "*" selects every
 * driver, a driver name selects that driver, "!name" excludes it, "off"
 * alone turns the scheduler off and leaves the driver core as in mainline.
 */
#define PPROBE_NAMES_MAX_LEN	256
static char pprobe_names[PPROBE_NAMES_MAX_LEN];
static bool pprobe_all = true;
static bool pprobe_listed;

static DEFINE_MUTEX(pprobe_lock);
static LIST_HEAD(pprobe_parked);
static unsigned int pprobe_nr_parked;
static unsigned int pprobe_inflight;

static atomic_t pprobe_requests = ATOMIC_INIT(0);
static atomic_t pprobe_parks = ATOMIC_INIT(0);
static atomic_t pprobe_launches = ATOMIC_INIT(0);
static atomic_t pprobe_locals = ATOMIC_INIT(0);
static atomic_t pprobe_probes = ATOMIC_INIT(0);
static atomic_t pprobe_deferrals = ATOMIC_INIT(0);

static int __init pprobe_setup(char *buf)
{
	const char *p;

	if (strlen(buf) >= PPROBE_NAMES_MAX_LEN)
		pr_warn("driver_parallel_probe= is too long, truncated\n");
	strscpy(pprobe_names, buf, sizeof(pprobe_names));

	pprobe_all = false;
	pprobe_listed = false;
	for (p = pprobe_names; *p; ) {
		const char *end = strchrnul(p, ',');
		size_t len = end - p;

		if ((len == 1 && *p == '*') || (len == 2 && !strncmp(p, "on", 2)))
			pprobe_all = true;
		else if (len && !(len == 3 && !strncmp(p, "off", 3)))
			pprobe_listed = true;
		p = *end ? end + 1 : end;
	}
	return 1;
}
__setup("driver_parallel_probe=", pprobe_setup);

/* 1 if @name is listed, -1 if listed as "!name", 0 if not listed */
static int pprobe_listed_as(const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = pprobe_names; *p; ) {
		const char *end = strchrnul(p, ',');
		bool neg = *p == '!';
		const char *tok = p + neg;

		if (end - tok == len && !strncmp(tok, name, len))
			return neg ? -1 : 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/**
 * driver_pprobe_active() - is the dependency-aware scheduler in use?
 *
 * Return: false only with "driver_parallel_probe=off", where asynchronous
 * probes are scheduled as in mainline.
 */
bool driver_pprobe_active(void)
{
	return pprobe_all || pprobe_listed;
}

/**
 * driver_pprobe_wanted() - should @drv probe in parallel by default?
 * @drv: a driver with the default probe type
 *
 * A driver named on the command line is always parallel ("name") or
 * never ("!name").  The rest follow "*", with two exceptions.  Buses that
 * want the parent locked while a child probes (USB interfaces): the async
 * probe path of the driver core does not take that lock.  And requests
 * from kernel threads other than the async workers: a device that the
 * serio or USB hub thread, say, registers is already probed in the
 * background, off the boot's critical path, and an async probe would only
 * make the boot's async_synchronize_full() wait for it.  The async workers
 * are where the probes this scheduler launches run, so the devices they
 * register are probed in parallel too.
 *
 * The answer must not change between the request and the async helper,
 * which asks again: both run in the same kind of context.
 *
 * Return: true if @drv should probe asynchronously.
 */
bool driver_pprobe_wanted(struct device_driver *drv)
{
	int listed = pprobe_listed ? pprobe_listed_as(drv->name) : 0;

	if (listed)
		return listed > 0;
	if (!pprobe_all || (drv->bus && drv->bus->need_parent_lock))
		return false;
	return !(current->flags & PF_KTHREAD) || current_is_async();
}

/*
 * Can @dev probe now?  Called with pprobe_lock held.  Its parent counts
 * while a probe of the parent is pending here (parked, queued or
 * running): a child probed before its parent's driver defers or fails.
 * A parent with nothing pending does not hold its children back, since
 * many parents never get a driver.
 */
static bool pprobe_ready(struct device *dev)
{
	struct device *parent = dev->parent;

	if (parent && parent->p && parent->p->pprobe_state != PPROBE_IDLE)
		return false;
	return device_links_suppliers_ready(dev);
}

/* Park or queue @dev, which holds a reference for the request. */
static void pprobe_enqueue(struct device *dev, struct list_head *launch)
{
	struct device_private *p = dev->p;

	if (pprobe_ready(dev)) {
		p->pprobe_state = PPROBE_QUEUED;
		pprobe_inflight++;
		list_add_tail(&p->pprobe_node, launch);
	} else {
		p->pprobe_state = PPROBE_PARKED;
		pprobe_nr_parked++;
		atomic_inc(&pprobe_parks);
		list_add_tail(&p->pprobe_node, &pprobe_parked);
	}
}

/*
 * Move the parked devices that became ready to @launch and the removed
 * ones to @drop.  Called with pprobe_lock held.  Dropping a parent can
 * make a child that was looked at before it ready: scan again then.
 */
static void pprobe_rescan(struct list_head *launch, struct list_head *drop)
{
	struct device_private *p, *n;
	bool dropped;

	do {
		dropped = false;
		list_for_each_entry_safe(p, n, &pprobe_parked, pprobe_node) {
			if (p->dead) {
				p->pprobe_state = PPROBE_IDLE;
				pprobe_nr_parked--;
				list_move_tail(&p->pprobe_node, drop);
				dropped = true;
			} else if (pprobe_ready(p->device)) {
				p->pprobe_state = PPROBE_QUEUED;
				pprobe_nr_parked--;
				pprobe_inflight++;
				list_move_tail(&p->pprobe_node, launch);
			}
		}
	} while (dropped);
}

/*
 * An async worker running pprobe_run().  When the probe it runs binds its
 * device, the worker goes on with one of the devices that became ready,
 * if any, instead of handing it to another worker: the next probe on a
 * dependency chain starts without a wakeup, which is most of the delay
 * between the end of a probe and the start of the next on a busy host.
 */
struct pprobe_runner {
	struct list_head node;
	struct task_struct *task;
	struct device *dev;	/* the device being probed */
	struct device *next;	/* a ready device to probe after it */
	bool done;		/* the probe of @dev has returned */
};

static LIST_HEAD(pprobe_runners);

/*
 * Keep one device of @launch for the worker that runs this, if it is a
 * runner whose probe has bound its device or returned: that probe is about
 * to end, and the worker takes the device next.  Called with pprobe_lock
 * held.
 */
static void pprobe_claim(struct list_head *launch)
{
	struct device_private *p;
	struct pprobe_runner *r;

	if (list_empty(launch) || !current_is_async())
		return;
	list_for_each_entry(r, &pprobe_runners, node) {
		if (r->task != current)
			continue;
		if (r->next || !(r->done || device_is_bound(r->dev)))
			return;
		p = list_first_entry(launch, struct device_private, pprobe_node);
		list_del(&p->pprobe_node);
		atomic_inc(&pprobe_launches);
		r->next = p->device;
		return;
	}
}

static void pprobe_run(void *data, async_cookie_t cookie);

/*
 * The work item a requester queues behind the probes it launched on its
 * own CPU, and waits for.
 */
struct pprobe_resume {
	struct work_struct work;
	struct completion done;
};

static void pprobe_resume_fn(struct work_struct *work)
{
	complete(&container_of(work, struct pprobe_resume, work)->done);
}

/*
 * Let the probes just queued on @cpu start, and come back when each of
 * them has ended or is sleeping.  The workqueue's concurrency management
 * runs the work items of a CPU one after the other while they keep the
 * CPU busy and starts the next one when the running one sleeps; the
 * resume item queued last thus runs once no probe before it is running,
 * in the worker of the last probe that ended or in a new one.
 */
static void pprobe_wait_local(int cpu)
{
	struct pprobe_resume res;

	might_sleep();
	INIT_WORK_ONSTACK(&res.work, pprobe_resume_fn);
	init_completion(&res.done);
	queue_work_on(cpu, system_wq, &res.work);
	wait_for_completion(&res.done);
	destroy_work_on_stack(&res.work);
}

/*
 * Hand the devices of @launch to async workers and drop the references of
 * @drop.  Called without pprobe_lock: async_schedule_dev() runs the
 * function itself when it cannot allocate, and the probe must not run
 * under the lock.
 *
 * From an async worker, that is from a probe that bound its device, the
 * devices it made ready go to unbound workers, to run next to it.  Any
 * other requester (an initcall, a task registering a driver or a device)
 * queues them on its own CPU and waits until each has ended or sleeps.  A
 * probe that does not wait for anything, as most of the probes at boot,
 * then runs at once on a CPU that is running anyway, as if it were
 * synchronous: no idle CPU is woken for it (on a kernel without
 * preemption a worker on the requester's CPU would not even start before
 * the requester sleeps), and it does not compete with the requester for
 * CPU time or locks.  A probe that waits for its hardware sleeps, and the
 * requester goes on while it waits.
 */
static void pprobe_launch(struct list_head *launch, struct list_head *drop)
{
	bool local = !current_is_async();
	int cpu = raw_smp_processor_id();
	struct device_private *p, *n;
	bool wait = false;

	list_for_each_entry_safe(p, n, drop, pprobe_node) {
		list_del(&p->pprobe_node);
		put_device(p->device);
	}
	list_for_each_entry_safe(p, n, launch, pprobe_node) {
		list_del(&p->pprobe_node);
		atomic_inc(&pprobe_launches);
		if (local && async_schedule_dev_on_cpu(pprobe_run, p->device, cpu)) {
			atomic_inc(&pprobe_locals);
			wait = true;
			continue;
		}
		async_schedule_dev(pprobe_run, p->device);
	}
	if (wait)
		pprobe_wait_local(cpu);
}

/* Probe @dev, a queued device, in @r's worker. */
static void pprobe_run_one(struct pprobe_runner *r, struct device *dev,
			   async_cookie_t cookie)
{
	struct device_private *p = dev->p;
	LIST_HEAD(launch);
	LIST_HEAD(drop);
	bool again_dead = false;
	async_func_t fn;

	/* fn drops the request's reference; keep dev until we are done */
	get_device(dev);

	mutex_lock(&pprobe_lock);
	p->pprobe_state = PPROBE_RUNNING;
	fn = p->pprobe_fn;
	r->dev = dev;
	r->next = NULL;
	r->done = false;
	mutex_unlock(&pprobe_lock);

	fn(dev, cookie);

	mutex_lock(&pprobe_lock);
	r->done = true;
	p->pprobe_state = PPROBE_IDLE;
	p->pprobe_queued = 0;
	pprobe_inflight--;
	if (p->pprobe_again) {
		/* a driver came while we probed: run again, on its reference */
		p->pprobe_again = false;
		if (p->dead) {
			again_dead = true;
		} else {
			p->pprobe_queued = ktime_get_ns();
			pprobe_enqueue(dev, &launch);
		}
	}
	pprobe_rescan(&launch, &drop);
	pprobe_claim(&launch);
	mutex_unlock(&pprobe_lock);

	pprobe_launch(&launch, &drop);
	if (again_dead)
		put_device(dev);
	put_device(dev);
}

static void pprobe_run(void *data, async_cookie_t cookie)
{
	struct pprobe_runner r = { .task = current };
	struct device *dev = data;

	mutex_lock(&pprobe_lock);
	list_add(&r.node, &pprobe_runners);
	mutex_unlock(&pprobe_lock);

	while (dev) {
		pprobe_run_one(&r, dev, cookie);
		dev = r.next;
	}

	mutex_lock(&pprobe_lock);
	list_del(&r.node);
	mutex_unlock(&pprobe_lock);
}

/**
 * driver_pprobe_schedule() - probe @dev asynchronously once it is ready
 * @dev: the device, with a reference the scheduler takes over
 * @fn: the async helper that probes it and drops that reference
 *
 * Replaces async_schedule_dev(@fn, @dev) in the driver core.  Requests for
 * a device already waiting or queued are merged: its probe walks the
 * bus's drivers when it runs and sees the driver that asked.  A request
 * for a device whose probe is running makes it run once more.
 */
void driver_pprobe_schedule(struct device *dev, async_func_t fn)
{
	struct device_private *p = dev->p;
	LIST_HEAD(launch);
	LIST_HEAD(drop);
	bool keep = false;

	if (!driver_pprobe_active()) {
		async_schedule_dev(fn, dev);
		return;
	}

	atomic_inc(&pprobe_requests);
	mutex_lock(&pprobe_lock);
	switch (p->pprobe_state) {
	case PPROBE_IDLE:
		p->pprobe_fn = fn;
		p->pprobe_queued = ktime_get_ns();
		pprobe_enqueue(dev, &launch);
		keep = true;
		break;
	case PPROBE_RUNNING:
		if (!p->pprobe_again) {
			p->pprobe_again = true;
			keep = true;
		}
		break;
	default:
		break;
	}
	pprobe_claim(&launch);
	mutex_unlock(&pprobe_lock);

	pprobe_launch(&launch, &drop);
	if (!keep)
		put_device(dev);
}

/**
 * driver_pprobe_kick() - look at the parked devices again
 *
 * Called when a driver binds and whenever the deferred probe list is
 * retried, since whatever can let a deferred probe succeed can also make
 * a parked device ready.
 */
void driver_pprobe_kick(void)
{
	LIST_HEAD(launch);
	LIST_HEAD(drop);

	if (!driver_pprobe_active())
		return;

	mutex_lock(&pprobe_lock);
	pprobe_rescan(&launch, &drop);
	pprobe_claim(&launch);
	mutex_unlock(&pprobe_lock);
	pprobe_launch(&launch, &drop);
}

/**
 * driver_pprobe_forget() - drop a parked request of @dev
 * @dev: a device being bound by another path, or being removed
 *
 * Children parked behind @dev may go now.  The caller holds its own
 * reference, so the put here is never the last.
 */
void driver_pprobe_forget(struct device *dev)
{
	LIST_HEAD(launch);
	LIST_HEAD(drop);
	bool parked = false;

	if (!driver_pprobe_active() || !dev->p)
		return;

	mutex_lock(&pprobe_lock);
	if (dev->p->pprobe_state == PPROBE_PARKED) {
		list_del(&dev->p->pprobe_node);
		dev->p->pprobe_state = PPROBE_IDLE;
		pprobe_nr_parked--;
		parked = true;
		pprobe_rescan(&launch, &drop);
		pprobe_claim(&launch);
	}
	mutex_unlock(&pprobe_lock);
	pprobe_launch(&launch, &drop);
	if (parked)
		put_device(dev);
}

/*
 * The probe timeline: one record per driver_probe_device() call, in a
 * ring of "driver_parallel_probe_timeline=" entries (512 by default, 0
 * for none) allocated at the first initcall level.  Recording costs a
 * clock read and a short spinlock; the records are read from debugfs.
 */
#define PPROBE_NAME_LEN		32

struct pprobe_event {
	u64 queued;
	u64 start;
	u64 end;
	int ret;
	int cpu;
	char dev[PPROBE_NAME_LEN];
	char drv[PPROBE_NAME_LEN];
};

static unsigned int pprobe_nr_events = 512;
static struct pprobe_event *pprobe_events;
static unsigned long pprobe_next_event;
static DEFINE_SPINLOCK(pprobe_events_lock);

static int __init pprobe_timeline_setup(char *buf)
{
	if (kstrtouint(buf, 0, &pprobe_nr_events))
		pr_warn("bad driver_parallel_probe_timeline=%s\n", buf);
	return 1;
}
__setup("driver_parallel_probe_timeline=", pprobe_timeline_setup);

static int __init pprobe_timeline_init(void)
{
	if (pprobe_nr_events)
		pprobe_events = kcalloc(pprobe_nr_events,
					sizeof(*pprobe_events), GFP_KERNEL);
	return 0;
}
pure_initcall(pprobe_timeline_init);

/**
 * driver_pprobe_clock() - the time a probe starts
 *
 * Return: ktime_get_ns(), the clock of the timeline.
 */
u64 driver_pprobe_clock(void)
{
	return ktime_get_ns();
}

/**
 * driver_pprobe_record() - record the end of a probe attempt
 * @dev: the device
 * @drv: the driver it was probed with
 * @start: driver_pprobe_clock() when the attempt started
 * @ret: what driver_probe_device() returns
 */
void driver_pprobe_record(struct device *dev, struct device_driver *drv,
			  u64 start, int ret)
{
	u64 end = ktime_get_ns();
	struct pprobe_event *ev;
	unsigned long flags;

	atomic_inc(&pprobe_probes);
	if (ret == -EPROBE_DEFER || ret == EPROBE_DEFER)
		atomic_inc(&pprobe_deferrals);
	if (!pprobe_events)
		return;

	spin_lock_irqsave(&pprobe_events_lock, flags);
	ev = &pprobe_events[pprobe_next_event++ % pprobe_nr_events];
	ev->queued = dev->p->pprobe_queued ? : start;
	ev->start = start;
	ev->end = end;
	ev->ret = ret > 0 ? -ret : ret;
	ev->cpu = raw_smp_processor_id();
	strscpy(ev->dev, dev_name(dev), sizeof(ev->dev));
	strscpy(ev->drv, drv->name, sizeof(ev->drv));
	spin_unlock_irqrestore(&pprobe_events_lock, flags);
}

/**
 * driver_pprobe_get_stats() - read the scheduler's counters
 * @stats: filled in
 */
void driver_pprobe_get_stats(struct pprobe_stats *stats)
{
	stats->requests = atomic_read(&pprobe_requests);
	stats->parked = atomic_read(&pprobe_parks);
	stats->launched = atomic_read(&pprobe_launches);
	stats->local = atomic_read(&pprobe_locals);
	stats->probes = atomic_read(&pprobe_probes);
	stats->deferrals = atomic_read(&pprobe_deferrals);
	mutex_lock(&pprobe_lock);
	stats->parked_now = pprobe_nr_parked;
	stats->inflight = pprobe_inflight;
	mutex_unlock(&pprobe_lock);
}

#ifdef CONFIG_DEBUG_FS
static int pprobe_stats_show(struct seq_file *s, void *unused)
{
	struct pprobe_stats st;

	driver_pprobe_get_stats(&st);
	seq_printf(s, "active %d\nrequests %u\nparked %u\nlaunched %u\n"
		   "local %u\nprobes %u\ndeferrals %u\nparked_now %u\n"
		   "inflight %u\n",
		   driver_pprobe_active(), st.requests, st.parked, st.launched,
		   st.local, st.probes, st.deferrals, st.parked_now,
		   st.inflight);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pprobe_stats);

static int pprobe_parked_show(struct seq_file *s, void *unused)
{
	struct device_private *p;

	mutex_lock(&pprobe_lock);
	list_for_each_entry(p, &pprobe_parked, pprobe_node)
		seq_printf(s, "%s\n", dev_name(p->device));
	mutex_unlock(&pprobe_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pprobe_parked);

/*
 * One line per probe attempt, oldest first: times in microseconds since
 * boot (queued is when the asynchronous probe was asked for, or the start
 * for a synchronous one), the CPU, the result, device and driver.
 */
static int pprobe_timeline_show(struct seq_file *s, void *unused)
{
	struct pprobe_event *copy;
	unsigned long first, last, i;
	unsigned int n = pprobe_nr_events;

	if (!pprobe_events)
		return 0;
	copy = kvmalloc_array(n, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;

	spin_lock_irq(&pprobe_events_lock);
	memcpy(copy, pprobe_events, n * sizeof(*copy));
	last = pprobe_next_event;
	spin_unlock_irq(&pprobe_events_lock);

	first = last > n ? last - n : 0;
	seq_puts(s, "# queued_us start_us end_us cpu ret device driver\n");
	if (first)
		seq_printf(s, "# %lu older records overwritten\n", first);
	for (i = first; i < last; i++) {
		struct pprobe_event *ev = &copy[i % n];

		seq_printf(s, "%llu %llu %llu %d %d %s %s\n",
			   div_u64(ev->queued, NSEC_PER_USEC),
			   div_u64(ev->start, NSEC_PER_USEC),
			   div_u64(ev->end, NSEC_PER_USEC),
			   ev->cpu, ev->ret, ev->dev, ev->drv);
	}
	kvfree(copy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pprobe_timeline);

static int __init pprobe_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("parallel_probe", NULL);

	debugfs_create_file("stats", 0444, dir, NULL, &pprobe_stats_fops);
	debugfs_create_file("parked", 0444, dir, NULL, &pprobe_parked_fops);
	debugfs_create_file("timeline", 0444, dir, NULL, &pprobe_timeline_fops);
	return 0;
}
late_initcall(pprobe_debugfs_init);
#endif
