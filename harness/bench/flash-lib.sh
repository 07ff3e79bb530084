# SPDX-License-Identifier: GPL-2.0
#
# flash-lib.sh: what the flash benchmarks' guests share (sourced by
# flash-guest.sh and aging-guest.sh, from /payload).  flash_setup loads
# mtdcount.ko over the nandsim of this boot; then, for each file system:
#
#   fs_format FS, fs_mount FS (sets mount_ms), fs_umount FS
#   remounts FS REPEATS [HOOK]   REPEATS clean mounts, each measured:
#                  <fs>_mount_ms_<n>, _ram_kB_<n>, _slab_kB_<n> and
#                  _attach_ms_<n> (UBIFS) or _kmount_ms_<n>, _own_kB_<n>
#                  (SFFS); HOOK FS runs while the last one is mounted
#   unclean FS     mount, power cut with journal contents not yet
#                  committed, mount again: <fs>_unclean_ms
#
# FS is sffs, sffs-zstd (mounted with compr=zstd), ubifs, ubifs-fm (UBI
# with fastmap), jffs2 or jffs2-sum (the same, named for a kernel built
# with CONFIG_JFFS2_SUMMARY).  Figures are "# METRIC <name> <value> <unit>"
# lines:
#   mount_ms_<n>   clean mount: the mount(2) call (for UBIFS, UBI attach
#                  ioctl plus mount(2))
#   attach_ms_<n>  UBI attach alone
#   kmount_ms_<n>  SFFS mount as the kernel timed it (debugfs)
#   ram_kB_<n>     kernel memory (MemTotal - MemFree - Buffers - Cached)
#                  after mount and ls -lR, minus the same before the mount
#   slab_kB_<n>    the same for Slab + VmallocUsed
#   own_kB_<n>     SFFS: index nodes and buffers it holds (debugfs)
#   unclean_ms     mount after the power cut (UBIFS: attach + mount)
flashctl=./flash/flashctl
mkfs=./sffs/mkfs.sffs
mnt=/mnt/bench
mc=/sys/module/mtdcount/parameters
dbg=/sys/kernel/debug
n=0

now() { "$flashctl" now; }
ms() { awk "BEGIN { printf \"%.1f\", ($2 - $1) / 1e6 }"; }
metric() { echo "# METRIC $1 $2 ${3:-}"; }
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

# Load mtdcount.ko over the nandsim and make the device nodes: sets mtd,
# the number of the counting device every file system is put on.
flash_setup() {
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
}

# /tmp/blob, 1 MiB: KIND "random" is incompressible, "text" every 4 KiB
# half noise, half zeros, so compressible to about half.  The power cut
# writes it, and checks it after the mount.
make_blob() {
	if [ "$1" = text ]; then
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

# Leave journal contents uncommitted on the flash and cut the power: for
# SFFS, mtdcount drops every program and erase from now on, below the file
# system; UBI drops every later write at the next erase counter or volume
# header it writes, the first of which comes with the commit at unmount.
# JFFS2 keeps no clean state: every mount scans.  The power is back for
# the next mount.
power_cut() {
	mkdir -p $mnt/cut && cp /tmp/blob $mnt/cut/a && cp /tmp/blob $mnt/cut/b &&
		sync || return 1
	case $1 in
	sffs*) echo 0 >$mc/cut_after ;;
	ubifs*) d=$dbg/ubi/ubi$ubi
		echo 1 >$d/tst_emulate_power_cut_min
		echo 1 >$d/tst_emulate_power_cut_max
		echo 3 >$d/tst_emulate_power_cut ;;
	esac
	umount $mnt 2>/dev/null
	case $1 in
	ubifs*) "$flashctl" ubidetach "$ubi" >/dev/null ;;
	esac
	echo -1 >$mc/cut_after
	return 0
}

# remounts FS REPEATS [HOOK]: the file system unmounted, mount it REPEATS
# times from dropped caches, each time listing the tree and measuring the
# mount and the memory it holds; HOOK FS runs in the last mount.
remounts() {
	r=1
	while [ $r -le "$2" ]; do
		set -- "$1" "$2" "${3:-}" $(settled_kb)
		k0=$4 s0=$5
		echo "# $1: baseline settled after $6 half-seconds"
		fs_mount $1 || return 1
		ls -lR $mnt >/dev/null || { fs_umount $1; return 1; }
		set -- "$1" "$2" "${3:-}" $(kb)
		metric "${1}_mount_ms_$r" "$mount_ms" ms
		metric "${1}_ram_kB_$r" "$(($4 - k0))" kB
		metric "${1}_slab_kB_$r" "$(($5 - s0))" kB
		case $1 in
		ubifs*) metric "${1}_attach_ms_$r" "$attach_ms" ms ;;
		sffs*) k=$(sed -n 's/^mount_us //p' $dbg/sffs/mtd$mtd/stats)
		      metric "${1}_kmount_ms_$r" \
			"$(awk "BEGIN { printf \"%.2f\", $k / 1000 }")" ms
		      # what SFFS itself holds: index nodes and buffers
		      metric "${1}_own_kB_$r" "$(awk '/^(znode|buffer)_bytes / {
			b += $2 } END { print int(b / 1024) }' \
			$dbg/sffs/mtd$mtd/stats)" kB
		      [ $r = 1 ] && sed "s/^/# $1: /" $dbg/sffs/mtd$mtd/stats ;;
		esac
		if [ $r = "$2" ] && [ -n "${3:-}" ]; then
			$3 $1 || { fs_umount $1; return 1; }
		fi
		fs_umount $1 || return 1
		r=$((r + 1))
	done
}

# unclean FS: the file system unmounted, mount it, cut the power with
# journal contents not yet committed, and time the mount that follows;
# the file written before the cut must read back whole.
unclean() {
	fs_mount $1 && power_cut $1 || return 1
	drop
	fs_mount $1 || return 1
	metric "${1}_unclean_ms" "$mount_ms" ms
	if [ "$(cmp /tmp/blob $mnt/cut/a 2>&1)" != "" ]; then
		fs_umount $1
		return 1
	fi
	[ "${1%-zstd}" != sffs ] ||
		sed -n "s/^replayed_nodes/# $1: unclean: &/p" \
			$dbg/sffs/mtd$mtd/stats
	fs_umount $1
}

# After a failure: leave nothing mounted or attached for the next one.
fs_cleanup() {
	mountpoint -q $mnt 2>/dev/null && umount $mnt
	[ -e /sys/class/ubi/ubi0 ] && "$flashctl" ubidetach 0 >/dev/null 2>&1
}
