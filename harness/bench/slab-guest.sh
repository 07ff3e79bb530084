#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slab-guest.sh: run by bench-slab.sh in each guest.  Memory right after
# boot, then after the slab_bench churn (its long-lived objects kept),
# then alloc+free timings, all as "# METRIC" lines.
meminfo() {
	awk -v p="$1" '/^(MemTotal|MemFree|MemAvailable|Slab|SReclaimable|SUnreclaim):/ {
		sub(":", "", $1); print "# METRIC " p "_" $1 " " $2 " kB" }' /proc/meminfo
}
bench=/sys/module/slab_bench/parameters/run
meminfo boot
if [ -r /proc/slabinfo ]; then
	echo "# slabinfo after boot"
	sed 's/^/# /' /proc/slabinfo
fi
echo churn > $bench || echo "# slab_bench churn failed"
meminfo churn
echo ops > $bench || echo "# slab_bench ops failed"
