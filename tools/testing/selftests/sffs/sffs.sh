#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# SFFS on a simulated NAND (nandsim) and on a NOR-like RAM device
# (mtdram): format with mkfs.sffs, mount, run the POSIX checks of
# sffs_ops, write a data set, remount, verify everything, check the
# on-flash index with dump.sffs and everything with fsck.sffs, also
# after each power cut; fill mtdram until ENOSPC and check the
# file system stays usable; damage mtdram in known ways with corrupt.sffs
# and check that fsck.sffs -y repairs each damage so that the kernel
# mounts what it wrote, every file's data still there; mount overlayfs
# with SFFS as its upper layer (when the kernel has overlayfs).  Mount
# and write times are reported as "# METRIC <name> <value> <unit>" TAP
# comments.
#
# The power cuts happen below SFFS, in mtdcount.ko, an MTD pass-through
# loaded over the NAND: SFFS is mounted on the pass-through, which tears
# the page program or block erase in progress at a chosen point and drops
# every later one (reporting success, as a system that died would not see
# them), and then mounted on the NAND itself, from what the flash holds.
# The module is built with the kernel (make -C KERNEL_BUILD M=DIR modules
# with harness/bench/mtdcount/ of the series' repository in DIR); without
# it the power-cut tests are skipped.
#
# Environment:
#   SFFS_FILES    files in the data set (default 8)
#   SFFS_FILE_KB  size of each, KiB (default 1024)
#   SFFS_MTD      MTD device number to use instead of nandsim (erased!)
#   SFFS_MTDCOUNT mtdcount.ko (default: modprobe mtdcount, then
#                 mtdcount.ko next to this script)
#   SFFS_CUT_SEED seed of the power cuts' random point and tearing
#                 (default random; each run prints its own)

set -u

ksft_fail=1
ksft_skip=4
here=$(dirname "$0")
OPS=$here/sffs_ops
MKFS=$here/mkfs.sffs
DUMP=$here/dump.sffs
FSCK=$here/fsck.sffs
CORRUPT=$here/corrupt.sffs
REPAIRS="nlink unlinked dangling hash dirnames space"
NUM_REPAIRS=6
SFFS_FILES=${SFFS_FILES:-8}
SFFS_FILE_KB=${SFFS_FILE_KB:-1024}
NANDSIM_ID_BYTES=0xec,0xd3,0x51,0x95
NUM_POSIX=15
# Where the power is cut, in page programs and block erases from the
# start of the work: W is what the work took without a cut, R a random
# point of it.  The data is programmed first; the directory, the rename,
# the journal's sync and the commit at unmount come in the last ones.
CUTS="1 W/2 W-16 W-4 W-1 R"
NUM_CUTS=7	# the work without a cut, then each of CUTS
NUM_ORPHAN=1
NUM_OVERLAY=2
NUM_PLACE=1
NUM_TESTS=$((NUM_POSIX + 12 + NUM_CUTS + NUM_ORPHAN + NUM_REPAIRS + \
	     NUM_OVERLAY + NUM_PLACE))
# The image flashed by nandwrite over bad blocks (place_test): made on
# the host by make qemu-test (mkfs.sffs -t -r of place/tree, for a 1 GiB
# NAND of 128 KiB blocks and 2 KiB pages), with Debian's nandwrite and
# flash_erase and their loader and libc in place/mtd-utils (x86_64 only).
PLACE=$here/place
PLACE_BAD='1 6 9'

testnum=0
nfail=0
nskip=0
stage=
mnt=
ovl=
mc=/sys/module/mtdcount/parameters
mc_loaded=
up=
seed=0
cut_ops=0

msg() { echo "# $*"; }
bail() { echo "Bail out! $*"; exit "$ksft_fail"; }
metric() { echo "# METRIC $1 $2 $3"; }
now() { "$OPS" now; }

result()
{
	testnum=$((testnum + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $testnum $2"
	else
		nfail=$((nfail + 1))
		echo "not ok $testnum $2"
	fi
}

skip()
{
	testnum=$((testnum + 1))
	nskip=$((nskip + 1))
	echo "ok $testnum $1 # SKIP $2"
}

# run CMD...: run it, its output becomes TAP comments
run()
{
	"$@" >"$stage/out" 2>&1
	run_rc=$?
	sed 's/^/# /' "$stage/out"
	return "$run_rc"
}

# relay CMD...: run a TAP producer, renumbering its results as ours
relay()
{
	"$@" >"$stage/tap" 2>&1
	while IFS= read -r line; do
		case "$line" in
		"ok "*) result 0 "${line#ok [0-9]* }" ;;
		"not ok "*) result 1 "${line#not ok [0-9]* }" ;;
		*) echo "# $line" ;;
		esac
	done <"$stage/tap"
}

fmt_ms() { ns=$(($2 - $1)); echo "$((ns / 1000000)).$((ns / 100000 % 10))"; }
fmt_s() {
	ns=$(($2 - $1))
	printf '%d.%03d\n' "$((ns / 1000000000))" "$((ns / 1000000 % 1000))"
}

# mtd_by_name NAME: the number of the MTD device called NAME
mtd_by_name()
{
	sed -n "s/^mtd\([0-9]*\): [0-9a-f]* [0-9a-f]* \"$1\"\$/\1/p" \
		/proc/mtd | head -n 1
}

ensure_node()
{
	[ -c "/dev/mtd$1" ] && return 0
	IFS=: read -r major minor <"/sys/class/mtd/mtd$1/dev" || return 1
	mknod "/dev/mtd$1" c "$major" "$minor"
}

is_mounted() { grep -q " $1 " /proc/mounts; }

cleanup()
{
	if [ -n "$ovl" ] && is_mounted "$ovl"; then
		umount "$ovl" || msg "cleanup: cannot unmount $ovl"
	fi
	if [ -n "$mnt" ] && is_mounted "$mnt"; then
		umount "$mnt" || msg "cleanup: cannot unmount $mnt"
	fi
	mc_unload
	[ -n "$stage" ] && ! is_mounted "$mnt" && rm -rf "$stage"
}

# mount_sffs MTD: mount, timing it into $mount_ms
mount_sffs()
{
	t0=$(now)
	run mount -t sffs "mtd$1" "$mnt" || return 1
	t1=$(now)
	mount_ms=$(fmt_ms "$t0" "$t1")
}

# mtd_util TOOL ARGS...: Debian's mtd-utils tool, with the libc next to it
mtd_util()
{
	tool=$1
	shift
	"$PLACE/mtd-utils/ld-linux-x86-64.so.2" --library-path \
		"$PLACE/mtd-utils" "$PLACE/mtd-utils/$tool" "$@"
}

# place_test MTD: an image made on the host, written with nandwrite over
# bad blocks (one in the anchor's range), as a factory flashes a NAND.
# fsck.sffs must place it as the kernel will; it must mount with every
# file of its tree, take a write, mount again the same, and pass
# fsck.sffs, which follows the mapping the first mount wrote down.  Last
# of the NAND tests: the blocks stay bad.
place_test()
{
	mtd=$1
	name="image by nandwrite over bad blocks $(echo "$PLACE_BAD" | tr ' ' ,)"
	if [ ! -f "$PLACE/place.img" ] || [ ! -d "$PLACE/tree" ]; then
		skip "$name" "no image (make qemu-test makes one)"
		return
	fi
	# it marks blocks bad for good: nandsim only
	if [ -n "${SFFS_MTD:-}" ]; then
		skip "$name" "SFFS_MTD: not on a real device"
		return
	fi
	if [ ! -x "$PLACE/mtd-utils/nandwrite" ]; then
		skip "$name" "no nandwrite (Debian's mtd-utils, x86_64 guest)"
		return
	fi
	if [ "$(cat "/sys/class/mtd/mtd$mtd/size")" != 1073741824 ] ||
	   [ "$(cat "/sys/class/mtd/mtd$mtd/erasesize")" != 131072 ] ||
	   [ "$(cat "/sys/class/mtd/mtd$mtd/writesize")" != 2048 ]; then
		skip "$name" "the image is for a 1 GiB NAND of 128 KiB blocks"
		return
	fi
	rc=0
	# shellcheck disable=SC2086
	run "$OPS" markbad "/dev/mtd$mtd" $PLACE_BAD || rc=1
	run mtd_util flash_erase -q "/dev/mtd$mtd" 0 0 || rc=1
	run mtd_util nandwrite -p -m "/dev/mtd$mtd" "$PLACE/place.img" || rc=1
	# the tools place the image as the kernel will, reading only
	run "$FSCK" "/dev/mtd$mtd" || rc=1
	grep -q "^errors: 0$" "$stage/out" || rc=1
	run "$DUMP" "/dev/mtd$mtd" || rc=1
	grep -qx "skipped: $PLACE_BAD" "$stage/out" ||
		{ msg "dump.sffs before the mount: not skipped: $PLACE_BAD"; rc=1; }
	if [ "$rc" -eq 0 ] && mount_sffs "$mtd"; then
		dmesg | grep "sffs: mtd$mtd: image of" | tail -n 1 | sed 's/^/# /'
		run diff -r "$PLACE/tree" "$mnt" || rc=1
		cp "$stage/data/file0" "$mnt/added" && sync || rc=1
		umount "$mnt" || rc=1
		if mount_sffs "$mtd"; then
			rm -rf "$stage/cmp" && cp -a "$PLACE/tree" "$stage/cmp" &&
				cp "$stage/data/file0" "$stage/cmp/added" || rc=1
			run diff -r "$stage/cmp" "$mnt" || rc=1
			umount "$mnt" || rc=1
		else
			rc=1
		fi
		run "$FSCK" "/dev/mtd$mtd" || rc=1
		grep -q "^errors: 0$" "$stage/out" || rc=1
		run "$DUMP" "/dev/mtd$mtd" || rc=1
		grep -qx "skipped: $PLACE_BAD" "$stage/out" ||
			{ msg "dump.sffs: not skipped: $PLACE_BAD"; rc=1; }
	else
		rc=1
	fi
	result "$rc" "$name"
}

nand_tests()
{
	mtd=$1
	rc=0
	run "$MKFS" -q "/dev/mtd$mtd" || rc=1
	result "$rc" "mkfs.sffs on mtd$mtd"
	if [ "$rc" -eq 0 ] && mount_sffs "$mtd"; then
		metric sffs_first_mount_ms "$mount_ms" ms
		result 0 "mount"
	else
		result 1 "mount"
		i=0
		while [ "$i" -lt $((NUM_POSIX + 6 + NUM_CUTS + NUM_ORPHAN)) ]; do
			skip "nand test $i" "no mount"
			i=$((i + 1))
		done
		return
	fi

	relay "$OPS" "$mnt" posix

	rc=0
	t0=$(now)
	cp "$stage"/data/file* "$mnt"/ && sync || rc=1
	t1=$(now)
	metric sffs_write_s "$(fmt_s "$t0" "$t1")" s
	result "$rc" "write $SFFS_FILES files of $SFFS_FILE_KB KiB"

	rc=0
	run umount "$mnt" || rc=1
	if [ "$rc" -eq 0 ] && mount_sffs "$mtd"; then
		metric sffs_mount_ms "$mount_ms" ms
	else
		rc=1
	fi
	result "$rc" "unmount and mount again"

	rc=0
	(cd "$mnt" && sha256sum -c "$stage/sha256") >"$stage/out" 2>&1 || rc=1
	grep -v ': OK$' "$stage/out" | sed 's/^/# /'
	result "$rc" "data set intact after remount"

	relay "$OPS" "$mnt" verify

	rc=0
	run umount "$mnt" || rc=1
	run "$DUMP" "/dev/mtd$mtd" || rc=1
	run "$FSCK" "/dev/mtd$mtd" || rc=1
	result "$rc" "dump.sffs and fsck.sffs find a valid file system"

	# mount by name, as JFFS2 and UBIFS accept it
	rc=0
	name=$(cat "/sys/class/mtd/mtd$mtd/name")
	run mount -t sffs "mtd:$name" "$mnt" || rc=1
	[ "$rc" -eq 0 ] && (cd "$mnt" && sha256sum -c "$stage/sha256") \
		>/dev/null 2>&1 || rc=1
	is_mounted "$mnt" && { run umount "$mnt" || rc=1; }
	result "$rc" "mount by mtd:NAME"

	if ! mc_load "$mtd"; then
		i=0
		while [ "$i" -lt $((NUM_CUTS + NUM_ORPHAN)) ]; do
			skip "power cut test $i" "$mc_why"
			i=$((i + 1))
		done
		return
	fi
	power_cut_test "$mtd" 0 -1
	work=$cut_ops
	seed=${SFFS_CUT_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
	msg "power cuts: the work is $work programs and erases;" \
		"SFFS_CUT_SEED=$seed repeats these cuts"
	# sh has no local variables: round, c and spec are names no
	# function called here sets
	round=1
	for spec in $CUTS; do
		case "$spec" in
		R) c=$((seed % work + 1)) ;;
		*) c=$(($(echo "$spec" | sed "s/W/$work/g"))) ;;
		esac
		[ "$c" -ge 1 ] || c=1
		[ "$c" -le "$work" ] || c=$work
		power_cut_test "$mtd" "$round" "$c" "$spec"
		round=$((round + 1))
	done
	orphan_test "$mtd"
	mc_unload
}

# mc_load MTD: mtdcount.ko over mtdMTD, its device in $up; $mc_why says
# why not
mc_load()
{
	mc_why=
	if [ ! -d "$mc" ]; then
		if [ -n "${SFFS_MTDCOUNT:-}" ] ||
		   ! modprobe mtdcount mtd="$1" 2>/dev/null; then
			ko=${SFFS_MTDCOUNT:-$here/mtdcount.ko}
			[ -f "$ko" ] || { mc_why="no $ko"; return 1; }
			run insmod "$ko" mtd="$1" ||
				{ mc_why="insmod $ko failed"; return 1; }
		fi
		mc_loaded=1
	fi
	[ "$(cat "$mc/mtd")" = "$1" ] ||
		{ mc_why="mtdcount is loaded over mtd$(cat "$mc/mtd")"; return 1; }
	up=$(mtd_by_name mtdcount)
	if [ -z "$up" ] || ! ensure_node "$up"; then
		mc_why="no mtdcount device"
		return 1
	fi
	msg "power cuts on mtd$up, mtdcount over mtd$1"
}

mc_unload()
{
	[ -n "$mc_loaded" ] || return 0
	echo -1 >"$mc/cut_after"
	run rmmod mtdcount || msg "cannot unload mtdcount"
	mc_loaded=
}

# power_on: the next mount of $up writes through to the flash again
power_on() { echo -1 >"$mc/cut_after"; }

# orphan_test MTD: a file unlinked while open, then the power cut before
# it is closed: fsck.sffs finds it on the orphan list, the next mount
# deletes it
orphan_test()
{
	rc=0
	power_on
	mount_sffs "$up" || rc=1
	if [ "$rc" -eq 0 ]; then
		cp "$stage/data/file0" "$mnt/orphan" && sync || rc=1
		exec 3<"$mnt/orphan"
		rm "$mnt/orphan" || rc=1
		# more than the journal holds: a commit writes the record
		i=0
		for f in "$stage"/data/file*; do
			cp "$f" "$mnt/again$i" || rc=1
			i=$((i + 1))
		done
		sync
		# the close and the unmount never reach the flash
		echo 0 >"$mc/cut_after" || rc=1
		exec 3<&-
		# errors are expected: the flash is gone
		run umount "$mnt"
		is_mounted "$mnt" && { msg "cannot unmount"; rc=1; }
	fi
	if [ "$rc" -eq 0 ]; then
		run "$FSCK" "/dev/mtd$1" || rc=1
		grep -q "^orphans: 1$" "$stage/out" ||
			{ msg "no orphan record before the mount"; rc=1; }
		mount_sffs "$1" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		n=$(cat "/sys/fs/sffs/mtd$1/orphans_deleted")
		[ "$n" = 1 ] || { msg "the mount deleted $n orphans"; rc=1; }
		rm -f "$mnt"/again*
		run umount "$mnt" || rc=1
		run "$FSCK" "/dev/mtd$1" || rc=1
		grep -q "^orphans: 0$" "$stage/out" || rc=1
	fi
	result "$rc" "a file unlinked while open is deleted by the mount after a power cut"
}

# power_cut_test MTD I CUT [SPEC]: on mtdcount over MTD, a file written and
# synced, then the work (a file written, a directory made, the synced file
# renamed into it, sync, unmount) with the power cut in the CUT-th program
# or erase of it (-1: no cut; the work's programs and erases are then left
# in $cut_ops).  Mounted from MTD itself, the synced data is there under
# exactly one of its names, and dump.sffs and fsck.sffs find the index
# valid; without a cut, everything is there.
power_cut_test()
{
	low=$1 i=$2 cut=$3
	rc=0
	power_on
	mount_sffs "$up" || rc=1
	if [ "$rc" -eq 0 ]; then
		cp "$stage/data/file0" "$mnt/synced$i" && sync || rc=1
		ops0=$(cat "$mc/ops")
		echo "$((seed + i))" >"$mc/cut_seed"
		echo "$cut" >"$mc/cut_after" || rc=1
		# from here on, writes may be lost or torn
		cp "$stage/data/file1" "$mnt/lost$i" 2>/dev/null
		mkdir "$mnt/dir$i" 2>/dev/null &&
			mv "$mnt/synced$i" "$mnt/dir$i/moved" 2>/dev/null
		sync
		# errors are expected once the flash is gone, not an oops
		run umount "$mnt"
		is_mounted "$mnt" && { msg "cannot unmount"; rc=1; }
		cut_ops=$(($(cat "$mc/ops") - ops0))
		dead=$(cat "$mc/dead")
		if [ "$cut" -lt 0 ]; then
			[ "$dead" = N ] || { msg "power cut without a cut"; rc=1; }
		elif [ "$dead" = Y ]; then
			msg "power cut in operation $cut of the work"
		elif [ "$cut_ops" -ge "$cut" ]; then
			msg "no power cut in $cut_ops operations"
			rc=1
		else
			# the work varies a little with where the write head
			# is: the flash then holds all of it
			msg "the work ended after $cut_ops operations, no cut"
		fi
	fi
	if [ "$rc" -eq 0 ]; then
		mount_sffs "$low" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		[ "$cut" -lt 0 ] || metric "sffs_replay_mount_ms_cut$i" "$mount_ms" ms
		f=$mnt/synced$i
		[ -e "$f" ] || f=$mnt/dir$i/moved
		want=$(sed -n 's/  file0$//p' "$stage/sha256")
		got=$(sha256sum "$f" 2>/dev/null)
		[ "${got%% *}" = "$want" ] || { msg "synced file lost"; rc=1; }
		# the rename is atomic: exactly one of the names exists
		if [ -e "$mnt/synced$i" ] && [ -e "$mnt/dir$i/moved" ]; then
			msg "both names after the cut"
			rc=1
		fi
		if [ "$cut" -lt 0 ]; then
			# no cut: the rename and the file written are there
			[ "$f" = "$mnt/dir$i/moved" ] ||
				{ msg "the rename is lost"; rc=1; }
			want=$(sed -n 's/  file1$//p' "$stage/sha256")
			got=$(sha256sum "$mnt/lost$i" 2>/dev/null)
			[ "${got%% *}" = "$want" ] ||
				{ msg "the file written is lost"; rc=1; }
		elif [ -e "$mnt/lost$i" ]; then
			# what reached the flash of the file being written: a
			# start of its data, never a torn page's garbage
			lost_size=$(wc -c <"$mnt/lost$i")
			head -c "$lost_size" "$stage/data/file1" |
				cmp -s - "$mnt/lost$i" ||
				{ msg "lost$i: not the start of its data"; rc=1; }
		fi
		run umount "$mnt" || rc=1
		run "$DUMP" "/dev/mtd$low" || rc=1
		run "$FSCK" "/dev/mtd$low" || rc=1
	fi
	if [ "$cut" -lt 0 ]; then
		result "$rc" "no power cut: $cut_ops programs and erases, all of the work there"
	else
		result "$rc" "power cut at $4 ($cut of $work): synced data and index intact"
	fi
}

nor_tests()
{
	mtd=$1
	rc=0
	run "$MKFS" -q "/dev/mtd$mtd" || rc=1
	if [ "$rc" -eq 0 ]; then
		mount_sffs "$mtd" || rc=1
	fi
	result "$rc" "mkfs.sffs and mount on mtdram (NOR-like)"
	if [ "$rc" -ne 0 ]; then
		skip "fill to ENOSPC" "no mount"
		skip "remount after ENOSPC" "no mount"
		skip "rewrite 6 times the device" "no mount"
		return
	fi
	relay "$OPS" "$mnt" fill
	rc=0
	run umount "$mnt" || rc=1
	if [ "$rc" -eq 0 ]; then
		mount_sffs "$mtd" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		[ -d "$mnt" ] && ls "$mnt" >/dev/null || rc=1
		run umount "$mnt" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		run "$DUMP" "/dev/mtd$mtd" || rc=1
		run "$FSCK" "/dev/mtd$mtd" || rc=1
	fi
	result "$rc" "remount after ENOSPC, index valid"
	nor_rewrite "$mtd"
}

# Garbage collection: delete what the fill left, then write six times the
# size of the device through two files of an eighth of it each, rewritten
# in turn.  Without reclaiming erase blocks the device would be full after
# one pass; the last version of each file must read back after a remount.
nor_rewrite()
{
	mtd=$1
	size=$(cat "/sys/class/mtd/mtd$mtd/size")
	chunks=$((size / 8 / 65536))
	rounds=48
	rc=0
	mount_sffs "$mtd" || rc=1
	if [ "$rc" -eq 0 ]; then
		rm -rf "${mnt:?}"/*
		i=0
		while [ "$i" -lt "$rounds" ] && [ "$rc" -eq 0 ]; do
			f=gc$((i % 2))
			dd if=/dev/urandom of="$stage/$f" bs=65536 \
				count="$chunks" 2>/dev/null || rc=1
			cp "$stage/$f" "$mnt/$f" && sync || rc=1
			i=$((i + 1))
		done
		[ "$rc" -eq 0 ] || msg "rewrite $i failed"
		# the statistics of /sys/fs/sffs/: blocks were collected
		st=/sys/fs/sffs/mtd$mtd
		for k in gc_blocks gc_moved_bytes erases erase_count_min \
			 erase_count_max user_bytes_written flash_bytes_written; do
			v=$(cat "$st/$k" 2>/dev/null)
			[ -n "$v" ] || { msg "no $st/$k"; rc=1; continue; }
			metric "sffs_nor_$k" "$v" count
		done
		[ "$(cat "$st/gc_blocks" 2>/dev/null)" -gt 0 ] || rc=1
		run umount "$mnt" || rc=1
	fi
	if [ "$rc" -eq 0 ] && mount_sffs "$mtd"; then
		for f in gc0 gc1; do
			cmp "$stage/$f" "$mnt/$f" || rc=1
		done
		run umount "$mnt" || rc=1
		run "$DUMP" "/dev/mtd$mtd" || rc=1
		run "$FSCK" "/dev/mtd$mtd" || rc=1
	else
		rc=1
	fi
	rm -f "$stage"/gc?
	result "$rc" "rewrite 6 times the device: space reclaimed, data intact"
}

# The regular files' contents under $1, whatever their names
contents()
{
	find "$1" -type f -exec sha256sum {} \; | cut -d' ' -f1 | sort
}

# fsck.sffs -y on each damage corrupt.sffs makes: the kernel replays the
# repair, every file's data is there (a file that lost its name is in
# /lost+found), the file system takes new writes, and fsck.sffs then
# finds nothing.
nor_repair()
{
	mtd=$1
	tree=$stage/tree
	mkdir -p "$tree/dir/sub" || return
	head -c 1 /dev/urandom >"$tree/size1"
	head -c 5000 /dev/urandom >"$tree/size2"
	head -c 70000 /dev/urandom >"$tree/dir/sub/file"
	ln "$tree/size2" "$tree/dir/link"
	mkfifo "$tree/fifo"
	contents "$tree" >"$stage/want"
	for kind in $REPAIRS; do
		rc=0
		run "$MKFS" -q -r "$tree" "/dev/mtd$mtd" || rc=1
		run "$CORRUPT" "/dev/mtd$mtd" "$kind" || rc=1
		"$FSCK" "/dev/mtd$mtd" >"$stage/fsck"
		[ $? -eq 4 ] || { msg "$kind: no damage found"; rc=1; }
		"$FSCK" -y "/dev/mtd$mtd" >"$stage/fsck"
		[ $? -eq 1 ] || { msg "$kind: not repaired"; rc=1; }
		grep "^repair: " "$stage/fsck" | sed 's/^/# /'
		if [ "$rc" -eq 0 ] && mount_sffs "$mtd"; then
			contents "$mnt" >"$stage/have"
			cmp -s "$stage/have" "$stage/want" ||
				{ msg "$kind: data differs"; rc=1; }
			echo new >"$mnt/new" && sync || rc=1
			run umount "$mnt" || rc=1
			"$FSCK" "/dev/mtd$mtd" >"$stage/fsck"
			[ $? -eq 0 ] || { sed 's/^/# /' "$stage/fsck"; rc=1; }
		else
			rc=1
		fi
		result "$rc" "fsck.sffs -y repairs $kind, the kernel mounts the repair"
	done
}

# ovl_mount: overlayfs on $ovl, $stage/lower below, SFFS on $mnt above
ovl_mount()
{
	mkdir -p "$mnt/upper" "$mnt/work" "$ovl" || return 1
	run mount -t overlay -o \
		"lowerdir=$stage/lower,upperdir=$mnt/upper,workdir=$mnt/work" \
		overlay "$ovl"
}

# ovl_check: the merged view after the changes of overlay_test
ovl_check()
{
	[ ! -e "$ovl/gone" ] || { msg "gone is back"; return 1; }
	[ "$(cat "$ovl/changed")" = upper ] || { msg "changed lost"; return 1; }
	[ "$(cat "$ovl/moved")" = moved ] || { msg "moved lost"; return 1; }
	[ ! -e "$ovl/dir/src" ] || { msg "dir/src is back"; return 1; }
	[ "$(cat "$ovl/dir/kept")" = kept ] || { msg "dir/kept lost"; return 1; }
	[ "$(cat "$ovl/new/f")" = new ] || { msg "new/f lost"; return 1; }
	# what overlayfs left in the upper layer: whiteouts, char 0/0
	for w in gone dir/src; do
		[ -c "$mnt/upper/$w" ] &&
			[ "$(stat -c %t:%T "$mnt/upper/$w")" = 0:0 ] ||
			{ msg "no whiteout for $w"; return 1; }
	done
}

# overlay_test MTD: SFFS as overlayfs's upper layer, as OpenWrt uses
# JFFS2 and UBIFS.  The mount must warn of no missing feature (tmpfile,
# RENAME_WHITEOUT, xattrs, d_type); files of the lower layer deleted,
# replaced and renamed must stay so across a remount of both, fsck.sffs
# finding the upper layer clean; a new file system (a factory reset)
# must give back the lower layer's view.
overlay_test()
{
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null
	if ! grep -qw overlay /proc/filesystems; then
		skip "overlayfs with SFFS as upper layer" "no overlayfs"
		skip "factory reset of the overlay" "no overlayfs"
		return
	fi
	ovl=$stage/ovl
	rc=0
	mkdir -p "$stage/lower/dir" || rc=1
	echo gone >"$stage/lower/gone"
	echo lower >"$stage/lower/changed"
	echo kept >"$stage/lower/dir/kept"
	echo moved >"$stage/lower/dir/src"
	run "$MKFS" -q "/dev/mtd$1" || rc=1
	[ "$rc" -eq 0 ] && { mount_sffs "$1" || rc=1; }
	lines=$(dmesg | wc -l)
	[ "$rc" -eq 0 ] && { ovl_mount || rc=1; }
	dmesg | tail -n +"$((lines + 1))" | grep overlayfs >"$stage/ovl.log"
	sed 's/^/# /' "$stage/ovl.log"
	if grep -Eq "not support|needs to support|missing" "$stage/ovl.log"; then
		msg "overlayfs warned of a missing feature"
		rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		rm "$ovl/gone" || rc=1
		echo upper >"$ovl/changed" || rc=1
		mv "$ovl/dir/src" "$ovl/moved" || rc=1
		mkdir "$ovl/new" && echo new >"$ovl/new/f" || rc=1
		ovl_check || rc=1
		sync
		run umount "$ovl" || rc=1
		run umount "$mnt" || rc=1
	fi
	[ "$rc" -eq 0 ] && { run "$FSCK" "/dev/mtd$1" || rc=1; }
	[ "$rc" -eq 0 ] && { mount_sffs "$1" || rc=1; }
	[ "$rc" -eq 0 ] && { ovl_mount || rc=1; }
	[ "$rc" -eq 0 ] && { ovl_check || rc=1; }
	result "$rc" "overlayfs with SFFS as upper layer, across a remount"

	is_mounted "$ovl" && run umount "$ovl"
	is_mounted "$mnt" && run umount "$mnt"
	rc=0
	run "$MKFS" -q "/dev/mtd$1" || rc=1
	[ "$rc" -eq 0 ] && { mount_sffs "$1" || rc=1; }
	[ "$rc" -eq 0 ] && { ovl_mount || rc=1; }
	if [ "$rc" -eq 0 ]; then
		[ "$(cat "$ovl/gone")" = gone ] &&
			[ "$(cat "$ovl/changed")" = lower ] &&
			[ "$(cat "$ovl/dir/src")" = moved ] &&
			[ ! -e "$ovl/new" ] || rc=1
		run umount "$ovl" || rc=1
		run umount "$mnt" || rc=1
	fi
	result "$rc" "factory reset of the overlay: mkfs.sffs gives the lower view"
}

echo "TAP version 13"
for t in "$OPS" "$MKFS" "$DUMP" "$FSCK" "$CORRUPT"; do
	[ -x "$t" ] || bail "$t not found, build it with make"
done
if ! grep -qw sffs /proc/filesystems; then
	modprobe sffs 2>/dev/null
	if ! grep -qw sffs /proc/filesystems; then
		echo "1..0 # SKIP no SFFS in this kernel"
		exit "$ksft_skip"
	fi
fi

find_nand()
{
	nand=$(mtd_by_name "NAND simulator")
	[ -n "$nand" ] || nand=$(mtd_by_name "NAND simulator partition 0")
}

if [ -n "${SFFS_MTD:-}" ]; then
	nand=$SFFS_MTD
else
	find_nand
	if [ -z "$nand" ]; then
		modprobe nandsim id_bytes="$NANDSIM_ID_BYTES" 2>&1 |
			sed 's/^/# /'
		find_nand
	fi
fi
nor=$(mtd_by_name "mtdram test device")
if [ -z "$nor" ]; then
	modprobe mtdram total_size=8192 erase_size=64 2>&1 | sed 's/^/# /'
	nor=$(mtd_by_name "mtdram test device")
fi

trap cleanup EXIT
trap 'exit $ksft_fail' HUP INT TERM
stage=$(mktemp -d "${TMPDIR:-/tmp}/sffs.XXXXXX") || bail "no staging dir"
mnt=$stage/mnt
mkdir "$mnt" "$stage/data" || bail "cannot create $mnt"

echo "1..$NUM_TESTS"

i=0
while [ "$i" -lt "$SFFS_FILES" ]; do
	dd if=/dev/urandom of="$stage/data/file$i" bs=1024 \
		count="$SFFS_FILE_KB" 2>/dev/null || bail "cannot create data"
	i=$((i + 1))
done
(cd "$stage/data" && sha256sum file*) >"$stage/sha256" || bail "no sha256sum"

if [ -n "$nand" ] && ensure_node "$nand"; then
	grep -q "^mtd$nand " /proc/mounts && bail "mtd$nand is mounted"
	msg "NAND: mtd$nand, $(cat /sys/class/mtd/mtd"$nand"/size) bytes," \
		"write size $(cat /sys/class/mtd/mtd"$nand"/writesize)," \
		"erase size $(cat /sys/class/mtd/mtd"$nand"/erasesize)"
	nand_tests "$nand"
	place_test "$nand"
else
	i=0
	while [ "$i" -lt $((NUM_POSIX + 8 + NUM_CUTS + NUM_ORPHAN + \
			    NUM_PLACE)) ]; do
		skip "nand test $i" "no nandsim"
		i=$((i + 1))
	done
fi

if [ -n "$nor" ] && ensure_node "$nor"; then
	msg "NOR: mtd$nor, $(cat /sys/class/mtd/mtd"$nor"/size) bytes," \
		"erase size $(cat /sys/class/mtd/mtd"$nor"/erasesize)"
	nor_tests "$nor"
	nor_repair "$nor"
	overlay_test "$nor"
else
	skip "mkfs.sffs and mount on mtdram (NOR-like)" "no mtdram"
	skip "fill to ENOSPC" "no mtdram"
	skip "remount after ENOSPC, index valid" "no mtdram"
	skip "rewrite 6 times the device" "no mtdram"
	for kind in $REPAIRS; do
		skip "fsck.sffs -y repairs $kind" "no mtdram"
	done
	skip "overlayfs with SFFS as upper layer" "no mtdram"
	skip "factory reset of the overlay" "no mtdram"
fi

cleanup
echo "# Totals: pass:$((testnum - nfail - nskip)) fail:$nfail xfail:0 xpass:0 skip:$nskip error:0"
[ "$nfail" -eq 0 ] || exit "$ksft_fail"
exit 0
