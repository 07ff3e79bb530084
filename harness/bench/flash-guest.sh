#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# flash-guest.sh DATA_MB KIND REPEATS EXTRAS "FS..."
#                                   (runs in the bench guest, from /payload)
#
# On the nandsim of this boot, seen through mtdcount.ko (which counts the
# bytes programmed and erased below the file system), for each file system:
# format, fill with DATA_MB MiB of 1 MiB files (KIND "random": incompressible;
# "text": every 4 KiB half noise, half zeros, so compressible to about half),
# unmount, and mount again REPEATS times, then cut the power with journal
# contents not yet committed and mount once more.  With EXTRAS=1 also: cold
# sequential read, random 4 KiB overwrites with fsync, 20,000 small files,
# du and ls -lR over them.
#
# FS is one of those flash-lib.sh knows.  Each figure is a
# "# METRIC <fs>_<what> <value> <unit>" line; repeated ones end in _<n>:
#   write_s        cp of the files plus sync
#   wa_prog, wa_erase, wa   bytes programmed, erased and both on the flash
#                  per byte written by the user, fill and unmount included
#   mount_ms_<n>, attach_ms_<n>, kmount_ms_<n>, ram_kB_<n>, slab_kB_<n>,
#   own_kB_<n>, unclean_ms   the mounts of flash-lib.sh's remounts and
#                  unclean
#   read_MBps, fsync_iops, files_per_s, du_ms, lsR_ms
set -u
data_mb=$1
kind=$2
repeats=$3
extras=$4
fss=$5
. ./flash-lib.sh

flash_setup
make_blob "$kind"
echo "# mtd$mtd over mtd$base: $(($(cat /sys/class/mtd/mtd$mtd/size) >> 20))" \
	"MiB, $data_mb MiB of $kind data"

write_files() {
	i=0
	t0=$(now)
	while [ $i -lt "$data_mb" ]; do
		d=$mnt/d$((i / 64))
		[ -d $d ] || mkdir $d || return 1
		cp /tmp/blob $d/f$i || return 1
		i=$((i + 1))
	done
	sync || return 1
	t1=$(now)
	metric "$1_write_s" "$(awk "BEGIN { printf \"%.2f\", ($t1 - $t0) / 1e9 }")" s
}

extras() {
	fs=$1
	drop
	t0=$(now)
	cat $mnt/d*/f* >/dev/null || return 1
	t1=$(now)
	metric "${fs}_read_MBps" \
		"$(awk "BEGIN { printf \"%.2f\", $data_mb / (($t1 - $t0) / 1e9) }")" MB/s
	out=$("$flashctl" randwrite $mnt/rw 16 300) || return 1
	metric "${fs}_fsync_iops" "${out##*iops=}" op/s
	rm $mnt/rw
	mkdir $mnt/small || return 1
	out=$("$flashctl" mkfiles $mnt/small 20000 512) || return 1
	metric "${fs}_files_per_s" "${out##*files_per_s=}" files/s
	fs_umount "$fs" && fs_mount "$fs" || return 1
	drop
	t0=$(now)
	du -s $mnt >/dev/null || return 1
	t1=$(now)
	metric "${fs}_du_ms" "$(ms "$t0" "$t1")" ms
	drop
	t0=$(now)
	ls -lR $mnt >/dev/null || return 1
	t1=$(now)
	metric "${fs}_lsR_ms" "$(ms "$t0" "$t1")" ms
	rm -rf $mnt/small
}

for fs in $fss; do
	rc=0
	set -- $(counted)
	p0=$1 e0=$2
	fs_format $fs && fs_mount $fs || rc=1
	if [ $rc = 0 ]; then
		set -- $(counted)
		p0=$1 e0=$2
		write_files $fs && fs_umount $fs || rc=1
	fi
	if [ $rc = 0 ]; then
		set -- $(counted)
		awk -v p=$(($1 - p0)) -v e=$(($2 - e0)) -v u=$((data_mb << 20)) \
			'BEGIN { printf "# METRIC %s_wa_prog %.3f\n# METRIC %s_wa_erase %.3f\n# METRIC %s_wa %.3f\n",
				 "'$fs'", p / u, "'$fs'", e / u, "'$fs'", (p + e) / u }'
	fi
	if [ $rc = 0 ]; then
		hook=
		[ "$extras" = 1 ] && hook=extras
		remounts $fs "$repeats" $hook || rc=1
	fi
	if [ $rc = 0 ]; then
		unclean $fs || rc=1
	fi
	fs_cleanup
	result $rc "$fs: $data_mb MiB $kind, $repeats remounts, power cut"
done
echo "1..$n"
