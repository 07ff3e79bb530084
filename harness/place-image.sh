#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# place-image.sh TOOLS ARCH OUT
#
# The payload of the sffs kselftest's place_test: OUT/tree, a small tree
# (random files, a directory, a symlink, a hard link) of about 1.5 MiB,
# so that it spans the bad blocks the test marks; OUT/place.img, the
# image mkfs.sffs -t -r (TOOLS, built for the host) makes of it for the
# guests' 1 GiB nandsim; and, for an x86_64 guest, OUT/mtd-utils: the
# host's nandwrite and flash_erase (Debian's mtd-utils) with the dynamic
# loader and libc they need, which the guest runs through the loader.
set -euo pipefail
tools=$1 arch=$2 out=$3

rm -rf "$out"
mkdir -p "$out/tree/dir/sub"
for i in 0 1 2 3 4; do
	head -c $((300000 + i * 4096)) /dev/urandom >"$out/tree/dir/f$i"
done
echo "a file of text" >"$out/tree/text"
ln -s dir/f0 "$out/tree/link"
ln "$out/tree/dir/f1" "$out/tree/hardlink"
"$tools/mkfs.sffs" -q -t -o "$out/place.img" -e 128K -m 2K -c 1G \
	-r "$out/tree"

[ "$arch" = x86_64 ] || exit 0
nw=$(command -v nandwrite || echo /usr/sbin/nandwrite)
fe=$(command -v flash_erase || echo /usr/sbin/flash_erase)
if [ ! -x "$nw" ] || [ ! -x "$fe" ]; then
	echo "place-image: no mtd-utils on the host: the guest test is skipped" >&2
	exit 0
fi
mkdir -p "$out/mtd-utils"
cp "$nw" "$fe" "$out/mtd-utils/"
for f in "$nw" "$fe"; do ldd "$f"; done |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*[^:]$/ { print $1 }' |
	sort -u | while read -r lib; do
		cp -L "$lib" "$out/mtd-utils/$(basename "$lib")"
	done
