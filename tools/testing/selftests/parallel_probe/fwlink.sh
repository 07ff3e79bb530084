#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Suppliers that fw_devlink finds in a device tree, with parallel probing
# (CONFIG_DRIVER_PARALLEL_PROBE), with parallel_probe_fwlink.ko: its
# overlay adds a consumer node, whose "clocks" property names a supplier
# node, and then the supplier node; the supplier's probe sleeps.  The
# module is loaded with defer=1 and the overlay applied once the driver
# core's deferred probe timeout has run (the module's drivers_done; it
# runs 10 s after the last driver registration while it is pending, ours
# included; the test skips after DRIVERS_DONE_S, default 20, if it never
# does): from then on fw_devlink frees the consumers of a new device that
# no driver matched by the end of device_add(), which a device probed in
# parallel, whose probe waits to start, must not look like.
#
#  1. the consumer's device was added before its supplier's, with a link
#     to the supplier's firmware node pending (the module looks);
#  2. fw_devlink linked the two devices (/sys/class/devlink), an active
#     link that is not only for sync_state();
#  3. the consumer probed once, after its supplier's probe returned;
#  4. no probe was deferred meanwhile, and the scheduler held the
#     consumer back (its debugfs counters, which count every device:
#     skipped if a device was left deferred at boot, whose retries would
#     count);
#  5. unloading the module removes the devices and their link;
#  6. the kernel log has no warning, lockdep report or blocked task.
#
# Needs a kernel booted with a device tree and OF_OVERLAY (the ARM guest),
# and debugfs; skips otherwise.

ksft_skip=4
here=$(cd "$(dirname "$0")" && pwd)
mod=parallel_probe_fwlink
P=/sys/module/$mod/parameters
S=/sys/kernel/debug/parallel_probe/stats
link=/sys/class/devlink/platform:pprobe-fwlink-supplier--platform:pprobe-fwlink-consumer
timeout=${LOAD_TIMEOUT:-30}
n=0
failed=0

ok()
{
	n=$((n + 1))
	echo "ok $n $*"
}

not_ok()
{
	n=$((n + 1))
	failed=1
	echo "not ok $n $*"
}

stat() { awk -v k="$1" '$1 == k { print $2 }' "$S"; }
param() { cat "$P/$1" 2>/dev/null; }

if [ ! -d /sys/firmware/devicetree/base ]; then
	echo "ok 1 # SKIP no device tree"
	exit $ksft_skip
fi
if [ -f "$here/$mod.ko" ]; then
	load="insmod $here/$mod.ko defer=1"
elif modprobe -n -q $mod 2>/dev/null; then
	load="modprobe $mod defer=1"
else
	echo "ok 1 # SKIP $mod.ko not found" \
		"(CONFIG_DRIVER_PARALLEL_PROBE_FWLINK_TEST=m)"
	exit $ksft_skip
fi
mounted=
if [ ! -d /sys/kernel/debug/parallel_probe ] &&
   mount -t debugfs none /sys/kernel/debug 2>/dev/null; then
	mounted=1
fi
cleanup()
{
	grep -q "^$mod " /proc/modules && rmmod $mod
	[ -z "$mounted" ] || umount /sys/kernel/debug
}
trap cleanup EXIT
if [ ! -f "$S" ]; then
	echo "ok 1 # SKIP no $S (CONFIG_DEBUG_FS)"
	exit $ksft_skip
fi
if [ "$(stat active)" != 1 ]; then
	echo "ok 1 # SKIP parallel probing is off"
	exit $ksft_skip
fi

# left over from an earlier run
grep -q "^$mod " /proc/modules && rmmod $mod

echo "TAP version 13"
echo "1..6"
marker="parallel_probe fwlink.sh start $$"
echo "$marker" > /dev/kmsg

if ! $load; then
	not_ok "$mod loaded"
	exit 1
fi
# the deferred probe timeout runs out: fw_devlink's drivers are "done"
i=0
while [ "$(param drivers_done)" != Y ] &&
      [ $i -lt $((${DRIVERS_DONE_S:-20} * 10)) ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ "$(param drivers_done)" != Y ]; then
	echo "ok 1 # SKIP the deferred probe timeout never ran" \
		"($(cat /proc/cmdline))"
	exit $ksft_skip
fi
left_deferred=$(cat /sys/kernel/debug/devices_deferred 2>/dev/null | wc -l)
d0=$(stat deferrals)
p0=$(stat parked)
if ! echo 1 > $P/apply; then
	not_ok "$mod applied its overlay"
	exit 1
fi
# the consumer binds once the supplier's probe has slept
i=0
while [ "$(param consumer_bound)" != 1 ] && [ $i -lt $((timeout * 10)) ]; do
	sleep 0.1
	i=$((i + 1))
done
d1=$(stat deferrals)
p1=$(stat parked)

# 1
what="the consumer's device was added first, linked to the supplier's node"
if [ "$(param consumer_first)" = 1 ]; then
	ok "$what"
else
	not_ok "$what (consumer_first $(param consumer_first))"
fi
# 2
what="fw_devlink linked the consumer to its supplier"
if [ -d "$link" ] && [ "$(cat $link/status)" = active ] &&
   [ "$(cat $link/sync_state_only)" = 0 ]; then
	ok "$what"
else
	ls /sys/class/devlink 2>/dev/null | sed 's/^/# devlink: /'
	not_ok "$what (status $(cat $link/status 2>/dev/null))"
fi
# 3
if [ "$(param consumer_probes)" = 1 ] && [ "$(param consumer_saw)" = 1 ]; then
	ok "the consumer probed once, after its supplier"
else
	not_ok "the consumer probed once, after its supplier" \
		"(probes $(param consumer_probes)," \
		"saw the supplier bound: $(param consumer_saw))"
fi
# 4
if [ "$left_deferred" != 0 ]; then
	ok "no probe deferred # SKIP $left_deferred devices deferred at boot"
elif [ $((d1 - d0)) = 0 ] && [ $((p1 - p0)) -ge 1 ]; then
	ok "no probe deferred: the scheduler held the consumer back"
else
	not_ok "no probe deferred: the scheduler held the consumer back" \
		"($((d1 - d0)) deferred, $((p1 - p0)) parked)"
fi
# 5
rmmod $mod
left=$(ls /sys/bus/platform/devices /sys/class/devlink 2>/dev/null |
       grep -c pprobe-fwlink)
if ! grep -q "^$mod " /proc/modules && [ "$left" = 0 ]; then
	ok "unloading removed the devices and their link"
else
	not_ok "unloading removed the devices and their link ($left left)"
fi
# 6
bad='WARNING:|BUG:|INFO: task .* blocked|hung_task|circular locking'
bad="$bad|inconsistent lock state|Call Trace|OF: (ERROR|overlay)"
bad="$bad|parallel_probe_fwlink"
problems=$(dmesg | sed -n "/$marker/,\$p" | grep -E "$bad")
if [ -z "$problems" ]; then
	ok "no warning, lockdep report or blocked task in the kernel log"
else
	echo "$problems" | sed 's/^/# /'
	not_ok "no warning, lockdep report or blocked task in the kernel log"
fi

[ $failed = 0 ]
