#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# probe-guest.sh MODE REPS [MODULE-PARAMS...]   (in the bench guest, /payload)
#
# Loads parallel_probe_bench.ko REPS times with the same graph, waits for
# every device to be bound and prints "# METRIC <MODE>_<what>_<rep> <value>":
#   bound_us     driver registration to the last bind, as the module timed it
#   done_us      same, from the registration of the first device
#   critical_us  the graph's critical path with the nominal probe times
#   critical_run_us  the same with the probe times of this run (the lower
#                bound: sleeps overshoot under TCG and host load)
#   sum_us       all probe times added (what synchronous probing takes)
#   deferrals    probe attempts that ended in -EPROBE_DEFER (driver core
#                counters in debugfs: supplier checks and the driver's own)
#   drvdefer     those the benchmark driver itself returned
#   at_once      most probes sleeping at the same time
#   path_wait_us, path_probe_us  on the chain of probes that ended last
#                (back along the dependency bound last before each start),
#                the time between dependencies bound and probe start, and
#                the time in the probes
set -u
mode=$1
reps=$2
shift 2
P=/sys/module/parallel_probe_bench/parameters
S=/sys/kernel/debug/parallel_probe/stats

stat() { awk -v k="$1" '$1 == k { print $2 }' "$S"; }
metric() { echo "# METRIC ${mode}_$1 $2"; }

echo "# boot_to_init_s $(cut -d' ' -f1 /proc/uptime)"
i=0
rc=0
while [ "$i" -lt "$reps" ]; do
	d0=$(stat deferrals)
	insmod ./parallel_probe_bench.ko "$@" || exit 1
	t=0
	while [ "$(cat $P/done_us)" = 0 ] && [ "$t" -lt 1200 ]; do
		sleep 0.05
		t=$((t + 1))
	done
	if [ "$(cat $P/done_us)" = 0 ]; then
		echo "not ok $((i + 1)) $mode run $i: not every device bound in 60 s"
		cat /sys/kernel/debug/parallel_probe/parked
		rc=1
	else
		echo "ok $((i + 1)) $mode run $i"
	fi
	# let deferred retries that were already queued finish
	sleep 0.5
	d1=$(stat deferrals)
	for k in bound_us done_us critical_us critical_run_us sum_us \
		 path_wait_us path_probe_us; do
		metric "${k}_$i" "$(cat $P/$k)"
	done
	metric "deferrals_$i" $((d1 - d0))
	metric "drvdefer_$i" "$(cat $P/driver_deferrals)"
	metric "at_once_$i" "$(cat $P/max_running)"
	[ "$i" = 0 ] && cp /sys/kernel/debug/parallel_probe/timeline /tmp/timeline
	rmmod parallel_probe_bench || rc=1
	i=$((i + 1))
done
# the first run's probe timeline, for the chart
grep ppbench /tmp/timeline | sed 's/^/# TIMELINE /'
exit $rc
