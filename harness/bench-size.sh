#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-size.sh TREE BASE OUT
#
# Kernel footprint (issue 25), in one run on this machine.  For each
# architecture (BENCH_ARCHES, default "x86_64 arm"), tinyconfig plus the
# architecture's fragment (harness/configs/<arch>.config, what boots a
# busybox initramfs in QEMU) is built three ways:
#
#   stock      the pristine base tree BASE
#   series     the series tree TREE with its options off (make offcheck:
#              the same functions as stock, but patch 799's fix)
#   footprint  TREE with the footprint options of the architecture,
#              harness/configs/size-<arch>.config (an architecture
#              without one has its footprint rows "-")
#
# and, with BENCH_SIZE_PARTS (default "sffs dyntick pprobe slobseg"), each
# part of the series on next to the baseline it needs, for what the part
# costs: SFFS with MTD against MTD alone, the dyntick layer and parallel
# probing against the series build, SLOB_SEG against SLOB.
#
# For every build: "size vmlinux" (text, data, bss) and the compressed
# image.  stock and footprint also boot BENCH_ROUNDS times each (default
# 7, interleaved, BENCH_MEM_<arch> MiB: x86_64 48, ARM 32) and report
# MemTotal, MemFree and MemAvailable after boot.  Also
# scripts/bloat-o-meter from stock to footprint, and harness/size-tables.py,
# which fails the run if the footprint kernel lost an entry of a table the
# kernel walks through linker symbols (initcalls, __setup, ...).
#
# Writes OUT/size.json, OUT/size.md and OUT/size.png, and keeps what
# each build and boot left in OUT/size/; the last line is
# "bench-size: N passed, N failed".
set -uo pipefail
tree=$(cd "$1" && pwd) base=$(cd "$2" && pwd) out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/size"
out=$(cd "$out" && pwd)
# builds' sizes, maps, logs and boots: apart from the other benchmarks'
work=$out/size
arches=${BENCH_ARCHES:-"x86_64 arm"}
parts=${BENCH_SIZE_PARTS-"sffs dyntick pprobe slobseg"}
rounds=${BENCH_ROUNDS:-7}
declare -A mem=([x86_64]=${BENCH_MEM_x86_64:-48} [arm]=${BENCH_MEM_arm:-32})
declare -A image=([x86_64]=arch/x86/boot/bzImage [arm]=arch/arm/boot/zImage)
declare -A bb=([x86_64]=/bin/busybox
	       [arm]=$(dirname "$tree")/dl/busybox-armhf/bin/busybox)
declare -A cross=([x86_64]= [arm]=arm-linux-gnueabihf-)
passed=0 failed=0
pass() { echo "PASS bench-size: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL bench-size: $*"; failed=$((failed + 1)); }

# The fragment of each build beyond tinyconfig and the architecture's
frag() {
	case $1 in
	stock|series) ;;
	footprint) cat "$here/configs/size-$arch.config" ;;
	mtd) printf 'CONFIG_MTD=y\n' ;;
	sffs) printf 'CONFIG_MTD=y\nCONFIG_SFFS_FS=y\n' ;;
	dyntick) printf 'CONFIG_IDLE_WAKEUP_STATS=y\nCONFIG_IDLE_WAKEUP_REDUCE=y\n' ;;
	pprobe) printf 'CONFIG_DRIVER_PARALLEL_PROBE=y\n' ;;
	slob) printf 'CONFIG_SLOB=y\n# CONFIG_SLOB_SEG is not set\n' ;;
	slobseg) printf 'CONFIG_SLOB=y\nCONFIG_SLOB_SEG=y\n' ;;
	esac
}

# part -> the build it is measured against
declare -A against=([sffs]=mtd [dyntick]=series [pprobe]=series
		    [slobseg]=slob)

# The same object directory name for stock and series: the compiler sees
# the same relative paths in both trees, and the second build comes from
# ccache wherever the series did not change the source.
objdir() {	# ARCH NAME
	local src=$tree
	[ "$2" = stock ] && src=$base
	case $2 in
	stock|series) echo "$src/.obj-size-$1-plain" ;;
	*) echo "$src/.obj-size-$1-$2" ;;
	esac
}

build() {	# ARCH NAME
	local src=$tree obj
	arch=$1 name=$2
	[ "$name" = stock ] && src=$base
	obj=$(objdir "$arch" "$name")
	frag "$name" > "$work/$arch-$name.config"
	echo "== $arch $name: build"
	if ! "$here/kbuild.sh" "$arch" "$src" "$obj" \
		"$here/configs/$arch.config" "$work/$arch-$name.config" \
		> "$work/$arch-$name-build.log" 2>&1; then
		tail -n 20 "$work/$arch-$name-build.log"
		fail "$arch $name: build"
		return 1
	fi
	size "$obj/vmlinux" | tail -n 1 | awk '{ print $1, $2, $3 }' \
		> "$work/$arch-$name.size"
	stat -c %s "$obj/${image[$arch]}" > "$work/$arch-$name.image"
	cp "$obj/System.map" "$work/$arch-$name.map"
}

for arch in $arches; do
	names="stock series"
	[ -f "$here/configs/size-$arch.config" ] && names="$names footprint"
	for p in $parts; do
		names="$names ${against[$p]} $p"
	done
	built=()
	# a build or boot this run does not make shows "-", never old figures
	rm -rf "${work:?}/$arch"-*.size "$work/$arch"-*.image "$work/$arch"-*.map \
		"$work/$arch-stock" "$work/$arch-footprint" \
		"$work/$arch-tables.txt" "$work/$arch-bloat-o-meter.txt"
	for name in $(echo $names | tr ' ' '\n' | awk '!seen[$0]++'); do
		rm -f "$work/$arch-$name".{size,image,map}
		build "$arch" "$name" && built+=("$name")
	done
	if [ -f "$work/$arch-stock.map" ] && [ -f "$work/$arch-footprint.map" ]; then
		if python3 "$here/size-tables.py" "$work/$arch-stock.map" \
			"$work/$arch-footprint.map" > "$work/$arch-tables.txt" 2>&1
		then
			pass "$arch: no table entry dropped by the footprint options"
		else
			sed 's/^/    /' "$work/$arch-tables.txt" | tail -n 20
			fail "$arch: no table entry dropped by the footprint options"
		fi
		# bloat-o-meter of 6.1 stops at a symbol without a name, which
		# the ARM vmlinux has: its nm leaves those out.
		nmdir=$work/.nm-$arch
		mkdir -p "$nmdir"
		cat > "$nmdir/nm" <<-NM
		#!/bin/sh
		${cross[$arch]}nm "\$@" | awk 'NF == 3'
		NM
		chmod +x "$nmdir/nm"
		"$tree/scripts/bloat-o-meter" -p "$nmdir/" \
			"$(objdir "$arch" stock)/vmlinux" \
			"$(objdir "$arch" footprint)/vmlinux" \
			> "$work/$arch-bloat-o-meter.txt" 2>&1
	fi
	# boots: stock and footprint in turn, the first of each pair
	# alternating, so that a drift of the host falls on both alike;
	# nothing to compare without both
	[ -f "$work/$arch-stock.size" ] && [ -f "$work/$arch-footprint.size" ] ||
		continue
	for ((r = 1; r <= rounds; r++)); do
		order="stock footprint"
		((r % 2 == 0)) && order="footprint stock"
		for name in $order; do
			[ -f "$work/$arch-$name.size" ] || continue
			rm -rf "$work/$arch-$name/$r"
			echo "== $arch $name: boot $r of $rounds with ${mem[$arch]} MiB"
			"$here/qemu-run" --arch "$arch" \
				--kernel "$(objdir "$arch" "$name")/${image[$arch]}" \
				--busybox "${bb[$arch]}" \
				--name "bench-size-$arch-$name-$r" \
				--workdir "$work/$arch-$name/$r" \
				--mem "${mem[$arch]}" \
				--payload "$here/bench/size-guest.sh:size-guest.sh" \
				--timeout 300 --run ./size-guest.sh |
				grep -E '^(PASS|FAIL)' | sed 's/^/   /'
			[ "${PIPESTATUS[0]}" = 0 ] ||
				fail "$arch $name: boot $r"
		done
	done
done

rm -f "$out/size.png"
if python3 "$here/bench/size-report.py" "$out" "x86_64 arm" "$parts" "$work"
then
	[ -f "$out/size.gp" ] && gnuplot "$out/size.gp"
	pass "report"
else
	fail "report"
fi
echo "bench-size: $passed passed, $failed failed"
[ $failed = 0 ]
