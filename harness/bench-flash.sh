#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-flash.sh TREE OBJ OBJ_SUM KSFT OUT [ARM_OBJ ARM_KSFT ARM_BUSYBOX]
#
# SFFS against UBIFS (with and without UBI fastmap) and JFFS2 (with and
# without erase block summaries), in one run on this machine: one x86_64
# guest per flash size, fill and run, on a nandsim with 2 KiB pages and
# 128 KiB erase blocks, every file system on the same mtdcount pass-through
# so that programs and erases are counted the same way (harness/bench/
# flash-guest.sh says what is measured).  OBJ is the bench kernel, OBJ_SUM
# the same with CONFIG_JFFS2_SUMMARY; mtdcount.ko is built for each.  With
# the ARM arguments, a reduced set runs on ARM too (-M virt, 2 vCPUs): the
# first fill case at BENCH_ARM_SIZES, without JFFS2 summaries.
#
# Writes OUT/flash.json (every raw figure), OUT/flash.md (medians with
# their spread) and OUT/flash-*.png.
#
# Knobs (environment):
#   BENCH_SIZES  nandsim sizes in MiB            (256 1024 4096 16384; a
#                size whose guest does not fit in the host's free memory
#                is skipped with a message)
#   BENCH_FILLS  fill:kind[:extras] cases        (25:random:x 75:random
#                                                 25:text 75:text)
#   BENCH_RUNS   guests per case                 (3)
#   BENCH_REPEATS  remounts per guest            (3)
#   BENCH_FS     file systems                    (sffs sffs-zstd ubifs ubifs-fm
#                                                 jffs2 jffs2-sum; sffs-zstd
#                runs in the compressible fills only: SFFS stops trying to
#                compress a file whose blocks do not compress)
#   BENCH_ARM_SIZES  ARM nandsim sizes           (256 1024)
#   BENCH_RESUME=1  keep every guest of an earlier run into the same OUT
#                that passed with the same kernel, modules, guest script
#                and parameters (OUT/flash/NAME/inputs holds their
#                checksums), and run only the others: the whole matrix
#                takes longer than one sitting, and can be completed in
#                several on the same machine.  flash.json records when
#                each guest ran.
set -uo pipefail
tree=$1 obj=$2 objsum=$3 ksft=$4 out=$5
aobj=${6:-} aksft=${7:-} abusybox=${8:-}
# make -C changes directory: the build directories must be absolute
obj=$(cd "$obj" && pwd) objsum=$(cd "$objsum" && pwd)
[ -z "$aobj" ] || aobj=$(cd "$aobj" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
sizes=${BENCH_SIZES:-"256 1024 4096 16384"}
fills=${BENCH_FILLS:-"25:random:x 75:random 25:text 75:text"}
runs=${BENCH_RUNS:-3}
repeats=${BENCH_REPEATS:-3}
allfs=${BENCH_FS:-"sffs sffs-zstd ubifs ubifs-fm jffs2 jffs2-sum"}
. "$here/bench/flash-host.sh"

asizes=
[ -z "$aobj" ] || asizes=${BENCH_ARM_SIZES:-"256 1024"}
build_mtdcount "$tree" "$obj" x86_64 || exit 1
build_mtdcount "$tree" "$objsum" x86_64 || exit 1
[ -z "$aobj" ] || build_mtdcount "$tree" "$aobj" arm || exit 1

# guest ARCH NAME KERNEL_OBJ KSFT BUSYBOX SIZE_MB DATA_MB KIND EXTRAS FSS
guest() {
	local image=arch/x86/boot/bzImage
	[ "$1" = x86_64 ] || image=arch/arm/boot/zImage
	echo "== run $run, $1, nandsim $6 MiB, $7 MiB $8: ${10}" \
		"($(($(date +%s) - start)) s)"
	# guest memory: nandsim holds the data (and UBI's headers, one page
	# per block: a sixteenth of the size covers them and its page table),
	# the page cache a copy of what was last written.  A guest that would
	# not fit in the host's free memory is not started.
	local mem=$((768 + $6 / 16 + 2 * $7)) wd=$out/flash/$2 inputs
	inputs=$(guest_inputs "$3/$image" "$3/mtdcount/mtdcount.ko" \
		"$here/bench/flash-guest.sh" "$here/bench/flash-lib.sh" \
		"$4"/flash/* "$4"/sffs/* "$5" -- "$1 $2 ${*:6}" "$repeats")
	guest_kept "$wd" "$inputs" && return 0
	guest_fits "$wd" "$mem" || return 0
	"$here/qemu-run" --arch "$1" --kernel "$3/$image" \
		--busybox "$5" --name "bench-flash-$2" \
		--workdir "$out/flash/$2" --payload "$4" \
		--payload "$here/bench/flash-guest.sh:flash-guest.sh" \
		--payload "$here/bench/flash-lib.sh:flash-lib.sh" \
		--payload "$3/mtdcount/mtdcount.ko:mtdcount.ko" \
		--append "$(flash_nandsim "$6")" \
		--mem $mem --timeout $((900 + $7 * 6)) \
		--run "./flash-guest.sh $7 $8 $repeats $9 '${10}'" |
		grep -E '^(PASS|FAIL)' | sed 's/^/   /'
	echo "$inputs" > "$wd/inputs"
}

start=$(date +%s)
for run in $(seq 1 "$runs"); do
	for mb in $sizes; do
		for f in $fills; do
			IFS=: read -r pct kind extra <<<"$f"
			data=$((mb * pct / 100))
			fss=
			for fs in $allfs; do
				case $fs in
				# JFFS2 keeps the flash size in 32 bits
				# (jffs2_sb_info.flash_size): 4 and 16 GiB
				# wrap to zero, and it refuses the mount
				jffs2*) [ "$mb" -lt 4096 ] || continue ;;
				sffs-zstd) [ "$kind" = text ] || continue ;;
				esac
				fss="$fss $fs"
			done
			main=$(echo $fss | tr ' ' '\n' | grep -v -- -sum | xargs)
			sum=$(echo $fss | tr ' ' '\n' | grep -- -sum | xargs)
			[ -z "$main" ] || guest x86_64 \
				"$mb-$pct-$kind-main-r$run" "$obj" "$ksft" \
				/bin/busybox "$mb" "$data" "$kind" \
				"$([ -n "$extra" ] && echo 1 || echo 0)" "$main"
			[ -z "$sum" ] || guest x86_64 \
				"$mb-$pct-$kind-sum-r$run" "$objsum" "$ksft" \
				/bin/busybox "$mb" "$data" "$kind" \
				"$([ -n "$extra" ] && echo 1 || echo 0)" "$sum"
		done
	done
	IFS=: read -r pct kind extra <<<"${fills%% *}"
	list=$(echo $allfs | tr ' ' '\n' | grep -v -- -sum |
	       grep -v "^sffs-zstd$([ "$kind" = text ] && echo .)$" | xargs)
	for mb in $asizes; do
		data=$((mb * pct / 100))
		guest arm "arm-$mb-$pct-$kind-main-r$run" "$aobj" "$aksft" \
			"$abusybox" "$mb" "$data" "$kind" \
			"$([ -n "$extra" ] && echo 1 || echo 0)" "$list"
	done
done
echo "== guests done in $(($(date +%s) - start)) s"

python3 "$here/bench/flash-report.py" "$out" "$runs" "$repeats" \
	"$(make -s -C "$tree" O="$obj" kernelrelease)" "$sizes" "$fills" \
	"$allfs" "$asizes" || exit 1
for p in "$out"/flash-*.gp; do
	gnuplot "$p" || exit 1
done
ls "$out"/flash*.png
