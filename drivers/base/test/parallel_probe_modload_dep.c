// SPDX-License-Identifier: GPL-2.0
/*
 * The module that the probes of parallel_probe_modload request.  Its init
 * schedules async work and waits for all async work, as the init of a
 * module whose drivers probe asynchronously does through
 * do_init_module(): a probe run as an async entry that requested this
 * module would be waited for by the init it waits for.
 *
 * With notifier=1 its init also registers a module notifier, as kunit.ko's
 * does, which takes the notifier chain's rwsem for writing: the kselftest
 * loads it so while parallel_probe_modload's load waits for a probe that
 * is about to request this module.  Were that load waiting inside a module
 * notifier, holding the rwsem for reading, neither would ever end.
 */

#include <linux/async.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/notifier.h>

static bool notifier;
module_param(notifier, bool, 0444);
MODULE_PARM_DESC(notifier, "register a module notifier in init");

static void ppmd_work(void *data, async_cookie_t cookie)
{
	msleep(20);
}

static int ppmd_module_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	return NOTIFY_DONE;
}

static struct notifier_block ppmd_nb = {
	.notifier_call = ppmd_module_notify,
};

static int __init ppmd_init(void)
{
	async_schedule(ppmd_work, NULL);
	async_synchronize_full();
	return notifier ? register_module_notifier(&ppmd_nb) : 0;
}
module_init(ppmd_init);

static void __exit ppmd_exit(void)
{
	if (notifier)
		unregister_module_notifier(&ppmd_nb);
}
module_exit(ppmd_exit);

MODULE_DESCRIPTION("A module whose init waits for async work, for the parallel_probe kselftest");
MODULE_LICENSE("GPL");
