// SPDX-License-Identifier: GPL-2.0
/*
 * The module that the probes of parallel_probe_modload request.  Its init
 * schedules async work and waits for all async work, as the init of a
 * module whose drivers probe asynchronously does through
 * do_init_module(): a probe run as an async entry that requested this
 * module would be waited for by the init it waits for.
 */

#include <linux/async.h>
#include <linux/delay.h>
#include <linux/module.h>

static void ppmd_work(void *data, async_cookie_t cookie)
{
	msleep(20);
}

static int __init ppmd_init(void)
{
	async_schedule(ppmd_work, NULL);
	async_synchronize_full();
	return 0;
}
module_init(ppmd_init);

static void __exit ppmd_exit(void)
{
}
module_exit(ppmd_exit);

MODULE_DESCRIPTION("A module whose init waits for async work, for the parallel_probe kselftest");
MODULE_LICENSE("GPL");
