#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# aging-guest.sh SIZE_MB TIMES PCT SEED REPEATS "FS..."
#                                   (runs in the bench guest, from /payload)
#
# On the nandsim of this boot, seen through mtdcount.ko, for each file
# system: format and mount, then age it with ./aging (harness/bench/
# aging.c): fill to PCT % of its free space with files of mixed sizes,
# then overwrite inside files and replace whole files, fsync'd, until the
# user has written TIMES x SIZE_MB MiB; SEED chooses the workload.  Then
# read how evenly the flash was erased, unmount, and measure the mounts
# of the aged file system as flash-lib.sh's remounts (REPEATS times) and
# unclean (after a power cut) do.
#
# FS is sffs, ubifs or jffs2 (or another that flash-lib.sh knows).  The
# figures are "# METRIC <fs>_<what> <value> <unit>" lines: those of
# ./aging and of flash-lib.sh, and
#   ec_min, ec_max, ec_sum, ec_sumsq, ec_blocks   erases of each erase
#                  block of the device, counted by mtdcount from the mount
#                  after the format to the end of the aging: the least, the
#                  most, their sum and sum of squares over the blocks, and
#                  the number of blocks (aging-report.py derives the mean
#                  and the standard deviation)
#   fs_ec_min, fs_ec_avg, fs_ec_max  the erase counts the file system
#                  keeps itself, over the blocks it manages, format
#                  included: SFFS from /sys/fs/sffs/mtdN/, UBI from
#                  debugfs detailed_erase_block_info (and max_ec in sysfs)
set -u
size_mb=$1
times=$2
pct=$3
seed=$4
repeats=$5
fss=$6
. ./flash-lib.sh

flash_setup
make_blob random
blocks=$(($(cat /sys/class/mtd/mtd$mtd/size) / $(cat /sys/class/mtd/mtd$mtd/erasesize)))
echo "# mtd$mtd over mtd$base: $size_mb MiB, $blocks erase blocks; aged" \
	"$times times over at $pct%, seed $seed"

# wear FS: how the erases spread over the blocks, the file system mounted
wear() {
	for w in min max sum sumsq; do
		metric "${1}_ec_$w" "$(cat $mc/erase_$w)"
	done
	metric "${1}_ec_blocks" "$blocks"
	case $1 in
	sffs*) s=/sys/fs/sffs/mtd$mtd
	       for w in min avg max; do
			metric "${1}_fs_ec_$w" "$(cat $s/erase_count_$w)"
	       done ;;
	ubifs*) metric "${1}_fs_ec_max" "$(cat /sys/class/ubi/ubi$ubi/max_ec)"
		awk -v fs=$1 'NR > 1 { n++; s += $2
			if (n == 1 || $2 < lo) lo = $2 }
			END { if (n) printf "# METRIC %s_fs_ec_min %d\n# METRIC %s_fs_ec_avg %.2f\n",
				fs, lo, fs, s / n }' \
			$dbg/ubi/ubi$ubi/detailed_erase_block_info ;;
	esac
}

for fs in $fss; do
	rc=0
	fs_format $fs && fs_mount $fs || rc=1
	if [ $rc = 0 ]; then
		echo 1 >$mc/erase_reset
		./aging $mnt $fs "$pct" $((size_mb * times)) "$seed" $mc || rc=1
		wear $fs
		echo "# $fs: $(df -k $mnt | tail -n 1)"
		# where the programmed bytes went: commits, index and table
		# bytes, collection (the remounts below reset these counters)
		case $fs in
		sffs*)
			sed "s/^/# $fs: aged: /" $dbg/sffs/mtd$mtd/stats
			awk -v fs=$fs '$1 ~ /^(commits|commits_journal_full|commits_gc|gc_ahead_runs|commit_index_bytes|commit_table_bytes|commit_table_exact|commit_table_many|commit_table_old|commit_table_all|ebt_hints_lost|gc_moved_bytes)$/ {
				printf "# METRIC %s_aged_%s %s\n", fs, $1, $2 }' \
				$dbg/sffs/mtd$mtd/stats
			;;
		esac
		fs_umount $fs || rc=1
	fi
	if [ $rc = 0 ]; then
		remounts $fs "$repeats" || rc=1
	fi
	if [ $rc = 0 ]; then
		unclean $fs || rc=1
	fi
	fs_cleanup
	result $rc "$fs: $size_mb MiB aged $times times over at $pct%, $repeats remounts, power cut"
done
echo "1..$n"
