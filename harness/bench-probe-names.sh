#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-probe-names.sh ARCH OBJ KSFT BUSYBOX OUT
#
# Name stability.  A guest with eight virtio disks, four virtio network
# interfaces, two virtio input devices and, on x86_64, four PCI serial
# ports (the ARM virt machine has none to add) loads their drivers as
# modules (bench/names-guest.sh) with every probe delayed by a random time
# of up to 20 ms (parallel_probe.jitter_us=20000, BENCH_JITTER_US), and prints
# the name each device took by bus address.  The kernel of OBJ boots
# BENCH_NAME_BOOTS (50) times each with synchronous probing
# ("driver_parallel_probe=off"), mainline's asynchronous probing
# ("driver_parallel_probe=off driver_async_probe=*") and the series, in
# rounds that rotate the order.  bench/names-report.py compares every
# boot's names with those of the first synchronous boot and writes
# OUT/probe-names.json, OUT/probe-names.md and OUT/probe-names-ARCH.png.
set -uo pipefail
arch=$1 obj=$2 ksft=$3 busybox=$4 out=$5
here=$(cd "$(dirname "$0")" && pwd)
boots=${BENCH_NAME_BOOTS:-50}
jitter=${BENCH_JITTER_US:-20000}
mkdir -p "$out"
rc=0
# the kernel refuses more than a second, and would run without jitter
if [ "$jitter" -gt 1000000 ]; then
	echo "bench-probe-names.sh: BENCH_JITTER_US is at most 1000000" >&2
	exit 2
fi

case $arch in
x86_64)
	image=$obj/arch/x86/boot/bzImage
	blk=virtio-blk-pci net=virtio-net-pci kbd=virtio-keyboard-pci
	mouse=virtio-mouse-pci
	# fixed PCI addresses: serial 0x08-0x0b, input 0x0c-0x0d,
	# network 0x0e-0x11, disks 0x12-0x19
	addr() { printf ',addr=0x%02x' "$1"; }
	# No PS/2 keyboard and mouse: the serio thread probes them in
	# whatever order it runs, in every mode, and they would take input
	# numbers from the counter the virtio input devices take theirs from.
	extra="i8042.nokbd i8042.noaux"
	expect="block=8 virtio=14 net=4 serial=4 input=2 event=2"
	;;
arm)
	image=$obj/arch/arm/boot/zImage
	blk=virtio-blk-device net=virtio-net-device kbd=virtio-keyboard-device
	mouse=virtio-mouse-device
	addr() { :; }
	extra=
	expect="block=8 virtio=14 net=4 input=2 event=2"
	;;
*)
	echo "bench-probe-names.sh: unknown arch $arch" >&2
	exit 2
	;;
esac
dev=()
q() { for a in "$@"; do dev+=("--qemu-arg=$a"); done; }
[ "$arch" = arm ] && q -global virtio-mmio.force-legacy=false
if [ "$arch" = x86_64 ]; then
	for i in 0 1 2 3; do
		q -chardev "null,id=ns$i" -device "pci-serial,chardev=ns$i$(addr $((8 + i)))"
	done
fi
q -device "$kbd$(addr 12)" -device "$mouse$(addr 13)"
for i in 0 1 2 3; do
	q -netdev "hubport,id=nn$i,hubid=$i" -device "$net,netdev=nn$i$(addr $((14 + i)))"
done
for i in 0 1 2 3 4 5 6 7; do
	q -blockdev "driver=null-co,node-name=nd$i,size=1048576,read-zeroes=on" \
	  -device "$blk,drive=nd$i$(addr $((18 + i)))"
done

mods=()
for m in net/core/failover drivers/net/net_failover drivers/net/virtio_net \
	 drivers/block/virtio_blk drivers/virtio/virtio_input \
	 drivers/tty/serial/8250/8250_pci; do
	[ -e "$obj/$m.ko" ] && mods+=(--payload "$obj/$m.ko:${m##*/}.ko")
done

declare -A append=(
	[sync]="driver_parallel_probe=off"
	[async]="driver_parallel_probe=off driver_async_probe=*"
	[series]=""
)
order=(sync async series)
for b in $(seq 1 "$boots"); do
	r=$(( (b - 1) % ${#order[@]} ))
	for k in "${order[@]:r}" "${order[@]:0:r}"; do
		"$here/qemu-run" --arch "$arch" --kernel "$image" \
			--busybox "$busybox" --name "names-$arch-$k-$b" \
			--workdir "$out/names-$arch-$k-$b" \
			--payload "$ksft" "${mods[@]}" \
			--payload "$here/bench/names-guest.sh:names-guest.sh" \
			"${dev[@]}" --mem 256 --timeout 300 \
			--append "parallel_probe.jitter_us=$jitter $extra ${append[$k]}" \
			--run "./names-guest.sh '$expect'" > /dev/null
		# a boot whose names are out of order fails its check: that is
		# a figure here, not an error; a boot without names is one
		grep -q '^# block: .*=' "$out/names-$arch-$k-$b/console.log" ||
			{ echo "names-$arch-$k-$b: no names"; rc=1; }
	done
done
python3 "$here/bench/names-report.py" "$arch" "$out" "$boots" "$jitter" || rc=1
exit $rc
