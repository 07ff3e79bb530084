#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh ARCH SRC OBJ FRAGMENT...
#
# Configure and build a kernel out of tree: tinyconfig plus the given
# Kconfig fragments, built from source tree SRC into OBJ with ccache.  The
# configuration is regenerated only when a fragment changed, so an unchanged
# OBJ is an incremental build.  Every option a fragment asks for must
# survive "make olddefconfig": a symbol that silently drops out (a missing
# dependency, a typo) fails the build here instead of a test later.
set -eu

arch=$1 src=$2 obj=$3
shift 3

case "$arch" in
x86_64)	karch=x86_64; cross=; image=arch/x86/boot/bzImage ;;
arm)	karch=arm; cross=arm-linux-gnueabihf-; image=arch/arm/boot/zImage ;;
*)	echo "kbuild: unknown ARCH $arch (x86_64 or arm)" >&2; exit 1 ;;
esac

mkdir -p "$obj"
obj=$(cd "$obj" && pwd)
jobs=${JOBS:-$(nproc)}
# Fixed identity: two builds of the same code give the same vmlinux, which
# offcheck relies on.
export KBUILD_BUILD_TIMESTAMP='2026-01-01' KBUILD_BUILD_USER=series \
	KBUILD_BUILD_HOST=series KBUILD_BUILD_VERSION=1
kmake() {
	make -s -C "$src" O="$obj" ARCH="$karch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" HOSTCC="ccache gcc" LOCALVERSION= \
		-j"$jobs" "$@"
}

# bisect-check (KBUILD_LAX) builds one OBJ at each commit in turn: the
# Kconfig symbols differ between them, so the commit is an input too.
inputs=$({ cat "$@"; [ -z "${KBUILD_LAX:-}" ] ||
	   git -C "$src" rev-parse HEAD; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.config-inputs" 2>/dev/null)" != "$inputs" ]; then
	# Kconfig's "override" notes for the fragments' choice settings are
	# expected; keep them in a log, shown only if configuring fails.
	log=$obj/.config-log
	{ kmake tinyconfig &&
	  "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" &&
	  kmake olddefconfig; } >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
	missing=$(cat "$@" | sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)/\1/p' \
			-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1=n/p' |
		while IFS= read -r want; do
			sym=${want%%=*}
			case "$want" in
			*=n) if grep -q "^$sym=" "$obj/.config"; then echo "$want"; fi ;;
			*) grep -qx "$want" "$obj/.config" || echo "$want" ;;
			esac
		done)
	# bisect-check builds commits that predate some options (KBUILD_LAX):
	# an option may be missing there only if no Kconfig file of the
	# commit defines its symbol yet.
	if [ -n "$missing" ] && [ -n "${KBUILD_LAX:-}" ]; then
		missing=$(echo "$missing" | while IFS= read -r want; do
			sym=${want%%=*}
			if git -C "$src" grep -qE \
				"^[[:space:]]*(menu)?config[[:space:]]+${sym#CONFIG_}[[:space:]]*\$" \
				-- '*Kconfig*'; then
				echo "$want"
			fi
		done)
	fi
	if [ -n "$missing" ]; then
		echo "kbuild: options that did not take in $obj/.config:" >&2
		echo "$missing" | sed 's/^/  /' >&2
		exit 1
	fi
	echo "$inputs" > "$obj/.config-inputs"
fi

kmake
echo "kbuild: $arch $(du -h "$obj/$image" | cut -f1) $obj/$image"
