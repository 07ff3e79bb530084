#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-idle-cost.sh TREE OUT
#
# What stopping the tick at every idle entry (CONFIG_IDLE_WAKEUP_REDUCE on
# a CPU without a cpuidle driver) costs a busy system.  The tiny series
# kernel of make bench-idle (TREE/.obj-idle-ARCH-tiny-series, built first
# if missing) boots with "wakeup_reduce=off" and with the default, in turn,
# BENCH_RUNS times each (default 2), and runs harness/bench/idle-cost.c's
# workloads for BENCH_COST_SECS seconds each (default 10): a pipe ping-pong
# between the two CPUs, sleeps of 10 ms and of 2 ms.  For each
# architecture of BENCH_ARCHES (default x86_64).  Writes
# OUT/idle-cost.{json,md}.
set -uo pipefail
tree=$(cd "$1" && pwd) out=$2
here=$(cd "$(dirname "$0")" && pwd)
build=$(dirname "$tree")
mkdir -p "$out"
out=$(cd "$out" && pwd)
arches=${BENCH_ARCHES:-x86_64}
runs=${BENCH_RUNS:-2}
secs=${BENCH_COST_SECS:-10}
declare -A image=([x86_64]=arch/x86/boot/bzImage [arm]=arch/arm/boot/zImage)
declare -A bb=([x86_64]=/bin/busybox [arm]=$build/dl/busybox-armhf/bin/busybox)
declare -A cc=([x86_64]=gcc [arm]=arm-linux-gnueabihf-gcc)
rc=0

for arch in $arches; do
	obj=$tree/.obj-idle-$arch-tiny-series
	if [ ! -f "$obj/${image[$arch]}" ]; then
		f=$out/idle-$arch-tiny.config
		printf 'CONFIG_HZ_250=y\nCONFIG_NO_HZ_IDLE=y\nCONFIG_HIGH_RES_TIMERS=y\n' > "$f"
		"$here/kbuild.sh" "$arch" "$tree" "$obj" "$here/configs/$arch.config" \
			"$here/configs/bench-idle-tiny.config" "$f" \
			"$here/configs/bench-idle-series.config" || exit 1
	fi
	mkdir -p "$build/idle-cost-$arch"
	${cc[$arch]} -O2 -Wall -static -o "$build/idle-cost-$arch/idle-cost" \
		"$here/bench/idle-cost.c" || exit 1
	for r in $(seq "$runs"); do
		for mode in off on; do
			wd=$out/idle-cost-$arch-$mode-$r
			rm -rf "$wd"
			echo "== $arch wakeup_reduce=$mode, run $r"
			"$here/qemu-run" --arch "$arch" --kernel "$obj/${image[$arch]}" \
				--busybox "${bb[$arch]}" --name "idle-cost-$arch-$mode-$r" \
				--workdir "$wd" --mem 384 --smp 2 \
				--payload "$here/bench/idle-cost-guest.sh:idle-cost-guest.sh" \
				--payload "$build/idle-cost-$arch/idle-cost:idle-cost" \
				--append "wakeup_reduce=$mode" --timeout $((secs * 3 + 300)) \
				--run "./idle-cost-guest.sh $secs" |
				grep -E '^(PASS|FAIL|METRIC )' | sed 's/^/   /' || rc=1
		done
	done
done
python3 "$here/bench/idle-cost-report.py" "$out" "$arches" "$runs" || rc=1
exit $rc
