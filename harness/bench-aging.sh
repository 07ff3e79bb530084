#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-aging.sh TREE OBJ KSFT OUT
#
# SFFS, UBIFS and JFFS2 aged as a device's years of use would age them, in
# one run on this machine: the kernel, the nandsim (2 KiB pages, 128 KiB
# erase blocks) and the mtdcount pass-through of make bench-flash (OBJ is
# its kernel, KSFT its kselftests), one x86_64 guest per flash size, file
# system and run.  In the guest (harness/bench/aging-guest.sh) each file
# system is filled to 90% with files of mixed sizes, then rewritten by
# fsync'd overwrites inside files and whole-file replacements until the
# user has written the device BENCH_AGING_TIMES times over; throughput,
# fsync latency and write amplification are recorded for each twentieth
# of that steady state, then the erase counts' spread, and the clean
# mount, the mount after a power cut and the RAM after mount of the aged
# file system.  The runs are interleaved (run 1 of every case, then run
# 2, ...); run N ages every file system with the same workload, seed N.
#
# Writes OUT/aging.json (every raw figure), OUT/aging.md (medians with
# their spread) and OUT/aging-*.png.  The default matrix takes about 7
# hours of guests on a 2-core host without 16 GiB (2.4 hours a run: at
# 256 MiB SFFS and UBIFS wrote about 9 MiB/s in the steady state, JFFS2
# about 3 MiB/s), and about a day with it.
#
# Knobs (environment):
#   BENCH_AGING_SIZES  nandsim sizes in MiB      (1024 4096 16384; a size
#                whose guest does not fit in the host's free memory is
#                skipped with a message, as bench-flash does: 16 GiB needs
#                about 22 GiB free)
#   BENCH_AGING_TIMES  device writes of the steady state   (5)
#   BENCH_AGING_FILL   fill, % of the free space (90)
#   BENCH_AGING_FS     file systems              (sffs ubifs jffs2; JFFS2
#                cannot mount 4 GiB and more and is left out there)
#   BENCH_RUNS   guests per case                 (3)
#   BENCH_REPEATS  clean mounts per guest        (3)
#   BENCH_APPEND   more kernel parameters for every guest (A/B runs)
#   BENCH_RESUME=1  keep every guest of an earlier run into the same OUT
#                that passed with the same kernel, module, helpers and
#                parameters, as bench-flash.sh does
set -uo pipefail
tree=$(cd "$1" && pwd) obj=$(cd "$2" && pwd) ksft=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
build=$(dirname "$tree")
mkdir -p "$out"
out=$(cd "$out" && pwd)
sizes=${BENCH_AGING_SIZES:-"1024 4096 16384"}
times=${BENCH_AGING_TIMES:-5}
pct=${BENCH_AGING_FILL:-90}
allfs=${BENCH_AGING_FS:-"sffs ubifs jffs2"}
runs=${BENCH_RUNS:-3}
repeats=${BENCH_REPEATS:-3}
image=arch/x86/boot/bzImage
. "$here/bench/flash-host.sh"

build_mtdcount "$tree" "$obj" x86_64 || exit 1
mkdir -p "$build/aging-x86_64"
gcc -O2 -Wall -static -o "$build/aging-x86_64/aging" "$here/bench/aging.c" \
	-lm || exit 1

# guest NAME SIZE_MB FS RUN
guest() {
	echo "== run $4, nandsim $2 MiB, $3 ($(($(date +%s) - start)) s)"
	# guest memory: nandsim ends up holding every page of the device (a
	# slab object of page and OOB each: 1/8 more), and a sixteenth of
	# the size covers UBI's headers and the page tables
	local mem=$((768 + $2 / 16 + $2 * 9 / 8)) wd=$out/aging/$1 inputs
	inputs=$(guest_inputs "$obj/$image" "$obj/mtdcount/mtdcount.ko" \
		"$here/bench/aging-guest.sh" "$here/bench/flash-lib.sh" \
		"$build/aging-x86_64/aging" "$ksft"/flash/* "$ksft"/sffs/* \
		/bin/busybox -- "$*" "$times $pct $repeats" \
		${BENCH_APPEND:+"$BENCH_APPEND"})
	guest_kept "$wd" "$inputs" && return 0
	guest_fits "$wd" "$mem" || return 0
	# a hard bound only: about a minute per 10 MiB of user writes
	"$here/qemu-run" --arch x86_64 --kernel "$obj/$image" \
		--busybox /bin/busybox --name "bench-aging-$1" \
		--workdir "$wd" --payload "$ksft" \
		--payload "$here/bench/aging-guest.sh:aging-guest.sh" \
		--payload "$here/bench/flash-lib.sh:flash-lib.sh" \
		--payload "$build/aging-x86_64/aging:aging" \
		--payload "$obj/mtdcount/mtdcount.ko:mtdcount.ko" \
		--append "$(flash_nandsim "$2") ${BENCH_APPEND:-}" --mem $mem \
		--timeout $((1200 + $2 * (times + 1) * 6)) \
		--run "./aging-guest.sh $2 $times $pct $4 $repeats $3" |
		grep -E '^(PASS|FAIL)' | sed 's/^/   /'
	echo "$inputs" > "$wd/inputs"
}

start=$(date +%s)
for run in $(seq 1 "$runs"); do
	for mb in $sizes; do
		for fs in $allfs; do
			# JFFS2 keeps the flash size in 32 bits
			# (jffs2_sb_info.flash_size): 4 and 16 GiB wrap to
			# zero, and it refuses the mount
			case $fs in
			jffs2*) [ "$mb" -lt 4096 ] || continue ;;
			esac
			guest "$mb-$fs-r$run" "$mb" "$fs" "$run"
		done
	done
done
echo "== guests done in $(($(date +%s) - start)) s"

python3 "$here/bench/aging-report.py" "$out" "$runs" "$repeats" \
	"$(make -s -C "$tree" O="$obj" kernelrelease)" "$sizes" "$times" \
	"$pct" "$allfs" || exit 1
for p in "$out"/aging-*.gp; do
	gnuplot "$p" || exit 1
done
ls "$out"/aging*.png
