#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# base-tree.sh TREE [KERNEL_SRC]
#
# Make TREE a git repository whose first commit, tagged "base", is the
# pristine 6.1 base: Debian's linux-source-6.1 tarball, or the user's own
# vendor tree when KERNEL_SRC is given.  An existing TREE made from the same
# source is left alone, so re-running costs nothing; a different source
# starts over.
set -eu

tree=$1
src=${2:-}
tarball=${BASE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

if [ -n "$src" ]; then
	[ -f "$src/Makefile" ] || { echo "base-tree: $src is not a kernel tree" >&2; exit 1; }
	origin="dir:$(cd "$src" && pwd)"
else
	[ -f "$tarball" ] || { echo "base-tree: $tarball missing (apt-get install linux-source-6.1)" >&2; exit 1; }
	origin="tarball:$tarball:$(stat -c %s:%Y "$tarball")"
fi

if [ -f "$tree/.git/series-base" ] && [ "$(cat "$tree/.git/series-base")" = "$origin" ] &&
   git -C "$tree" rev-parse -q --verify base >/dev/null; then
	exit 0
fi

echo "base-tree: creating $tree from ${src:-$tarball}"
rm -rf "$tree"
mkdir -p "$tree"
if [ -n "$src" ]; then
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		# Committed state only: local edits of the vendor tree are not
		# part of the base.
		git -C "$src" archive --format=tar HEAD | tar -x -C "$tree"
	else
		(cd "$src" && tar -c --exclude=.git .) | tar -x -C "$tree"
	fi
else
	tar -x -f "$tarball" -C "$tree" --strip-components=1
fi

cd "$tree"
git init -q -b base-import
git config user.name "series base"
git config user.email "base@localhost"
git config gc.auto 0
# The kernel's own .gitignore keeps build products out; O= builds keep the
# tree clean anyway.
git add -A -f .
GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
	git commit -q -m "base: $(make -s kernelversion 2>/dev/null || echo unknown) from ${src:-$tarball}"
git tag -f base >/dev/null
echo "$origin" > .git/series-base
echo "base-tree: base is $(git rev-parse --short base), $(git ls-files | wc -l) files"
