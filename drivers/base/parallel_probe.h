/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dependency-aware parallel device probing: the hooks the driver core
 * calls.  Without CONFIG_DRIVER_PARALLEL_PROBE they compile to what the
 * driver core did before.
 */
#ifndef _DRIVERS_BASE_PARALLEL_PROBE_H
#define _DRIVERS_BASE_PARALLEL_PROBE_H

#include <linux/async.h>
#include <linux/device.h>
#include <linux/types.h>

/**
 * struct pprobe_stats - counters of the parallel probe scheduler
 * @requests: asynchronous probe requests received
 * @parked: requests that had to wait for a parent, a supplier or their
 *	naming domain's turn
 * @launched: probes handed to the scheduler's workers
 * @local: of those, queued on the requester's CPU, which waited for them
 *	to end or sleep
 * @probes: driver probe attempts (driver_probe_device() calls)
 * @deferrals: attempts that ended in -EPROBE_DEFER
 * @parked_now: devices waiting for a dependency right now
 * @inflight: probes queued or running right now
 */
struct pprobe_stats {
	unsigned int requests;
	unsigned int parked;
	unsigned int launched;
	unsigned int local;
	unsigned int probes;
	unsigned int deferrals;
	unsigned int parked_now;
	unsigned int inflight;
};

/**
 * struct pprobe_loader - a module load waiting for the probes it requests
 * @node: entry in the scheduler's list of loads
 * @task: the task running the module's init
 * @key: the module
 * @inflight: probes of the load queued or running, each counted up to its
 *	worker's last put_device()
 * @orphan: the load has ended without waiting; its last probe frees it
 */
struct pprobe_loader {
	struct list_head node;
	struct task_struct *task;
	const void *key;
	unsigned int inflight;
	bool orphan;
};

#ifdef CONFIG_DRIVER_PARALLEL_PROBE
bool driver_pprobe_active(void);
bool driver_pprobe_wanted(struct device_driver *drv);
void driver_pprobe_schedule(struct device *dev, async_func_t fn);
void driver_pprobe_wait(void);
void driver_pprobe_drain(void);
void driver_pprobe_load_begin(struct pprobe_loader *l, const void *key);
bool driver_pprobe_load_end(struct pprobe_loader *l, bool wait);
void driver_pprobe_kick(void);
void driver_pprobe_forget(struct device *dev);
u64 driver_pprobe_clock(void);
void driver_pprobe_jitter(void);
void driver_pprobe_record(struct device *dev, struct device_driver *drv,
			  u64 start, int ret);
void driver_pprobe_get_stats(struct pprobe_stats *stats);
bool device_links_suppliers_ready(struct device *dev);
#else
static inline bool driver_pprobe_active(void)
{
	return false;
}

static inline bool driver_pprobe_wanted(struct device_driver *drv)
{
	return false;
}

static inline void driver_pprobe_schedule(struct device *dev, async_func_t fn)
{
	async_schedule_dev(fn, dev);
}

static inline void driver_pprobe_wait(void) { }
static inline void driver_pprobe_drain(void) { }
static inline void driver_pprobe_kick(void) { }
static inline void driver_pprobe_forget(struct device *dev) { }

static inline u64 driver_pprobe_clock(void)
{
	return 0;
}

static inline void driver_pprobe_jitter(void) { }

static inline void driver_pprobe_record(struct device *dev,
					struct device_driver *drv,
					u64 start, int ret) { }
#endif

#endif /* _DRIVERS_BASE_PARALLEL_PROBE_H */
