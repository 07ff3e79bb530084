#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# am-check.sh TREE WORKTREE SERIESDIR RESULT
#
# Apply the exported series with "git am" onto a fresh checkout of the
# pristine base and check that the result is, file for file, the tree that
# was built and tested.  git am applies without fuzz, so any context drift
# fails here.
set -u

tree=$1 wt=$2 series=$3 result=$4
fail() {
	echo "FAIL am-check: $*"
	echo "am-check: 0 passed, 1 failed" | tee "$result"
	exit 1
}

"$(dirname "$0")/worktree.sh" "$tree" "$wt" || fail "worktree"
git -C "$wt" am --abort >/dev/null 2>&1
git -C "$wt" checkout -q --detach base && git -C "$wt" reset -q --hard base &&
	git -C "$wt" clean -q -fdx || fail "cannot reset $wt to base"

n=$(wc -l < "$series/series")
# shellcheck disable=SC2046
(cd "$series" && git -C "$wt" am -q --whitespace=error-all \
	$(sed "s|^|$series/|" series)) || fail "git am did not apply cleanly"
got=$(git -C "$wt" rev-parse 'HEAD^{tree}')
want=$(git -C "$tree" rev-parse 'series^{tree}')
[ "$got" = "$want" ] || fail "tree after git am ($got) differs from built tree ($want)"
[ "$(git -C "$wt" rev-list --count base..HEAD)" = "$n" ] || fail "commit count"
echo "PASS am-check: $n patches apply to base with git am, tree $got"
echo "am-check: 1 passed, 0 failed" | tee "$result"
