#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# offcheck.sh TREE BUILD RESULT FRAGMENT...
#
# The series must cost nothing when none of its options is selected.  For
# x86_64 and ARM (OFFCHECK_ARCHES), build the pristine base and
# base+series from tinyconfig, the architecture's fragment and the given
# fragments, with every option of harness/configs/series.config turned
# off, and compare the two vmlinux symbol by symbol (offcheck-syms.py,
# which says how symbols named after a line or a counter are matched):
# no symbol may change size, but the functions of the series' fixes of
# mainline code, which apply whatever the options, by the bytes
# harness/offcheck.allow gives; data and bss must be equal, and text may
# differ from what those functions changed by their alignment at most.
set -eu

tree=$1 build=$2 result=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
wt=$build/base-wt
arches=${OFFCHECK_ARCHES:-"x86_64 arm"}
fail() {
	echo "FAIL offcheck: $*"
	echo "offcheck: 0 passed, 1 failed" | tee "$result"
	exit 1
}

off=$build/series-off.config
sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/# \1 is not set/p' \
	"$here/configs/series.config" > "$off"

"$(dirname "$0")/worktree.sh" "$tree" "$wt"
git -C "$wt" checkout -q --detach base

for arch in $arches; do
	case $arch in
	arm) nm=arm-linux-gnueabihf-nm ;;
	*) nm=nm ;;
	esac
	# Same object directory name in both trees: the compiler sees the
	# same relative paths, so the second build comes from ccache
	# wherever the series did not change the source.
	obj=.obj-offcheck-$arch
	"$here/kbuild.sh" "$arch" "$wt" "$wt/$obj" \
		"$here/configs/$arch.config" "$@" "$off" >/dev/null ||
		fail "$arch base build"
	"$here/kbuild.sh" "$arch" "$tree" "$tree/$obj" \
		"$here/configs/$arch.config" "$@" "$off" >/dev/null ||
		fail "$arch series build"
	base=$(size "$wt/$obj/vmlinux" | tail -n 1 | awk '{print $1, $2, $3}')
	ours=$(size "$tree/$obj/vmlinux" | tail -n 1 | awk '{print $1, $2, $3}')
	echo "offcheck: $arch text data bss: base $base, base+series (all off) $ours"
	python3 "$here/offcheck-syms.py" "$nm" "$arch" "$wt/$obj/vmlinux" \
		"$tree/$obj/vmlinux" "$here/offcheck.allow" "$base" "$ours" ||
		fail "$arch: the series changes vmlinux with its options off"
done
echo "PASS offcheck: series with every option off adds nothing to vmlinux" \
	"but its fixes of mainline code"
echo "offcheck: 1 passed, 0 failed" | tee "$result"
