#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# flash-guest.sh DATA_MB "FS..."   (runs in the bench guest, from /payload)
#
# On the nandsim of this boot, for each file system: format, write DATA_MB
# MiB of incompressible 1 MiB files, unmount, drop caches, mount again and
# list the tree.  Prints "# METRIC <fs>_<what> <value> <unit>":
#   write_s      cp of the files plus sync
#   mount_ms     mount (for UBIFS: UBI attach plus mount) as seen by a shell
#   attach_ms    UBI attach alone
#   kmount_ms    SFFS mount as the kernel timed it (debugfs)
#   own_kB       SFFS: index nodes and buffers it holds (debugfs)
#   ram_kB       slab + vmalloc after mount and ls -lR, minus the same
#                before the mount (caches dropped first)
set -u
data_mb=$1
fss=$2
flashctl=./flash/flashctl
mkfs=./sffs/mkfs.sffs
mnt=/mnt/bench
n=0

now() { "$flashctl" now; }
ms() { echo "$((($2 - $1) / 1000000)).$((($2 - $1) / 100000 % 10))"; }
metric() { echo "# METRIC $1 $2 $3"; }
# Kernel memory a file system can hold: slab plus vmalloc.  Page cache is
# dropped before and not counted; nandsim allocates only when written to,
# so mounting and listing do not change its share.
used_kb() {
	awk '/^Slab:/ { s = $2 } /^VmallocUsed:/ { v = $2 }
	     END { print s + v }' /proc/meminfo
}
drop() {
	sync
	[ -w /proc/sys/vm/drop_caches ] && echo 3 >/proc/sys/vm/drop_caches
}
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

mtd=$("$flashctl" find "NAND simulator" 2>/dev/null ||
      "$flashctl" find "NAND simulator partition 0")
[ -n "$mtd" ] || { echo "Bail out! no nandsim"; exit 1; }
[ -c /dev/mtd$mtd ] || mknod /dev/mtd$mtd c 90 $((mtd * 2))
mkdir -p $mnt /sys/kernel/debug
grep -q debugfs /proc/mounts || mount -t debugfs none /sys/kernel/debug
[ -e /dev/ubi_ctrl ] || mknod /dev/ubi_ctrl c 10 \
	"$(cut -d: -f2 /sys/class/misc/ubi_ctrl/dev)"
dd if=/dev/urandom of=/tmp/blob bs=1M count=1 2>/dev/null
echo "# mtd$mtd: $(($(cat /sys/class/mtd/mtd$mtd/size) >> 20)) MiB," \
	"$data_mb MiB of data"

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
	metric "$1_write_s" "$(ms "$t0" "$t1" | awk '{ printf "%.2f", $1 / 1000 }')" s
}

ubi_attach() {
	out=$("$flashctl" ubiattach "$mtd") || return 1
	ubi=${out%% *}
	ubi=${ubi#ubi=}
	attach_ms=${out##*attach_ms=}
	[ -c /dev/ubi$ubi ] || mknod /dev/ubi$ubi c \
		"$(cut -d: -f1 /sys/class/ubi/ubi$ubi/dev)" 0
	[ -c /dev/ubi${ubi}_0 ] || mknod /dev/ubi${ubi}_0 c \
		"$(cut -d: -f1 /sys/class/ubi/ubi$ubi/dev)" 1
}

# fs_format FS, fs_mount FS, fs_umount FS
fs_format() {
	case $1 in
	sffs) $mkfs -q /dev/mtd$mtd ;;
	jffs2) "$flashctl" erase /dev/mtd$mtd >/dev/null ;;
	ubifs) "$flashctl" erase /dev/mtd$mtd >/dev/null && ubi_attach &&
	       "$flashctl" ubimkvol /dev/ubi$ubi test >/dev/null &&
	       "$flashctl" ubidetach "$ubi" >/dev/null ;;
	esac
}
fs_mount() {
	case $1 in
	sffs) mount -t sffs mtd$mtd $mnt ;;
	jffs2) mount -t jffs2 mtd$mtd $mnt ;;
	ubifs) ubi_attach && mount -t ubifs ubi$ubi:test $mnt ;;
	esac
}
fs_umount() {
	umount $mnt || return 1
	[ "$1" != ubifs ] || "$flashctl" ubidetach "$ubi" >/dev/null
}

for fs in $fss; do
	rc=0
	fs_format $fs && fs_mount $fs && write_files $fs && fs_umount $fs ||
		rc=1
	if [ $rc = 0 ]; then
		drop
		u0=$(used_kb)
		t0=$(now)
		fs_mount $fs || rc=1
		t1=$(now)
	fi
	if [ $rc = 0 ]; then
		ls -lR $mnt >/dev/null || rc=1
		u1=$(used_kb)
		metric "${fs}_mount_ms" "$(ms "$t0" "$t1")" ms
		metric "${fs}_ram_kB" "$((u1 - u0))" kB
		[ $fs != ubifs ] || metric ubifs_attach_ms "$attach_ms" ms
		if [ $fs = sffs ]; then
			k=$(sed -n 's/^mount_us //p' /sys/kernel/debug/sffs/mtd$mtd/stats)
			metric sffs_kmount_ms "$(awk "BEGIN { printf \"%.1f\", $k / 1000 }")" ms
			# what SFFS itself holds: cached index nodes and buffers
			metric sffs_own_kB "$(awk '/^(znode|buffer)_bytes / { b += $2 }
				END { print int(b / 1024) }' \
				/sys/kernel/debug/sffs/mtd$mtd/stats)" kB
			sed 's/^/# sffs: /' /sys/kernel/debug/sffs/mtd$mtd/stats
		fi
		fs_umount $fs || rc=1
	fi
	mountpoint -q $mnt 2>/dev/null && umount $mnt
	result $rc "$fs: write $data_mb MiB, remount, list"
done
echo "1..$n"
