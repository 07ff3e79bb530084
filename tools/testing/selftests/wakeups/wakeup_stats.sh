#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Idle wakeup attribution (CONFIG_IDLE_WAKEUP_STATS): an idle system lists
# what wakes it, a sleeping task is charged to the hrtimer that wakes it,
# every wakeup is accounted for, and reset and disable work.  Prints the
# idle wakeup rate as "# METRIC idle_wakeups_per_cpu_s" and the top wakers
# of the idle system.  With CONFIG_IDLE_WAKEUP_REDUCE on, also checks that
# the idle rate per CPU after the first second stays at or below
# IDLE_MAX_RATE and that no poll the series made deferrable woke an idle
# CPU.
#
# Environment: IDLE_SECONDS (default 10), length of the idle measurement;
# IDLE_MAX_RATE (default 2.0), wakeups per CPU per second allowed with
# CONFIG_IDLE_WAKEUP_REDUCE: a bound against gross regressions (a tick or
# a poll back on every CPU), not the targets of make bench-idle, which are
# far lower; here the test follows other tests whose work may still be
# settling, and 10 s of idle under QEMU gave 1.06/s after the flash tests
# and 2.56/s before them, right after boot.

ksft_skip=4
dir=/sys/kernel/debug/wakeups
idle=${IDLE_SECONDS:-10}
max_rate=${IDLE_MAX_RATE:-2.0}
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
echo "1..10"

snap=$(mktemp)
trap 'rm -f "$snap"' EXIT

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

echo 1 > "$dir/enable"
check "enable" [ "$(cat "$dir/enable")" = 1 ]

# An idle system: every wakeup is charged and listed.
sleep "$idle"
snapshot
sed 's/^/# /' "$snap"
total=$(per_cpu 3)
cpus=$(grep -c '^processor' /proc/cpuinfo)
rate=$(awk "BEGIN { printf \"%.2f\", $total / $idle / $cpus }")
echo "# METRIC idle_wakeups_per_cpu_s $rate 1/s"
overflow=$(per_cpu 4)
listed=$(charged)
check "idle wakeups all accounted ($total = $listed listed + $overflow)" \
	[ "$total" -gt 0 -a "$total" -eq $((listed + overflow)) ]

# The wakers of the idle system, most frequent first, with their rate.
awk -v t="$idle" '!/^#/ && $1 != "cpu" && n++ < 10 {
	w = $6; for (i = 7; i <= NF; i++) w = w " " $i
	printf "# waker cpu%s %.2f/s %s %s\n", $1, $2 / t, $5, w }' "$snap"
# Every line names its source and what it was.
src='^(unknown|tick|hrtimer|timer|work|irq|ipi)$'
bad=$(awk -v src="$src" '!/^#/ && $1 != "cpu" && ($5 !~ src || NF < 6)' \
	"$snap" | wc -l)
check "every waker is named ($bad unnamed)" [ "$bad" -eq 0 ]

# The first second belongs to the test's own commands (the RCU grace
# periods and remote wakeups of their exits): the bound leaves out the
# causes seen only then, and keeps every other in full.
steady=$(awk '!/^#/ && $1 != "cpu" && $4 >= 1000 { s += $2 }
	END { print s + 0 }' "$snap")
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
else
	n=$((n + 1))
	echo "ok $n idle rate with wakeup_reduce # SKIP not enabled"
	n=$((n + 1))
	echo "ok $n no deferrable poll woke an idle CPU # SKIP not enabled"
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
