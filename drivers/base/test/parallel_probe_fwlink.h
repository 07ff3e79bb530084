/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What parallel_probe_fwlink_drv.c and its overlay share: the compatible
 * strings of the test devices, and, for C, the overlay linked in.
 */
#ifndef __PARALLEL_PROBE_FWLINK_H__
#define __PARALLEL_PROBE_FWLINK_H__

#define FWLINK_SUPPLIER	"linux,parallel-probe-test-supplier"
#define FWLINK_CONSUMER	"linux,parallel-probe-test-consumer"

#ifndef __DTS__
#include <linux/types.h>

/* parallel_probe_fwlink_overlay.dts, wrapped by Kbuild's .dtb.o rule */
extern u8 __dtb_parallel_probe_fwlink_overlay_begin[];
extern u8 __dtb_parallel_probe_fwlink_overlay_end[];
#endif

#endif /* __PARALLEL_PROBE_FWLINK_H__ */
