#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# root-test.sh ARCH KERNEL BUSYBOX TOOLS OUT
#
# SFFS as the root file system, booted as a product boots it: no
# initramfs, "root=mtd:rootfs rootfstype=sffs rw" on the command line.
# The root is an image made on this host with mkfs.sffs -r (TOOLS, built
# for this host) of a tree holding the static BUSYBOX, applet links and
# harness/root/init as /sbin/init, on a flash that is a file here:
#
#   ARCH arm     the second 64 MiB bank of the CFI NOR flash of -M virt
#                (-drive if=pflash,unit=1), 256 KiB erase blocks, named
#                "rootfs" by mtdparts=
#   ARCH x86_64  block2mtd on a 64 MiB virtio disk, 128 KiB erase blocks,
#                named "rootfs" by block2mtd's label
#
# KERNEL must have SFFS, the flash and its driver built in (the test kernel
# of make qemu-test: harness/configs/qemu-test-ARCH.config).  Boot 1 mounts
# / from root=mtd:rootfs and boot 2 from root=mtdN, N being the device
# boot 1 found / on (the same in boot 2 as long as the drivers register
# their MTD devices in the same order: block2mtd registers at
# late_initcall, after mtdram and nandsim; physmap is probed
# synchronously here, in its initcall); each checks that / is SFFS,
# read-write, on that device, holds what the host put there and what the
# boot before wrote, and writes and syncs a file of its own
# (harness/root/init says how).
# Then, on this host, fsck.sffs checks the image and unsffs extracts the
# files both boots wrote, which must be whole.
#
# Writes OUT/root-test-ARCH/ (the image, the tree, each boot's console)
# and ends with "N passed, N failed": each boot's checks, counted by
# harness/qemu-run (a boot that panics or never reports counts as failed),
# and the host's.
set -uo pipefail
arch=$1 kernel=$2 busybox=$3 tools=$4 out=$5
here=$(cd "$(dirname "$0")" && pwd)
name=rootfs

case $arch in
arm)
	erase=256KiB
	drive=if=pflash,format=raw,unit=1
	# physmap probed synchronously: its MTD numbers then come before
	# those mtdram and nandsim register in their initcalls in every
	# boot, which root=mtdN needs (names, unlike numbers, do not
	# depend on it: parallel-probe.rst)
	append="mtdparts=0.flash:64m(pflash0)ro,64m($name)"
	append="$append driver_parallel_probe=*,!physmap-flash"
	;;
x86_64)
	erase=128KiB
	drive=if=virtio,format=raw
	append="block2mtd.block2mtd=/dev/vda,$erase,$name"
	;;
*)	echo "root-test: unknown ARCH $arch (arm or x86_64)" >&2; exit 1 ;;
esac

dir=$out/root-test-$arch
img=$dir/flash.img
tree=$dir/tree
rm -rf "$dir"
mkdir -p "$tree"/{bin,sbin,proc,sys,etc/root-test}
pass=0 fail=0

# shellcheck source=harness/verdicts.sh
. "$here/verdicts.sh"

# The lines harness/root/init writes, to compare with what the guests wrote
content() {
	awk -v b="$1" 'BEGIN { for (i = 1; i <= 4000; i++)
		print "boot " b " line " i }'
}

# --- the image ---------------------------------------------------------------
cp "$busybox" "$tree/bin/busybox"
for a in awk cat cut ls mkdir mount mv poweroff readlink sed seq sh \
	sha256sum sync wc; do
	ln -s busybox "$tree/bin/$a"
done
cp "$here/root/init" "$tree/sbin/init"
chmod 755 "$tree/sbin/init"
echo "mkfs.sffs -r" >"$tree/etc/root-test/made-by"
ln -s made-by "$tree/etc/root-test/link"
"$tools/mkfs.sffs" -q -U -r "$tree" -o "$img" -e $erase -m 1 -c 64MiB
result $? "mkfs.sffs -r makes the root image"

# boot N ROOT: boot the image with root=ROOT; the boot's results join ours
boot() {
	local wd=$dir/boot-$1
	"$here/qemu-run" --no-initramfs --arch "$arch" --kernel "$kernel" \
		--name "root-test-$arch-$1" --workdir "$wd" --mem 256 \
		--qemu-arg=-drive --qemu-arg="$drive,file=$img" \
		--append "$append root=$2 rootfstype=sffs rw roottest=$1" \
		--timeout 300 >"$wd.txt" 2>&1
	boot_verdicts "$1" "$wd.txt"
}

# --- boot 1, root=mtd:NAME; boot 2, root=mtdN ------------------------------
echo "# boot 1: root=mtd:$name"
boot 1 "mtd:$name"
dev=$(sed -n 's/.*# ROOT \(mtd[0-9]*\) .*/\1/p' "$dir/boot-1/console.log" |
	tr -d '\r')
if [ -z "$dev" ]; then
	result 1 "boot 1 names the MTD device of /"
else
	echo "# boot 2: root=$dev"
	boot 2 "$dev"
fi

# --- the image on this host ------------------------------------------------
"$tools/fsck.sffs" -e $erase -m 1 "$img" >"$dir/fsck.txt" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$dir/fsck.txt"
result $rc "fsck.sffs finds no error in the image the boots left"
"$tools/unsffs" -e $erase -m 1 -x "$dir/extracted" "$img" >"$dir/unsffs.txt" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$dir/unsffs.txt"
result $rc "unsffs extracts the image"
for b in 1 2; do
	f=$dir/extracted/var/root-test/boot-$b
	[ -f "$f" ] && [ "$(sha256sum <"$f")" = "$(content $b | sha256sum)" ]
	result $? "the image holds boot $b's file"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
