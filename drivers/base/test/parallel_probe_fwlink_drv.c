// SPDX-License-Identifier: GPL-2.0
/*
 * fw_devlink suppliers from a device tree, for the parallel_probe kselftest
 * (CONFIG_DRIVER_PARALLEL_PROBE).
 *
 * Loading the module registers a supplier and a consumer platform driver,
 * with no probe type: the default path that the parallel probe scheduler
 * takes over.  Then it applies a device tree overlay of two nodes, the
 * consumer first, whose "clocks" property names the supplier, then the
 * supplier.  So the consumer's device is added while its supplier is still
 * only a node: fw_devlink gives it a link between firmware nodes, which
 * becomes a device link once the supplier's device is added.  The
 * supplier's probe sleeps (supplier_delay_ms), which leaves the consumer
 * time to be probed early if the scheduler ignored either kind of link.
 *
 * The driver core itself defers a consumer whose suppliers are not bound,
 * before the driver's probe is called, so what tells the scheduler's work
 * from the driver core's is the deferral: the kselftest reads the
 * scheduler's counters in debugfs, and these parameters:
 *
 *   consumer_first  1 if the consumer's device was added before the
 *                   supplier's, with a link to the supplier's node
 *                   still pending then (a firmware-node link)
 *   consumer_probes calls of the consumer's probe
 *   consumer_saw    1 if the supplier's probe had returned when the
 *                   consumer's started, 0 if not, -1 before it probed
 *   consumer_bound  1 once the driver core has bound the consumer
 *
 * Loaded with defer=1, the module registers its drivers but applies the
 * overlay only when 1 is written to its "apply" parameter: the kselftest
 * waits in between until "drivers_done" reads Y, which it does once the
 * driver core's deferred probe timeout has run.  From then on fw_devlink
 * frees the consumers of a newly added device that no driver has matched
 * when device_add() returns (fw_devlink_unblock_consumers()), the case
 * of every device probed in parallel, whose probe has not started then.
 *
 * Unloading the module removes the overlay, its devices and the drivers.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/mod_devicetable.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include "parallel_probe_fwlink.h"

static unsigned int supplier_delay_ms = 300;
module_param(supplier_delay_ms, uint, 0444);
MODULE_PARM_DESC(supplier_delay_ms, "how long the supplier's probe sleeps");

static int consumer_first = -1;
module_param(consumer_first, int, 0444);
MODULE_PARM_DESC(consumer_first, "the consumer's device was added first");

static int consumer_probes;
module_param(consumer_probes, int, 0444);
MODULE_PARM_DESC(consumer_probes, "calls of the consumer's probe");

static int consumer_saw = -1;
module_param(consumer_saw, int, 0444);
MODULE_PARM_DESC(consumer_saw, "the supplier had probed when the consumer's probe started");

static int consumer_bound;
module_param(consumer_bound, int, 0444);
MODULE_PARM_DESC(consumer_bound, "the consumer is bound");

static bool defer;
module_param(defer, bool, 0444);
MODULE_PARM_DESC(defer, "apply the overlay when 1 is written to apply");

static atomic_t supplier_done = ATOMIC_INIT(0);
static bool consumer_added;
static int fwlink_ovcs_id;
static DEFINE_MUTEX(fwlink_lock);
static bool fwlink_applied;
static bool fwlink_ready;	/* between the end of init and exit */

static int fwlink_supplier_probe(struct platform_device *pdev)
{
	msleep(supplier_delay_ms);
	atomic_set(&supplier_done, 1);
	return 0;
}

static int fwlink_consumer_probe(struct platform_device *pdev)
{
	WRITE_ONCE(consumer_saw, atomic_read(&supplier_done));
	WRITE_ONCE(consumer_probes, READ_ONCE(consumer_probes) + 1);
	return 0;
}

static const struct of_device_id fwlink_supplier_ids[] = {
	{ .compatible = FWLINK_SUPPLIER },
	{ }
};

static const struct of_device_id fwlink_consumer_ids[] = {
	{ .compatible = FWLINK_CONSUMER },
	{ }
};

static struct platform_driver fwlink_supplier_driver = {
	.probe = fwlink_supplier_probe,
	.driver = {
		.name = "pprobe-fwlink-supplier",
		.of_match_table = fwlink_supplier_ids,
	},
};

static struct platform_driver fwlink_consumer_driver = {
	.probe = fwlink_consumer_probe,
	.driver = {
		.name = "pprobe-fwlink-consumer",
		.of_match_table = fwlink_consumer_ids,
	},
};

/*
 * Which of the two devices the overlay added first, and whether the
 * consumer's node still had a link to a supplier's node then.  A device
 * is announced before fw_devlink turns the links of its node into device
 * links (device_add()), so when the supplier's is, the consumer's link to
 * it is still between nodes.  The overlay adds both under the root, which
 * has no device: under a bus with one, fw_devlink would link the consumer
 * to the bus instead.  And when the consumer is bound.
 */
static int fwlink_bus_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct device *dev = data;
	struct device_node *np = dev->of_node;

	if (!np)
		return NOTIFY_DONE;
	if (action == BUS_NOTIFY_BOUND_DRIVER &&
	    of_device_is_compatible(np, FWLINK_CONSUMER))
		WRITE_ONCE(consumer_bound, 1);
	if (action != BUS_NOTIFY_ADD_DEVICE || READ_ONCE(consumer_first) != -1)
		return NOTIFY_DONE;
	if (of_device_is_compatible(np, FWLINK_CONSUMER)) {
		consumer_added = true;
	} else if (of_device_is_compatible(np, FWLINK_SUPPLIER)) {
		struct device_node *cnp;
		bool pending = false;

		cnp = of_find_compatible_node(NULL, NULL, FWLINK_CONSUMER);
		if (cnp) {
			pending = !list_empty(&cnp->fwnode.suppliers);
			of_node_put(cnp);
		}
		WRITE_ONCE(consumer_first, consumer_added && pending);
	}
	return NOTIFY_DONE;
}

static struct notifier_block fwlink_nb = {
	.notifier_call = fwlink_bus_notify,
};

static int fwlink_apply(void)
{
	u32 size = __dtb_parallel_probe_fwlink_overlay_end -
		   __dtb_parallel_probe_fwlink_overlay_begin;
	int err = 0;

	mutex_lock(&fwlink_lock);
	if (!fwlink_ready) {
		err = -EBUSY;
		goto out;
	}
	if (fwlink_applied)
		goto out;
	err = of_overlay_fdt_apply(__dtb_parallel_probe_fwlink_overlay_begin,
				   size, &fwlink_ovcs_id);
	if (err) {
		pr_err("parallel_probe_fwlink: overlay not applied: %d\n", err);
		/* an overlay that failed once applied leaves its id */
		if (fwlink_ovcs_id && of_overlay_remove(&fwlink_ovcs_id))
			pr_err("parallel_probe_fwlink: overlay not removed\n");
		goto out;
	}
	fwlink_applied = true;
out:
	mutex_unlock(&fwlink_lock);
	return err;
}

static int fwlink_apply_set(const char *val, const struct kernel_param *kp)
{
	bool apply;
	int err = kstrtobool(val, &apply);

	if (err || !apply)
		return err ?: -EINVAL;
	return fwlink_apply();
}

static const struct kernel_param_ops fwlink_apply_ops = {
	.set = fwlink_apply_set,
};
module_param_cb(apply, &fwlink_apply_ops, NULL, 0200);
MODULE_PARM_DESC(apply, "write 1 to apply the overlay (with defer=1)");

/*
 * The deferred probe timeout's work sets driver_deferred_probe_timeout to
 * 0 right after fw_devlink_drivers_done(); 0 from the start (booted with
 * deferred_probe_timeout=0, or without modules) means it never runs.
 */
static int fwlink_drivers_done_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n",
			  READ_ONCE(driver_deferred_probe_timeout) ? 'N' : 'Y');
}

static const struct kernel_param_ops fwlink_drivers_done_ops = {
	.get = fwlink_drivers_done_get,
};
module_param_cb(drivers_done, &fwlink_drivers_done_ops, NULL, 0444);
MODULE_PARM_DESC(drivers_done, "the deferred probe timeout has run");

static int __init fwlink_init(void)
{
	int err;

	err = bus_register_notifier(&platform_bus_type, &fwlink_nb);
	if (err)
		return err;
	err = platform_driver_register(&fwlink_supplier_driver);
	if (err)
		goto out_nb;
	err = platform_driver_register(&fwlink_consumer_driver);
	if (err)
		goto out_supplier;
	mutex_lock(&fwlink_lock);
	fwlink_ready = true;
	mutex_unlock(&fwlink_lock);
	if (!defer) {
		err = fwlink_apply();
		if (err)
			goto out_consumer;
	}
	return 0;

out_consumer:
	mutex_lock(&fwlink_lock);
	fwlink_ready = false;
	mutex_unlock(&fwlink_lock);
	platform_driver_unregister(&fwlink_consumer_driver);
out_supplier:
	platform_driver_unregister(&fwlink_supplier_driver);
out_nb:
	bus_unregister_notifier(&platform_bus_type, &fwlink_nb);
	return err;
}
module_init(fwlink_init);

static void __exit fwlink_exit(void)
{
	int err = 0;

	mutex_lock(&fwlink_lock);
	fwlink_ready = false;
	if (fwlink_applied)
		err = of_overlay_remove(&fwlink_ovcs_id);
	mutex_unlock(&fwlink_lock);
	if (err)
		pr_err("parallel_probe_fwlink: overlay not removed: %d\n", err);
	platform_driver_unregister(&fwlink_consumer_driver);
	platform_driver_unregister(&fwlink_supplier_driver);
	bus_unregister_notifier(&platform_bus_type, &fwlink_nb);
}
module_exit(fwlink_exit);

MODULE_DESCRIPTION("fw_devlink suppliers from a device tree overlay, probed in parallel");
MODULE_LICENSE("GPL");
