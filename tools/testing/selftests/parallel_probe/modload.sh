#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Parallel probes that load modules (CONFIG_DRIVER_PARALLEL_PROBE), with
# parallel_probe_modload.ko: its probes, run in parallel, request
# parallel_probe_modload_dep.ko, whose init waits for all async work.
#
#  1. insmod returns once every device of the module is bound and the
#     requested module is loaded, and at least two probes ran at once;
#  2. loaded with async_probe, insmod returns at once, and rmmod while the
#     probes are queued or running (none has ended) unbinds and removes
#     everything;
#  3. a load waiting for its probe while another module's init registers
#     a module notifier (the dep module, loaded with notifier=1, while the
#     probe is about to request it) ends: the load must not wait inside a
#     module notifier, whose rwsem the registration takes for writing;
#  4. the kernel log has no warning, lockdep report or blocked task.
#
# A load that does not come back within LOAD_TIMEOUT seconds (default 30)
# is a failure; the blocked tasks are then dumped with SysRq-w, and the
# modules are left loaded.
#
# The modules are taken from this directory if they are there, and then
# request_module() runs a small modprobe that loads them from here; else
# they are loaded with modprobe.

ksft_skip=4
here=$(cd "$(dirname "$0")" && pwd)
mod=parallel_probe_modload
dep=${mod}_dep
drv=/sys/bus/platform/drivers/$mod
devices=8
delay_ms=200
timeout=${LOAD_TIMEOUT:-30}
n=0
failed=0

ok()
{
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok()
{
	n=$((n + 1))
	failed=1
	echo "not ok $n $1"
}

# /proc/uptime in hundredths of a second
now_cs()
{
	cut -d' ' -f1 /proc/uptime | tr -d .
}

# devices with a link to the driver: bound or being probed
linked()
{
	find $drv -name "$mod.*" 2>/dev/null | wc -l
}

# probes that have ended bound
probed()
{
	cat /sys/module/$mod/parameters/probed 2>/dev/null || echo 0
}

loaded()
{
	grep -q "^$1 " /proc/modules
}

modprobe_path=/proc/sys/kernel/modprobe
old_modprobe=
if [ -f "$here/$mod.ko" ] && [ -f "$here/$dep.ko" ]; then
	# request_module() runs "modprobe -q -- NAME"
	helper=$(mktemp /tmp/pprobe-modprobe.XXXXXX) || exit 1
	cat > "$helper" <<-HELPER
	#!/bin/sh
	for name; do :; done
	insmod "$here/\$name.ko" 2>/dev/null || grep -q "^\$name " /proc/modules
	HELPER
	chmod +x "$helper"
	old_modprobe=$(cat $modprobe_path)
	echo "$helper" > $modprobe_path
	load="insmod $here/$mod.ko"
	load_dep="insmod $here/$dep.ko"
elif modprobe -n -q $mod 2>/dev/null; then
	load="modprobe $mod"
	load_dep="modprobe $dep"
else
	echo "ok 1 # SKIP $mod.ko not found (CONFIG_DRIVER_PARALLEL_PROBE_MODLOAD_TEST=m)"
	exit $ksft_skip
fi

hung=
cleanup()
{
	# rmmod would wait for a module that never ended its init
	if [ -n "$hung" ]; then
		echo "# a load hung: modules left loaded"
		return
	fi
	loaded $mod && rmmod $mod
	loaded $dep && rmmod $dep
	if [ -n "$old_modprobe" ]; then
		echo "$old_modprobe" > $modprobe_path
		rm -f "$helper"
	fi
}
trap cleanup EXIT

echo "TAP version 13"
echo "1..6"
log_start=$(dmesg | wc -l)

# wait_load PID RCFILE: wait for a load started in the background at
# $start; returns its exit status, or 2 if it did not end in $timeout s
wait_load()
{
	while kill -0 "$1" 2>/dev/null; do
		if [ $(($(now_cs) - start)) -gt $((timeout * 100)) ]; then
			echo "# a load did not end in $timeout s; blocked tasks:"
			echo w > /proc/sysrq-trigger
			hung=1
			return 2
		fi
		sleep 0.1
	done
	[ -s "$2" ] || return 3
	return "$(cat "$2")"
}

# load_module LOADER ARGS...: load in the background, as a deadlock
# leaves the loader blocked for good.  Sets $load_ms; returns non-zero if
# the load failed or did not end.
load_module()
{
	start=$(now_cs)
	( "$@"; echo $? > /tmp/pprobe-load.rc ) &
	wait_load $! /tmp/pprobe-load.rc || return
	load_ms=$((($(now_cs) - start) * 10))
}

# 1: the load waits for its probes, which load a module in parallel
loaded $dep && rmmod $dep
if load_module $load devices=$devices delay_ms=$delay_ms; then
	echo "# METRIC modload_ms $load_ms ms"
	p=$(probed)
	l=$(linked)
	what="the load returns with its $devices devices bound and $dep loaded"
	if [ "$p" = $devices ] && [ "$l" = $devices ] && loaded $dep; then
		ok "$what"
	else
		not_ok "$what ($p probed, $l linked)"
	fi
	# counted by the module, not timed: TCG guests on a busy host are slow
	most=$(cat /sys/module/$mod/parameters/most_at_once 2>/dev/null)
	if [ "${most:-0}" -ge 2 ]; then
		ok "the probes ran in parallel ($most at once)"
	else
		not_ok "the probes ran in parallel (${most:-no} most at once)"
	fi
	rmmod $mod
else
	not_ok "the load returns with its $devices devices bound and $dep loaded"
	not_ok "the probes ran in parallel"
	loaded $mod && rmmod $mod
fi

# 2: removal while the probes are queued or running, three times; each
# probe takes 2 s here, so that none has ended when rmmod starts
fails=
for wait in 0 0.1 0.3; do
	loaded $dep && rmmod $dep
	if ! load_module $load devices=$devices delay_ms=1000 async_probe=1; then
		fails="$fails load($wait)"
		continue
	fi
	sleep $wait
	p=$(probed)
	echo "# async_probe load: $load_ms ms, $p of $devices probes ended at rmmod"
	[ "$p" -lt $devices ] || fails="$fails all-bound-before-rmmod($wait)"
	rmmod $mod || fails="$fails rmmod($wait)"
	if loaded $mod || [ -e $drv ] ||
	   ls -d /sys/bus/platform/devices/$mod.* >/dev/null 2>&1; then
		fails="$fails left($wait)"
	fi
done
if [ -z "$fails" ]; then
	ok "removal while the probes run, after 0, 0.1 and 0.3 s"
else
	not_ok "removal while the probes run:$fails"
fi
if loaded $dep && rmmod $dep; then
	ok "$dep loaded by the probes, and removable"
else
	not_ok "$dep loaded by the probes, and removable"
fi

# 3: a module notifier registered while a load waits for its probe: the
# probe sleeps 1 s, then requests $dep, which is loaded meanwhile with
# notifier=1 and registers a module notifier in its init
loaded $dep && rmmod $dep
rm -f /tmp/pprobe-load4.rc
what="a load waiting for its probe while $dep registers a module notifier"
start=$(now_cs)
( $load devices=1 delay_ms=1000; echo $? > /tmp/pprobe-load4.rc ) &
pid4=$!
while [ "$(linked)" = 0 ] && kill -0 $pid4 2>/dev/null &&
      [ $(($(now_cs) - start)) -lt 1000 ]; do
	sleep 0.05
done
if [ "$(linked)" = 0 ]; then
	not_ok "$what (the probe did not start)"
elif ! load_module $load_dep notifier=1; then
	wait_load $pid4 /tmp/pprobe-load4.rc
	not_ok "$what ($dep did not load)"
elif [ "$(cat /sys/module/$dep/parameters/notifier)" != Y ]; then
	# the probe loaded it first: the registration never raced the wait
	wait_load $pid4 /tmp/pprobe-load4.rc
	not_ok "$what ($dep loaded by the probe first: too slow a guest?)"
elif ! wait_load $pid4 /tmp/pprobe-load4.rc; then
	not_ok "$what ($mod did not load)"
elif [ "$(probed)" != 1 ]; then
	not_ok "$what ($(probed) probed)"
else
	ok "$what"
fi
if [ -z "$hung" ]; then
	loaded $mod && rmmod $mod
	loaded $dep && rmmod $dep
fi

# 4: nothing in the kernel log
bad='WARNING:|BUG:|INFO: task .* blocked|hung_task|circular locking'
bad="$bad|inconsistent lock state|Call Trace"
problems=$(dmesg | tail -n +$((log_start + 1)) | grep -E "$bad")
if [ -z "$problems" ]; then
	ok "no warning, lockdep report or blocked task in the kernel log"
else
	echo "$problems" | sed 's/^/# /'
	not_ok "no warning, lockdep report or blocked task in the kernel log"
fi

[ $failed = 0 ]
