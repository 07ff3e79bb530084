#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# overlay-test.sh ARCH KERNEL BUSYBOX TOOLS GUEST_MKFS OUT
#
# SFFS as the writable upper layer of an overlayfs over a squashfs root,
# booted the way OpenWrt boots: the kernel mounts the squashfs as / with
# no initramfs, and its /sbin/init (harness/overlay/init) mounts SFFS from
# the MTD partition "rootfs_data", an overlayfs of / and the SFFS on top,
# and pivots into it.  The flash is a file here:
#
#   ARCH arm     the second 64 MiB bank of the CFI NOR flash of -M virt,
#                split by mtdparts= into "rootfs" (8 MiB, the squashfs,
#                read through mtdblock: root=/dev/mtdblock1) and
#                "rootfs_data" (56 MiB, 256 KiB erase blocks)
#   ARCH x86_64  a virtio disk with two partitions: vda1 (8 MiB, the
#                squashfs, root=/dev/vda1) and vda2 (32 MiB), which
#                block2mtd makes the MTD device "rootfs_data" (128 KiB
#                erase blocks); one disk, so that the names do not depend
#                on the order in which parallel probing finds two
#
# The host makes the squashfs (mksquashfs) of a small tree: the static
# BUSYBOX, GUEST_MKFS (mkfs.sffs built static for the guest, the factory
# reset's tool), harness/overlay/init and changes.sh, an /etc, a
# directory to rename; and an empty SFFS image of rootfs_data (mkfs.sffs
# of TOOLS, built for this host).  It applies the changes of
# harness/overlay/changes.sh to copies of the tree and puts the manifests
# of the views the guest must see into the squashfs.  Four boots
# (harness/overlay/init says what each does): 1 changes and syncs, 2
# checks, changes, syncs and is power-cut (qemu-run --kill-after) while
# it changes more, 3 checks what survived, 4 makes a factory reset
# (mkfs.sffs of the partition) and checks that the squashfs's view is
# back.  After each boot fsck.sffs checks the partition here.
#
# Writes OUT/overlay-test-ARCH/ and ends with "N passed, N failed": each
# boot's checks, counted by harness/qemu-run, and the host's.  Prints the
# wall time of each boot.
set -uo pipefail
arch=$1 kernel=$2 busybox=$3 tools=$4 guest_mkfs=$5 out=$6
here=$(cd "$(dirname "$0")" && pwd)
umask 022

case $arch in
arm)
	erase=256KiB
	# the squashfs at 0, the SFFS partition from 8 MiB to the end
	part_off=8 part_size=56
	flash_mib=64
	drive=if=pflash,format=raw,unit=1
	# physmap probed synchronously, so that its partitions are mtd0-2
	# and root=/dev/mtdblock1 is stable (as in root-test.sh)
	append="mtdparts=0.flash:64m(pflash0)ro,8m(rootfs)ro,56m(rootfs_data)"
	append="$append driver_parallel_probe=*,!physmap-flash"
	append="$append root=/dev/mtdblock1"
	;;
x86_64)
	erase=128KiB
	# partition 1 from 1 MiB (8 MiB), partition 2 from 9 MiB (32 MiB:
	# the factory reset's mkfs.sffs erases all of it through block2mtd,
	# which writes every byte, about half a second a MiB under TCG)
	part_off=9 part_size=32
	flash_mib=41
	drive=if=virtio,format=raw
	append="block2mtd.block2mtd=/dev/vda2,$erase,rootfs_data"
	append="$append root=/dev/vda1"
	;;
*)	echo "overlay-test: unknown ARCH $arch (arm or x86_64)" >&2; exit 1 ;;
esac
append="$append rootfstype=squashfs rootwait"

dir=$out/overlay-test-$arch
img=$dir/flash.img
tree=$dir/tree
rm -rf "$dir"
mkdir -p "$dir"
pass=0 fail=0
start=$SECONDS

# shellcheck source=harness/verdicts.sh
. "$here/verdicts.sh"

# shellcheck source=harness/overlay/changes.sh
. "$here/overlay/changes.sh"

# --- the squashfs tree -------------------------------------------------------
mkdir -p "$tree"/{bin,sbin,proc,sys,dev,tmp,rom,mnt,overlay,lib/ovl-test} \
	"$tree"/{etc/config,usr/bin,usr/share/olddir/sub,www,var}
cp "$busybox" "$tree/bin/busybox"
for a in awk cat chmod cmp cut diff dmesg find grep head ln ls mkdir mount \
	mv pivot_root poweroff printf readlink rm sed sh sha256sum sort stat \
	sync wc; do
	ln -s busybox "$tree/bin/$a"
done
cp "$here/overlay/init" "$tree/sbin/init"
cp "$guest_mkfs" "$tree/sbin/mkfs.sffs"
chmod 755 "$tree/sbin/init" "$tree/sbin/mkfs.sffs"
cp "$here/overlay/changes.sh" "$tree/lib/ovl-test/"
echo "SFFS overlay test" >"$tree/etc/banner"
echo "export PATH=/bin:/sbin" >"$tree/etc/profile"
echo "root:*:0:0:99999:7:::" >"$tree/etc/shadow"
printf 'config system\n\toption hostname lower\n' >"$tree/etc/config/system"
printf 'config dropbear\n\toption Port 22\n' >"$tree/etc/config/dropbear"
printf '#!/bin/sh\necho old\n' >"$tree/usr/bin/oldtool"
echo a >"$tree/usr/share/olddir/a"
echo b >"$tree/usr/share/olddir/b"
echo c >"$tree/usr/share/olddir/sub/c"
echo "<p>lower</p>" >"$tree/www/index.html"
echo "body {}" >"$tree/www/style.css"
chmod 755 "$tree/usr/bin/oldtool"
chmod 644 "$tree/etc/shadow"

# --- the views the guest must see --------------------------------------------
manifest "$tree" >"$dir/view-0"
cp -a "$tree" "$dir/view"
R=$dir/view
change1
result $? "change1 on this host"
manifest "$R" >"$dir/view-1"
change2
result $? "change2 on this host"
manifest "$R" >"$dir/view-2"
cp "$dir"/view-[012] "$tree/lib/ovl-test/"

# --- the flash -------------------------------------------------------------------
mksquashfs "$tree" "$dir/rootfs.sqfs" -all-root -comp gzip -noappend \
	-quiet >"$dir/mksquashfs.txt" 2>&1
rc=$?
[ "$(stat -c %s "$dir/rootfs.sqfs" 2>/dev/null || echo 0)" -le $((8 << 20)) ] ||
	rc=1
[ $rc = 0 ] || sed 's/^/# /' "$dir/mksquashfs.txt"
result $rc "mksquashfs makes the root image ($(du -k "$dir/rootfs.sqfs" | cut -f1) KiB)"
"$tools/mkfs.sffs" -q -o "$dir/overlay.img" -e $erase -m 1 -c ${part_size}MiB
result $? "mkfs.sffs makes the empty overlay image"

truncate -s ${flash_mib}M "$img"
if [ "$arch" = x86_64 ]; then
	printf 'start=1MiB, size=8MiB, type=83\nstart=9MiB, size=32MiB, type=83\n' |
		sfdisk -q "$img" >"$dir/sfdisk.txt" 2>&1
	result $? "sfdisk partitions the disk"
	dd if="$dir/rootfs.sqfs" of="$img" bs=1M seek=1 conv=notrunc status=none
else
	# an erased NOR flash reads 0xff
	tr '\0' '\377' </dev/zero | dd of="$img" bs=1M count=$flash_mib \
		iflag=fullblock status=none
	dd if="$dir/rootfs.sqfs" of="$img" conv=notrunc status=none
fi
dd if="$dir/overlay.img" of="$img" bs=1M seek=$part_off conv=notrunc status=none

# fsck_part WHEN: fsck.sffs of the SFFS partition as the boots left it
fsck_part() {
	dd if="$img" of="$dir/part.img" bs=1M skip=$part_off count=$part_size \
		status=none
	"$tools/fsck.sffs" -e $erase -m 1 "$dir/part.img" >"$dir/fsck-$1.txt" 2>&1
	rc=$?
	[ $rc = 0 ] || sed 's/^/# /' "$dir/fsck-$1.txt"
	result $rc "fsck.sffs finds no error in rootfs_data after boot $1"
	rm -f "$dir/part.img"
}

# boot N [QEMU-RUN ARGS]: boot with ovltest=N; the boot's results join ours
boot() {
	local b=$1 wd=$dir/boot-$1 t0=$SECONDS
	shift
	"$here/qemu-run" --no-initramfs --arch "$arch" --kernel "$kernel" \
		--name "overlay-test-$arch-$b" --workdir "$wd" --mem 256 \
		--qemu-arg=-drive --qemu-arg="$drive,file=$img" \
		--append "$append ovltest=$b" --timeout 300 "$@" >"$wd.txt" 2>&1
	boot_verdicts "$b" "$wd.txt"
	echo "# boot $b: $((SECONDS - t0)) s"
	fsck_part "$b"
}

echo "# boot 1: change1, sync"
boot 1
echo "# boot 2: check, change2, sync, more changes and a power cut"
boot 2 --kill-after 'ovl-test: power cut now' --kill-delay 2
echo "# boot 3: what survived the power cut"
boot 3
echo "# boot 4: factory reset"
boot 4
echo "# overlay-test-$arch: $((SECONDS - start)) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
