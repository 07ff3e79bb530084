#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-slab.sh TREE OUT
#
# SLAB, SLUB, SLUB made small, stock SLOB and the segregated-fit SLOB
# (SLOB_SEG), in one run on this machine.  For each architecture
# (BENCH_ARCHES, default "x86_64 arm") and allocator: a tiny kernel
# (tinyconfig, the architecture's fragment, the allocator and the
# slab_bench module), booted under TCG with 2 vCPUs and little RAM
# (x86_64 48 MiB, ARM 16 MiB; BENCH_MEM_<arch> overrides; BENCH_ALLOCS or
# BENCH_ALLOCS_<arch> pick allocators, default all five), reporting
# /proc/meminfo after boot and after the slab_bench churn, and slab_bench's
# timings.  Each allocator boots BENCH_ROUNDS times (default 7): in each
# round every allocator boots once, in an order that rotates from round to
# round and is reversed every other round, so that a drift of the host
# over the run falls on all of them alike.  Also "size vmlinux" and scripts/bloat-o-meter against stock
# SLOB.  Writes OUT/slab.json, OUT/slab.md and OUT/slab-*.png.
#
# "SLUB small" is SLUB as small as 6.1 lets it be, upstream's answer for
# small systems before 6.2's SLUB_TINY: no per-CPU partial lists
# (SLUB_CPU_PARTIAL off: each CPU keeps one slab per cache, not a list),
# no debugging code (SLUB_DEBUG off, which needs EXPERT), and slabs of
# the smallest order their objects fit (slub_max_order=0 on the command
# line: one page, unless an object needs more).
set -uo pipefail
tree=$(cd "$1" && pwd) out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
arches=${BENCH_ARCHES:-"x86_64 arm"}
allocs=${BENCH_ALLOCS:-"slab slub small slob seg"}
rounds=${BENCH_ROUNDS:-7}
declare -A mem=([x86_64]=${BENCH_MEM_x86_64:-48} [arm]=${BENCH_MEM_arm:-16})
declare -A image=([x86_64]=arch/x86/boot/bzImage [arm]=arch/arm/boot/zImage)
declare -A bb=([x86_64]=/bin/busybox
	       [arm]=$(dirname "$tree")/dl/busybox-armhf/bin/busybox)
declare -A cross=([x86_64]= [arm]=arm-linux-gnueabihf-)

frag() {
	case $1 in
	slab) printf 'CONFIG_SLAB=y\n' ;;
	slub) printf 'CONFIG_SLUB=y\n' ;;
	small) printf 'CONFIG_SLUB=y\nCONFIG_EXPERT=y\n# CONFIG_SLUB_DEBUG is not set\n# CONFIG_SLUB_CPU_PARTIAL is not set\n' ;;
	slob) printf 'CONFIG_SLOB=y\n# CONFIG_SLOB_SEG is not set\n' ;;
	seg) printf 'CONFIG_SLOB=y\nCONFIG_SLOB_SEG=y\n' ;;
	esac
	printf 'CONFIG_SLAB_BENCH=y\n'
}

declare -A append=([small]="slub_max_order=0")

for arch in $arches; do
	arch_allocs=BENCH_ALLOCS_$arch
	built=()
	# an allocator this run does not boot shows "-", never old figures
	for a in slab slub small slob seg; do
		rm -rf "${out:?}/$arch-$a" "$out/$arch-$a.size"
	done
	for a in ${!arch_allocs:-$allocs}; do
		obj=$tree/.obj-bench-$arch-$a
		mkdir -p "$obj"
		frag "$a" > "$out/$arch-$a.config"
		echo "== $arch $a: build"
		"$here/kbuild.sh" "$arch" "$tree" "$obj" \
			"$here/configs/$arch.config" "$out/$arch-$a.config" \
			> "$out/$arch-$a-build.log" 2>&1 ||
			{ tail -n 20 "$out/$arch-$a-build.log"; continue; }
		size "$obj/vmlinux" | tail -n 1 > "$out/$arch-$a.size"
		built+=("$a")
	done
	for ((r = 1; r <= rounds && ${#built[@]}; r++)); do
		# rotated by one each round, and reversed every other round,
		# so that no allocator always boots just before another
		k=$(( (r - 1) % ${#built[@]} ))
		order=("${built[@]:k}" "${built[@]:0:k}")
		if ((r % 2 == 0)); then
			for ((i = 0, j = ${#order[@]} - 1; i < j; i++, j--)); do
				x=${order[i]} order[i]=${order[j]} order[j]=$x
			done
		fi
		for a in "${order[@]}"; do
			obj=$tree/.obj-bench-$arch-$a
			echo "== $arch $a: boot $r of $rounds with ${mem[$arch]} MiB"
			"$here/qemu-run" --arch "$arch" \
				--kernel "$obj/${image[$arch]}" \
				--busybox "${bb[$arch]}" \
				--name "bench-slab-$arch-$a-$r" \
				--workdir "$out/$arch-$a/$r" --mem "${mem[$arch]}" \
				--smp 2 --append "${append[$a]:-}" \
				--payload "$here/bench/slab-guest.sh:slab-guest.sh" \
				--timeout 600 --run ./slab-guest.sh |
				grep -E '^(PASS|FAIL)' | sed 's/^/   /'
		done
	done
	if [ -f "$tree/.obj-bench-$arch-slob/vmlinux" ] &&
	   [ -f "$tree/.obj-bench-$arch-seg/vmlinux" ]; then
		# bloat-o-meter of 6.1 stops at a symbol without a name, which
		# the ARM vmlinux has: its nm leaves those out.
		nmdir=$out/.nm-$arch
		mkdir -p "$nmdir"
		cat > "$nmdir/nm" <<-EOF
		#!/bin/sh
		${cross[$arch]}nm "\$@" | awk 'NF == 3'
		EOF
		chmod +x "$nmdir/nm"
		"$tree/scripts/bloat-o-meter" -p "$nmdir/" \
			"$tree/.obj-bench-$arch-slob/vmlinux" \
			"$tree/.obj-bench-$arch-seg/vmlinux" \
			> "$out/$arch-bloat-o-meter.txt" 2>&1
	fi
done

# The report covers every architecture and allocator: a pair this run
# skipped shows "-".
rm -f "$out"/slab*.png
python3 "$here/bench/slab-report.py" "$out" "x86_64 arm" \
	"slab slub small slob seg" ||
	exit 1
for what in memory churn ops; do
	[ -f "$out/slab-$what.gp" ] && gnuplot "$out/slab-$what.gp"
done
ls "$out"/slab*.png
