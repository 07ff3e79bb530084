#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# offcheck.sh TREE BUILD RESULT FRAGMENT...
#
# The series must cost nothing when none of its options is selected.  Build
# the pristine base and base+series from the same fragments, with every
# option of harness/configs/series.config turned off, and compare
# "size vmlinux": text, data and bss must be equal.
set -eu

tree=$1 build=$2 result=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
wt=$build/base-wt
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

# Same object directory name in both trees: the compiler sees the same
# relative paths, so the second build comes from ccache wherever the
# series did not change the source.
"$here/kbuild.sh" x86_64 "$wt" "$wt/.obj-offcheck" "$@" "$off" >/dev/null ||
	fail "base build"
"$here/kbuild.sh" x86_64 "$tree" "$tree/.obj-offcheck" "$@" "$off" >/dev/null ||
	fail "series build"
base=$(size "$wt/.obj-offcheck/vmlinux" | tail -n 1 | awk '{print $1, $2, $3}')
ours=$(size "$tree/.obj-offcheck/vmlinux" | tail -n 1 | awk '{print $1, $2, $3}')
echo "offcheck: text data bss: base $base, base+series (all off) $ours"
[ "$base" = "$ours" ] || fail "vmlinux size differs"
echo "PASS offcheck: series with every option off adds nothing to vmlinux"
echo "offcheck: 1 passed, 0 failed" | tee "$result"
