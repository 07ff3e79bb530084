// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of device probing: registers a graph of platform devices whose
 * probes sleep, as probes waiting on hardware do, and times how long it
 * takes until every one is bound.
 *
 * The graph is made of "levels" (depth 6 by default): a device of level L
 * declares device links to 1..3 suppliers of level L - 1 (fan-in, and
 * fan-out on the supplier side), and a quarter of the devices have a parent
 * of a lower level whose probe they need: their probe returns
 * -EPROBE_DEFER while the parent is unbound, as a real child driver's
 * would.  Devices are registered in a random order, so suppliers are not
 * always registered first, and the devices of late_pct percent of the
 * suppliers are bound by a second driver registered after the first.
 * The drivers take no names, and say so (probe_unordered); with ordered=1
 * they do not, and the parallel probe scheduler starts each driver's
 * probes in the order they were asked for, as it does for drivers that
 * number their devices in probe.
 *
 * The lower bound of the probing phase is the critical path: the longest
 * chain of probe times along the dependencies, nominal and as measured.  The results are module
 * parameters read from /sys/module/parallel_probe_bench/parameters/ once
 * done_us is not 0, and a line in the kernel log.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "../parallel_probe.h"

static unsigned int devices = 64;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "number of platform devices");

static unsigned int depth = 6;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "levels of the graph, the longest supplier chain");

static unsigned int min_ms = 20;
module_param(min_ms, uint, 0444);
MODULE_PARM_DESC(min_ms, "shortest probe sleep (ms)");

static unsigned int max_ms = 100;
module_param(max_ms, uint, 0444);
MODULE_PARM_DESC(max_ms, "longest probe sleep (ms)");

static unsigned int max_fanin = 3;
module_param(max_fanin, uint, 0444);
MODULE_PARM_DESC(max_fanin, "most suppliers of one device");

static unsigned int parent_pct = 25;
module_param(parent_pct, uint, 0444);
MODULE_PARM_DESC(parent_pct, "percentage of devices with a parent");

static unsigned int late_pct = 10;
module_param(late_pct, uint, 0444);
MODULE_PARM_DESC(late_pct, "percentage of devices bound by the late driver");

static unsigned long seed = 1;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "seed of the graph");

static bool ordered;
module_param(ordered, bool, 0444);
MODULE_PARM_DESC(ordered, "start a driver's probes in order, as if they took names");

/* results */
static unsigned long long done_us;
module_param(done_us, ullong, 0444);
MODULE_PARM_DESC(done_us, "registration of the first device to the last bind");

static unsigned long long bound_us;
module_param(bound_us, ullong, 0444);
MODULE_PARM_DESC(bound_us, "same, without the registration of devices and links");

static unsigned long long critical_us;
module_param(critical_us, ullong, 0444);
MODULE_PARM_DESC(critical_us, "the critical path, the lower bound of bound_us");

static unsigned long long critical_run_us;
module_param(critical_run_us, ullong, 0444);
MODULE_PARM_DESC(critical_run_us, "the critical path with the probe times of this run");

static unsigned long long sum_us;
module_param(sum_us, ullong, 0444);
MODULE_PARM_DESC(sum_us, "all probe sleeps added up, what synchronous probing takes");

static unsigned int driver_deferrals;
module_param(driver_deferrals, uint, 0444);
MODULE_PARM_DESC(driver_deferrals, "probes that returned -EPROBE_DEFER themselves");

static unsigned int max_running;
module_param(max_running, uint, 0444);
MODULE_PARM_DESC(max_running, "most probes sleeping at once");

static unsigned long long path_wait_us;
module_param(path_wait_us, ullong, 0444);
MODULE_PARM_DESC(path_wait_us, "on the chain of probes that ended last, time between a probe's dependencies bound and its start");

static unsigned long long path_probe_us;
module_param(path_probe_us, ullong, 0444);
MODULE_PARM_DESC(path_probe_us, "on the same chain, time in the probes");

#define MAX_SUPPLIERS	8

struct bench_node {
	struct platform_device *pdev;
	int level;
	int parent;
	int nr_suppliers;
	int supplier[MAX_SUPPLIERS];
	unsigned int sleep_us;
	unsigned int took_us;
	ktime_t start;
	ktime_t end;
	bool late;
	bool bound;
};

static struct bench_node *nodes;
static atomic_t nr_bound = ATOMIC_INIT(0);
static atomic_t running = ATOMIC_INIT(0);
static atomic_t deferrals = ATOMIC_INIT(0);
static ktime_t t_start, t_drivers;

/*
 * The longest chain of probe times along the dependencies: the nominal
 * sleeps, or the times the probes of this run took (sleeps overshoot
 * under load and in emulators, which no scheduling can win back).
 */
static u64 bench_critical(bool actual)
{
	u64 *finish, longest = 0;
	int i, j, k;

	finish = kcalloc(devices, sizeof(*finish), GFP_KERNEL);
	if (!finish)
		return 0;
	for (j = 0; j < depth; j++) {
		for (i = 0; i < devices; i++) {
			struct bench_node *nd = &nodes[i];
			u64 ready = 0;

			if (nd->level != j)
				continue;
			for (k = 0; k < nd->nr_suppliers; k++)
				ready = max(ready, finish[nd->supplier[k]]);
			if (nd->parent >= 0)
				ready = max(ready, finish[nd->parent]);
			finish[i] = ready + (actual ? nd->took_us : nd->sleep_us);
			longest = max(longest, finish[i]);
		}
	}
	kfree(finish);
	return longest;
}

/*
 * Where the time of this run went: from the probe that ended last, back
 * along the dependency (parent or supplier) that was bound last when each
 * probe started, the time spent probing and the time between the last
 * dependency bound (or the driver registered) and the start of the probe.
 */
static void bench_path(void)
{
	int i = -1, j, k, n;

	for (j = 0; j < devices; j++)
		if (i < 0 || ktime_after(nodes[j].end, nodes[i].end))
			i = j;
	path_wait_us = 0;
	path_probe_us = 0;
	for (n = 0; i >= 0 && n < devices; n++) {
		struct bench_node *nd = &nodes[i];
		ktime_t ready = t_drivers;
		int pred = -1;

		for (k = -1; k < nd->nr_suppliers; k++) {
			j = k < 0 ? nd->parent : nd->supplier[k];
			if (j >= 0 && ktime_after(nodes[j].end, ready)) {
				ready = nodes[j].end;
				pred = j;
			}
		}
		path_probe_us += ktime_us_delta(nd->end, nd->start);
		if (ktime_after(nd->start, ready))
			path_wait_us += ktime_us_delta(nd->start, ready);
		i = pred;
	}
}

static int bench_probe(struct platform_device *pdev)
{
	struct bench_node *nd = &nodes[pdev->id];
	ktime_t start;
	int now;

	/*
	 * The probes name nothing.  With ordered=1 the parallel probe
	 * scheduler still starts them in order, as it does a driver that
	 * takes names in probe, but the next one need not wait for this
	 * one to end.
	 */
	driver_pprobe_named(&pdev->dev);
	if (nd->parent >= 0 && !READ_ONCE(nodes[nd->parent].bound)) {
		atomic_inc(&deferrals);
		return -EPROBE_DEFER;
	}

	now = atomic_inc_return(&running);
	if (now > READ_ONCE(max_running))
		WRITE_ONCE(max_running, now);
	start = ktime_get();
	/* hrtimer based: msleep() would round up to jiffies */
	usleep_range(nd->sleep_us, nd->sleep_us + 100);
	nd->end = ktime_get();
	nd->start = start;
	nd->took_us = ktime_us_delta(nd->end, start);
	atomic_dec(&running);

	WRITE_ONCE(nd->bound, true);
	if (atomic_inc_return(&nr_bound) == devices) {
		ktime_t end = ktime_get();

		driver_deferrals = atomic_read(&deferrals);
		critical_run_us = bench_critical(true);
		bench_path();
		bound_us = ktime_us_delta(end, t_drivers);
		WRITE_ONCE(done_us, ktime_us_delta(end, t_start));
		pr_info("%u devices bound in %llu us (%llu us from driver registration), critical path %llu us (%llu us as the probes took), sum %llu us, %u driver deferrals, %u probes at once, last chain %llu us probing %llu us waiting\n",
			devices, done_us, bound_us, critical_us,
			critical_run_us, sum_us, driver_deferrals, max_running,
			path_probe_us, path_wait_us);
	}
	return 0;
}

static struct platform_driver bench_driver = {
	.probe = bench_probe,
	.driver.name = "ppbench",
};

static struct platform_driver bench_late_driver = {
	.probe = bench_probe,
	.driver.name = "ppbench-late",
};

static void bench_graph(void)
{
	struct rnd_state rnd;
	int i, j;

	prandom_seed_state(&rnd, seed);
	for (i = 0; i < devices; i++) {
		struct bench_node *nd = &nodes[i];

		/* every level gets a device, the rest are spread at random */
		nd->level = i < depth ? i : prandom_u32_state(&rnd) % depth;
		nd->parent = -1;
		nd->sleep_us = 1000 * (min_ms + prandom_u32_state(&rnd) %
				       (max_ms - min_ms + 1));
	}
	for (i = 0; i < devices; i++)
		nodes[i].late = prandom_u32_state(&rnd) % 100 < late_pct;
	/* shuffle the registration order */
	for (i = devices - 1; i > 0; i--) {
		j = prandom_u32_state(&rnd) % (i + 1);
		swap(nodes[i].level, nodes[j].level);
	}
	/* the late driver binds suppliers only */
	for (i = 0; i < devices; i++)
		if (nodes[i].level == depth - 1)
			nodes[i].late = false;
	for (i = 0; i < devices; i++) {
		struct bench_node *nd = &nodes[i];
		int want, tries;

		if (!nd->level)
			continue;
		want = 1 + prandom_u32_state(&rnd) % max_fanin;
		for (tries = 0; tries < 4 * devices && nd->nr_suppliers < want; tries++) {
			int s = prandom_u32_state(&rnd) % devices, k;

			if (nodes[s].level != nd->level - 1)
				continue;
			for (k = 0; k < nd->nr_suppliers; k++)
				if (nd->supplier[k] == s)
					break;
			if (k == nd->nr_suppliers)
				nd->supplier[nd->nr_suppliers++] = s;
		}
		/* a parent must be registered first: a lower index */
		if (prandom_u32_state(&rnd) % 100 < parent_pct) {
			for (j = i - 1; j >= 0; j--)
				if (nodes[j].level < nd->level && !nodes[j].late)
					break;
			if (j >= 0)
				nd->parent = j;
		}
	}

	critical_us = bench_critical(false);
	for (i = 0; i < devices; i++)
		sum_us += nodes[i].sleep_us;
}

static void bench_unregister(void)
{
	int i;

	for (i = devices - 1; i >= 0; i--)
		if (!IS_ERR_OR_NULL(nodes[i].pdev))
			platform_device_unregister(nodes[i].pdev);
}

static int __init bench_init(void)
{
	int i, k, ret;

	if (!devices || !depth || depth > devices || min_ms > max_ms ||
	    !max_fanin || max_fanin > MAX_SUPPLIERS)
		return -EINVAL;
	nodes = kcalloc(devices, sizeof(*nodes), GFP_KERNEL);
	if (!nodes)
		return -ENOMEM;
	bench_graph();

	t_start = ktime_get();
	for (i = 0; i < devices; i++) {
		struct bench_node *nd = &nodes[i];
		struct platform_device_info info = {
			.name = nd->late ? "ppbench-late" : "ppbench",
			.id = i,
			.parent = nd->parent >= 0 ?
				  &nodes[nd->parent].pdev->dev : NULL,
		};

		nd->pdev = platform_device_register_full(&info);
		if (IS_ERR(nd->pdev)) {
			ret = PTR_ERR(nd->pdev);
			goto err;
		}
	}
	for (i = 0; i < devices; i++) {
		for (k = 0; k < nodes[i].nr_suppliers; k++) {
			struct device *sup = &nodes[nodes[i].supplier[k]].pdev->dev;

			if (!device_link_add(&nodes[i].pdev->dev, sup, 0)) {
				ret = -EINVAL;
				goto err;
			}
		}
	}

	bench_driver.driver.probe_unordered = !ordered;
	bench_late_driver.driver.probe_unordered = !ordered;
	t_drivers = ktime_get();
	ret = platform_driver_register(&bench_driver);
	if (ret)
		goto err;
	ret = platform_driver_register(&bench_late_driver);
	if (ret) {
		platform_driver_unregister(&bench_driver);
		goto err;
	}
	return 0;
err:
	bench_unregister();
	kfree(nodes);
	return ret;
}

static void __exit bench_exit(void)
{
	platform_driver_unregister(&bench_late_driver);
	platform_driver_unregister(&bench_driver);
	bench_unregister();
	kfree(nodes);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_DESCRIPTION("Benchmark of device probing with dependencies");
MODULE_LICENSE("GPL");
