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
 * Probes run in the scheduler's own workqueue workers, not in async
 * entries: a probe may load a module (request_module()), and module
 * loading ends in async_synchronize_full(), which would wait for the very
 * entry that waits for it (kmod.c warns about that).  A device that becomes
 * ready in a probe is launched in an unbound worker; one requested from
 * anywhere else is queued on the requester's CPU, which waits until the
 * probe has ended or sleeps, so a probe that does not wait for its
 * hardware costs what a synchronous one costs (see pprobe_launch()).
 *
 * Names: most subsystems number their devices in probe (vdX, mmcblkN,
 * sdX, eth%d, inputN).  Each request belongs to a naming domain, the
 * driver that will probe it, and a domain's probes start one at a time in
 * the order they were asked for, each once the previous one has ended or
 * said that it has taken its names (driver_pprobe_named()).  Different
 * drivers probe in parallel, and so do the probes of a driver that takes
 * no names (probe_unordered).
 *
 * A parked device is in the state a deferred one is in: wait_for_device_probe()
 * does not wait for it, and it probes when what it waits for binds.  A
 * launched one counts as in flight until its probe ends, and the devices
 * it makes ready are counted before it stops counting, so
 * wait_for_device_probe() (driver_pprobe_wait()) cannot slip between a
 * probe and the probes it unblocks.
 */

#define pr_fmt(fmt) "parallel_probe: " fmt

#include <linux/async.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "base.h"
#include "parallel_probe.h"

enum {
	PPROBE_IDLE,		/* not known to the scheduler */
	PPROBE_PARKED,		/* waiting for its parent or a supplier */
	PPROBE_QUEUED,		/* handed to a worker */
	PPROBE_RUNNING,		/* the probe helper is running */
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
static DECLARE_WAIT_QUEUE_HEAD(pprobe_idle);

/*
 * Work items handed to a worker and not finished yet, up to the worker's
 * last put_device(): a device's release function may be in a module,
 * which must not be freed before it has run (driver_pprobe_drain()).
 */
static atomic_t pprobe_works = ATOMIC_INIT(0);

/*
 * A module being loaded (struct pprobe_loader): the probes its init
 * requests, and those these request in turn, are tagged with it, and the
 * load waits for them as it waits for async probes without the
 * scheduler.  Under pprobe_lock.
 */
static LIST_HEAD(pprobe_loaders);

/*
 * The naming domains whose turn a device holds: queued or probing and
 * not past its naming point yet.  Keyed by the domain (a driver).
 */
static DEFINE_HASHTABLE(pprobe_holders, 6);

/* unbound workers, and the per-CPU ones that requesters wait on */
static struct workqueue_struct *pprobe_wq;
static struct workqueue_struct *pprobe_local_wq;

static atomic_t pprobe_requests = ATOMIC_INIT(0);
static atomic_t pprobe_parks = ATOMIC_INIT(0);
static atomic_t pprobe_launches = ATOMIC_INIT(0);
static atomic_t pprobe_locals = ATOMIC_INIT(0);
static atomic_t pprobe_probes = ATOMIC_INIT(0);
static atomic_t pprobe_deferrals = ATOMIC_INIT(0);

/*
 * parallel_probe.jitter_us: every probe attempt that the driver core starts
 * on its own (not device_driver_attach(), which a bind through sysfs uses)
 * first sleeps a random time of up to this many microseconds, with or
 * without the scheduler.  A test knob, on the command line or at run time:
 * it stands for hardware that answers in a different time at each boot, so
 * that probes running at the same time reach the points where they take
 * their names in a different order each time.  At most a second: the sleep
 * holds the device lock.
 */
#define PPROBE_JITTER_MAX_US	USEC_PER_SEC

static unsigned int pprobe_jitter_us;

static int pprobe_jitter_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, PPROBE_JITTER_MAX_US);
}

static const struct kernel_param_ops pprobe_jitter_ops = {
	.set = pprobe_jitter_set,
	.get = param_get_uint,
};
module_param_cb(jitter_us, &pprobe_jitter_ops, &pprobe_jitter_us, 0644);
MODULE_PARM_DESC(jitter_us, "sleep a random time up to this before each probe (us, test knob)");

/* Called by driver_probe_device() before each probe attempt. */
void driver_pprobe_jitter(void)
{
	unsigned int us = READ_ONCE(pprobe_jitter_us);

	if (us)
		us = get_random_u32_below(us);
	/* the slack below the draw: never longer than the knob says */
	if (us)
		usleep_range(us - us / 8, us);
}

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

/*
 * A task running pprobe_run(): a worker of the scheduler, or a requester
 * that could not queue a work item.  When the probe it runs binds its
 * device, a worker goes on with one of the devices that became ready, if
 * any, instead of handing it to another worker: the next probe on a
 * dependency chain starts without a wakeup, which is most of the delay
 * between the end of a probe and the start of the next on a busy host.
 */
struct pprobe_runner {
	struct list_head node;
	struct task_struct *task;
	bool worker;		/* in a work item of the scheduler */
	struct device *dev;	/* the device being probed */
	struct device *next;	/* a ready device to probe after it */
	bool done;		/* the probe of @dev has returned */
};

/*
 * The runners, under a spinlock of their own so that any context can ask
 * whether current is one.  The workers are known by their task, never by
 * their work item, which a work function may have freed.
 */
static LIST_HEAD(pprobe_runners);
static DEFINE_SPINLOCK(pprobe_runners_lock);

/* The runner current is, if it runs in a worker of the scheduler */
static struct pprobe_runner *pprobe_worker_runner(void)
{
	struct pprobe_runner *r, *found = NULL;

	if (!(current->flags & PF_WQ_WORKER))
		return NULL;
	spin_lock(&pprobe_runners_lock);
	list_for_each_entry(r, &pprobe_runners, node) {
		if (r->task == current && r->worker) {
			found = r;
			break;
		}
	}
	spin_unlock(&pprobe_runners_lock);
	return found;
}

/* Is current one of the scheduler's workers, running a probe? */
static bool pprobe_in_worker(void)
{
	return pprobe_worker_runner();
}

/*
 * A worker (one of ours, or an async entry): the devices it makes ready
 * go to unbound workers, as nobody waits for it to go on.
 */
static bool pprobe_from_worker(void)
{
	return pprobe_in_worker() || current_is_async();
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
 * background, off the boot's critical path, and a parallel probe would
 * only make the boot's barrier wait for it.  The scheduler's workers, where
 * the probes it launches run, and async workers are not in the way of
 * anything either, so the devices they register are probed in parallel.
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
	return !(current->flags & PF_KTHREAD) || pprobe_from_worker();
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

static bool pprobe_inflight_state(struct device *dev)
{
	return dev->p && (dev->p->pprobe_state == PPROBE_QUEUED ||
			  dev->p->pprobe_state == PPROBE_RUNNING);
}

/*
 * Does @dev, parked, wait for a parent or a supplier whose probe is
 * queued or running here?  It then keeps its place in its naming domain
 * (pprobe_rescan()).  Not for one that waits for a parked device, which
 * may wait for ever.  Called with pprobe_lock held.
 */
static bool pprobe_waits_inflight(struct device *dev)
{
	struct device_link *link;
	bool inflight = false;
	int idx;

	if (dev->parent && pprobe_inflight_state(dev->parent))
		return true;
	idx = device_links_read_lock();
	list_for_each_entry_rcu(link, &dev->links.suppliers, c_node,
				device_links_read_lock_held()) {
		if (link->flags & DL_FLAG_MANAGED &&
		    pprobe_inflight_state(link->supplier)) {
			inflight = true;
			break;
		}
	}
	device_links_read_unlock(idx);
	return inflight;
}

/* most naming domains a scan keeps for parked devices (pprobe_rescan()) */
#define PPROBE_HELD_MAX		16

static bool pprobe_domain_held(const void **held, unsigned int n,
			       const void *domain)
{
	while (n--)
		if (held[n] == domain)
			return true;
	return false;
}

/* Does a device hold the turn of naming domain @domain? */
static bool pprobe_domain_busy(const void *domain)
{
	struct device_private *p;

	if (!domain)
		return false;
	hash_for_each_possible(pprobe_holders, p, pprobe_hold,
			       (unsigned long)domain)
		if (p->pprobe_domain == domain)
			return true;
	return false;
}

/* @p gives its domain's turn to the next device; pprobe_lock held */
static void pprobe_release(struct device_private *p)
{
	if (!p->pprobe_holds)
		return;
	hash_del(&p->pprobe_hold);
	p->pprobe_holds = false;
}

/*
 * Move the parked devices that became ready, and whose naming domain is
 * free, to @launch, and the removed ones to @drop.  Called with
 * pprobe_lock held.  The parked list is in the order the probes were
 * asked for, so the first ready device of a domain takes its turn.  A
 * device that waits for a parent or a supplier whose probe is queued or
 * running keeps its place: the devices of its domain behind it wait too
 * (for up to PPROBE_HELD_MAX domains at once).  Dropping a parent can
 * make a child that was looked at before it ready: scan again then.
 */
/* @p, parked and ready, takes its domain's turn and goes to @launch */
static void pprobe_take(struct device_private *p, struct list_head *launch)
{
	p->pprobe_state = PPROBE_QUEUED;
	pprobe_nr_parked--;
	pprobe_inflight++;
	if (p->pprobe_loader)
		p->pprobe_loader->inflight++;
	if (p->pprobe_domain) {
		hash_add(pprobe_holders, &p->pprobe_hold,
			 (unsigned long)p->pprobe_domain);
		p->pprobe_holds = true;
	}
	list_move_tail(&p->pprobe_node, launch);
}

static void pprobe_rescan(struct list_head *launch, struct list_head *drop)
{
	const void *held[PPROBE_HELD_MAX];
	struct device_private *p, *n;
	unsigned int nheld;
	bool dropped;

	do {
		dropped = false;
		nheld = 0;
		list_for_each_entry_safe(p, n, &pprobe_parked, pprobe_node) {
			const void *d = p->pprobe_domain;

			if (p->dead) {
				p->pprobe_state = PPROBE_IDLE;
				pprobe_nr_parked--;
				list_move_tail(&p->pprobe_node, drop);
				dropped = true;
				continue;
			}
			if (d && (pprobe_domain_held(held, nheld, d) ||
				  pprobe_domain_busy(d)))
				continue;
			if (pprobe_ready(p->device))
				pprobe_take(p, launch);
			else if (d && nheld < PPROBE_HELD_MAX &&
				 pprobe_waits_inflight(p->device))
				held[nheld++] = d;
		}
	} while (dropped);
}

/*
 * Queue a request for @dev, which holds a reference for it, behind the
 * earlier ones, and launch what can go.  Called with pprobe_lock held.
 */
static void pprobe_enqueue(struct device *dev, struct list_head *launch,
			   struct list_head *drop)
{
	struct device_private *p = dev->p;

	p->pprobe_state = PPROBE_PARKED;
	pprobe_nr_parked++;
	list_add_tail(&p->pprobe_node, &pprobe_parked);
	pprobe_rescan(launch, drop);
	if (p->pprobe_state == PPROBE_PARKED)
		atomic_inc(&pprobe_parks);
}

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

	if (list_empty(launch))
		return;
	r = pprobe_worker_runner();
	if (!r || r->next || !(r->done || device_is_bound(r->dev)))
		return;
	p = list_first_entry(launch, struct device_private, pprobe_node);
	list_del(&p->pprobe_node);
	atomic_inc(&pprobe_launches);
	r->next = p->device;
}

static void pprobe_run(struct device *dev, bool worker);
static const void *pprobe_domain_of(struct device *dev);

/* not a naming domain, not even none (NULL) */
#define PPROBE_NO_DOMAIN	ERR_PTR(-ENOENT)

/* what a worker is handed: one device to probe */
struct pprobe_work {
	struct work_struct work;
	struct device *dev;
};

static void pprobe_work_fn(struct work_struct *work)
{
	struct pprobe_work *pw = container_of(work, struct pprobe_work, work);

	pprobe_run(pw->dev, true);
	/*
	 * Not before: an item allocated at the same address while this one
	 * runs would be taken for it, and wait for it (the workqueue does not
	 * run a work item twice at once).
	 */
	kfree(pw);
	/* only now: the device references of this item are dropped */
	if (atomic_dec_and_test(&pprobe_works))
		wake_up_all(&pprobe_idle);
}

/*
 * Hand @dev to a worker: on @cpu, or unbound if @cpu is negative.  Where
 * that cannot be done (no memory, or before the workqueues exist), probe
 * it here, as async_schedule() does when it cannot allocate an entry;
 * the requester may then hold another device's lock (a probe registering
 * a child), which the driver core's synchronous probes do as well.
 * Return: true if queued.
 */
static bool pprobe_queue(struct device *dev, int cpu)
{
	struct workqueue_struct *wq = cpu < 0 ? pprobe_wq : pprobe_local_wq;
	struct pprobe_work *pw = NULL;

	if (wq)
		pw = kmalloc(sizeof(*pw), GFP_KERNEL);
	if (!pw) {
		pprobe_run(dev, false);
		return false;
	}
	INIT_WORK(&pw->work, pprobe_work_fn);
	pw->dev = dev;
	atomic_inc(&pprobe_works);
	if (cpu < 0)
		queue_work(wq, &pw->work);
	else
		queue_work_on(cpu, wq, &pw->work);
	return true;
}

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
	queue_work_on(cpu, pprobe_local_wq, &res.work);
	wait_for_completion(&res.done);
	destroy_work_on_stack(&res.work);
}

/*
 * Hand the devices of @launch to workers and drop the references of
 * @drop.  Called without pprobe_lock: the probe must not run under it,
 * and pprobe_queue() runs it itself when it cannot queue it.
 *
 * From a worker, that is from a probe that bound its device, the devices
 * it made ready go to unbound workers, to run next to it.  Any other
 * requester (an initcall, a task registering a driver or a device)
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
	bool local = !pprobe_from_worker();
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
		if (local) {
			if (pprobe_queue(p->device, cpu)) {
				atomic_inc(&pprobe_locals);
				wait = true;
			}
			continue;
		}
		pprobe_queue(p->device, -1);
	}
	if (wait)
		pprobe_wait_local(cpu);
}

/* Probe @dev, a queued device, in @r's worker. */
static void pprobe_run_one(struct pprobe_runner *r, struct device *dev)
{
	struct device_private *p = dev->p;
	const void *domain = PPROBE_NO_DOMAIN;
	struct pprobe_loader *loader;
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

	fn(dev, 0);

	/*
	 * A request came while it probed, maybe with the driver that
	 * registered meanwhile: the next probe's naming domain may differ.
	 * Looked up here, as pprobe_lock is not held over bus walks.
	 */
	if (READ_ONCE(p->pprobe_again))
		domain = pprobe_domain_of(dev);

	mutex_lock(&pprobe_lock);
	r->done = true;
	p->pprobe_state = PPROBE_IDLE;
	p->pprobe_queued = 0;
	pprobe_release(p);
	loader = p->pprobe_loader;
	/* an ended load that did not wait frees itself: no new count */
	if (!p->pprobe_again || (loader && loader->orphan))
		p->pprobe_loader = NULL;
	if (p->pprobe_again) {
		/* a driver came while we probed: run again, on its reference */
		p->pprobe_again = false;
		if (p->dead) {
			again_dead = true;
		} else {
			p->pprobe_queued = ktime_get_ns();
			if (domain != PPROBE_NO_DOMAIN)
				p->pprobe_domain = domain;
			pprobe_enqueue(dev, &launch, &drop);
		}
	}
	pprobe_rescan(&launch, &drop);
	pprobe_claim(&launch);
	/* only now: what this probe made ready is counted */
	if (!--pprobe_inflight)
		wake_up_all(&pprobe_idle);
	mutex_unlock(&pprobe_lock);

	pprobe_launch(&launch, &drop);
	if (again_dead)
		put_device(dev);
	put_device(dev);

	/*
	 * The load's count drops after the last put_device(): a module whose
	 * init failed is freed once its load stops waiting, and the release
	 * function of a device it registered may be in it.
	 */
	if (loader) {
		mutex_lock(&pprobe_lock);
		if (!--loader->inflight) {
			if (loader->orphan)
				kfree(loader);
			else
				wake_up_all(&pprobe_idle);
		}
		mutex_unlock(&pprobe_lock);
	}
}

static void pprobe_run(struct device *dev, bool worker)
{
	struct pprobe_runner r = { .task = current, .worker = worker };

	spin_lock(&pprobe_runners_lock);
	list_add(&r.node, &pprobe_runners);
	spin_unlock(&pprobe_runners_lock);

	while (dev) {
		pprobe_run_one(&r, dev);
		dev = r.next;
	}

	spin_lock(&pprobe_runners_lock);
	list_del(&r.node);
	spin_unlock(&pprobe_runners_lock);
}

struct pprobe_match {
	struct device *dev;
	const void *domain;
};

/*
 * Called with a reference on @drv that bus_for_each_drv() drops when it
 * moves on: whatever is read of the driver is read here.
 */
static int pprobe_match_drv(struct device_driver *drv, void *data)
{
	struct pprobe_match *m = data;

	if (driver_match_device(drv, m->dev) <= 0 ||
	    !driver_allows_async_probing(drv))
		return 0;
	/*
	 * Only the probes the scheduler made asynchronous are kept in
	 * order: those of drivers that ask for asynchronous probing are
	 * not ordered in mainline either, and run in parallel as there.
	 * Nor are those of a driver that takes no names in probe: in a
	 * domain, a device parked behind a probe in flight holds back every
	 * device of its domain behind it, a cost only names justify.
	 */
	if (!drv->probe_unordered && drv->probe_type == PROBE_DEFAULT_STRATEGY &&
	    !module_requested_async_probing(drv->owner))
		m->domain = drv;
	return 1;
}

/*
 * The naming domain of a probe of @dev: the driver it will be probed with,
 * the first of the bus's drivers that matches and probes asynchronously,
 * as __device_attach_async_helper() walks them, or none (NULL).  The
 * driver is only a key here, never used: it may be gone by the time the
 * probe runs.
 */
static const void *pprobe_domain_of(struct device *dev)
{
	struct pprobe_match m = { .dev = dev };

	if (dev->bus)
		bus_for_each_drv(dev->bus, NULL, &m, pprobe_match_drv);
	return m.domain;
}

/*
 * The module load a request from current belongs to: the one whose init
 * current runs, or, in a worker, the one the device being probed was
 * requested for.  Called with pprobe_lock held.
 */
static struct pprobe_loader *pprobe_current_loader(void)
{
	struct pprobe_runner *r = pprobe_worker_runner();
	struct pprobe_loader *l;

	if (r)
		return r->dev ? r->dev->p->pprobe_loader : NULL;
	list_for_each_entry(l, &pprobe_loaders, node)
		if (l->task == current)
			return l;
	return NULL;
}

/**
 * driver_pprobe_schedule() - probe @dev asynchronously once it is ready
 * @dev: the device, with a reference the scheduler takes over
 * @fn: the helper that probes it and drops that reference
 *
 * Replaces async_schedule_dev(@fn, @dev) in the driver core.  Requests for
 * a device already waiting or queued are merged: its probe walks the
 * bus's drivers when it runs and sees the driver that asked.  A request
 * for a device whose probe is running makes it run once more.
 */
void driver_pprobe_schedule(struct device *dev, async_func_t fn)
{
	struct device_private *p = dev->p;
	const void *domain;
	LIST_HEAD(launch);
	LIST_HEAD(drop);
	bool keep = false;

	if (!driver_pprobe_active()) {
		async_schedule_dev(fn, dev);
		return;
	}

	domain = pprobe_domain_of(dev);
	atomic_inc(&pprobe_requests);
	mutex_lock(&pprobe_lock);
	switch (p->pprobe_state) {
	case PPROBE_IDLE:
		p->pprobe_fn = fn;
		p->pprobe_domain = domain;
		p->pprobe_loader = pprobe_current_loader();
		p->pprobe_queued = ktime_get_ns();
		pprobe_enqueue(dev, &launch, &drop);
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
 * driver_pprobe_named() - the probe of @dev has taken its names
 * @dev: the device being probed
 *
 * Called by a probe once it has assigned whatever names and numbers it
 * assigns (a disk index, an interface name).  The next probe of the same
 * naming domain may then start, while this one goes on.  Names taken
 * after this call are no longer in the order of the requests.  A driver
 * whose probes take no names sets probe_unordered instead: its devices
 * have no naming domain, and none waits for another to start.
 */
void driver_pprobe_named(struct device *dev)
{
	LIST_HEAD(launch);
	LIST_HEAD(drop);

	if (!driver_pprobe_active() || !dev->p)
		return;

	mutex_lock(&pprobe_lock);
	if (!dev->p->pprobe_holds) {
		mutex_unlock(&pprobe_lock);
		return;
	}
	pprobe_release(dev->p);
	pprobe_rescan(&launch, &drop);
	mutex_unlock(&pprobe_lock);
	pprobe_launch(&launch, &drop);
}
EXPORT_SYMBOL_GPL(driver_pprobe_named);

/**
 * driver_pprobe_wait() - wait until no probe is queued or running
 *
 * Called by wait_for_device_probe().  The probes run in the scheduler's
 * workers, which async_synchronize_full() does not wait for, and an async
 * entry (a SCSI scan, say) may ask for probes: wait for both until
 * neither has anything left.  Parked devices are not waited for, as
 * deferred ones are not.
 */
void driver_pprobe_wait(void)
{
	if (!driver_pprobe_active())
		return;
	do {
		driver_pprobe_drain();
		async_synchronize_full();
	} while (READ_ONCE(pprobe_inflight));
}

/**
 * driver_pprobe_drain() - wait until no worker has anything left to do
 *
 * Unlike driver_pprobe_wait(), this waits for the scheduler's own probes
 * only, and up to the workers' last put_device(): once it returns, no
 * release function runs from a worker for a device already released by
 * everybody else.  Parked devices hold a reference too, which they drop
 * when the device is removed (driver_pprobe_forget()).
 */
void driver_pprobe_drain(void)
{
	if (!driver_pprobe_active())
		return;
	wait_event(pprobe_idle, !READ_ONCE(pprobe_inflight) &&
		   !atomic_read(&pprobe_works));
}

/**
 * driver_pprobe_load_begin() - a module's init is about to run
 * @l: filled in; the caller keeps it until driver_pprobe_load_end()
 * @key: the module
 *
 * The probes that current requests from now on belong to the load.
 */
void driver_pprobe_load_begin(struct pprobe_loader *l, const void *key)
{
	l->task = current;
	l->key = key;
	l->inflight = 0;
	l->orphan = false;
	mutex_lock(&pprobe_lock);
	list_add(&l->node, &pprobe_loaders);
	mutex_unlock(&pprobe_lock);
}

/**
 * driver_pprobe_load_end() - wait for the probes a module's init requested
 * @l: as passed to driver_pprobe_load_begin()
 * @wait: wait for them; if false, the load just ends
 *
 * With @wait, returns once the probes of the load that are queued or
 * running have ended, with the probes they made ready; parked ones are
 * not waited for, as deferred ones are not, and are no longer counted.
 * A probe that requested the module being loaded is not waited for,
 * unless the module's own probes wait for it.
 *
 * Return: true if the caller frees @l; false if probes of the load are
 * still in flight (only without @wait), and the last of them frees it.
 */
bool driver_pprobe_load_end(struct pprobe_loader *l, bool wait)
{
	struct device_private *p;
	bool mine;

	mutex_lock(&pprobe_lock);
	while (wait && l->inflight) {
		mutex_unlock(&pprobe_lock);
		wait_event(pprobe_idle, !READ_ONCE(l->inflight));
		mutex_lock(&pprobe_lock);
	}
	list_for_each_entry(p, &pprobe_parked, pprobe_node)
		if (p->pprobe_loader == l)
			p->pprobe_loader = NULL;
	list_del(&l->node);
	mine = !l->inflight;
	l->orphan = !mine;
	mutex_unlock(&pprobe_lock);
	return mine;
}

#ifdef CONFIG_MODULES
static struct pprobe_loader *pprobe_loader_of(struct module *mod)
{
	struct pprobe_loader *l, *found = NULL;

	mutex_lock(&pprobe_lock);
	list_for_each_entry(l, &pprobe_loaders, node) {
		if (l->key == mod) {
			found = l;
			break;
		}
	}
	mutex_unlock(&pprobe_lock);
	return found;
}

/**
 * driver_pprobe_module_begin() - a module's init is about to run
 * @mod: the module
 *
 * Called by do_init_module(): the probes that the init requests from now
 * on belong to the load, which driver_pprobe_module_end() waits for.
 */
void driver_pprobe_module_begin(struct module *mod)
{
	struct pprobe_loader *l;

	if (!driver_pprobe_active())
		return;
	/*
	 * Small, and without it a failed init's memory could be freed while
	 * its probes run: do_init_module() has no way to fail here.
	 */
	l = kmalloc(sizeof(*l), GFP_KERNEL | __GFP_NOFAIL);
	driver_pprobe_load_begin(l, mod);
}

/**
 * driver_pprobe_module_end() - wait for the probes a module's init asked for
 * @mod: a module whose init has returned: %MODULE_STATE_LIVE, or
 *	%MODULE_STATE_GOING if it failed
 *
 * modprobe returns once the probes the module's init requested have
 * ended, as do_init_module()'s async_synchronize_full() makes it wait for
 * asynchronous probes without the scheduler, unless the module was loaded
 * with async_probe.  Its probes are waited for as well if the init
 * failed, up to each worker's last put_device(), before its memory is
 * freed.  Other probes are not: one of them may be waiting for this load
 * in request_module().
 *
 * do_init_module() calls this after the %MODULE_STATE_LIVE or
 * %MODULE_STATE_GOING notifiers, not from one of them: a notifier runs
 * with the chain's rwsem held for reading, and a probe waited for that
 * loads a module needs it for reading too (%MODULE_STATE_COMING), which
 * it cannot take once a register_module_notifier() waits for it for
 * writing, as the init of kunit.ko does.
 */
void driver_pprobe_module_end(struct module *mod)
{
	struct pprobe_loader *l;

	if (!driver_pprobe_active())
		return;
	l = pprobe_loader_of(mod);
	if (l && driver_pprobe_load_end(l, mod->state == MODULE_STATE_GOING ||
					!mod->async_probe_requested))
		kfree(l);
}

/**
 * driver_pprobe_module_gone() - a module's exit has run
 * @mod: the module being removed
 *
 * Its exit has unregistered its devices, but a worker may still hold the
 * last reference of one, whose release function may be in the module:
 * delete_module() waits for async entries for that reason, and calls this
 * after the %MODULE_STATE_GOING notifiers to drain the workers.
 */
void driver_pprobe_module_gone(struct module *mod)
{
	if (driver_pprobe_active())
		driver_pprobe_drain();
}
#endif

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
 * The workers.  The unbound ones run the probes that other probes make
 * ready, next to each other; the per-CPU ones run those a task asks for,
 * on its CPU, while it waits (pprobe_wait_local()).  Created before the
 * first driver registers; until then probes run where they are asked for.
 */
static int __init pprobe_workqueues_init(void)
{
	pprobe_local_wq = alloc_workqueue("parallel_probe_local", 0, 0);
	pprobe_wq = alloc_workqueue("parallel_probe", WQ_UNBOUND, 0);
	if (!pprobe_wq || !pprobe_local_wq)
		pr_warn("no workqueue, probing where asked\n");
	return 0;
}
early_initcall(pprobe_workqueues_init);

/*
 * The boot goes on to user space once the probes the initcalls asked for
 * have ended, as it does once async_synchronize_full() has waited for
 * asynchronous probes without the scheduler.
 */
static int __init pprobe_boot_wait(void)
{
	driver_pprobe_wait();
	return 0;
}
late_initcall_sync(pprobe_boot_wait);

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
