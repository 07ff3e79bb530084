#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slab-floor-guest.sh: /proc/meminfo and /proc/slobinstr (harness/bench/
# slab-floor.patch) after boot and after the slab_bench churn.
echo "TAP version 13"
echo "1..1"
for f in MemTotal MemFree Slab; do grep "^$f:" /proc/meminfo | sed 's/^/# boot /'; done
sed 's/^/# I boot /' /proc/slobinstr
[ -r /proc/slabinfo ] && sed 's/^/# S boot /' /proc/slabinfo
echo churn > /sys/module/slab_bench/parameters/run
for f in MemTotal MemFree Slab; do grep "^$f:" /proc/meminfo | sed 's/^/# churn /'; done
sed 's/^/# I churn /' /proc/slobinstr
[ -r /proc/slabinfo ] && sed 's/^/# S churn /' /proc/slabinfo
echo "ok 1 done"
