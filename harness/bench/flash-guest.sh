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
# FS is sffs, sffs-zstd (mounted with compr=zstd, the compressor UBIFS
# picks by default when it is built in), ubifs, ubifs-fm (UBI with
# fastmap), jffs2 or jffs2-sum (the
# same, named for a kernel built with CONFIG_JFFS2_SUMMARY).  Each figure is a
# "# METRIC <fs>_<what> <value> <unit>" line; repeated ones end in _<n>:
#   write_s        cp of the files plus sync
#   wa_prog, wa_erase, wa   bytes programmed, erased and both on the flash
#                  per byte written by the user, fill and unmount included
#   mount_ms_<n>   clean mount: the mount(2) call (for UBIFS, UBI attach
#                  ioctl plus mount(2))
#   attach_ms_<n>  UBI attach alone
#   kmount_ms_<n>  SFFS mount as the kernel timed it (debugfs)
#   ram_kB_<n>     kernel memory (MemTotal - MemFree - Buffers - Cached)
#                  after mount and ls -lR, minus the same before the mount
#   slab_kB_<n>    the same for Slab + VmallocUsed
#   own_kB_<n>     SFFS: index nodes and buffers it holds (debugfs)
#   unclean_ms     mount after the power cut (UBIFS: attach + mount)
#   read_MBps, fsync_iops, files_per_s, du_ms, lsR_ms
set -u
data_mb=$1
kind=$2
repeats=$3
extras=$4
fss=$5
flashctl=./flash/flashctl
mkfs=./sffs/mkfs.sffs
mnt=/mnt/bench
mc=/sys/module/mtdcount/parameters
dbg=/sys/kernel/debug
n=0

now() { "$flashctl" now; }
ms() { awk "BEGIN { printf \"%.1f\", ($2 - $1) / 1e6 }"; }
metric() { echo "# METRIC $1 $2 $3"; }
kb() {
	awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 }
	     /^Buffers:/ { b = $2 } /^Cached:/ { c = $2 }
	     /^Slab:/ { s = $2 } /^VmallocUsed:/ { v = $2 }
	     END { print t - f - b - c, s + v }' /proc/meminfo
}
drop() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}
# The baseline for the RAM figures.  Part of what a file system frees at
# unmount goes back after umount(2) has returned: inodes through RCU
# callbacks, work items.  Read right away, the baseline may still hold
# what the previous mount held (about 0.8 MB with 768 files here), and
# the next delta comes out that much too low, or not, as the race goes.
# So read it only once two readings half a second apart agree to 64 kB
# (at most 20 readings).  Prints the two figures of kb() and the number
# of waits.
settled_kb() {
	drop
	set -- $(kb)
	w=0
	while [ $w -lt 20 ]; do
		sleep 0.5 2>/dev/null || sleep 1
		w=$((w + 1))
		drop
		set -- $(kb) "$1" "$2"
		d=$(($2 - $4))
		[ ${d#-} -gt 64 ] || break
		set -- "$1" "$2"
	done
	echo "$1 $2 $w"
}
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}
counted() { echo $(($(cat $mc/programmed_bytes) + 0)) $(($(cat $mc/erased_bytes) + 0)); }

base=$("$flashctl" find "NAND simulator" 2>/dev/null ||
       "$flashctl" find "NAND simulator partition 0")
[ -n "$base" ] || { echo "Bail out! no nandsim"; exit 1; }
insmod ./mtdcount.ko mtd="$base" || { echo "Bail out! mtdcount"; exit 1; }
mtd=$("$flashctl" find mtdcount)
[ -c /dev/mtd$mtd ] || mknod /dev/mtd$mtd c 90 $((mtd * 2))
mkdir -p $mnt $dbg
grep -q debugfs /proc/mounts || mount -t debugfs none $dbg
[ -e /dev/ubi_ctrl ] || mknod /dev/ubi_ctrl c 10 \
	"$(cut -d: -f2 /sys/class/misc/ubi_ctrl/dev)"

# One 1 MiB file of the kind asked for, copied DATA_MB times.
if [ "$kind" = text ]; then
	i=0
	: >/tmp/blob
	while [ $i -lt 256 ]; do
		dd if=/dev/urandom bs=2048 count=1 2>/dev/null >>/tmp/blob
		dd if=/dev/zero bs=2048 count=1 2>/dev/null >>/tmp/blob
		i=$((i + 1))
	done
else
	dd if=/dev/urandom of=/tmp/blob bs=1M count=1 2>/dev/null
fi
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

ubi_attach() {
	fm=N
	[ "$1" = ubifs-fm ] && fm=Y
	echo $fm >/sys/module/ubi/parameters/fm_autoconvert
	out=$("$flashctl" ubiattach "$mtd") || return 1
	ubi=${out%% *}
	ubi=${ubi#ubi=}
	attach_ms=${out##*attach_ms=}
	major=$(cut -d: -f1 /sys/class/ubi/ubi$ubi/dev)
	[ -c /dev/ubi$ubi ] || mknod /dev/ubi$ubi c "$major" 0
	[ -c /dev/ubi${ubi}_0 ] || mknod /dev/ubi${ubi}_0 c "$major" 1
}

# Wait until the flash has seen no erase for a second.  After a format,
# JFFS2 (on blocks erased without clean markers, as after flash_erase
# without -j) and UBI (on blocks without erase counter headers) erase every
# block again in the background; the fill must be counted alone.
settle() {
	e=-1
	while [ "$e" != "$(cat $mc/erases)" ]; do
		e=$(cat $mc/erases)
		sleep 1
	done
}

jffs2_settle() {
	"$flashctl" mount jffs2 mtd$mtd $mnt >/dev/null || return 1
	settle
	umount $mnt
}

# fs_format FS, fs_mount FS (sets mount_ms), fs_umount FS
fs_format() {
	case $1 in
	sffs*) $mkfs -q /dev/mtd$mtd ;;
	jffs2*) "$flashctl" erase /dev/mtd$mtd >/dev/null &&
		jffs2_settle ;;
	ubifs*) "$flashctl" erase /dev/mtd$mtd >/dev/null && ubi_attach "$1" &&
		settle && "$flashctl" ubimkvol /dev/ubi$ubi test >/dev/null &&
		"$flashctl" ubidetach "$ubi" >/dev/null ;;
	esac
}
fs_mount() {
	attach_ms=0
	case $1 in
	sffs) out=$("$flashctl" mount sffs mtd$mtd $mnt) ;;
	sffs-zstd) out=$("$flashctl" mount sffs mtd$mtd $mnt compr=zstd) ;;
	jffs2*) out=$("$flashctl" mount jffs2 mtd$mtd $mnt) ;;
	ubifs*) ubi_attach "$1" &&
		out=$("$flashctl" mount ubifs ubi$ubi:test $mnt) ;;
	esac || return 1
	mount_ms=$(awk "BEGIN { printf \"%.1f\", ${out#mount_ms=} + $attach_ms }")
}
fs_umount() {
	umount $mnt || return 1
	case $1 in
	ubifs*) "$flashctl" ubidetach "$ubi" >/dev/null ;;
	esac
}

# Leave journal contents uncommitted on the flash and cut the power: SFFS
# and UBI drop every later write (SFFS from now on; UBI at the next erase
# counter or volume header it writes, the first of which comes with the
# commit at unmount).  JFFS2 keeps no clean state: every mount scans.
power_cut() {
	mkdir -p $mnt/cut && cp /tmp/blob $mnt/cut/a && cp /tmp/blob $mnt/cut/b &&
		sync || return 1
	case $1 in
	sffs*) echo 0 >$dbg/sffs/mtd$mtd/power_cut ;;
	ubifs*) d=$dbg/ubi/ubi$ubi
		echo 1 >$d/tst_emulate_power_cut_min
		echo 1 >$d/tst_emulate_power_cut_max
		echo 3 >$d/tst_emulate_power_cut ;;
	esac
	umount $mnt 2>/dev/null
	case $1 in
	ubifs*) "$flashctl" ubidetach "$ubi" >/dev/null ;;
	esac
	return 0
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
	r=1
	while [ $rc = 0 ] && [ $r -le "$repeats" ]; do
		set -- $(settled_kb)
		k0=$1 s0=$2
		echo "# $fs: baseline settled after $3 half-seconds"
		fs_mount $fs || { rc=1; break; }
		ls -lR $mnt >/dev/null || rc=1
		set -- $(kb)
		metric "${fs}_mount_ms_$r" "$mount_ms" ms
		metric "${fs}_ram_kB_$r" "$(($1 - k0))" kB
		metric "${fs}_slab_kB_$r" "$(($2 - s0))" kB
		case $fs in
		ubifs*) metric "${fs}_attach_ms_$r" "$attach_ms" ms ;;
		sffs*) k=$(sed -n 's/^mount_us //p' $dbg/sffs/mtd$mtd/stats)
		      metric "${fs}_kmount_ms_$r" \
			"$(awk "BEGIN { printf \"%.2f\", $k / 1000 }")" ms
		      # what SFFS itself holds: index nodes and buffers
		      metric "${fs}_own_kB_$r" "$(awk '/^(znode|buffer)_bytes / {
			b += $2 } END { print int(b / 1024) }' \
			$dbg/sffs/mtd$mtd/stats)" kB
		      [ $r = 1 ] && sed "s/^/# $fs: /" $dbg/sffs/mtd$mtd/stats ;;
		esac
		if [ $r = "$repeats" ] && [ "$extras" = 1 ]; then
			extras $fs || rc=1
		fi
		fs_umount $fs || rc=1
		r=$((r + 1))
	done
	if [ $rc = 0 ]; then
		fs_mount $fs && power_cut $fs || rc=1
	fi
	if [ $rc = 0 ]; then
		drop
		fs_mount $fs || rc=1
	fi
	if [ $rc = 0 ]; then
		metric "${fs}_unclean_ms" "$mount_ms" ms
		[ "$(cmp /tmp/blob $mnt/cut/a 2>&1)" = "" ] || rc=1
		[ "${fs%-zstd}" != sffs ] ||
			sed -n "s/^replayed_nodes/# $fs: unclean: &/p" \
				$dbg/sffs/mtd$mtd/stats
		fs_umount $fs || rc=1
	fi
	mountpoint -q $mnt 2>/dev/null && umount $mnt
	[ -e /sys/class/ubi/ubi0 ] && "$flashctl" ubidetach 0 >/dev/null 2>&1
	result $rc "$fs: $data_mb MiB $kind, $repeats remounts, power cut"
done
echo "1..$n"
