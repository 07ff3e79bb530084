#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wakeup_top.sh - what wakes the idle CPUs, from CONFIG_IDLE_WAKEUP_STATS
#
#   wakeup_top.sh [-i SECONDS] [-n COUNT] [-t TOP]
#
# Enables attribution if needed, then every SECONDS (default 5) prints the
# causes of the wakeups of the last interval, most frequent first, with
# their rate per second; COUNT intervals (default: until interrupted).
# "-n 1" is a one-shot report.  Needs only a POSIX shell and awk (busybox
# is enough) and debugfs.

interval=5
count=0
top=20
dir=/sys/kernel/debug/wakeups

usage()
{
	echo "usage: $0 [-i seconds] [-n count] [-t top]" >&2
	exit 2
}

while getopts "i:n:t:h" opt; do
	case "$opt" in
	i) interval=$OPTARG ;;
	n) count=$OPTARG ;;
	t) top=$OPTARG ;;
	*) usage ;;
	esac
done

[ -d "$dir" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ ! -w "$dir/enable" ]; then
	echo "$0: no $dir (CONFIG_IDLE_WAKEUP_STATS, root)" >&2
	exit 1
fi
[ "$(cat "$dir/enable")" = 1 ] || echo 1 > "$dir/enable"

n=0
while [ "$count" -eq 0 ] || [ "$n" -lt "$count" ]; do
	echo 1 > "$dir/reset"
	sleep "$interval"
	awk -v top="$top" '
	/^# enabled/ { secs = $5 / 1000 }
	$1 == "cpu" { total += $3; cpus++ ; next }
	/^#/ { next }
	{
		key = $5
		for (i = 6; i <= NF; i++)
			key = key " " $i
		sum[key] += $2
	}
	END {
		if (secs <= 0)
			secs = 1
		printf "%d wakeups in %.1f s: %.2f per CPU per second\n",
		       total, secs, total / secs / (cpus ? cpus : 1)
		printf "%8s %8s  %-8s %s\n", "wakeups", "per s", "source", "what"
		out = "sort -rn | head -n " top
		for (k in sum) {
			src = k
			sub(/ .*/, "", src)
			what = substr(k, length(src) + 2)
			printf "%8d %8.2f  %-8s %s\n", sum[k], sum[k] / secs,
			       src, what | out
		}
		close(out)
	}' "$dir/stats"
	n=$((n + 1))
	[ "$count" -eq 1 ] || echo
done
