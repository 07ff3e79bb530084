#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slab-guest.sh: run by bench-slab.sh in each guest.  Memory right after
# boot, then after the slab_bench churn (its long-lived objects kept),
# then alloc+free timings, all as "# METRIC" lines, each step a TAP result.
meminfo() {
	awk -v p="$1" '/^(MemTotal|MemFree|MemAvailable|Slab|SReclaimable|SUnreclaim):/ {
		sub(":", "", $1); print "# METRIC " p "_" $1 " " $2 " kB" }' /proc/meminfo
}
bench=/sys/module/slab_bench/parameters/run
echo "TAP version 13"
echo "1..3"
meminfo boot
if [ -r /proc/slabinfo ]; then
	echo "# slabinfo after boot"
	sed 's/^/# /' /proc/slabinfo
fi
echo "ok 1 meminfo after boot"
if echo churn > $bench; then
	meminfo churn
	echo "ok 2 churn"
else
	echo "not ok 2 churn"
fi
if echo ops > $bench; then
	echo "ok 3 ops"
else
	echo "not ok 3 ops"
fi
