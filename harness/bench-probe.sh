#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-probe.sh ARCH KERNEL STOCK_KERNEL BENCH_KO BUSYBOX OUT
#
# Device probing, in one run on this machine, with the same kernel and the
# same graph (parallel_probe_bench.ko, 64 devices by default): synchronous
# probing ("driver_parallel_probe=off"), mainline asynchronous probing
# ("driver_parallel_probe=off driver_async_probe=*"), the series
# (default), and the series with the benchmark's drivers ordered
# ("ordered=1"), each BENCH_REPS times in one boot.  Then the time from power
# on to /init of KERNEL without the module against STOCK_KERNEL (the base
# without the series, configured the same but for the scheduler), and of
# KERNEL with "driver_parallel_probe=off", and STOCK_KERNEL once more,
# BENCH_BOOTS (48) rounds in which the four take turns in a rotating
# order.  Writes OUT/probe.json, OUT/probe.md and OUT/probe*.png.
set -uo pipefail
arch=$1 kernel=$2 stock=$3 ko=$4 busybox=$5 out=$6
here=$(cd "$(dirname "$0")" && pwd)
reps=${BENCH_REPS:-5}
boots=${BENCH_BOOTS:-48}
params=${BENCH_PARAMS:-}
mkdir -p "$out"
rc=0

declare -A append=(
	[sync]="driver_parallel_probe=off"
	[async]="driver_parallel_probe=off driver_async_probe=*"
	[series]=""
	[ordered]=""
)
# "ordered": the benchmark's drivers do not say that they take no names,
# so the series starts each driver's probes in the order they were asked
# for, as it does for drivers that number their devices in probe.
declare -A mparams=([ordered]="ordered=1")
for mode in sync async series ordered; do
	echo "== $arch $mode: ${append[$mode]:-(default)}"
	"$here/qemu-run" --arch "$arch" --kernel "$kernel" --busybox "$busybox" \
		--name "bench-probe-$arch-$mode" --workdir "$out/probe-$arch-$mode" \
		--payload "$ko:parallel_probe_bench.ko" \
		--payload "$here/bench/probe-guest.sh:probe-guest.sh" \
		--append "${append[$mode]}" --mem 256 --timeout 900 \
		--run "./probe-guest.sh $mode $reps $params ${mparams[$mode]:-}" |
		grep -E '^(ok|not ok|PASS|FAIL)' | sed 's/^/   /' || rc=1
done
# Boot to /init without the module.  The kernels take turns, so that
# whatever else runs on this host slows all of them alike, and the load
# average at each boot is kept with it.  The series' kernel boots twice a
# round: as it is, and with the scheduler off.  The order rotates from one
# round to the next, so that no kernel always boots first or after the
# same one.
# The stock kernel boots a second time in each round, as "stock-again":
# how far it lands from itself is the difference the spread of the boots
# alone makes, the yardstick for the others.
declare -A bimg=([stock]=$stock [series]=$kernel [series-off]=$kernel
		 [stock-again]=$stock)
declare -A bapp=([stock]="" [series]="" [series-off]="driver_parallel_probe=off"
		 [stock-again]="")
order=(stock series series-off stock-again)
for b in $(seq 1 "$boots"); do
	r=$(( (b - 1) % ${#order[@]} ))
	for k in "${order[@]:r}" "${order[@]:0:r}"; do
		wd=$out/boot-$arch-$k-$b
		mkdir -p "$wd"
		cut -d' ' -f1-3 /proc/loadavg > "$wd/loadavg"
		"$here/qemu-run" --arch "$arch" --kernel "${bimg[$k]}" \
			--busybox "$busybox" --name "bench-boot-$arch-$k-$b" \
			--workdir "$wd" --mem 256 --timeout 300 \
			--append "printk.time=1 ${bapp[$k]}" \
			--run 'echo ok 1 boot' >/dev/null || rc=1
	done
done

python3 "$here/bench/probe-report.py" "$arch" "$out" "$reps" "$boots" || rc=1
sed -n 's/.*# TIMELINE //p' "$out/probe-$arch-series/console.log" | tr -d '\r' \
	> "$out/probe-$arch-timeline.txt"
python3 "$here/../tools/driver/probechart.py" --slack 20000 \
	--title "Series: probes of parallel_probe_bench.ko, $arch guest" \
	"$out/probe-$arch-timeline.txt" > "$out/probe-$arch-timeline.svg" || rc=1
exit $rc
