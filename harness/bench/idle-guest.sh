#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# idle-guest.sh CONFIG SECONDS [SETTLE]   (in the bench-idle guest, /payload)
#
# Brings up what the configuration runs (CONFIG "realistic": loopback and
# the virtio NIC with IPv4 and IPv6, ext2 on the virtio disk, UBIFS on
# nandsim, busybox's watchdog daemon on the soft watchdog; "tiny":
# nothing), lets it settle for SETTLE seconds (default 20 realistic, 10
# tiny; the demo passes its own), then stays idle for SECONDS and reports what
# the CPUs handled meanwhile, from /proc/interrupts (every kernel) and
# from the series' wakeup attribution when the kernel has it:
#   # METRIC irq_per_cpu_s          interrupts per CPU per second, all kinds
#   # METRIC irq_per_cpu_s_cpuN     the same for CPU N
#   # METRIC timer_irq_per_cpu_s    the local timer's share
#   # METRIC idle_exits_per_cpu_s   returns to the idle loop per CPU per second
#   # METRIC idle_exits_per_cpu_s_cpuN  (tick_sched idle_calls in
#                                  /proc/timer_list, every tickless kernel)
#   # METRIC wakeups_per_cpu_s      wakeups of idle CPUs per CPU per second
#   # METRIC wakeups_per_cpu_s_cpuN (attribution)
#   # METRIC crng_ready             1 if the kernel's RNG was seeded by the
#                                  end of the window ("crng init done")
#   # IRQ <row> <count per CPU...> <name>   /proc/interrupts, the difference
#   # STATS <line>                 /sys/kernel/debug/wakeups/stats
# Nothing prints while the guest is idle.
set -u
config=$1
secs=$2
settle=${3:-}
W=/sys/kernel/debug/wakeups
rc=0

setup_realistic()
{
	ip link set lo up &&
	ip link set eth0 up &&
	ip addr add 10.0.2.15/24 dev eth0 &&
	ip route add default via 10.0.2.2 || return 1
	mkdir -p /mnt/disk /mnt/flash
	mke2fs -q /dev/vda >/dev/null 2>&1 &&
	mount -t ext2 /dev/vda /mnt/disk &&
	echo data > /mnt/disk/file || return 1
	./flashctl ubiattach 0 >/dev/null &&
	./flashctl ubimkvol /dev/ubi0 data >/dev/null &&
	mount -t ubifs ubi0:data /mnt/flash &&
	echo data > /mnt/flash/file || return 1
	sync
	# What a device's init system would run: the watchdog daemon.
	watchdog -t 30 -T 60 /dev/watchdog
}

if [ "$config" = realistic ]; then
	if setup_realistic; then
		echo "ok 1 realistic setup"
	else
		echo "not ok 1 realistic setup"
		rc=1
	fi
	# IPv6 router solicitations and DAD, UBI's first writes.
	sleep "${settle:-20}"
else
	echo "ok 1 tiny setup"
	# the end of boot: deferred initcalls, the first RCU grace periods
	sleep "${settle:-10}"
fi

cpus=$(grep -c '^processor' /proc/cpuinfo)

# The measured window is idle-snap's: it waits four seconds for its own
# fork and exec to settle, reads the counters, resets the attribution,
# sleeps for the window and reads them again, without forking and with one
# read() per page, so that the window's edges keep no CPU busy long enough
# for a tick (see harness/bench/idle-snap.c).  It writes its files only
# after the window.
mkdir -p /tmp/snap
if [ -d $W ]; then
	./idle-snap 4 "$secs" $W/reset /tmp/snap \
		/proc/timer_list /proc/interrupts $W/stats || rc=1
else
	./idle-snap 4 "$secs" - /tmp/snap /proc/timer_list /proc/interrupts ||
		rc=1
fi
# file N of the list above, before (.0) and after (.1) the window
read -r t0 t1 < /tmp/snap/window

# The idle time as the guest measured it (the sleep may overshoot).
dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
echo "# METRIC idle_s $dt s"
echo "# METRIC cpus $cpus"

# Per-row difference of /proc/interrupts; rows with one count (ERR, MIS)
# are not per CPU and are left out.
awk -v n="$cpus" -v dt="$dt" '
FNR == 1 { next }
{
	key = $1
	for (i = 2; i <= n + 1; i++)
		if ($i !~ /^[0-9]+$/)
			next
	name = ""
	for (i = n + 2; i <= NF; i++)
		name = name " " $i
	if (FILENAME == ARGV[1]) {
		for (i = 0; i < n; i++)
			a[key, i] = $(i + 2)
		next
	}
	line = key
	for (i = 0; i < n; i++) {
		d = $(i + 2) - a[key, i]
		line = line " " d
		sum[i] += d
		all += d
		if (name ~ /Local timer|arch_timer|LOC/ || key == "LOC:")
			timer += d
	}
	print "# IRQ " line name
}
END {
	printf "# METRIC irq_per_cpu_s %.3f 1/s\n", all / n / dt
	printf "# METRIC timer_irq_per_cpu_s %.3f 1/s\n", timer / n / dt
	for (i = 0; i < n; i++)
		printf "# METRIC irq_per_cpu_s_cpu%d %.3f 1/s\n", i, sum[i] / dt
}' /tmp/snap/1.0 /tmp/snap/1.1

# A CPU comes back to tick_nohz_idle_stop_tick() once per wakeup, whatever
# woke it: the idle_calls count of each CPU is a wakeup count that the
# stock kernel has too (not in periodic mode, which never stops the tick).
awk -v n="$cpus" -v dt="$dt" '
/^cpu: / { cpu = $2 }
/^  \.idle_calls/ {
	if (FILENAME == ARGV[1]) { a[cpu] = $NF } else { d[cpu] = $NF - a[cpu]; seen = 1 }
}
END {
	if (!seen)
		exit
	for (i = 0; i < n; i++)
		all += d[i]
	printf "# METRIC idle_exits_per_cpu_s %.3f 1/s\n", all / n / dt
	for (i = 0; i < n; i++)
		printf "# METRIC idle_exits_per_cpu_s_cpu%d %.3f 1/s\n", i, d[i] / dt
}' /tmp/snap/0.0 /tmp/snap/0.1

if [ -f /tmp/snap/2.1 ]; then
	sed 's/^/# STATS /' /tmp/snap/2.1
	awk -v n="$cpus" -v dt="$dt" '
	$1 == "cpu" { w[$2] = $3; all += $3 }
	END {
		printf "# METRIC wakeups_per_cpu_s %.3f 1/s\n", all / n / dt
		for (i = 0; i < n; i++)
			printf "# METRIC wakeups_per_cpu_s_cpu%d %.3f 1/s\n", i, w[i] / dt
	}' /tmp/snap/2.1
fi
# Seeded or not: with a virtio-rng device (bench-idle.sh's *-rng boots)
# the RNG is ready seconds after boot; without one, these guests have no
# entropy source that seeds it while they are idle.
if dmesg | grep -q 'random: crng init done'; then
	echo "# METRIC crng_ready 1"
else
	echo "# METRIC crng_ready 0"
fi
echo "ok 2 idle $secs s"
exit $rc
