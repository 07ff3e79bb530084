#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Idle wakeup attribution (CONFIG_IDLE_WAKEUP_STATS): an idle system lists
# what wakes it, the wakeups charged match the interrupts the CPUs took
# while idle, a sleeping task is charged to the hrtimer that wakes it, and
# reset and disable work.  Prints the idle wakeup rate as
# "# METRIC idle_wakeups_per_cpu_s" and the top wakers of the idle system.
# With CONFIG_IDLE_WAKEUP_REDUCE on, also checks that the idle rate per
# CPU after the first second stays at or below IDLE_MAX_RATE and that no
# poll the series made deferrable woke an idle CPU, nor, once the RNG is
# seeded, the mix of the interrupt entropy.
#
# Environment: IDLE_SECONDS (default 10), length of the idle measurement;
# MATCH_SECONDS (default 5), length of the period whose wakeups are
# compared with the interrupts;
# IDLE_MAX_RATE (default 3.0), wakeups per CPU per second allowed with
# CONFIG_IDLE_WAKEUP_REDUCE: a bound against gross regressions (a tick
# back on every CPU is 100 or more a second; the polls are checked by
# name below), not the targets of make bench-idle, which are far lower.
# Here the test follows other tests whose work may still be settling, and
# 10 s of idle under QEMU gave 1.06/s after the flash tests and 2.56/s
# before them, right after boot; with a virtio-rng device, which the
# hwrng thread reads at half the uptime during the first two minutes,
# 1.94/s on x86_64.

ksft_skip=4
dir=/sys/kernel/debug/wakeups
idle=${IDLE_SECONDS:-10}
match=${MATCH_SECONDS:-5}
max_rate=${IDLE_MAX_RATE:-3.0}
reduce=/sys/module/kernel/parameters/wakeup_reduce
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

check()
{
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

[ -d /sys/kernel/debug/wakeups ] ||
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
echo "TAP version 13"
if [ ! -d "$dir" ]; then
	echo "1..0 # SKIP no $dir (CONFIG_IDLE_WAKEUP_STATS)"
	exit "$ksft_skip"
fi
echo "1..12"

snap=$(mktemp)
trap 'rm -f "$snap" "$snap.irq"' EXIT

# Take one snapshot of the stats, so that the sums below agree.
snapshot()
{
	cat "$dir/stats" > "$snap"
}

# sum of the counts of the listed causes, optionally of lines matching $1
charged()
{
	awk -v pat="${1:-}" '!/^#/ && $1 != "cpu" &&
		(pat == "" || index($0, pat)) { s += $2 } END { print s + 0 }' \
		"$snap"
}

# column $1 of the per-CPU lines, summed (3: wakeups, 4: overflow)
per_cpu()
{
	awk -v col="$1" '$1 == "cpu" { s += $col } END { print s + 0 }' "$snap"
}

# slurp VAR FILE: FILE read whole into VAR by one shell builtin.  No
# process starts (not even the subshell of a command substitution), so
# reading takes no interrupt on the other CPUs (no fork, exec, exit or TLB
# flush), and little time on this one.  A shell without "read -d" (dash)
# reads it with cat.
slurp()
{
	IFS= read -r -d '' "$1" < "$2" 2>/dev/null
	# 1 is the end of the file, as expected
	[ $? -le 1 ] || eval "$1=\$(cat $2)"
}

# idle_wait SECONDS: a sleep that starts no process either, a read with a
# timeout from a FIFO that nobody writes; sleep(1) where the shell has no
# "read -t" (dash) or there is no mkfifo.
fifo=$(mktemp -u)
if mkfifo "$fifo" 2>/dev/null; then
	exec 3<>"$fifo"
	rm -f "$fifo"
	fifo=3
else
	fifo=
fi
idle_wait()
{
	if [ -n "$fifo" ]; then
		read -t "$1" _ <&3 2>/dev/null
		[ $? -eq 2 ] || return 0
	fi
	sleep "$1"
}

echo 1 > "$dir/enable"
check "enable" [ "$(cat "$dir/enable")" = 1 ]

# Whether the RNG is seeded before the idle period: the input pool counts
# its entropy up to its size and stays there once the RNG is ready.
r=/proc/sys/kernel/random
seeded=0
if [ -r $r/entropy_avail ] && [ -r $r/poolsize ] &&
   [ "$(cat $r/entropy_avail)" -ge "$(cat $r/poolsize)" ]; then
	seeded=1
fi

# An idle system: every wakeup is charged.  Nothing but builtins runs in
# the attribution's period (reset ... stats), so that the rate is the
# idle system's.
echo 1 > "$dir/reset"
idle_wait "$idle"
slurp w "$dir/stats"
printf '%s' "$w" > "$snap"
sed 's/^/# /' "$snap"
total=$(per_cpu 3)
cpus=$(grep -c '^processor' /proc/cpuinfo)
rate=$(awk "BEGIN { printf \"%.2f\", $total / $idle / $cpus }")
echo "# METRIC idle_wakeups_per_cpu_s $rate 1/s"
overflow=$(per_cpu 4)
listed=$(charged)
check "idle wakeups all listed ($total = $listed listed + $overflow)" \
	[ "$total" -gt 0 -a "$total" -eq $((listed + overflow)) ]

# Per CPU of the /proc/interrupts part of stdin (from its header to the
# first line that is not an interrupt's): "cpu interrupts timer".  Every
# row with a count per CPU is an interrupt that enters irq_enter() (or,
# for x86's reschedule IPI, ends an idle period without it), except NMIs
# and machine check exceptions and polls; the timer is the local APIC
# timer (x86, LOC) or the architected timer (ARM).
irqs_per_cpu()
{
	awk '!in_irqs && /^ *CPU[0-9]/ { in_irqs = 1; n = NF
		for (c = 0; c < n; c++) id[c] = substr($(c + 1), 4)
		next }
	!in_irqs { next }
	$1 !~ /:$/ { exit }
	$1 ~ /^(NMI|PMI|MCE|MCP|ERR|MIS|Err):$/ { next }
	{
		for (c = 0; c < n; c++)
			if ($(c + 2) !~ /^[0-9]+$/)
				next
		t = $1 == "LOC:" || /arch_timer/
		for (c = 0; c < n; c++) {
			irq[c] += $(c + 2)
			if (t)
				timer[c] += $(c + 2)
		}
	}
	END { for (c = 0; c < n; c++) print id[c], irq[c] + 0, timer[c] + 0 }'
}

# Per CPU of /proc/stat on stdin: "cpu busy", the time it was not idle in
# USER_HZ units (user, nice, system, irq, softirq, steal).
busy_per_cpu()
{
	awk '/^cpu[0-9]/ { print substr($1, 4), $2 + $3 + $4 + $7 + $8 + $9 }'
}

# Per CPU of /proc/timer_list on stdin: "cpu events", the calls of
# hrtimer_interrupt() (nr_events), for the CPUs in high resolution mode
# only (without it the tick does not go through hrtimer_interrupt(), and
# nr_events stays 0); and once "hz jiffies nanoseconds".  The timer's own
# line in /proc/interrupts will not do where there are events to count:
# under QEMU the ARM architected timer now and then raises its interrupt
# again after the handler has masked it, and that second one, taken in
# the same interrupt entry, finds no event.
events_per_cpu()
{
	awk '/^now at/ { ns = $3 } /^jiffies:/ && !j++ { print "hz", $2, ns }
	/^cpu: / { c = $2 } /^ *\.hres_active *:/ { hres = $NF == 1 }
	/^ *\.nr_events *:/ && hres { print c, $NF }'
}

# The wakeups charged match the interrupts and the timer events of the
# idle CPUs, in a second period: one cat reads /proc/interrupts,
# /proc/stat and the timer list before it and one after it, so that the
# three are read at nearly the same moment (a builtin reads a byte at a
# time, which for the timer list keeps a CPU busy for some 30 ticks under
# QEMU).  The cats run outside the attribution's period (reset ... stats):
# inside it, their busy ticks and IPIs would hide a lost wakeup.
x0=$(cat /proc/interrupts /proc/stat /proc/timer_list)
echo 1 > "$dir/reset"
idle_wait "$match"
slurp m "$dir/stats"
x1=$(cat /proc/timer_list /proc/stat /proc/interrupts)

# Every wakeup starts with an interrupt on an idle CPU (or x86's
# reschedule IPI, which bypasses irq_enter()), so per CPU
#   wakeups <= interrupts + 2
# : one wakeup may have begun before the reset and been charged after it,
# and a polling idle loop may be woken with no interrupt at all (rare: a
# task made runnable in the few instructions between an interrupt's
# return to idle and the next halt).  And every timer event that did not
# wake an idle CPU hit it busy, or nested inside a wakeup's own softirqs;
# the ticks among them are those that the tick-based CPU time accounting
# of these kernels charges to user, system or softirq time in /proc/stat.
# So per CPU
#   wakeups >= timer events - busy ticks - 2
# with the busy ticks (busy USER_HZ + 1, for the rounding of both
# readings) * HZ / USER_HZ (100 on every architecture here), HZ measured
# from the jiffies of the timer lists, and 2 for the events that are
# neither, which are rare: an hrtimer other than the tick (a watchdog, a
# task's timeout) that fired on a busy CPU, a tick that came while a
# wakeup that will leave the idle loop was still open, and an event of an
# idle CPU between a read of the timer list and the attribution's period
# (the end of a cat, or the start of the next).  Where there are no
# timer events to count (no high resolution mode), the timer's
# interrupts stand in for them.  Other interrupts (IPIs, devices) may hit
# a busy CPU too: they count only in the first bound.
# A wakeup lost per idle period breaks the second bound.  The first is
# loose, as those interrupts are many, and catches only a gross excess.
{
	echo "$x0" | irqs_per_cpu | sed 's/^/i0 /'
	echo "$x1" | irqs_per_cpu | sed 's/^/i1 /'
	echo "$x0" | events_per_cpu | sed 's/^/t0 /'
	echo "$x1" | events_per_cpu | sed 's/^/t1 /'
	echo "$x0" | busy_per_cpu | sed 's/^/s0 /'
	echo "$x1" | busy_per_cpu | sed 's/^/s1 /'
	echo "$m" | awk '$1 == "cpu" { print "w", $2, $3 }'
} > "$snap.irq"
cmp=$(awk -v cpus="$cpus" '
	$1 == "i0" { irq[$2] -= $3; timer[$2] -= $4 }
	$1 == "i1" { irq[$2] += $3; timer[$2] += $4; if ($2 + 1 > n) n = $2 + 1
		     seen[$2] = 1 }
	$1 == "t0" && $2 == "hz" { j0 = $3; ns0 = $4; next }
	$1 == "t1" && $2 == "hz" { j1 = $3; ns1 = $4; next }
	$1 == "t0" { ev[$2] -= $3; e0[$2] = 1 }
	$1 == "t1" { ev[$2] += $3; e1[$2] = 1 }
	$1 == "s0" { busy[$2] -= $3 }
	$1 == "s1" { busy[$2] += $3 }
	$1 == "w" { w[$2] = $3 }
	END {
		# HZ, one of the values Kconfig offers; 1000, the
		# largest, if it cannot be told.
		hz = 1000
		if (j1 > j0 && ns1 > ns0) {
			m = (j1 - j0) * 1e9 / (ns1 - ns0)
			split("100 250 300 1000", v)
			for (i = 1; i <= 4; i++)
				if (v[i] * 0.9 <= m && m <= v[i] * 1.1)
					hz = v[i]
		}
		for (c = 0; c < n; c++) {
			if (!(c in seen))
				continue
			compared++
			what = "timer events"
			if (!(c in e0) || !(c in e1)) {
				ev[c] = timer[c]
				what = "timer interrupts (no events)"
			}
			ticks = int((busy[c] + 1) * hz / 100 + 0.999)
			lo = ev[c] - ticks - 2
			hi = irq[c] + 2
			printf "# cpu%d: %d wakeups, %d interrupts (%d timer), " \
			       "%d %s, %d busy ticks at HZ=%d: expected " \
			       "%d..%d\n", c, w[c], irq[c], timer[c], ev[c],
			       what, ticks, hz, lo, hi
			if (w[c] < lo || w[c] > hi)
				bad++
		}
		if (compared != cpus) {
			printf "# %d of %d CPUs compared\n", compared, cpus
			bad++
		}
		print "bad", bad + 0
	}' "$snap.irq")
echo "$cmp" | grep '^#'
bad=$(echo "$cmp" | awk '$1 == "bad" { print $2 }')
check "idle wakeups match the interrupts of the idle CPUs ($bad CPUs off)" \
	[ "$bad" -eq 0 ]

# The wakers of the idle system, most frequent first, with their rate.
awk -v t="$idle" '!/^#/ && $1 != "cpu" && n++ < 10 {
	w = $6; for (i = 7; i <= NF; i++) w = w " " $i
	printf "# waker cpu%s %.2f/s %s %s\n", $1, $2 / t, $5, w }' "$snap"
# Every line names its source and what it was.
src='^(unknown|tick|hrtimer|timer|work|irq|ipi)$'
bad=$(awk -v src="$src" '!/^#/ && $1 != "cpu" && ($5 !~ src || NF < 6)' \
	"$snap" | wc -l)
check "every waker is named ($bad unnamed)" [ "$bad" -eq 0 ]

# per CPU, the interrupts so far of virtio device $1 (virtioN, or its
# MSI-X vectors virtioN-*; a PCI interrupt line shared with other devices
# names them all, "virtio0, virtio5", and its counts are the line's, which
# idle devices do not add to): "count0 count1 ..."
virtio_irqs()
{
	awk -v n="$cpus" -v dev="$1" '{
		for (f = n + 2; f <= NF; f++) {
			x = $f
			sub(/,$/, "", x)
			if (x ~ "^" dev "(-|$)") {
				for (i = 2; i <= n + 1; i++)
					c[i] += $i
				break
			}
		}
	}
	END { for (i = 2; i <= n + 1; i++) printf "%d ", c[i] }' /proc/interrupts
}

# the one CPU whose count grew from the list $1 to the list $2; nothing if
# none or several did
grew()
{
	echo "$1|$2" | awk -F'|' '{ n = split($1, a, " "); split($2, b, " ")
		for (i = 1; i <= n; i++) if (b[i] > a[i]) { c = i - 1; k++ }
		if (k == 1) print c }'
}

mix_skip()
{
	n=$((n + 1))
	echo "ok $n no entropy mix woke an idle CPU after an interrupt # SKIP $1"
}

# Once the RNG is seeded, the mix of a CPU's interrupt entropy waits for
# that CPU's next tick (drivers/char/random.c); before, it runs at the
# next tick whether the CPU is idle or not.  A read of 128 bytes from the
# RNG device, at least what the hwrng core and the virtio-rng driver keep
# buffered (a cache line each), drains the driver's buffer, and the
# driver asks the device for more: the device interrupts, once or a few
# times in a row, the CPU its interrupt is routed to.  When that is
# another CPU, idle, it goes back to idle with the mix queued, which must
# not wake it again a tick later.  (A large read would be a burst of
# requests, whose interrupts keep the CPU's tick running and can hide the
# mix's wakeup.)  The guests of make qemu-test have a virtio-rng device.
# On the x86_64 guest a mix that wakes the CPU is charged to
# mix_interrupt_randomness; on the ARM guest the attribution charges that
# tick as "tick timer_due", among the ticks the test's own commands keep,
# so there the check would pass with the mix not deferred too: skipped.
mix_test()
{
	set -- /sys/bus/virtio/drivers/virtio_rng/virtio*
	rng=${1##*/}
	case $(uname -m) in
	arm*)
		mix_skip "the attribution does not name the mix on $(uname -m)"
		return
		;;
	esac
	if [ "$seeded" != 1 ]; then
		mix_skip "RNG not seeded"
		return
	elif [ ! -e "$1" ] || [ ! -r /dev/hwrng ]; then
		mix_skip "no virtio-rng device"
		return
	elif [ "$cpus" -lt 2 ] || ! command -v taskset >/dev/null; then
		mix_skip "needs 2 CPUs and taskset"
		return
	fi
	# which CPU takes the device's interrupts; the reader runs elsewhere
	a=$(virtio_irqs "$rng")
	dd if=/dev/hwrng of=/dev/null bs=128 count=1 2>/dev/null
	idle_wait 1
	b=$(virtio_irqs "$rng")
	icpu=$(grew "$a" "$b")
	if [ -z "$icpu" ]; then
		mix_skip "$rng interrupted no CPU, or several ($a-> $b)"
		return
	fi
	reader=0
	[ "$icpu" != 0 ] || reader=1
	# A second after that CPU's last mix, an interrupt queues the next.
	# Five rounds: in one, the hwrng thread's own read, or the CPU busy
	# with the reader's exit when the interrupt comes, may leave no mix
	# to defer.
	echo 1 > "$dir/reset"
	for _ in 1 2 3 4 5; do
		idle_wait 2
		taskset -c "$reader" dd if=/dev/hwrng of=/dev/null bs=128 \
			count=1 2>/dev/null
	done
	idle_wait 2
	snapshot
	c=$(virtio_irqs "$rng")
	echo "# $rng interrupts per CPU: $b-> $c(cpu$icpu, reader on cpu$reader)"
	if [ "$(grew "$b" "$c")" != "$icpu" ]; then
		mix_skip "$rng did not interrupt cpu$icpu alone"
		return
	fi
	mix=$(charged "mix_interrupt_randomness")
	check "no entropy mix woke an idle CPU after an interrupt ($mix)" \
		[ "$mix" -eq 0 ]
}

# The first second belongs to the test's own commands (the RCU grace
# periods and remote wakeups of their exits): the bound leaves out the
# causes seen only then, and keeps every other in full.
steady=$(awk '!/^#/ && $1 != "cpu" && $4 >= 1000 { s += $2 }
	END { print s + 0 }' "$snap")
# An 8250 UART whose transmit interrupt fails the driver's test at port
# start-up (UART_BUG_THRE, seen now and then on QEMU's) is polled by
# serial8250_backup_timeout() several times a second for as long as the
# port is open, on whatever CPU: the driver's choice for that port, which
# no idle policy may defer.  Its wakeups are reported and left out of the
# bound.
backup=$(awk '!/^#/ && $1 != "cpu" && $4 >= 1000 && $5 == "timer" &&
	$6 == "serial8250_backup_timeout" { s += $2 } END { print s + 0 }' "$snap")
if [ "$backup" -gt 0 ]; then
	echo "# $backup wakeups after 1 s by serial8250_backup_timeout, the" \
		"polling of an 8250 port with UART_BUG_THRE: left out of the rate"
	steady=$((steady - backup))
fi
srate=$(awk "BEGIN { printf \"%.2f\", $steady / ($idle - 1) / $cpus }")
echo "# METRIC idle_wakeups_per_cpu_s_steady $srate 1/s"
if [ -r "$reduce" ] && [ "$(cat "$reduce")" = Y ]; then
	check "idle rate after 1 s with wakeup_reduce $srate/s per CPU <= $max_rate" \
		awk "BEGIN { exit !($srate <= $max_rate) }"
	# kcompactd's proactive poll sleeps in wakeup_reduce_timeout now, and
	# the %p key's poll is a deferrable work: neither may wake an idle CPU.
	polls=$(charged "wakeup_reduce_timeout")
	polls=$((polls + $(charged "fill_ptr_key_workfn")))
	check "no deferrable poll woke an idle CPU ($polls)" [ "$polls" -eq 0 ]
	mix_test
else
	n=$((n + 1))
	echo "ok $n idle rate with wakeup_reduce # SKIP not enabled"
	n=$((n + 1))
	echo "ok $n no deferrable poll woke an idle CPU # SKIP not enabled"
	mix_skip "not enabled"
fi

# A task sleeping in a loop is woken by hrtimer_wakeup, once per sleep.
echo 1 > "$dir/reset"
for _ in 1 2 3 4 5; do
	sleep 1
done
snapshot
hr=$(charged "hrtimer hrtimer_wakeup")
check "5 sleeps charged to hrtimer_wakeup ($hr)" [ "$hr" -ge 4 ]

before=$(per_cpu 3)
echo 1 > "$dir/reset"
snapshot
after=$(per_cpu 3)
period=$(awk '/^# enabled/ { print $5 }' "$snap")
# A few wakeups of the test's own commands may already be counted again.
check "reset clears the counts ($before -> $after in $period ms)" \
	[ "$after" -lt "$before" -a "$period" -lt 1000 ]

report_has()
{
	echo "$report" | grep -q "hrtimer *$1"
}

# The user tool's one-shot report names the sleeping task's timer.
top=$(dirname "$0")/wakeup_top.sh
if [ -x "$top" ]; then
	report=$( (sleep 1; sleep 1) & "$top" -i 3 -n 1)
	echo "$report" | sed 's/^/# /'
	check "wakeup_top.sh reports hrtimer_wakeup" report_has hrtimer_wakeup
else
	n=$((n + 1))
	echo "ok $n wakeup_top.sh reports hrtimer_wakeup # SKIP not installed"
fi

echo 0 > "$dir/enable"
snapshot
before=$(per_cpu 3)
sleep 2
snapshot
after=$(per_cpu 3)
check "disabled attribution counts nothing ($before -> $after)" \
	[ "$before" -eq "$after" ]
check "disable" [ "$(cat "$dir/enable")" = 0 ]
exit "$failed"
