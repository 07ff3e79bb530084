#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh DLDIR
#
# Install what building and testing the series needs on Debian 12, and
# unpack the armhf static busybox for the ARM guests into DLDIR.  Everything
# comes from Debian's archive; nothing is downloaded from elsewhere.  Quick
# when all is there already.
set -eu

dl=$1
pkgs="linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev
	ccache cpio xz-utils python3 rsync busybox-static
	qemu-system-x86 qemu-system-arm gcc-arm-linux-gnueabihf
	libc6-dev-armhf-cross linux-libc-dev-armhf-cross gnuplot-nox
	attr liblzo2-dev libzstd-dev strace valgrind squashfs-tools fdisk
	mtd-utils"

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
# The ARM guests run Debian's armhf busybox-static.
need_update=
if ! dpkg --print-foreign-architectures | grep -qx armhf; then
	$SUDO dpkg --add-architecture armhf
	need_update=y
fi
[ -x "$dl/busybox-armhf/bin/busybox" ] || need_update=y
# A mirror caught mid-sync serves an index whose size does not match its
# Release file, and apt-get update then fails although every index we need
# may be fine.  Try again after a pause; if the mirror is still not
# consistent, go on with what was fetched: apt-get install and download
# below fail clearly if a package we need is really not there.
apt_update() {
	for delay in 15 45; do
		$SUDO apt-get update -qq && return 0
		echo "deps: apt-get update failed, trying again in ${delay}s" >&2
		sleep "$delay"
	done
	$SUDO apt-get update -qq && return 0
	echo "deps: apt-get update still failing; going on with the indexes it fetched" >&2
}
apt_opts="-o Acquire::Retries=3"
if [ -n "$missing" ] || [ -n "$need_update" ]; then
	echo "deps: apt-get update"
	apt_update
fi
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install $apt_opts -y -qq \
		$missing >/dev/null
fi

if [ ! -x "$dl/busybox-armhf/bin/busybox" ]; then
	mkdir -p "$dl"
	(cd "$dl" && rm -f busybox-static_*_armhf.deb &&
	 apt-get download $apt_opts -q -o APT::Sandbox::User=root \
		busybox-static:armhf >/dev/null)
	rm -rf "$dl/busybox-armhf"
	dpkg-deb -x "$dl"/busybox-static_*_armhf.deb "$dl/busybox-armhf"
fi
file_info=$(od -An -tx1 -N20 "$dl/busybox-armhf/bin/busybox" | tr -d ' \n')
case "$file_info" in
7f454c46010101*) ;;
*) echo "deps: $dl/busybox-armhf/bin/busybox is not a 32-bit ELF" >&2; exit 1 ;;
esac
[ -x /bin/busybox ] || { echo "deps: /bin/busybox missing" >&2; exit 1; }
