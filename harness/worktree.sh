#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# worktree.sh TREE WORKTREE
#
# Make WORKTREE a git worktree of TREE, detached at "base".  A worktree left
# over from an earlier TREE (re-created for another KERNEL_SRC, say) is
# removed and made again.
set -eu

tree=$1 wt=$2
want=$(cd "$tree" && cd "$(git rev-parse --git-common-dir)" && pwd)
have=$(cd "$wt" 2>/dev/null && cd "$(git rev-parse --git-common-dir 2>/dev/null)" 2>/dev/null && pwd) || have=
if [ "$have" != "$want" ]; then
	rm -rf "$wt"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$wt" base
fi
