// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of dependency-aware parallel probing.
 *
 * Each test builds random graphs of platform devices: a device may have
 * a parent among the devices registered before it and device links to
 * suppliers among them.  The test driver's probe sleeps a little, so
 * probes overlap, and checks that the parent and every supplier of its
 * device are bound; its remove checks that no consumer is still bound.
 * The graphs come from a seeded PRNG, printed, so a failure can be
 * replayed with parallel_probe_test.seed=.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/async.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/kmod.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/panic.h>
#include <linux/platform_device.h>
#include <linux/pm_domain.h>
#include <linux/pm_runtime.h>
#include <linux/prandom.h>
#include <linux/random.h>

#include "base.h"
#include "parallel_probe.h"

static unsigned int graphs = 1000;
module_param(graphs, uint, 0444);
MODULE_PARM_DESC(graphs, "random graphs probed, unbound and probed again");

static unsigned long seed = 20240601;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "seed of the random graphs");

#define PPT_MAX		16
#define PPT_DRV		"pprobe-test"
#define PPT_LATE_DRV	"pprobe-test-late"

struct ppt_graph;

struct ppt_node {
	struct ppt_graph *g;
	struct platform_device *pdev;
	int parent;
	DECLARE_BITMAP(suppliers, PPT_MAX);
	unsigned int delay_us;
	bool late;		/* bound by the late driver */
	bool gone;		/* unregistered, or about to be */
	bool bound;		/* between the end of probe and remove */
	bool fail;		/* the PM driver's probe fails after devres */
	bool suspended;		/* runtime suspended (PM driver) */
	atomic_t probes;
	atomic_t removes;
	atomic_t devres;	/* devres actions not released yet */
};

struct ppt_graph {
	int n;
	struct ppt_node node[PPT_MAX];
	bool blocked;		/* probing blocked: no probe may start */
	atomic_t order_errors;
	atomic_t pm_errors;
	atomic_t blocked_probes;
	atomic_t running;
	atomic_t max_running;
};

static struct ppt_node *ppt_node_of(struct device *dev)
{
	return *(struct ppt_node **)dev_get_platdata(dev);
}

static bool ppt_intact(struct ppt_graph *g, int i);

/* @self probed before @other, or was bound when @other was removed */
static void ppt_order_error(struct ppt_graph *g, int self, const char *what,
			    int other)
{
	atomic_inc(&g->order_errors);
	pr_err("parallel_probe_test: device %d %s %d (bound %d gone %d intact %d)\n",
	       self, what, other, READ_ONCE(g->node[other].bound),
	       READ_ONCE(g->node[other].gone), ppt_intact(g, other));
}

static int ppt_probe(struct platform_device *pdev)
{
	struct ppt_node *nd = ppt_node_of(&pdev->dev);
	struct ppt_graph *g = nd->g;
	int running, max, i;

	/*
	 * The naming point, at once: the next probe of the driver may start
	 * (the test drivers keep their naming domain, as drivers that take
	 * names in probe do, rather than set probe_unordered).
	 */
	driver_pprobe_named(&pdev->dev);
	if (READ_ONCE(g->blocked))
		atomic_inc(&g->blocked_probes);
	running = atomic_inc_return(&g->running);
	max = atomic_read(&g->max_running);
	while (running > max && !atomic_try_cmpxchg(&g->max_running, &max, running))
		;

	/*
	 * Only a parent or supplier that nothing is removed under counts:
	 * one whose own supplier or parent is going away may defer, and a
	 * deferred parent holds its children back no more than in mainline.
	 */
	if (nd->parent >= 0 && !READ_ONCE(g->node[nd->parent].bound) &&
	    ppt_intact(g, nd->parent))
		ppt_order_error(g, nd - g->node, "probed before parent",
				nd->parent);
	for_each_set_bit(i, nd->suppliers, g->n)
		if (!READ_ONCE(g->node[i].bound) && ppt_intact(g, i))
			ppt_order_error(g, nd - g->node,
					"probed before supplier", i);

	usleep_range(nd->delay_us, nd->delay_us + 20);

	atomic_inc(&nd->probes);
	WRITE_ONCE(nd->bound, true);
	atomic_dec(&g->running);
	return 0;
}

static int ppt_remove(struct platform_device *pdev)
{
	struct ppt_node *nd = ppt_node_of(&pdev->dev);
	struct ppt_graph *g = nd->g;
	int self = nd - g->node, i;

	/* device links unbind consumers before their supplier */
	for (i = self + 1; i < g->n; i++)
		if (test_bit(self, g->node[i].suppliers) &&
		    READ_ONCE(g->node[i].bound))
			ppt_order_error(g, self, "removed before consumer", i);

	WRITE_ONCE(nd->bound, false);
	atomic_inc(&nd->removes);
	return 0;
}

static struct platform_driver ppt_driver = {
	.probe = ppt_probe,
	.remove = ppt_remove,
	.driver = {
		.name = PPT_DRV,
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static struct platform_driver ppt_late_driver = {
	.probe = ppt_probe,
	.remove = ppt_remove,
	.driver = {
		.name = PPT_LATE_DRV,
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static int ppt_rpm_usage(struct device *dev)
{
#ifdef CONFIG_PM
	return atomic_read(&dev->power.usage_count);
#else
	return 0;
#endif
}

static void ppt_devres_release(void *data)
{
	struct ppt_node *nd = data;

	atomic_dec(&nd->devres);
}

/*
 * The probe of a driver with runtime PM and devres: its device's parent
 * must be runtime active while it probes (the driver core resumes it), and
 * what it allocates with devres must be released when it fails or unbinds.
 */
static int ppt_pm_probe(struct platform_device *pdev)
{
	struct ppt_node *nd = ppt_node_of(&pdev->dev);
	struct ppt_graph *g = nd->g;
	int ret;

	driver_pprobe_named(&pdev->dev);
	if (nd->parent >= 0 &&
	    (READ_ONCE(g->node[nd->parent].suspended) ||
	     !pm_runtime_active(pdev->dev.parent)))
		atomic_inc(&g->pm_errors);

	atomic_inc(&nd->devres);
	ret = devm_add_action_or_reset(&pdev->dev, ppt_devres_release, nd);
	if (ret)
		return ret;
	if (!devm_kzalloc(&pdev->dev, 64, GFP_KERNEL))
		return -ENOMEM;
	if (nd->fail) {
		usleep_range(nd->delay_us, nd->delay_us + 20);
		atomic_inc(&nd->probes);
		return -EIO;
	}

	pm_runtime_set_active(&pdev->dev);
	ret = devm_pm_runtime_enable(&pdev->dev);
	if (ret)
		return ret;
	return ppt_probe(pdev);
}

static int ppt_runtime_suspend(struct device *dev)
{
	WRITE_ONCE(ppt_node_of(dev)->suspended, true);
	return 0;
}

static int ppt_runtime_resume(struct device *dev)
{
	WRITE_ONCE(ppt_node_of(dev)->suspended, false);
	return 0;
}

static const struct dev_pm_ops ppt_pm_ops = {
	SET_RUNTIME_PM_OPS(ppt_runtime_suspend, ppt_runtime_resume, NULL)
};

static struct platform_driver ppt_pm_driver = {
	.probe = ppt_pm_probe,
	.remove = ppt_remove,
	.driver = {
		.name = PPT_DRV,
		.pm = &ppt_pm_ops,
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

/*
 * A random graph of 2..PPT_MAX devices.  Edges only go from later to
 * earlier devices, so it is acyclic; @late_pct percent of the devices are
 * for the late driver, and are nobody's parent.
 */
static void ppt_random_graph(struct rnd_state *rnd, struct ppt_graph *g,
			     int late_pct)
{
	int i, j;

	memset(g, 0, sizeof(*g));
	g->n = 2 + prandom_u32_state(rnd) % (PPT_MAX - 1);
	for (i = 0; i < g->n; i++) {
		struct ppt_node *nd = &g->node[i];

		nd->g = g;
		nd->parent = -1;
		if (i && prandom_u32_state(rnd) % 4 == 0)
			nd->parent = prandom_u32_state(rnd) % i;
		for (j = 0; j < i; j++)
			if (prandom_u32_state(rnd) % 100 < 25)
				__set_bit(j, nd->suppliers);
		nd->delay_us = 50 + prandom_u32_state(rnd) % 400;
		nd->late = prandom_u32_state(rnd) % 100 < late_pct;
		/*
		 * A child waits for its parent's probe only if one is
		 * pending: it does not need its parent's driver.
		 */
		if (nd->parent >= 0 && g->node[nd->parent].late)
			nd->parent = -1;
	}
}

static void ppt_register_devices(struct kunit *test, struct ppt_graph *g)
{
	int i, j;

	for (i = 0; i < g->n; i++) {
		struct ppt_node *nd = &g->node[i];
		struct platform_device_info info = {
			.name = nd->late ? PPT_LATE_DRV : PPT_DRV,
			.id = i,
			.data = &nd,
			.size_data = sizeof(nd),
			.parent = nd->parent >= 0 ?
				  &g->node[nd->parent].pdev->dev : NULL,
		};

		nd->pdev = platform_device_register_full(&info);
		KUNIT_ASSERT_FALSE(test, IS_ERR(nd->pdev));
		for_each_set_bit(j, nd->suppliers, i) {
			struct device_link *link;

			link = device_link_add(&nd->pdev->dev,
					       &g->node[j].pdev->dev, 0);
			KUNIT_ASSERT_NOT_NULL(test, link);
		}
	}
}

static void ppt_unregister_devices(struct ppt_graph *g)
{
	int i;

	for (i = g->n - 1; i >= 0; i--) {
		if (g->node[i].gone)
			continue;
		WRITE_ONCE(g->node[i].gone, true);
		platform_device_unregister(g->node[i].pdev);
	}
}

static unsigned int ppt_deferrals(void)
{
	struct pprobe_stats st;

	driver_pprobe_get_stats(&st);
	return st.deferrals;
}

static unsigned int ppt_parked(void)
{
	struct pprobe_stats st;

	driver_pprobe_get_stats(&st);
	return st.parked_now;
}

/* every device bound, @probes probes and @probes - 1 removes each */
static bool ppt_check_bound(struct kunit *test, struct ppt_graph *g,
			    int probes, unsigned int iter)
{
	bool ok = true;
	int i;

	for (i = 0; i < g->n; i++) {
		struct ppt_node *nd = &g->node[i];

		if (nd->pdev->dev.driver && atomic_read(&nd->probes) == probes &&
		    atomic_read(&nd->removes) == probes - 1)
			continue;
		KUNIT_FAIL(test, "graph %u device %d: driver %p probes %d removes %d",
			   iter, i, nd->pdev->dev.driver,
			   atomic_read(&nd->probes), atomic_read(&nd->removes));
		ok = false;
	}
	return ok;
}

static void ppt_init(struct kunit *test, struct rnd_state *rnd)
{
	if (!driver_pprobe_active())
		kunit_skip(test, "driver_parallel_probe=off");
	prandom_seed_state(rnd, seed);
	kunit_info(test, "seed %lu\n", seed);
}

/*
 * Random graphs, probed in parallel when the driver registers, unbound
 * by unregistering the driver and probed again by registering it again.
 * wait_for_device_probe() must return only when all of them are bound,
 * in order, each once, and without -EPROBE_DEFER: every dependency is
 * declared by a device link before the driver comes.
 */
static void ppt_random_graphs(struct kunit *test)
{
	struct ppt_graph *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned int iter, deferrals, max_running = 0;
	struct rnd_state rnd;

	KUNIT_ASSERT_NOT_NULL(test, g);
	ppt_init(test, &rnd);
	deferrals = ppt_deferrals();

	for (iter = 0; iter < graphs; iter++) {
		bool ok;

		ppt_random_graph(&rnd, g, 0);
		ppt_register_devices(test, g);

		KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_driver), 0);
		wait_for_device_probe();
		ok = ppt_check_bound(test, g, 1, iter);

		platform_driver_unregister(&ppt_driver);
		KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_driver), 0);
		wait_for_device_probe();
		ok &= ppt_check_bound(test, g, 2, iter);
		max_running = max_t(unsigned int, max_running,
				    atomic_read(&g->max_running));

		platform_driver_unregister(&ppt_driver);
		ppt_unregister_devices(g);

		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&g->order_errors), 0,
				    "graph %u: probed before a supplier or parent, or removed after a consumer",
				    iter);
		KUNIT_EXPECT_EQ_MSG(test, ppt_deferrals(), deferrals,
				    "graph %u: -EPROBE_DEFER", iter);
		deferrals = ppt_deferrals();
		if (!ok || atomic_read(&g->order_errors))
			break;
	}
	KUNIT_EXPECT_EQ(test, ppt_parked(), 0);
	/* independent devices must have probed concurrently */
	KUNIT_EXPECT_GT(test, max_running, 1);
	kunit_info(test, "%u graphs, up to %u probes at once\n", iter,
		   max_running);
}

/*
 * The driver goes away while its probes are queued, running or parked, as
 * when its module is unloaded.  Once driver_unregister() returns no probe
 * of it runs, then or later, and no device is bound to it; the parked
 * requests go when their devices do.
 */
static void ppt_driver_unregister_in_flight(struct kunit *test)
{
	struct ppt_graph *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	int probes[PPT_MAX];
	struct rnd_state rnd;
	unsigned int iter;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, g);
	ppt_init(test, &rnd);

	for (iter = 0; iter < graphs / 4; iter++) {
		ppt_random_graph(&rnd, g, 0);
		ppt_register_devices(test, g);

		KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_driver), 0);
		usleep_range(1, 1 + prandom_u32_state(&rnd) % 1000);
		platform_driver_unregister(&ppt_driver);

		/*
		 * A module frees the driver's code once this returns: no
		 * probe of it may run then or later.
		 */
		KUNIT_EXPECT_EQ(test, atomic_read(&g->running), 0);
		for (i = 0; i < g->n; i++)
			probes[i] = atomic_read(&g->node[i].probes);
		wait_for_device_probe();
		usleep_range(500, 1000);
		for (i = 0; i < g->n; i++) {
			struct ppt_node *nd = &g->node[i];

			KUNIT_EXPECT_NULL(test, nd->pdev->dev.driver);
			KUNIT_EXPECT_EQ(test, atomic_read(&nd->probes),
					atomic_read(&nd->removes));
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&nd->probes),
					    probes[i],
					    "graph %u device %d probed after driver_unregister()",
					    iter, i);
		}
		ppt_unregister_devices(g);
		KUNIT_EXPECT_EQ(test, ppt_parked(), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&g->order_errors), 0);
		if (atomic_read(&g->order_errors))
			break;
	}
}

/* neither @i nor any device it depends on is being removed */
static bool ppt_intact(struct ppt_graph *g, int i)
{
	int j;

	if (READ_ONCE(g->node[i].gone))
		return false;
	if (g->node[i].parent >= 0 && !ppt_intact(g, g->node[i].parent))
		return false;
	for_each_set_bit(j, g->node[i].suppliers, i)
		if (!ppt_intact(g, j))
			return false;
	return true;
}

static bool ppt_descends(struct ppt_graph *g, int i, int ancestor)
{
	while (i >= 0 && i != ancestor)
		i = g->node[i].parent;
	return i == ancestor;
}

/* a device goes after its children, as when a bus driver removes them */
static void ppt_unregister_subtree(struct ppt_graph *g, int top)
{
	int i;

	for (i = g->n - 1; i >= top; i--) {
		if (g->node[i].gone || !ppt_descends(g, i, top))
			continue;
		WRITE_ONCE(g->node[i].gone, true);
		platform_device_unregister(g->node[i].pdev);
	}
}

/*
 * Devices are unregistered while the graph probes.  Those that keep their
 * parent and suppliers end up bound exactly once; the others are bound
 * at most once; nothing is left parked.
 */
static void ppt_device_removal_in_flight(struct kunit *test)
{
	struct ppt_graph *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct rnd_state rnd;
	unsigned int iter;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, g);
	ppt_init(test, &rnd);

	for (iter = 0; iter < graphs / 4; iter++) {
		ppt_random_graph(&rnd, g, 0);
		ppt_register_devices(test, g);
		KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_driver), 0);
		for (i = 0; i < g->n; i++) {
			if (prandom_u32_state(&rnd) % 4)
				continue;
			usleep_range(1, 1 + prandom_u32_state(&rnd) % 300);
			ppt_unregister_subtree(g, i);
		}
		wait_for_device_probe();

		for (i = 0; i < g->n; i++) {
			struct ppt_node *nd = &g->node[i];
			int bound = atomic_read(&nd->probes) -
				    atomic_read(&nd->removes);

			if (nd->gone)
				continue;
			if (ppt_intact(g, i)) {
				KUNIT_EXPECT_EQ_MSG(test, bound, 1, "graph %u device %d",
						    iter, i);
				KUNIT_EXPECT_EQ(test, atomic_read(&nd->probes), 1);
			} else {
				KUNIT_EXPECT_LE(test, bound, 1);
				KUNIT_EXPECT_GE(test, bound, 0);
			}
		}
		platform_driver_unregister(&ppt_driver);
		ppt_unregister_devices(g);
		KUNIT_EXPECT_EQ(test, ppt_parked(), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&g->order_errors), 0);
		if (atomic_read(&g->order_errors))
			break;
	}
}

/*
 * A supplier starts to unbind while a consumer of it is attached.  Its
 * unbind marks it unbinding, stops at its first consumer that is bound
 * and unbinds that one, here in a remove that waits; the link of its
 * second consumer, not bound, still says "available" meanwhile.  The
 * second consumer must not probe then: it would be unbound again at once.
 * Attached synchronously, the driver core's supplier check defers it; if
 * it has another supplier, without a driver, the check must not warn in
 * device_links_missing_supplier() either; attached through the
 * scheduler, it stays parked, without a wasted deferral.
 */
#define PPT_UNBIND_DRV	"pprobe-test-unbind"

enum ppt_unbind_case {
	PPT_UNBIND_SYNC,
	PPT_UNBIND_SYNC_MISSING,
	PPT_UNBIND_PARALLEL,
};

static struct completion ppt_unbind_in_remove;
static struct completion ppt_unbind_go;
static struct completion ppt_unbind_done;
static atomic_t ppt_unbind_probes[3];

static int ppt_unbind_probe(struct platform_device *pdev)
{
	driver_pprobe_named(&pdev->dev);
	atomic_inc(&ppt_unbind_probes[pdev->id]);
	return 0;
}

static int ppt_unbind_remove(struct platform_device *pdev)
{
	if (pdev->id == 1) {
		complete(&ppt_unbind_in_remove);
		wait_for_completion_timeout(&ppt_unbind_go, 20 * HZ);
	}
	return 0;
}

static struct platform_driver ppt_unbind_driver = {
	.probe = ppt_unbind_probe,
	.remove = ppt_unbind_remove,
	.driver = {
		.name = PPT_UNBIND_DRV,
	},
};

static int ppt_unbind_thread(void *data)
{
	device_release_driver(data);
	complete(&ppt_unbind_done);
	return 0;
}

static void ppt_unbind_case(struct kunit *test, enum ppt_unbind_case what)
{
	bool async = what == PPT_UNBIND_PARALLEL;
	bool tainted = test_taint(TAINT_WARN);
	struct platform_device *pdev[3], *none;
	struct task_struct *task;
	unsigned int deferrals;
	bool in_remove;
	int i;

	init_completion(&ppt_unbind_in_remove);
	init_completion(&ppt_unbind_go);
	init_completion(&ppt_unbind_done);
	/* device 0 supplies 1, then 2: 1's link comes first in its list */
	for (i = 0; i < 3; i++) {
		atomic_set(&ppt_unbind_probes[i], 0);
		pdev[i] = platform_device_register_simple(PPT_UNBIND_DRV, i,
							  NULL, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pdev[i]));
		if (i)
			KUNIT_ASSERT_NOT_NULL(test,
					      device_link_add(&pdev[i]->dev,
							      &pdev[0]->dev, 0));
	}
	/* a supplier no driver binds, after 0 in the list of 2's suppliers */
	none = platform_device_register_simple(PPT_UNBIND_DRV "-none", 0,
					       NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(none));

	ppt_unbind_driver.driver.probe_type = async ?
		PROBE_PREFER_ASYNCHRONOUS : PROBE_FORCE_SYNCHRONOUS;
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_unbind_driver), 0);
	wait_for_device_probe();
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_PTR_EQ(test, pdev[i]->dev.driver,
				    &ppt_unbind_driver.driver);
	device_release_driver(&pdev[2]->dev);
	if (what == PPT_UNBIND_SYNC_MISSING)
		KUNIT_ASSERT_NOT_NULL(test, device_link_add(&pdev[2]->dev,
							    &none->dev, 0));

	task = kthread_run(ppt_unbind_thread, &pdev[0]->dev, "ppt-unbind");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	in_remove = wait_for_completion_timeout(&ppt_unbind_in_remove, 5 * HZ);
	KUNIT_EXPECT_TRUE(test, in_remove);

	deferrals = ppt_deferrals();
	if (in_remove && async)
		device_initial_probe(&pdev[2]->dev);
	else if (in_remove)
		KUNIT_EXPECT_EQ(test, device_attach(&pdev[2]->dev),
				-EPROBE_DEFER);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_unbind_probes[2]), 1,
			    "case %d: a probe against an unbinding supplier",
			    what);
	KUNIT_EXPECT_TRUE_MSG(test, tainted || !test_taint(TAINT_WARN),
			      "case %d: the supplier check warned", what);
	if (async) {
		KUNIT_EXPECT_EQ(test, ppt_parked(), 1);
		KUNIT_EXPECT_EQ(test, ppt_deferrals(), deferrals);
	}

	complete(&ppt_unbind_go);
	wait_for_completion(&ppt_unbind_done);
	wait_for_device_probe();
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_NULL(test, pdev[i]->dev.driver);

	platform_driver_unregister(&ppt_unbind_driver);
	for (i = 2; i >= 0; i--)
		platform_device_unregister(pdev[i]);
	platform_device_unregister(none);
	KUNIT_EXPECT_EQ(test, ppt_parked(), 0);
}

/*
 * The same with a best-effort consumer (fw_devlink=permissive, or a
 * firmware node marked so), whose link to the supplier fw_devlink inferred:
 * such a consumer may probe without a supplier no driver can match.  One
 * bound with device_bind_driver(), as some subsystems bind theirs, has
 * never been matched (can_match is false), yet it is bound, and unbinding:
 * the consumer must not take it for a supplier that will never come.
 */
static void ppt_unbind_best_effort(struct kunit *test)
{
	bool tainted = test_taint(TAINT_WARN);
	struct platform_device_info info = {
		.name = PPT_UNBIND_DRV,
		.id = 2,
	};
	struct platform_device *sup, *pdev[3] = { };
	struct fwnode_handle *fwnode;
	struct task_struct *task;
	bool in_remove;
	int i, ret;

	init_completion(&ppt_unbind_in_remove);
	init_completion(&ppt_unbind_go);
	init_completion(&ppt_unbind_done);
	fwnode = fwnode_create_software_node(NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(fwnode));
	fwnode_set_flag(fwnode, FWNODE_FLAG_BEST_EFFORT);
	ppt_unbind_driver.driver.probe_type = PROBE_FORCE_SYNCHRONOUS;
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_unbind_driver), 0);

	/* the supplier: a name the driver does not match, bound by hand */
	sup = platform_device_register_simple(PPT_UNBIND_DRV "-sup", 0, NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sup));
	device_lock(&sup->dev);
	sup->dev.driver = &ppt_unbind_driver.driver;
	ret = device_bind_driver(&sup->dev);
	if (ret)
		sup->dev.driver = NULL;
	device_unlock(&sup->dev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_FALSE(test, sup->dev.can_match);

	/* consumer 1 binds first in the supplier's list; 2 is best effort */
	for (i = 1; i < 3; i++) {
		atomic_set(&ppt_unbind_probes[i], 0);
		info.id = i;
		info.fwnode = i == 2 ? fwnode : NULL;
		pdev[i] = platform_device_register_full(&info);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pdev[i]));
		KUNIT_ASSERT_PTR_EQ(test, pdev[i]->dev.driver,
				    &ppt_unbind_driver.driver);
		KUNIT_ASSERT_NOT_NULL(test,
				      device_link_add(&pdev[i]->dev, &sup->dev,
						      i == 2 ? DL_FLAG_INFERRED :
						      0));
	}
	KUNIT_ASSERT_PTR_EQ(test, pdev[2]->dev.fwnode, fwnode);
	KUNIT_ASSERT_TRUE(test, fwnode_test_flag(pdev[2]->dev.fwnode,
						 FWNODE_FLAG_BEST_EFFORT));
	device_release_driver(&pdev[2]->dev);

	task = kthread_run(ppt_unbind_thread, &sup->dev, "ppt-unbind");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	in_remove = wait_for_completion_timeout(&ppt_unbind_in_remove, 5 * HZ);
	KUNIT_EXPECT_TRUE(test, in_remove);
	if (in_remove)
		KUNIT_EXPECT_EQ(test, device_attach(&pdev[2]->dev),
				-EPROBE_DEFER);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_unbind_probes[2]), 1,
			    "a best-effort probe against an unbinding supplier");
	KUNIT_EXPECT_TRUE_MSG(test, tainted || !test_taint(TAINT_WARN),
			      "the supplier check warned");

	complete(&ppt_unbind_go);
	wait_for_completion(&ppt_unbind_done);
	wait_for_device_probe();
	KUNIT_EXPECT_NULL(test, sup->dev.driver);
	KUNIT_EXPECT_NULL(test, pdev[1]->dev.driver);
	KUNIT_EXPECT_NULL(test, pdev[2]->dev.driver);

	platform_driver_unregister(&ppt_unbind_driver);
	for (i = 2; i >= 1; i--)
		platform_device_unregister(pdev[i]);
	platform_device_unregister(sup);
	fwnode_remove_software_node(fwnode);
}

static void ppt_unbinding_supplier(struct kunit *test)
{
	struct rnd_state rnd;

	ppt_init(test, &rnd);
	ppt_unbind_case(test, PPT_UNBIND_SYNC);
	ppt_unbind_case(test, PPT_UNBIND_SYNC_MISSING);
	ppt_unbind_case(test, PPT_UNBIND_PARALLEL);
	ppt_unbind_best_effort(test);
}

/*
 * Some suppliers' driver comes late.  Their consumers wait parked, not on
 * the deferred list, and bind as soon as it comes, without -EPROBE_DEFER;
 * wait_for_device_probe() does not wait for them in between.
 */
static void ppt_late_supplier(struct kunit *test)
{
	struct ppt_graph *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned int iter, deferrals;
	struct rnd_state rnd;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, g);
	ppt_init(test, &rnd);
	deferrals = ppt_deferrals();

	for (iter = 0; iter < graphs / 4; iter++) {
		ppt_random_graph(&rnd, g, 20);
		ppt_register_devices(test, g);

		KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_driver), 0);
		wait_for_device_probe();
		for (i = 0; i < g->n; i++) {
			struct ppt_node *nd = &g->node[i];
			bool waits = nd->late;
			int j;

			if (nd->parent >= 0)
				waits |= !READ_ONCE(g->node[nd->parent].bound);

			for_each_set_bit(j, nd->suppliers, i)
				waits |= !READ_ONCE(g->node[j].bound);
			KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(nd->bound), !waits,
					    "graph %u device %d", iter, i);
		}

		KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_late_driver), 0);
		wait_for_device_probe();
		ppt_check_bound(test, g, 1, iter);

		platform_driver_unregister(&ppt_late_driver);
		platform_driver_unregister(&ppt_driver);
		ppt_unregister_devices(g);
		KUNIT_EXPECT_EQ(test, ppt_parked(), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&g->order_errors), 0);
		KUNIT_EXPECT_EQ_MSG(test, ppt_deferrals(), deferrals,
				    "graph %u: -EPROBE_DEFER", iter);
		deferrals = ppt_deferrals();
		if (atomic_read(&g->order_errors))
			break;
	}
}

/* a device that is nobody's parent or supplier */
static bool ppt_leaf(struct ppt_graph *g, int i)
{
	int j;

	for (j = i + 1; j < g->n; j++)
		if (g->node[j].parent == i || test_bit(i, g->node[j].suppliers))
			return false;
	return true;
}

/*
 * Probes that resume the parent and allocate with devres, some failing
 * after their allocations.  While a device probes its parent is runtime
 * active; every devres action is released once the probe fails or the
 * driver unbinds; the runtime PM usage counts the driver core takes
 * around a probe are all given back.
 */
static void ppt_runtime_pm_devres(struct kunit *test)
{
	struct ppt_graph *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct rnd_state rnd;
	unsigned int iter;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, g);
	ppt_init(test, &rnd);

	for (iter = 0; iter < graphs / 4; iter++) {
		ppt_random_graph(&rnd, g, 0);
		for (i = 0; i < g->n; i++)
			g->node[i].fail = ppt_leaf(g, i) &&
					  prandom_u32_state(&rnd) % 4 == 0;
		ppt_register_devices(test, g);

		KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_pm_driver), 0);
		wait_for_device_probe();
		for (i = 0; i < g->n; i++) {
			struct ppt_node *nd = &g->node[i];
			bool bound = nd->pdev->dev.driver;

			KUNIT_EXPECT_EQ_MSG(test, bound, !nd->fail,
					    "graph %u device %d", iter, i);
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&nd->probes), 1,
					    "graph %u device %d", iter, i);
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&nd->devres),
					    bound ? 1 : 0,
					    "graph %u device %d: devres", iter, i);
		}

		platform_driver_unregister(&ppt_pm_driver);
		for (i = 0; i < g->n; i++) {
			struct device *dev = &g->node[i].pdev->dev;

			pm_runtime_barrier(dev);
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&g->node[i].devres), 0,
					    "graph %u device %d: devres after unbind",
					    iter, i);
			KUNIT_EXPECT_EQ_MSG(test, ppt_rpm_usage(dev), 0,
					    "graph %u device %d: runtime PM usage",
					    iter, i);
		}
		ppt_unregister_devices(g);
		KUNIT_EXPECT_EQ(test, ppt_parked(), 0);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&g->pm_errors), 0,
				    "graph %u: a device probed with its parent suspended",
				    iter);
		KUNIT_EXPECT_EQ(test, atomic_read(&g->order_errors), 0);
		if (atomic_read(&g->order_errors) || atomic_read(&g->pm_errors))
			break;
	}
}

/*
 * device_shutdown() waits for the probes in flight and blocks probing
 * (wait_for_device_probe(), device_block_probing()) while others are
 * queued or parked.  From then on no probe may start, not even of the
 * parked devices whose late supplier's driver comes now; they defer and
 * bind once probing is unblocked, as after an aborted suspend.
 */
static void ppt_shutdown_in_flight(struct kunit *test)
{
	struct ppt_graph *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct rnd_state rnd;
	unsigned int iter;

	KUNIT_ASSERT_NOT_NULL(test, g);
	ppt_init(test, &rnd);

	for (iter = 0; iter < graphs / 8; iter++) {
		ppt_random_graph(&rnd, g, 20);
		ppt_register_devices(test, g);

		KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_driver), 0);
		usleep_range(1, 1 + prandom_u32_state(&rnd) % 1000);

		wait_for_device_probe();
		device_block_probing();
		WRITE_ONCE(g->blocked, true);
		KUNIT_EXPECT_EQ(test, atomic_read(&g->running), 0);
		KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_late_driver), 0);
		wait_for_device_probe();
		usleep_range(500, 1000);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&g->blocked_probes), 0,
				    "graph %u: a probe started with probing blocked",
				    iter);
		WRITE_ONCE(g->blocked, false);
		device_unblock_probing();

		wait_for_device_probe();
		ppt_check_bound(test, g, 1, iter);

		platform_driver_unregister(&ppt_late_driver);
		platform_driver_unregister(&ppt_driver);
		ppt_unregister_devices(g);
		KUNIT_EXPECT_EQ(test, ppt_parked(), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&g->order_errors), 0);
		if (atomic_read(&g->order_errors) || atomic_read(&g->blocked_probes))
			break;
	}
}

/*
 * Probes launched by a task rather than by a probe run on the task's CPU
 * while the task waits: one that does not sleep has bound its device when
 * the driver's or the device's registration returns, in one of the
 * scheduler's workers.
 */
#define PPT_QUICK_DRV	"pprobe-test-quick"
#define PPT_QUICK_N	8

static atomic_t ppt_quick_probes;
static atomic_t ppt_quick_worker;

/* a workqueue worker, but no async entry (see ppt_request_module) */
static bool ppt_in_probe_worker(void)
{
	return current->flags & PF_WQ_WORKER && !current_is_async();
}

static int ppt_quick_probe(struct platform_device *pdev)
{
	atomic_inc(&ppt_quick_probes);
	if (ppt_in_probe_worker())
		atomic_inc(&ppt_quick_worker);
	return 0;
}

static struct platform_driver ppt_quick_driver = {
	.probe = ppt_quick_probe,
	.driver = {
		.name = PPT_QUICK_DRV,
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static unsigned int ppt_local(void)
{
	struct pprobe_stats st;

	driver_pprobe_get_stats(&st);
	return st.local;
}

static void ppt_local_quick(struct kunit *test)
{
	struct platform_device *pdev[PPT_QUICK_N];
	unsigned int local;
	struct rnd_state rnd;
	int i;

	ppt_init(test, &rnd);
	atomic_set(&ppt_quick_probes, 0);
	atomic_set(&ppt_quick_worker, 0);
	local = ppt_local();

	/* devices first: the driver's registration asks for their probes */
	for (i = 0; i < PPT_QUICK_N / 2; i++) {
		pdev[i] = platform_device_register_simple(PPT_QUICK_DRV, i,
							  NULL, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pdev[i]));
	}
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_quick_driver), 0);
	for (i = 0; i < PPT_QUICK_N / 2; i++)
		KUNIT_EXPECT_PTR_EQ_MSG(test, pdev[i]->dev.driver,
					&ppt_quick_driver.driver,
					"device %d not bound when the driver's registration returned",
					i);

	/* then the driver: each device's registration asks for its probe */
	for (; i < PPT_QUICK_N; i++) {
		pdev[i] = platform_device_register_simple(PPT_QUICK_DRV, i,
							  NULL, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pdev[i]));
		KUNIT_EXPECT_PTR_EQ_MSG(test, pdev[i]->dev.driver,
					&ppt_quick_driver.driver,
					"device %d not bound when its registration returned",
					i);
	}

	wait_for_device_probe();
	KUNIT_EXPECT_EQ(test, atomic_read(&ppt_quick_probes), PPT_QUICK_N);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_quick_worker), PPT_QUICK_N,
			    "a probe did not run in a worker of the scheduler");
	KUNIT_EXPECT_EQ(test, ppt_local() - local, PPT_QUICK_N);

	platform_driver_unregister(&ppt_quick_driver);
	for (i = 0; i < PPT_QUICK_N; i++)
		platform_device_unregister(pdev[i]);
}

/*
 * A probe launched on its requester's CPU that sleeps lets the requester
 * go on, and the next one starts meanwhile: a driver's registration
 * returns while the probes of all its devices wait for their (here
 * simulated) hardware, and wait_for_device_probe() waits for them.  The
 * driver is registered by a kernel thread so that a registration that
 * waited for the probes to end is caught by a bounded wait.
 */
#define PPT_GATED_DRV	"pprobe-test-gated"
#define PPT_GATED_N	4

static DECLARE_COMPLETION(ppt_gate);
static atomic_t ppt_gated_started;
static atomic_t ppt_gated_done;

static int ppt_gated_probe(struct platform_device *pdev)
{
	driver_pprobe_named(&pdev->dev);
	atomic_inc(&ppt_gated_started);
	wait_for_completion_timeout(&ppt_gate, 20 * HZ);
	usleep_range(1000, 2000);
	atomic_inc(&ppt_gated_done);
	return 0;
}

static struct platform_driver ppt_gated_driver = {
	.probe = ppt_gated_probe,
	.driver = {
		.name = PPT_GATED_DRV,
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

struct ppt_registrar {
	struct completion done;
	int ret;
};

static int ppt_register_gated(void *data)
{
	struct ppt_registrar *reg = data;

	reg->ret = platform_driver_register(&ppt_gated_driver);
	complete(&reg->done);
	return 0;
}

static void ppt_local_sleeping(struct kunit *test)
{
	struct platform_device *pdev[PPT_GATED_N];
	struct ppt_registrar reg = { .ret = -EINPROGRESS };
	struct task_struct *task;
	struct rnd_state rnd;
	bool returned;
	int i;

	ppt_init(test, &rnd);
	reinit_completion(&ppt_gate);
	init_completion(&reg.done);
	atomic_set(&ppt_gated_started, 0);
	atomic_set(&ppt_gated_done, 0);

	for (i = 0; i < PPT_GATED_N; i++) {
		pdev[i] = platform_device_register_simple(PPT_GATED_DRV, i,
							  NULL, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pdev[i]));
	}
	task = kthread_run(ppt_register_gated, &reg, "ppt-register");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));

	returned = wait_for_completion_timeout(&reg.done, 5 * HZ);
	KUNIT_EXPECT_TRUE_MSG(test, returned,
			      "the driver's registration waited for sleeping probes");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_gated_started), PPT_GATED_N,
			    "the probes did not wait for their hardware at once");
	KUNIT_EXPECT_EQ(test, atomic_read(&ppt_gated_done), 0);

	complete_all(&ppt_gate);
	if (!returned)
		wait_for_completion(&reg.done);
	KUNIT_ASSERT_EQ(test, reg.ret, 0);

	wait_for_device_probe();
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_gated_done), PPT_GATED_N,
			    "wait_for_device_probe() returned before the probes ended");
	for (i = 0; i < PPT_GATED_N; i++)
		KUNIT_EXPECT_PTR_EQ(test, pdev[i]->dev.driver,
				    &ppt_gated_driver.driver);

	platform_driver_unregister(&ppt_gated_driver);
	for (i = 0; i < PPT_GATED_N; i++)
		platform_device_unregister(pdev[i]);
}

/*
 * wait_for_device_probe() waits for probes that are in flight but not in
 * a driver's probe yet: here the probe helper is resuming the device's
 * parent, whose runtime resume takes a while, so the driver core's own
 * probe count is still 0.
 */
static atomic_t ppt_slow_probes;

static int ppt_slow_resume(struct device *dev)
{
	msleep(100);
	return 0;
}

static struct dev_pm_domain ppt_slow_domain = {
	.ops = { SET_RUNTIME_PM_OPS(NULL, ppt_slow_resume, NULL) },
};

static int ppt_slow_probe(struct platform_device *pdev)
{
	atomic_inc(&ppt_slow_probes);
	return 0;
}

static struct platform_driver ppt_slow_driver = {
	.probe = ppt_slow_probe,
	.driver = {
		.name = "pprobe-test-slow",
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static void ppt_wait_for_device_probe(struct kunit *test)
{
	struct platform_device *parent, *child;
	struct rnd_state rnd;

	ppt_init(test, &rnd);
	atomic_set(&ppt_slow_probes, 0);
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_slow_driver), 0);

	parent = platform_device_register_simple("pprobe-test-holder", 1,
						 NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(parent));
	dev_pm_domain_set(&parent->dev, &ppt_slow_domain);
	pm_runtime_set_suspended(&parent->dev);
	pm_runtime_enable(&parent->dev);

	child = platform_device_alloc("pprobe-test-slow", 0);
	KUNIT_ASSERT_NOT_NULL(test, child);
	child->dev.parent = &parent->dev;
	KUNIT_ASSERT_EQ(test, platform_device_add(child), 0);

	wait_for_device_probe();
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_slow_probes), 1,
			    "wait_for_device_probe() returned before a queued probe ran");
	KUNIT_EXPECT_PTR_EQ(test, child->dev.driver, &ppt_slow_driver.driver);

	platform_device_unregister(child);
	pm_runtime_disable(&parent->dev);
	dev_pm_domain_set(&parent->dev, NULL);
	platform_device_unregister(parent);
	platform_driver_unregister(&ppt_slow_driver);
}

/*
 * Names.  Each probe of these drivers takes the lowest free number of
 * its driver's ida, as virtio-blk, mmc and sd take their disk index,
 * after a random delay (a probe waiting on hardware before it registers
 * its disk).  The numbers must follow the order the devices were
 * registered in, in every run, while the probes of the two drivers, two
 * naming domains, overlap.  With driver_pprobe_named() right after the
 * number is taken, the probes of one driver overlap too.  The drivers
 * have the default probe type, which the scheduler makes asynchronous,
 * and a parent's probe, in a worker, registers them and their devices.
 * A third driver asks for asynchronous probing: as in mainline, its
 * probes are not ordered, and overlap.
 */
#define PPT_NAME_N	6
#define PPT_NAME_RUNS	20

struct ppt_namer {
	struct platform_driver pdrv;
	struct ida ida;
	bool named_early;	/* calls driver_pprobe_named() */
	int index[PPT_NAME_N];	/* the number each device took */
	struct rnd_state rnd;
	spinlock_t lock;	/* rnd */
};

#define PPT_NAMERS	3
static struct ppt_namer ppt_namers[PPT_NAMERS];

static atomic_t ppt_name_running;
static atomic_t ppt_name_max_running;
/*
 * most probes of one driver at once: without and with the naming point,
 * and asynchronous
 */
static atomic_t ppt_name_max_same[3];

static void ppt_note_max(atomic_t *max, int now)
{
	int old = atomic_read(max);

	while (now > old && !atomic_try_cmpxchg(max, &old, now))
		;
}

static unsigned int ppt_namer_delay(struct ppt_namer *nm)
{
	unsigned int us;

	spin_lock(&nm->lock);
	us = prandom_u32_state(&nm->rnd) % 2000;
	spin_unlock(&nm->lock);
	return us;
}

static int ppt_name_probe(struct platform_device *pdev)
{
	struct ppt_namer *nm = container_of(pdev->dev.driver, struct ppt_namer,
					    pdrv.driver);
	static atomic_t same[3];
	int d = nm - ppt_namers;
	atomic_t *mine = &same[d];
	int idx;

	ppt_note_max(&ppt_name_max_running,
		     atomic_inc_return(&ppt_name_running));
	ppt_note_max(&ppt_name_max_same[d], atomic_inc_return(mine));

	usleep_range(ppt_namer_delay(nm) + 10, ppt_namer_delay(nm) + 2020);
	idx = ida_alloc(&nm->ida, GFP_KERNEL);
	if (idx >= 0 && pdev->id < PPT_NAME_N)
		nm->index[pdev->id] = idx;
	if (nm->named_early)
		driver_pprobe_named(&pdev->dev);
	usleep_range(ppt_namer_delay(nm) + 10, ppt_namer_delay(nm) + 2020);

	atomic_dec(mine);
	atomic_dec(&ppt_name_running);
	return idx < 0 ? idx : 0;
}

static int ppt_name_remove(struct platform_device *pdev)
{
	struct ppt_namer *nm = container_of(pdev->dev.driver, struct ppt_namer,
					    pdrv.driver);

	ida_free(&nm->ida, nm->index[pdev->id]);
	return 0;
}

static struct ppt_namer ppt_namers[PPT_NAMERS] = {
	{ .pdrv = { .probe = ppt_name_probe, .remove = ppt_name_remove,
		    .driver = { .name = "pprobe-test-name-a" } } },
	{ .pdrv = { .probe = ppt_name_probe, .remove = ppt_name_remove,
		    .driver = { .name = "pprobe-test-name-b" } },
	  .named_early = true },
	{ .pdrv = { .probe = ppt_name_probe, .remove = ppt_name_remove,
		    .driver = { .name = "pprobe-test-name-c",
				.probe_type = PROBE_PREFER_ASYNCHRONOUS } } },
};

static int ppt_namer_register(int d)
{
	return platform_driver_register(&ppt_namers[d].pdrv);
}

static struct platform_device *
ppt_namer_add(struct device *parent, int d, int i)
{
	return platform_device_register_data(parent,
					     ppt_namers[d].pdrv.driver.name,
					     i, NULL, 0);
}

static struct platform_device *ppt_name_pdev[PPT_NAMERS][PPT_NAME_N];

/*
 * Half the devices come before the drivers, whose registration asks for
 * their probes, half after, each asking for its own.  The first device of
 * each driver is a child of this one, and waits, parked, until this probe
 * has ended: it must keep its place, and take the first number.
 */
static int ppt_name_parent_probe(struct platform_device *pdev)
{
	int d, i, ret;

	for (i = 0; i < PPT_NAME_N; i++) {
		for (d = 0; d < PPT_NAMERS && i == PPT_NAME_N / 2; d++) {
			ret = ppt_namer_register(d);
			if (ret)
				return ret;
		}
		for (d = 0; d < PPT_NAMERS; d++) {
			ppt_name_pdev[d][i] =
				ppt_namer_add(i ? NULL : &pdev->dev, d, i);
			if (IS_ERR(ppt_name_pdev[d][i]))
				return PTR_ERR(ppt_name_pdev[d][i]);
		}
	}
	return 0;
}

static struct platform_driver ppt_name_parent_driver = {
	.probe = ppt_name_parent_probe,
	.driver = {
		.name = "pprobe-test-name-parent",
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static void ppt_names_in_order(struct kunit *test)
{
	struct platform_device *(*pdev)[PPT_NAME_N] = ppt_name_pdev;
	unsigned int run, out_of_order = 0, first_late = 0;
	struct platform_device *parent;
	struct rnd_state rnd;
	int d, i;

	ppt_init(test, &rnd);
	atomic_set(&ppt_name_max_running, 0);
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_name_parent_driver), 0);
	for (d = 0; d < PPT_NAMERS; d++) {
		atomic_set(&ppt_name_max_same[d], 0);
		ida_init(&ppt_namers[d].ida);
		spin_lock_init(&ppt_namers[d].lock);
		prandom_seed_state(&ppt_namers[d].rnd, seed + d);
	}

	for (run = 0; run < PPT_NAME_RUNS; run++) {
		memset(ppt_name_pdev, 0, sizeof(ppt_name_pdev));
		parent = platform_device_register_simple("pprobe-test-name-parent",
							 0, NULL, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(parent));
		wait_for_device_probe();
		KUNIT_ASSERT_PTR_EQ(test, parent->dev.driver,
				    &ppt_name_parent_driver.driver);

		for (d = 0; d < PPT_NAMERS; d++)
			for (i = 0; i < PPT_NAME_N; i++) {
				KUNIT_EXPECT_PTR_EQ(test, pdev[d][i]->dev.driver,
						    &ppt_namers[d].pdrv.driver);
				if (d < 2 && ppt_namers[d].index[i] != i)
					out_of_order++;
			}
		/* the parked first device took its number after the others */
		for (d = 0; d < 2; d++)
			if (ppt_namers[d].index[0] == PPT_NAME_N - 1)
				first_late++;
		KUNIT_EXPECT_EQ_MSG(test, out_of_order, 0,
				    "run %u: numbers not in registration order", run);

		for (d = 0; d < PPT_NAMERS; d++) {
			platform_driver_unregister(&ppt_namers[d].pdrv);
			for (i = 0; i < PPT_NAME_N; i++)
				platform_device_unregister(pdev[d][i]);
		}
		platform_device_unregister(parent);
		if (out_of_order)
			break;
	}
	platform_driver_unregister(&ppt_name_parent_driver);
	/* naming domains do not wait for each other */
	KUNIT_EXPECT_GT(test, atomic_read(&ppt_name_max_running), 1);
	/* a domain's probes run one at a time, up to their naming point */
	KUNIT_EXPECT_EQ(test, atomic_read(&ppt_name_max_same[0]), 1);
	KUNIT_EXPECT_GT(test, atomic_read(&ppt_name_max_same[1]), 1);
	/* drivers asking for asynchronous probing are not ordered */
	KUNIT_EXPECT_GT(test, atomic_read(&ppt_name_max_same[2]), 1);
	KUNIT_EXPECT_EQ(test, first_late, 0);
	kunit_info(test, "%u runs, up to %d probes at once\n", run,
		   atomic_read(&ppt_name_max_running));
}

/*
 * A driver that takes no names (probe_unordered).  Its first device is a
 * child of a device whose probe is running, and waits, parked; its second
 * device is ready.  For a driver that may take names, the first keeps its
 * place and the second waits behind it (ppt_names_in_order()); for one
 * that takes none, nothing holds the second back.  Both drivers are
 * tried, so that the case sees the hold it is about.  The devices are
 * registered by a probe, in a worker: the test's kernel thread would
 * probe them synchronously (driver_pprobe_wanted()).
 */
static struct completion ppt_hold_started;
static struct completion ppt_hold_go;
static struct platform_device *ppt_holder;
static struct platform_device *ppt_order_pdev[2];

static int ppt_hold_probe(struct platform_device *pdev)
{
	complete(&ppt_hold_started);
	wait_for_completion_timeout(&ppt_hold_go, 10 * HZ);
	return 0;
}

static int ppt_order_registrar_probe(struct platform_device *pdev)
{
	const char *name = dev_get_platdata(&pdev->dev);

	ppt_order_pdev[0] = platform_device_register_data(&ppt_holder->dev,
							  name, 0, NULL, 0);
	ppt_order_pdev[1] = platform_device_register_simple(name, 1, NULL, 0);
	return 0;
}

static struct platform_driver ppt_hold_drivers[] = {
	{ .probe = ppt_hold_probe,
	  .driver = { .name = "pprobe-test-hold",
		      .probe_type = PROBE_PREFER_ASYNCHRONOUS } },
	{ .probe = ppt_order_registrar_probe,
	  .driver = { .name = "pprobe-test-registrar",
		      .probe_type = PROBE_PREFER_ASYNCHRONOUS } },
};

/* the order in which the two devices' probes ran: 1, 2 */
static atomic_t ppt_order_seq;
static int ppt_order_ran[2];

static int ppt_plain_probe(struct platform_device *pdev)
{
	if (pdev->id >= 0 && pdev->id < ARRAY_SIZE(ppt_order_ran))
		ppt_order_ran[pdev->id] = atomic_inc_return(&ppt_order_seq);
	return 0;
}

static struct platform_driver ppt_order_drivers[] = {
	{ .probe = ppt_plain_probe,
	  .driver = { .name = "pprobe-test-ordered" } },
	{ .probe = ppt_plain_probe,
	  .driver = { .name = "pprobe-test-unordered",
		      .probe_unordered = true } },
};

/* is @pdev bound within @ms? */
static bool ppt_bound_within(struct platform_device *pdev, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (!READ_ONCE(pdev->dev.driver)) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(5000, 10000);
	}
	return true;
}

static void ppt_unordered_case(struct kunit *test, struct platform_driver *drv)
{
	const char *name = drv->driver.name;
	bool unordered = drv->driver.probe_unordered;
	struct platform_device *registrar, *first, *second;
	bool early = false, first_early = false;

	memset(ppt_order_pdev, 0, sizeof(ppt_order_pdev));
	memset(ppt_order_ran, 0, sizeof(ppt_order_ran));
	atomic_set(&ppt_order_seq, 0);
	init_completion(&ppt_hold_started);
	init_completion(&ppt_hold_go);
	ppt_holder = platform_device_register_simple("pprobe-test-hold", 0,
						     NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ppt_holder));
	KUNIT_EXPECT_GT(test,
			wait_for_completion_timeout(&ppt_hold_started, 10 * HZ),
			0);
	registrar = platform_device_register_data(NULL, "pprobe-test-registrar",
						  0, name, strlen(name) + 1);
	KUNIT_EXPECT_FALSE(test, IS_ERR(registrar));
	if (!IS_ERR(registrar))
		KUNIT_EXPECT_TRUE(test, ppt_bound_within(registrar, 5000));
	first = ppt_order_pdev[0];
	second = ppt_order_pdev[1];
	KUNIT_EXPECT_FALSE(test, IS_ERR_OR_NULL(first));
	KUNIT_EXPECT_FALSE(test, IS_ERR_OR_NULL(second));
	if (!IS_ERR_OR_NULL(first) && !IS_ERR_OR_NULL(second)) {
		/* a hold shows as long as the holder's probe runs */
		early = ppt_bound_within(second, unordered ? 5000 : 300);
		first_early = first->dev.driver;
	}
	complete(&ppt_hold_go);
	wait_for_device_probe();
	KUNIT_EXPECT_FALSE_MSG(test, first_early,
			       "%s: first device bound before its parent", name);
	KUNIT_EXPECT_EQ_MSG(test, early, unordered,
			    "%s: second device %s while the first waited",
			    name, early ? "bound" : "not bound");
	/* and whatever the time it took: which probe ran first */
	KUNIT_EXPECT_EQ_MSG(test, ppt_order_ran[unordered ? 1 : 0], 1,
			    "%s: probes ran in the order %d, %d", name,
			    ppt_order_ran[0], ppt_order_ran[1]);
	if (!IS_ERR_OR_NULL(first)) {
		KUNIT_EXPECT_PTR_EQ(test, first->dev.driver, &drv->driver);
		platform_device_unregister(first);
	}
	if (!IS_ERR_OR_NULL(second)) {
		KUNIT_EXPECT_PTR_EQ(test, second->dev.driver, &drv->driver);
		platform_device_unregister(second);
	}
	if (!IS_ERR(registrar))
		platform_device_unregister(registrar);
	platform_device_unregister(ppt_holder);
}

static void ppt_unordered(struct kunit *test)
{
	struct rnd_state rnd;
	int d;

	ppt_init(test, &rnd);
	for (d = 0; d < ARRAY_SIZE(ppt_hold_drivers); d++)
		KUNIT_ASSERT_EQ(test,
				platform_driver_register(&ppt_hold_drivers[d]), 0);
	for (d = 0; d < ARRAY_SIZE(ppt_order_drivers); d++) {
		KUNIT_ASSERT_EQ(test,
				platform_driver_register(&ppt_order_drivers[d]), 0);
		ppt_unordered_case(test, &ppt_order_drivers[d]);
		platform_driver_unregister(&ppt_order_drivers[d]);
	}
	for (d = ARRAY_SIZE(ppt_hold_drivers) - 1; d >= 0; d--)
		platform_driver_unregister(&ppt_hold_drivers[d]);
}

/*
 * A probe that loads a module.  request_module() warns when it is called
 * from an async entry (current_is_async()), and the module's init ends in
 * async_synchronize_full(), which waits for every async entry: a probe
 * run as one would wait for the module that waits for it.  This probe
 * does what the two sides do: it checks the warning's condition, and asks
 * a thread, in place of modprobe, to schedule async work and wait for all
 * async work and for the probes of the load, as loading a module does;
 * the thread must come back.
 */
#define PPT_MODLOAD_N	3

static atomic_t ppt_modload_async;
static atomic_t ppt_modload_hung;
static atomic_t ppt_modload_sync;
static struct task_struct *ppt_modload_requester;
/* static: a thread may outlive a probe whose wait timed out */
static struct completion ppt_modload_done[PPT_MODLOAD_N];

static void ppt_module_async_work(void *data, async_cookie_t cookie)
{
	usleep_range(100, 200);
}

static int ppt_module_init_thread(void *data)
{
	struct pprobe_loader load;

	driver_pprobe_load_begin(&load, &load);
	async_schedule(ppt_module_async_work, NULL);
	async_synchronize_full();
	driver_pprobe_load_end(&load, true);
	complete(data);
	return 0;
}

static int ppt_modload_probe(struct platform_device *pdev)
{
	struct completion *done = &ppt_modload_done[pdev->id];
	struct task_struct *task;

	if (current == ppt_modload_requester)
		atomic_inc(&ppt_modload_sync);
	if (current_is_async())
		atomic_inc(&ppt_modload_async);
	if (IS_ENABLED(CONFIG_MODULES))
		request_module("pprobe-test-no-such-module");

	task = kthread_run(ppt_module_init_thread, done, "ppt-modprobe");
	if (IS_ERR(task))
		return PTR_ERR(task);
	if (!wait_for_completion_timeout(done, 10 * HZ)) {
		atomic_inc(&ppt_modload_hung);
		/* it returns once this probe has, as async work ends */
		return -ETIMEDOUT;
	}
	return 0;
}

static struct platform_driver ppt_modload_driver = {
	.probe = ppt_modload_probe,
	.driver = {
		.name = "pprobe-test-modload",
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static void ppt_request_module(struct kunit *test)
{
	struct platform_device *pdev[PPT_MODLOAD_N];
	struct rnd_state rnd;
	int i;

	ppt_init(test, &rnd);
	atomic_set(&ppt_modload_async, 0);
	atomic_set(&ppt_modload_hung, 0);
	atomic_set(&ppt_modload_sync, 0);
	ppt_modload_requester = current;
	for (i = 0; i < PPT_MODLOAD_N; i++)
		init_completion(&ppt_modload_done[i]);

	for (i = 0; i < PPT_MODLOAD_N; i++) {
		pdev[i] = platform_device_register_simple("pprobe-test-modload",
							  i, NULL, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pdev[i]));
	}
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_modload_driver), 0);
	wait_for_device_probe();

	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_modload_sync), 0,
			    "the probes ran in the requester, not in parallel");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_modload_async), 0,
			    "a probe ran in an async entry: request_module() warns there");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_modload_hung), 0,
			    "a module's load waited for the probe loading it");
	for (i = 0; i < PPT_MODLOAD_N; i++)
		KUNIT_EXPECT_PTR_EQ(test, pdev[i]->dev.driver,
				    &ppt_modload_driver.driver);

	platform_driver_unregister(&ppt_modload_driver);
	for (i = 0; i < PPT_MODLOAD_N; i++)
		platform_device_unregister(pdev[i]);
	ppt_modload_requester = NULL;
}

/*
 * The default probe type, which the scheduler makes parallel, and its
 * exclusions.  A parent's probe (a worker of the scheduler) registers
 * children on a test bus; their driver has no probe type.  They probe in
 * parallel, after the parent's probe, numbered in the order they were
 * registered in.  On a bus that wants the parent locked during probe, or
 * for a driver that forces synchronous probing, they probe synchronously,
 * inside their registration; and children a kernel thread (here the test
 * itself) registers probe there too.
 */
#define PPT_CHILD_N	4

enum ppt_child_case {
	PPT_CHILD_PARALLEL,
	PPT_CHILD_LOCKED_BUS,
	PPT_CHILD_FORCE_SYNC,
	PPT_CHILD_FROM_KTHREAD,
};

struct ppt_child {
	struct device dev;
	struct task_struct *probed_by;
	bool bound_at_register;
	bool in_worker;
	int index;
};

static int ppt_bus_match(struct device *dev, struct device_driver *drv)
{
	return 1;
}

static struct bus_type ppt_bus = {
	.name = "pprobe-test",
	.match = ppt_bus_match,
};

static struct bus_type ppt_locked_bus = {
	.name = "pprobe-test-locked",
	.match = ppt_bus_match,
	.need_parent_lock = true,
};

static DEFINE_IDA(ppt_child_ida);
static struct ppt_child *ppt_children[PPT_CHILD_N];
static struct task_struct *ppt_child_registrar[PPT_CHILD_N];

static int ppt_child_probe(struct device *dev)
{
	struct ppt_child *c = container_of(dev, struct ppt_child, dev);
	unsigned int us = get_random_u32_below(1000);

	c->probed_by = current;
	c->in_worker = ppt_in_probe_worker();
	/* a narrow range: usleep_range() tends to sleep up to its maximum */
	usleep_range(us + 10, us + 20);
	c->index = ida_alloc(&ppt_child_ida, GFP_KERNEL);
	return 0;
}

static struct device_driver ppt_child_driver = {
	.name = "pprobe-test-child",
	.bus = &ppt_bus,
	.probe = ppt_child_probe,
};

static struct device_driver ppt_locked_child_driver = {
	.name = "pprobe-test-child",
	.bus = &ppt_locked_bus,
	.probe = ppt_child_probe,
};

static struct device_driver ppt_sync_child_driver = {
	.name = "pprobe-test-child",
	.bus = &ppt_bus,
	.probe = ppt_child_probe,
	.probe_type = PROBE_FORCE_SYNCHRONOUS,
};

static void ppt_child_release(struct device *dev)
{
	kfree(container_of(dev, struct ppt_child, dev));
}

static int ppt_register_children(struct device *parent, struct bus_type *bus)
{
	int i, ret;

	for (i = 0; i < PPT_CHILD_N; i++) {
		struct ppt_child *c = kzalloc(sizeof(*c), GFP_KERNEL);

		if (!c)
			return -ENOMEM;
		c->index = -1;
		device_initialize(&c->dev);
		c->dev.parent = parent;
		c->dev.bus = bus;
		c->dev.release = ppt_child_release;
		dev_set_name(&c->dev, "pprobe-test-child.%d", i);
		ppt_child_registrar[i] = current;
		ret = device_add(&c->dev);
		if (ret) {
			put_device(&c->dev);
			return ret;
		}
		c->bound_at_register = c->dev.driver;
		ppt_children[i] = c;
	}
	return 0;
}

static int ppt_parent_probe(struct platform_device *pdev)
{
	struct bus_type **bus = dev_get_platdata(&pdev->dev);

	return ppt_register_children(&pdev->dev, *bus);
}

static struct platform_driver ppt_parent_driver = {
	.probe = ppt_parent_probe,
	.driver = {
		.name = "pprobe-test-parent",
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static void ppt_default_case(struct kunit *test, enum ppt_child_case what)
{
	struct device_driver *drv = what == PPT_CHILD_LOCKED_BUS ?
		&ppt_locked_child_driver : what == PPT_CHILD_FORCE_SYNC ?
		&ppt_sync_child_driver : &ppt_child_driver;
	struct bus_type *bus = drv->bus;
	struct platform_device *parent;
	bool parallel = what == PPT_CHILD_PARALLEL;
	int i;

	memset(ppt_children, 0, sizeof(ppt_children));
	KUNIT_ASSERT_EQ(test, bus_register(bus), 0);
	KUNIT_ASSERT_EQ(test, driver_register(drv), 0);

	if (what == PPT_CHILD_FROM_KTHREAD) {
		parent = platform_device_register_simple("pprobe-test-holder",
							 0, NULL, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(parent));
		KUNIT_EXPECT_EQ(test, ppt_register_children(&parent->dev, bus), 0);
	} else {
		parent = platform_device_register_data(NULL, "pprobe-test-parent",
						       0, &bus, sizeof(bus));
		KUNIT_ASSERT_FALSE(test, IS_ERR(parent));
	}
	wait_for_device_probe();

	for (i = 0; i < PPT_CHILD_N; i++) {
		struct ppt_child *c = ppt_children[i];

		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_PTR_EQ(test, c->dev.driver, drv);
		KUNIT_EXPECT_EQ_MSG(test, c->index, i,
				    "case %d: child %d numbered out of order", what, i);
		KUNIT_EXPECT_EQ_MSG(test, c->bound_at_register, !parallel,
				    "case %d: child %d bound when registered", what, i);
		/* a worker may go on with a child once the parent is bound */
		if (!parallel)
			KUNIT_EXPECT_PTR_EQ_MSG(test, c->probed_by,
						ppt_child_registrar[i],
						"case %d: child %d not probed by its registrar",
						what, i);
		KUNIT_EXPECT_EQ_MSG(test, c->in_worker, parallel ||
				    what != PPT_CHILD_FROM_KTHREAD,
				    "case %d: child %d probed in a worker", what, i);
	}

	for (i = PPT_CHILD_N - 1; i >= 0; i--)
		if (ppt_children[i])
			device_unregister(&ppt_children[i]->dev);
	platform_device_unregister(parent);
	driver_unregister(drv);
	bus_unregister(bus);
	ida_destroy(&ppt_child_ida);
}

static void ppt_default_probe_type(struct kunit *test)
{
	struct rnd_state rnd;
	int run;

	ppt_init(test, &rnd);
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_parent_driver), 0);
	for (run = 0; run < 5; run++) {
		ppt_default_case(test, PPT_CHILD_PARALLEL);
		ppt_default_case(test, PPT_CHILD_LOCKED_BUS);
		ppt_default_case(test, PPT_CHILD_FORCE_SYNC);
		ppt_default_case(test, PPT_CHILD_FROM_KTHREAD);
	}
	platform_driver_unregister(&ppt_parent_driver);
}

/*
 * Module removal.  The device's release function stands for one in a
 * module (virtio_pci_release_dev(), say): the device is removed while
 * its probe is running, so the worker holds its last reference, and
 * driver_pprobe_drain(), which delete_module() runs through
 * driver_pprobe_module_gone(), must not return before the release has run.
 */
static atomic_t ppt_mod_released;

static void ppt_mod_release(struct device *dev)
{
	atomic_inc(&ppt_mod_released);
	kfree(dev);
}

static int ppt_mod_probe(struct device *dev)
{
	msleep(50);
	return 0;
}

static struct device_driver ppt_mod_driver = {
	.name = "pprobe-test-mod",
	.bus = &ppt_bus,
	.probe = ppt_mod_probe,
	.probe_type = PROBE_PREFER_ASYNCHRONOUS,
};

static void ppt_module_removal(struct kunit *test)
{
	struct rnd_state rnd;
	struct device *dev;
	int run;

	ppt_init(test, &rnd);
	KUNIT_ASSERT_EQ(test, bus_register(&ppt_bus), 0);
	KUNIT_ASSERT_EQ(test, driver_register(&ppt_mod_driver), 0);
	for (run = 0; run < 5; run++) {
		atomic_set(&ppt_mod_released, 0);
		dev = kzalloc(sizeof(*dev), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, dev);
		device_initialize(dev);
		dev->bus = &ppt_bus;
		dev->release = ppt_mod_release;
		dev_set_name(dev, "pprobe-test-mod.%d", run);
		KUNIT_ASSERT_EQ(test, device_add(dev), 0);
		/* the probe is running (sleeping) when the device goes */
		device_unregister(dev);
		driver_pprobe_drain();
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_mod_released), 1,
				    "run %d: the release ran after the drain", run);
		/* let a late release happen before the counter is reset */
		msleep(100);
	}
	driver_unregister(&ppt_mod_driver);
	bus_unregister(&ppt_bus);
}

/*
 * Retries.  A consumer defers (its supplier declares no device link),
 * and the supplier's probe, in a worker, binds it late; the retry that
 * binding triggers is queued on the deferred probe work, and probes the
 * consumer in a worker again.  wait_for_device_probe(), which the end of
 * the initcalls uses too, must wait for that round as well.  A device
 * that deferred before it, with a synchronous driver, is retried first,
 * and its parent's runtime resume, which the driver core's probe count
 * does not cover, takes a while: the consumer's retry is asked for late
 * in the round.
 */
static int ppt_retry_suspend(struct device *dev)
{
	return 0;
}

static struct dev_pm_domain ppt_retry_domain = {
	.ops = { SET_RUNTIME_PM_OPS(ppt_retry_suspend, ppt_slow_resume, NULL) },
};

static bool ppt_retry_supplier_bound;
static atomic_t ppt_retry_bound;

static int ppt_retry_blocker_probe(struct platform_device *pdev)
{
	if (!READ_ONCE(ppt_retry_supplier_bound))
		return -EPROBE_DEFER;
	return 0;
}

static struct platform_driver ppt_retry_blocker_driver = {
	.probe = ppt_retry_blocker_probe,
	.driver = {
		.name = "pprobe-test-retry-b",
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
	},
};

static int ppt_retry_consumer_probe(struct platform_device *pdev)
{
	if (!READ_ONCE(ppt_retry_supplier_bound))
		return -EPROBE_DEFER;
	msleep(50);
	atomic_inc(&ppt_retry_bound);
	return 0;
}

static int ppt_retry_supplier_probe(struct platform_device *pdev)
{
	msleep(50);
	WRITE_ONCE(ppt_retry_supplier_bound, true);
	return 0;
}

static struct platform_driver ppt_retry_consumer_driver = {
	.probe = ppt_retry_consumer_probe,
	.driver = {
		.name = "pprobe-test-retry-c",
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static struct platform_driver ppt_retry_supplier_driver = {
	.probe = ppt_retry_supplier_probe,
	.driver = {
		.name = "pprobe-test-retry-s",
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static void ppt_wait_for_retries(struct kunit *test)
{
	struct platform_device *consumer, *supplier, *blocker, *holder;
	struct rnd_state rnd;

	ppt_init(test, &rnd);
	WRITE_ONCE(ppt_retry_supplier_bound, false);
	atomic_set(&ppt_retry_bound, 0);
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_retry_blocker_driver), 0);
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_retry_consumer_driver), 0);
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_retry_supplier_driver), 0);

	holder = platform_device_register_simple("pprobe-test-holder", 2,
						 NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(holder));
	dev_pm_domain_set(&holder->dev, &ppt_retry_domain);
	pm_runtime_set_suspended(&holder->dev);
	pm_runtime_enable(&holder->dev);
	blocker = platform_device_alloc("pprobe-test-retry-b", 0);
	KUNIT_ASSERT_NOT_NULL(test, blocker);
	blocker->dev.parent = &holder->dev;
	KUNIT_ASSERT_EQ(test, platform_device_add(blocker), 0);
	consumer = platform_device_register_simple("pprobe-test-retry-c", 0,
						   NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(consumer));
	wait_for_device_probe();
	KUNIT_EXPECT_NULL(test, consumer->dev.driver);

	supplier = platform_device_register_simple("pprobe-test-retry-s", 0,
						   NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(supplier));
	wait_for_device_probe();
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_retry_bound), 1,
			    "wait_for_device_probe() returned before the retry its probes triggered");
	KUNIT_EXPECT_PTR_EQ(test, consumer->dev.driver,
			    &ppt_retry_consumer_driver.driver);

	platform_device_unregister(consumer);
	platform_device_unregister(blocker);
	pm_runtime_disable(&holder->dev);
	dev_pm_domain_set(&holder->dev, NULL);
	platform_device_unregister(holder);
	platform_device_unregister(supplier);
	platform_driver_unregister(&ppt_retry_supplier_driver);
	platform_driver_unregister(&ppt_retry_consumer_driver);
	platform_driver_unregister(&ppt_retry_blocker_driver);
}

/*
 * Workers are known by their task.  A work function may free its work
 * item, whose memory may then hold anything, also the address of the
 * scheduler's work function: here a foreign work function puts that
 * address in its own item.  Its kernel thread is still not a worker of
 * the scheduler, so a driver with the default probe type is probed
 * synchronously for it.
 */
static work_func_t ppt_sched_work_fn;
static bool ppt_foreign_wanted;

static int ppt_workfn_probe(struct platform_device *pdev)
{
	struct work_struct *work = current_work();

	ppt_sched_work_fn = work ? work->func : NULL;
	return 0;
}

static struct platform_driver ppt_workfn_driver = {
	.probe = ppt_workfn_probe,
	.driver = {
		.name = "pprobe-test-workfn",
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static void ppt_foreign_work_fn(struct work_struct *work)
{
	work->func = ppt_sched_work_fn;
	ppt_foreign_wanted = driver_pprobe_wanted(&ppt_child_driver);
}

static void ppt_foreign_work(struct kunit *test)
{
	struct platform_device *pdev;
	struct work_struct work;
	struct rnd_state rnd;

	ppt_init(test, &rnd);
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_workfn_driver), 0);
	pdev = platform_device_register_simple("pprobe-test-workfn", 0, NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pdev));
	wait_for_device_probe();
	KUNIT_ASSERT_NOT_NULL(test, ppt_sched_work_fn);

	ppt_foreign_wanted = true;
	INIT_WORK_ONSTACK(&work, ppt_foreign_work_fn);
	queue_work(system_wq, &work);
	flush_work(&work);
	destroy_work_on_stack(&work);
	KUNIT_EXPECT_FALSE_MSG(test, ppt_foreign_wanted,
			       "a foreign worker was taken for the scheduler's by its work item");

	platform_device_unregister(pdev);
	platform_driver_unregister(&ppt_workfn_driver);
}

/*
 * Module loads.  What a module's init asks for is probed before the load
 * returns, as async_synchronize_full() makes it without the scheduler,
 * so that "modprobe x" and then using the device keeps working.  The
 * test thread plays modprobe.
 */
static atomic_t ppt_load_probes;

static int ppt_load_probe(struct platform_device *pdev)
{
	msleep(50);
	atomic_inc(&ppt_load_probes);
	return 0;
}

static struct platform_driver ppt_load_driver = {
	.probe = ppt_load_probe,
	.driver = {
		.name = "pprobe-test-load",
		.probe_type = PROBE_PREFER_ASYNCHRONOUS,
	},
};

static void ppt_module_load_waits(struct kunit *test)
{
	struct platform_device *pdev[2];
	struct pprobe_loader load;
	struct rnd_state rnd;
	int i;

	ppt_init(test, &rnd);
	atomic_set(&ppt_load_probes, 0);
	driver_pprobe_load_begin(&load, test);
	for (i = 0; i < 2; i++) {
		pdev[i] = platform_device_register_simple("pprobe-test-load", i,
							  NULL, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pdev[i]));
	}
	KUNIT_ASSERT_EQ(test, platform_driver_register(&ppt_load_driver), 0);
	KUNIT_EXPECT_TRUE(test, driver_pprobe_load_end(&load, true));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ppt_load_probes), 2,
			    "the load returned before the probes its init asked for");

	wait_for_device_probe();
	platform_driver_unregister(&ppt_load_driver);
	for (i = 0; i < 2; i++)
		platform_device_unregister(pdev[i]);
}

static struct kunit_case parallel_probe_cases[] = {
	KUNIT_CASE(ppt_random_graphs),
	KUNIT_CASE(ppt_driver_unregister_in_flight),
	KUNIT_CASE(ppt_device_removal_in_flight),
	KUNIT_CASE(ppt_unbinding_supplier),
	KUNIT_CASE(ppt_late_supplier),
	KUNIT_CASE(ppt_runtime_pm_devres),
	KUNIT_CASE(ppt_shutdown_in_flight),
	KUNIT_CASE(ppt_local_quick),
	KUNIT_CASE(ppt_local_sleeping),
	KUNIT_CASE(ppt_wait_for_device_probe),
	KUNIT_CASE(ppt_names_in_order),
	KUNIT_CASE(ppt_unordered),
	KUNIT_CASE(ppt_request_module),
	KUNIT_CASE(ppt_default_probe_type),
	KUNIT_CASE(ppt_module_removal),
	KUNIT_CASE(ppt_wait_for_retries),
	KUNIT_CASE(ppt_foreign_work),
	KUNIT_CASE(ppt_module_load_waits),
	{}
};

static struct kunit_suite parallel_probe_suite = {
	.name = "parallel_probe",
	.test_cases = parallel_probe_cases,
};

kunit_test_suite(parallel_probe_suite);

MODULE_LICENSE("GPL");
