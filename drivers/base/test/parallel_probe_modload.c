// SPDX-License-Identifier: GPL-2.0
/*
 * A driver module whose probes load a module, for the parallel_probe
 * kselftest.  Its init registers @devices platform devices and a driver
 * with the default probe type, which CONFIG_DRIVER_PARALLEL_PROBE probes
 * in parallel when a task such as insmod loads the module.  Each probe
 * passes its naming point at once (driver_pprobe_named()), so that the
 * next one may start (the driver keeps its naming domain, as one that
 * takes names in probe does, rather than set probe_unordered), sleeps
 * @delay_ms, as a probe waiting for its hardware does,
 * requests parallel_probe_modload_dep, whose init waits for all async
 * work, and sleeps again.
 *
 * Were the probes async entries, request_module() would warn
 * (current_is_async()) and the requested module's init would wait for the
 * very entry that waits for it.  Unless loaded with async_probe, the load
 * returns once every device is bound; with async_probe, it returns at once,
 * and the module can be removed while its probes are queued or running.
 * The probes that have ended bound are counted in the "probed" parameter,
 * and "most_at_once" holds the most probes that ever ran at the same time.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/device/driver.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/sysfs.h>

#define PPM_NAME	"parallel_probe_modload"
#define PPM_MAX		32

static unsigned int devices = 8;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "number of platform devices (at most 32)");

static unsigned int delay_ms = 200;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "sleep before and after the request_module() of a probe (ms)");

static struct platform_device *ppm_devs[PPM_MAX];

/* probes that have returned 0: sysfs links to a device exist earlier */
static atomic_t ppm_probed = ATOMIC_INIT(0);
/* probes running now, and the most that ever ran at once */
static atomic_t ppm_running = ATOMIC_INIT(0);
static atomic_t ppm_most = ATOMIC_INIT(0);

static int ppm_get_atomic(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops ppm_atomic_ops = {
	.get = ppm_get_atomic,
};
module_param_cb(probed, &ppm_atomic_ops, &ppm_probed, 0444);
MODULE_PARM_DESC(probed, "probes that have ended bound (read only)");
module_param_cb(most_at_once, &ppm_atomic_ops, &ppm_most, 0444);
MODULE_PARM_DESC(most_at_once, "the most probes that ran at once (read only)");

static int ppm_probe(struct platform_device *pdev)
{
	int ret, n = atomic_inc_return(&ppm_running);
	int most = atomic_read(&ppm_most);

	while (n > most && !atomic_try_cmpxchg(&ppm_most, &most, n))
		;
	/* its naming point, at once: the driver's next probe may start */
	driver_pprobe_named(&pdev->dev);
	msleep(delay_ms);
	ret = request_module(PPM_NAME "_dep");
	if (ret) {
		/* a positive value is the exit status of modprobe */
		dev_err(&pdev->dev, "request_module() returned %d\n", ret);
		atomic_dec(&ppm_running);
		return ret < 0 ? ret : -ENOENT;
	}
	msleep(delay_ms);
	atomic_inc(&ppm_probed);
	atomic_dec(&ppm_running);
	return 0;
}

static struct platform_driver ppm_driver = {
	.probe = ppm_probe,
	.driver = {
		.name = PPM_NAME,
	},
};

static void ppm_unregister_devices(void)
{
	int i;

	for (i = PPM_MAX - 1; i >= 0; i--) {
		platform_device_unregister(ppm_devs[i]);
		ppm_devs[i] = NULL;
	}
}

static int __init ppm_init(void)
{
	unsigned int i;
	int ret;

	if (!devices || devices > PPM_MAX)
		return -EINVAL;
	for (i = 0; i < devices; i++) {
		ppm_devs[i] = platform_device_register_simple(PPM_NAME, i,
							      NULL, 0);
		if (IS_ERR(ppm_devs[i])) {
			ret = PTR_ERR(ppm_devs[i]);
			ppm_devs[i] = NULL;
			ppm_unregister_devices();
			return ret;
		}
	}
	ret = platform_driver_register(&ppm_driver);
	if (ret)
		ppm_unregister_devices();
	return ret;
}
module_init(ppm_init);

static void __exit ppm_exit(void)
{
	platform_driver_unregister(&ppm_driver);
	ppm_unregister_devices();
}
module_exit(ppm_exit);

MODULE_DESCRIPTION("Probes that load a module, for the parallel_probe kselftest");
MODULE_LICENSE("GPL");
