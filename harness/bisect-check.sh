#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh TREE WORKTREE FRAGMENT...
#
# Every commit of the series must build: check out each commit from base
# to series in a worktree of its own and build the tiny x86_64 kernel with
# every series option on.  Slow (one incremental build per commit), so it is
# not part of "make test".
set -eu

tree=$1 wt=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
"$(dirname "$0")/worktree.sh" "$tree" "$wt"
n=0
for c in $(git -C "$tree" rev-list --reverse base..series); do
	n=$((n + 1))
	git -C "$wt" checkout -q --detach "$c"
	echo "bisect-check: [$n] $(git -C "$wt" log -1 --format=%s)"
	KBUILD_LAX=1 "$here/kbuild.sh" x86_64 "$wt" "$wt/.obj" "$@" >/dev/null || {
		echo "bisect-check: FAIL at $(git -C "$wt" log -1 --format='%h %s')"
		exit 1
	}
done
echo "bisect-check: all $n commits build"
