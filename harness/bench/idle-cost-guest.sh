#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# idle-cost-guest.sh SECONDS   (in the bench-idle-cost guest, /payload)
#
# Runs the workloads of idle-cost for SECONDS each and reports, next to
# their own figures, what the tick did meanwhile, per CPU per second:
#   # METRIC <w>_tick_stops_per_cpu_s   tick_nohz_idle_stop_tick() calls
#                         that stopped the tick or kept it stopped
#                         (idle_sleeps in /proc/timer_list)
#   # METRIC <w>_idle_calls_per_cpu_s   calls that tried (idle_calls)
#   # METRIC <w>_timer_irq_per_cpu_s    local timer interrupts
#   # METRIC <w>_cpu0_tick_stops_per_s  the first, of CPU 0 alone
#   # METRIC <w>_cpu0_timer_irq_per_s   the third, of CPU 0 alone
# for <w> = pingpong, sleep10ms (longer than a tick at HZ=250) and
# sleep2ms (shorter); the sleeps run on CPU 0.
set -u
secs=$1
cpus=$(grep -c '^processor' /proc/cpuinfo)

snap()	# PREFIX
{
	awk '/^cpu: / { cpu = $2 }
	/^  \.idle_calls/ { c[cpu] = $NF }
	/^  \.idle_sleeps/ { s[cpu] = $NF }
	END { for (i in c) { tc += c[i]; ts += s[i] }; print tc, ts, s[0] }' \
		/proc/timer_list > "$1.tl"
	awk -v n="$cpus" '$1 == "LOC:" || /Local timer|arch_timer/ {
		for (i = 2; i <= n + 1; i++) t += $i; t0 += $2 }
		END { print t + 0, t0 + 0 }' \
		/proc/interrupts > "$1.irq"
	read -r up _ < /proc/uptime
	echo "$up" > "$1.up"
}

run()	# NAME ARGS...
{
	name=$1
	shift
	snap /tmp/a
	./idle-cost "$@" || echo "not ok - idle-cost $*"
	snap /tmp/b
	awk -v n="$cpus" -v w="$name" '
	FILENAME ~ /a\.tl$/ { c0 = $1; s0 = $2; z0 = $3 }
	FILENAME ~ /b\.tl$/ { c1 = $1; s1 = $2; z1 = $3 }
	FILENAME ~ /a\.irq$/ { i0 = $1; j0 = $2 }
	FILENAME ~ /b\.irq$/ { i1 = $1; j1 = $2 }
	FILENAME ~ /a\.up$/ { u0 = $1 }
	FILENAME ~ /b\.up$/ { u1 = $1 }
	END {
		dt = u1 - u0
		printf "# METRIC %s_tick_stops_per_cpu_s %.1f 1/s\n", w, (s1 - s0) / n / dt
		printf "# METRIC %s_idle_calls_per_cpu_s %.1f 1/s\n", w, (c1 - c0) / n / dt
		printf "# METRIC %s_timer_irq_per_cpu_s %.1f 1/s\n", w, (i1 - i0) / n / dt
		printf "# METRIC %s_cpu0_tick_stops_per_s %.1f 1/s\n", w, (z1 - z0) / dt
		printf "# METRIC %s_cpu0_timer_irq_per_s %.1f 1/s\n", w, (j1 - j0) / dt
	}' /tmp/a.tl /tmp/b.tl /tmp/a.irq /tmp/b.irq /tmp/a.up /tmp/b.up
}

# the mode this boot is in, for the report to check: wakeup_reduce (Y/N),
# idle_stop_tick_us, and whether a cpuidle driver took the CPUs (then no
# mode exercises the idle loop's hook)
p=/sys/module/kernel/parameters
echo "# METRIC wakeup_reduce_on $(grep -c Y $p/wakeup_reduce 2>/dev/null) bool"
echo "# METRIC idle_stop_tick_us $(cat $p/idle_stop_tick_us 2>/dev/null || echo -1) us"
drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
echo "# cpuidle driver: $drv"
echo "# METRIC cpuidle_driver $([ "$drv" = none ] && echo 0 || echo 1) bool"
run pingpong pingpong "$secs"
run sleep10ms sleep 10000 "$secs"
run sleep2ms sleep 2000 "$secs"
echo "ok 1 idle-cost"
