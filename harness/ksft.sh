#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ksft.sh ARCH TREE OUT "TARGET..."
#
# Build the kselftest targets of TREE for ARCH, statically linked against
# the tree's own exported headers, and install them with run_kselftest.sh
# into OUT/install: the payload the test guests run, laid out exactly as
# "make -C tools/testing/selftests install" lays it out for a real board.
set -eu

arch=$1 tree=$2 out=$3 targets=$4
case "$arch" in
x86_64)	karch=x86_64; cross= ;;
arm)	karch=arm; cross=arm-linux-gnueabihf- ;;
*)	echo "ksft: unknown ARCH $arch" >&2; exit 1 ;;
esac

mkdir -p "$out/obj"
out=$(cd "$out" && pwd)
make -s -C "$tree" O="$out/obj" ARCH="$karch" CROSS_COMPILE="$cross" headers
rm -rf "$out/install"
make -s -C "$tree/tools/testing/selftests" O="$out/obj" ARCH="$karch" \
	CROSS_COMPILE="$cross" CC="${cross}gcc -static" TARGETS="$targets" \
	INSTALL_PATH="$out/install" install >/dev/null
echo "ksft: $targets for $arch in $out/install"
