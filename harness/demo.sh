#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh TREE BUILD OUT "KSFT_TARGETS"
#
# The default "make" target: what the series does, stock 6.1 beside it.
# Builds two x86_64 kernels with the same configuration (the QEMU test
# fragments and configs/demo.config) but for the series' options: the
# stock base without the series, from TREE's "base" commit in a worktree,
# and the series with series.config (and the probe benchmark module).
# Boots the stock kernel, the series' kernel, and the series' kernel again
# with mainline's asynchronous probing (the probe benchmark's comparison),
# each once with 2 vCPUs and a virtio-rng device (harness/demo/guest-demo
# says what each boot measures and how), and prints for each part the
# stock figure, the series' figure and the target side by side, with a
# verdict.  Figures and verdicts are also in OUT/demo.json.  One boot of
# each kernel gives one figure each: the benchmarks (make bench-*) repeat
# them and give intervals.  DEMO_IDLE_S (default 20) and DEMO_SETTLE_S
# (default 10) set the idle window and the wait before it (idle-snap
# waits 4 s more); make bench-idle's tiny guests wait 10 s and measure
# 60.
set -uo pipefail
tree=$(cd "$1" && pwd) build=$2 out=$3 targets=$4
here=$(cd "$(dirname "$0")" && pwd)
base=$build/base-wt
sobj=$base/.obj-x86_64-demo-stock
obj=$tree/.obj-x86_64-demo
frags=("$here/configs/x86_64.config" "$here/configs/qemu-test.config"
       "$here/configs/qemu-test-x86_64.config" "$here/configs/demo.config")
ksft=$build/ksft-x86_64/install
snap=$build/idle-snap-x86_64/idle-snap
mkdir -p "$out"
out=$(cd "$out" && pwd)
t_start=$(date +%s)
idle=${DEMO_IDLE_S:-20}
settle=${DEMO_SETTLE_S:-10}
spid= bpid=
# builds left running by a failed step are stopped, with their make
trap 'for p in $spid $bpid; do pkill -P "$p"; kill "$p"; done 2>/dev/null' EXIT

echo
echo "== The series on $(make -s -C "$tree" kernelversion) ($(git -C "$tree" rev-list --count base..series) commits)"
git -C "$tree" log --reverse --format='   %h %s' base..series

echo
echo "== Building the stock and the series' kernel (x86_64, same configuration but for the series' options)"
"$here/worktree.sh" "$tree" "$base" >/dev/null || exit 1
git -C "$base" checkout -q --detach base || exit 1
# two builds side by side: on a warm tree each only checks its objects
JOBS=1 "$here/kbuild.sh" x86_64 "$base" "$sobj" "${frags[@]}" \
	> "$out/build-stock.log" 2>&1 &
spid=$!
JOBS=1 "$here/kbuild.sh" x86_64 "$tree" "$obj" "${frags[@]}" \
	"$here/configs/series.config" "$here/configs/demo-series.config" \
	> "$out/build-series.log" 2>&1 &
bpid=$!
"$here/ksft.sh" x86_64 "$tree" "$build/ksft-x86_64" "$targets" \
	> "$out/build-ksft.log" 2>&1 || { cat "$out/build-ksft.log"; exit 1; }
if [ ! -x "$snap" ] || [ "$here/bench/idle-snap.c" -nt "$snap" ]; then
	mkdir -p "$(dirname "$snap")"
	gcc -O2 -Wall -static -o "$snap" "$here/bench/idle-snap.c" || exit 1
fi
wait $spid || { tail -n 30 "$out/build-stock.log"; exit 1; }
spid=
wait $bpid || { tail -n 30 "$out/build-series.log"; exit 1; }
bpid=
tail -n 1 "$out/build-stock.log" | sed 's/^/   stock:  /'
tail -n 1 "$out/build-series.log" | sed 's/^/   series: /'

echo
echo "== Kconfig options the series adds, as set in the series' kernel"
opts=$(git -C "$tree" diff base..series -- '*Kconfig*' |
	sed -n 's/^+\(menu\)\{0,1\}config \([A-Za-z0-9_]*\).*/\2/p')
for o in $opts; do
	v=$(grep -E "^CONFIG_$o=|^# CONFIG_$o is not set" "$obj/.config" || true)
	printf '   %-40s %s\n' "CONFIG_$o" "${v:-(not visible in this config)}"
done

# The same files for every file system, on both kernels.
rm -rf "$out/data"
mkdir -p "$out/data"
for i in $(seq 0 $((${DEMO_FLASH_FILES:-8} - 1))); do
	head -c 1048576 /dev/urandom > "$out/data/file$i"
done

boot() {	# NAME KERNEL APPEND PAYLOAD...
	local name=$1 kernel=$2 append=$3 p args=()
	shift 3
	for p in "$@"; do
		args+=(--payload "$p")
	done
	rm -rf "${out:?}/$name"
	"$here/qemu-run" --arch x86_64 --kernel "$kernel/arch/x86/boot/bzImage" \
		--busybox /bin/busybox --name "demo-$name" --workdir "$out/$name" \
		--payload "$ksft" --payload "$here/demo/guest-demo:guest-demo" \
		--payload "$here/bench/idle-guest.sh:idle-guest.sh" \
		--payload "$snap:idle-snap" --payload "$out/data:data" \
		"${args[@]}" --qemu-arg=-device --qemu-arg=virtio-rng-pci \
		--append "nandsim.id_bytes=0xec,0xd3,0x51,0x95 $append" \
		--mem 768 --timeout 300 --run "./guest-demo $name $idle $settle" \
		> "$out/$name.txt" 2>&1
	sed -n 's/^\(PASS\|FAIL\|SKIP\) /   &/p' "$out/$name.txt"
}

probe=("$obj/drivers/base/test/parallel_probe_bench.ko:parallel_probe_bench.ko"
       "$here/bench/probe-guest.sh:probe-guest.sh")
echo
echo "== Booting each kernel in QEMU (x86_64, TCG, 2 vCPUs, virtio-rng)"
echo "   stock:"
boot stock "$sobj" ""
echo "   series:"
boot series "$obj" "wakeup_stats" "${probe[@]}"
echo "   series with driver_parallel_probe=off driver_async_probe=* (mainline's asynchronous probing):"
boot async "$obj" "wakeup_stats driver_parallel_probe=off driver_async_probe=*" \
	"${probe[@]}"

echo
python3 "$here/demo/demo-report.py" "$out" "$(($(date +%s) - t_start))"
