#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Write a random data set to JFFS2 and to UBIFS on a nandsim NAND simulator,
# remount (and reattach UBI), and verify it.  Mount and attach times (the
# mount(2) call and the attach ioctl, as flashctl times them) are reported
# as "# METRIC <name> <value> <unit>" TAP comments.
#
# Needs only busybox applets and flashctl from this directory.
# Environment:
#   FLASH_FILES    number of files in the data set (default 8)
#   FLASH_FILE_KB  size of each file in KiB (default 1024)
#   FLASH_DATA     a directory whose files named file* are the data set,
#                  instead of random ones (so that two runs, or two
#                  kernels, write the same bytes)
#   FLASH_MTD      MTD device number to use instead of the nandsim device
#                  (all its contents are destroyed)

set -u

ksft_fail=1
ksft_skip=4

FLASHCTL="$(dirname "$0")/flashctl"
FLASH_FILES=${FLASH_FILES:-8}
FLASH_FILE_KB=${FLASH_FILE_KB:-1024}
# Samsung 1 GiB, 2 KiB pages, 128 KiB erase blocks
NANDSIM_ID_BYTES=0xec,0xd3,0x51,0x95
UBI_VOL="test"
NUM_TESTS=6

testnum=0
npass=0
nfail=0
nskip=0
stage=
mnt=
ubi=

msg()
{
	echo "# $*"
}

# Show the contents of a file as TAP comments.
comment_file()
{
	if [ -s "$1" ]; then
		sed 's/^/# /' "$1"
	fi
}

bail()
{
	echo "Bail out! $*"
	exit "$ksft_fail"
}

# result RC DESCRIPTION
result()
{
	testnum=$((testnum + 1))
	if [ "$1" -eq 0 ]; then
		npass=$((npass + 1))
		echo "ok $testnum $2"
	else
		nfail=$((nfail + 1))
		echo "not ok $testnum $2"
	fi
}

# skip DESCRIPTION REASON
skip()
{
	testnum=$((testnum + 1))
	nskip=$((nskip + 1))
	echo "ok $testnum $1 # SKIP $2"
}

# skip_all REASON DESCRIPTION...: skip several tests for one reason
skip_all()
{
	skip_reason=$1
	shift
	for skip_desc in "$@"; do
		skip "$skip_desc" "$skip_reason"
	done
}

# Helpers use their own variable names: functions share one namespace.

# Run a command; its stdout and stderr become TAP comments.
run()
{
	"$@" >"$stage/out" 2>&1
	run_rc=$?
	comment_file "$stage/out"
	return "$run_rc"
}

# Run a command, leaving its stdout in $out; stderr becomes TAP comments.
capture()
{
	out=$("$@" 2>"$stage/err")
	capture_rc=$?
	comment_file "$stage/err"
	return "$capture_rc"
}

now()
{
	"$FLASHCTL" now
}

# fmt_s T0 T1: nanosecond interval as seconds with three decimals
fmt_s()
{
	ns=$(($2 - $1))
	printf '%d.%03d\n' "$((ns / 1000000000))" "$((ns / 1000000 % 1000))"
}

metric()
{
	echo "# METRIC $1 $2 $3"
}

# ensure_node /dev/NODE SYSFS_DEV_FILE: create a missing character device
# node from its sysfs "major:minor" (for systems without devtmpfs)
ensure_node()
{
	[ -c "$1" ] && return 0
	[ -r "$2" ] || return 1
	IFS=: read -r major minor <"$2" || return 1
	mknod "$1" c "$major" "$minor" 2>/dev/null || [ -c "$1" ]
}

is_mounted()
{
	grep -q " $1 " /proc/mounts
}

have_fs()
{
	grep -qw "$1" /proc/filesystems || modprobe "$1" >/dev/null 2>&1
	grep -qw "$1" /proc/filesystems
}

do_umount()
{
	run umount "$mnt"
}

ubi_attach()
{
	capture "$FLASHCTL" ubiattach "$mtd" || return 1
	# "ubi=<N> attach_ms=<ms>"
	ubi=${out%% *}
	ubi=${ubi#ubi=}
	attach_ms=${out##*attach_ms=}
	ensure_node "/dev/ubi$ubi" "/sys/class/ubi/ubi$ubi/dev"
}

ubi_detach()
{
	[ -n "$ubi" ] || return 0
	run "$FLASHCTL" ubidetach "$ubi" || return 1
	ubi=
}

cleanup()
{
	if [ -n "$mnt" ] && is_mounted "$mnt"; then
		do_umount || msg "cleanup: cannot unmount $mnt"
	fi
	if [ -n "$ubi" ]; then
		ubi_detach || msg "cleanup: cannot detach ubi$ubi"
	fi
	if [ -n "$stage" ]; then
		if [ -n "$mnt" ] && is_mounted "$mnt"; then
			rm -rf "$stage/data"
		else
			rm -rf "$stage"
			stage=
		fi
	fi
}

# Copy the data set to the mounted file system, timing it.
write_data()
{
	t0=$(now)
	cp "$stage"/data/file* "$mnt"/ || return 1
	sync || return 1
	t1=$(now)
	metric "$1" "$(fmt_s "$t0" "$t1")" s
}

verify_data()
{
	(cd "$mnt" && sha256sum -c "$stage/sha256") >"$stage/out" 2>&1
	verify_rc=$?
	grep -v ': OK$' "$stage/out" | sed 's/^/# /'
	return "$verify_rc"
}

# find_mtd: set $mtd to the nandsim (or $FLASH_MTD) MTD device number
find_mtd()
{
	if [ -n "${FLASH_MTD:-}" ]; then
		mtd=$FLASH_MTD
		[ -e "/sys/class/mtd/mtd$mtd" ]
		return
	fi
	# nandsim without "parts=" registers a single partition 0
	for name in "NAND simulator" "NAND simulator partition 0"; do
		mtd=$("$FLASHCTL" find "$name" 2>/dev/null) && return 0
	done
	return 1
}

jffs2_test()
{
	if ! have_fs jffs2; then
		skip_all "no JFFS2 support" "jffs2 write" "jffs2 remount" \
			"jffs2 verify"
		return
	fi

	rc=0
	run "$FLASHCTL" erase "$dev" || rc=1
	if [ "$rc" -eq 0 ]; then
		run mount -t jffs2 "mtd$mtd" "$mnt" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		write_data jffs2_write_s || rc=1
		do_umount || rc=1
	fi
	result "$rc" "jffs2 write"
	if [ "$rc" -ne 0 ]; then
		skip_all "write failed" "jffs2 remount" "jffs2 verify"
		return
	fi

	if ! run "$FLASHCTL" mount jffs2 "mtd$mtd" "$mnt"; then
		result 1 "jffs2 remount"
		skip "jffs2 verify" "remount failed"
		return
	fi
	metric jffs2_mount_ms "$(sed -n 's/^mount_ms=//p' "$stage/out")" ms
	result 0 "jffs2 remount"

	rc=0
	verify_data || rc=1
	do_umount || rc=1
	result "$rc" "jffs2 verify"
}

ubifs_test()
{
	reason=
	if [ ! -e /sys/class/misc/ubi_ctrl ]; then
		modprobe ubi >/dev/null 2>&1
	fi
	if ! ensure_node /dev/ubi_ctrl /sys/class/misc/ubi_ctrl/dev; then
		reason="no UBI support"
	elif ! have_fs ubifs; then
		reason="no UBIFS support"
	fi
	if [ -n "$reason" ]; then
		skip_all "$reason" "ubifs write" "ubifs reattach+remount" \
			"ubifs verify"
		return
	fi

	rc=0
	run "$FLASHCTL" erase "$dev" || rc=1
	if [ "$rc" -eq 0 ]; then
		ubi_attach || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		msg "first attach of mtd$mtd as ubi$ubi took $attach_ms ms"
		run "$FLASHCTL" ubimkvol "/dev/ubi$ubi" "$UBI_VOL" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		run mount -t ubifs "ubi$ubi:$UBI_VOL" "$mnt" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		write_data ubifs_write_s || rc=1
		do_umount || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		ubi_detach || rc=1
	fi
	result "$rc" "ubifs write"
	if [ "$rc" -ne 0 ]; then
		skip_all "write failed" "ubifs reattach+remount" "ubifs verify"
		return
	fi

	rc=0
	ubi_attach || rc=1
	if [ "$rc" -eq 0 ]; then
		metric ubi_attach_ms "$attach_ms" ms
		run "$FLASHCTL" mount ubifs "ubi$ubi:$UBI_VOL" "$mnt" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		metric ubifs_mount_ms \
			"$(sed -n 's/^mount_ms=//p' "$stage/out")" ms
	fi
	result "$rc" "ubifs reattach+remount"
	if [ "$rc" -ne 0 ]; then
		skip "ubifs verify" "reattach+remount failed"
		return
	fi

	rc=0
	verify_data || rc=1
	do_umount || rc=1
	ubi_detach || rc=1
	result "$rc" "ubifs verify"
}

echo "TAP version 13"

[ -x "$FLASHCTL" ] || bail "$FLASHCTL not found, build it with make"
case $(now) in
''|*[!0-9]*)
	bail "$FLASHCTL now does not work"
	;;
esac
case "$FLASH_FILES:$FLASH_FILE_KB" in
*[!0-9:]*|:*|*:|0*|*:0*)
	bail "FLASH_FILES and FLASH_FILE_KB must be positive integers"
	;;
esac

if ! find_mtd; then
	if [ -n "${FLASH_MTD:-}" ]; then
		echo "1..0 # SKIP no MTD device mtd$FLASH_MTD"
		exit "$ksft_skip"
	fi
	msg "no nandsim device, trying modprobe nandsim id_bytes=$NANDSIM_ID_BYTES"
	modprobe nandsim id_bytes="$NANDSIM_ID_BYTES" 2>&1 | sed 's/^/# /'
	if ! find_mtd; then
		echo "1..0 # SKIP no nandsim"
		exit "$ksft_skip"
	fi
fi

trap cleanup EXIT
trap 'exit $ksft_fail' HUP INT TERM

mkdir -p "${TMPDIR:-/tmp}"
stage=$(mktemp -d "${TMPDIR:-/tmp}/flash.XXXXXX") ||
	bail "cannot create a staging directory"
mnt=$stage/mnt
mkdir "$mnt" "$stage/data" || bail "cannot create directories in $stage"

echo "1..$NUM_TESTS"

dev=/dev/mtd$mtd
ensure_node "$dev" "/sys/class/mtd/mtd$mtd/dev" || bail "no $dev"
capture "$FLASHCTL" info "$dev" || bail "cannot get geometry of $dev"
msg "mtd$mtd: $out"

# The device is about to be erased: it must not be in use.
if grep -q "^mtd$mtd " /proc/mounts; then
	bail "mtd$mtd is mounted"
fi
for d in /sys/class/ubi/ubi*; do
	if [ ! -r "$d/mtd_num" ] || [ "$(cat "$d/mtd_num")" != "$mtd" ]; then
		continue
	fi
	msg "mtd$mtd is attached to ${d##*/}, detaching it"
	run "$FLASHCTL" ubidetach "${d##*/ubi}" || bail "mtd$mtd is in use"
done

if [ -n "${FLASH_DATA:-}" ]; then
	msg "data set: the files of $FLASH_DATA"
	cp "$FLASH_DATA"/file* "$stage/data/" ||
		bail "cannot copy the data set from $FLASH_DATA"
else
	msg "data set: $FLASH_FILES files of $FLASH_FILE_KB KiB in $stage/data"
	i=0
	while [ "$i" -lt "$FLASH_FILES" ]; do
		dd if=/dev/urandom of="$stage/data/file$i" bs=1024 \
			count="$FLASH_FILE_KB" 2>/dev/null ||
			bail "cannot create $stage/data/file$i"
		i=$((i + 1))
	done
fi
(cd "$stage/data" && sha256sum file*) >"$stage/sha256" ||
	bail "cannot compute checksums"

jffs2_test
ubifs_test

cleanup
if [ -n "$ubi" ] || is_mounted "$mnt"; then
	msg "cleanup failed"
	nfail=$((nfail + 1))
fi

echo "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:$nskip error:0"
if [ "$nfail" -ne 0 ]; then
	exit "$ksft_fail"
fi
exit 0
