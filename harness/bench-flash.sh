#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-flash.sh TREE OBJ OBJ_SUM KSFT OUT
#
# SFFS against UBIFS (with and without UBI fastmap) and JFFS2 (with and
# without erase block summaries), in one run on this machine: one x86_64
# guest per flash size, fill and run, on a nandsim with 2 KiB pages and
# 128 KiB erase blocks, every file system on the same mtdcount pass-through
# so that programs and erases are counted the same way (harness/bench/
# flash-guest.sh says what is measured).  OBJ is the bench kernel, OBJ_SUM
# the same with CONFIG_JFFS2_SUMMARY; mtdcount.ko is built for each.
#
# Writes OUT/flash.json (every raw figure), OUT/flash.md (medians with
# their spread) and OUT/flash-*.png.
#
# Knobs (environment):
#   BENCH_SIZES  nandsim sizes in MiB            (256 1024 4096)
#   BENCH_FILLS  fill:kind[:extras] cases        (25:random:x 75:random 25:text)
#   BENCH_RUNS   guests per case                 (3)
#   BENCH_REPEATS  remounts per guest            (3)
#   BENCH_FS     file systems                    (sffs ubifs ubifs-fm jffs2 jffs2-sum)
#   BENCH_JFFS2_4G=1  run JFFS2 at 4 GiB and above too (mainline measured it
#                unable to mount 4 GiB; filling it takes most of an hour)
set -uo pipefail
tree=$1 obj=$2 objsum=$3 ksft=$4 out=$5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
sizes=${BENCH_SIZES:-"256 1024 4096"}
fills=${BENCH_FILLS:-"25:random:x 75:random 25:text"}
runs=${BENCH_RUNS:-3}
repeats=${BENCH_REPEATS:-3}
allfs=${BENCH_FS:-"sffs ubifs ubifs-fm jffs2 jffs2-sum"}
declare -A idb=([256]=0xda [512]=0xdc [1024]=0xd3 [2048]=0xd5 [4096]=0xd7
		[8192]=0xdc [16384]=0xde)

for o in "$obj" "$objsum"; do
	mkdir -p "$o/mtdcount"
	cp "$here/bench/mtdcount/Kbuild" "$here/bench/mtdcount/mtdcount.c" \
		"$o/mtdcount/"
	make -s -C "$tree" O="$o" M="$o/mtdcount" CC="ccache gcc" modules ||
		exit 1
done

start=$(date +%s)
for run in $(seq 1 "$runs"); do
	for mb in $sizes; do
		for f in $fills; do
			IFS=: read -r pct kind extra <<<"$f"
			data=$((mb * pct / 100))
			fss=
			for fs in $allfs; do
				case $fs in
				jffs2*) [ "$mb" -lt 4096 ] ||
					[ "${BENCH_JFFS2_4G:-0}" = 1 ] || continue ;;
				esac
				fss="$fss $fs"
			done
			main=$(echo $fss | tr ' ' '\n' | grep -v -- -sum | xargs)
			sum=$(echo $fss | tr ' ' '\n' | grep -- -sum | xargs)
			for k in main sum; do
				list=${!k}
				[ -n "$list" ] || continue
				o=$obj
				[ $k = main ] || o=$objsum
				name=$mb-$pct-$kind-$k-r$run
				echo "== run $run, nandsim $mb MiB, $data MiB $kind:" \
					"$list ($(($(date +%s) - start)) s)"
				# guest memory: nandsim holds the data, the page
				# cache a copy of what was last written
				"$here/qemu-run" --arch x86_64 \
					--kernel "$o/arch/x86/boot/bzImage" \
					--busybox /bin/busybox --name "bench-flash-$name" \
					--workdir "$out/flash/$name" --payload "$ksft" \
					--payload "$here/bench/flash-guest.sh:flash-guest.sh" \
					--payload "$o/mtdcount/mtdcount.ko:mtdcount.ko" \
					--append "nandsim.id_bytes=0xec,${idb[$mb]},0x51,0x95" \
					--mem $((768 + mb + 2 * data)) \
					--timeout $((900 + data * 6)) \
					--run "./flash-guest.sh $data $kind $repeats ${extra:+1}${extra:-0} '$list'" |
					grep -E '^(PASS|FAIL)' | sed 's/^/   /'
			done
		done
	done
done
echo "== guests done in $(($(date +%s) - start)) s"

python3 "$here/bench/flash-report.py" "$out" "$runs" "$repeats" \
	"$(make -s -C "$tree" O="$obj" kernelrelease)" "$sizes" "$fills" \
	"$allfs" || exit 1
for p in "$out"/flash-*.gp; do
	gnuplot "$p" || exit 1
done
ls "$out"/flash*.png
