#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# test.sh [BINDIR]: build images of a generated tree with mkfs.sffs in
# three geometries, check them with dump.sffs and fsck.sffs, and check
# that both notice a flipped byte, that fsck.sffs names each damage
# corrupt.sffs does and that fsck.sffs -y repairs it, its own check of
# the result finding nothing left.  TAP output; exit status 1 on failure.
# Needs setfattr and getfattr (Debian: attr).
set -u
bin=${1:-$(dirname "$0")}
[ -n "$bin" ] || bin=.
# absolute: some steps run from another directory
bin=$(cd "$bin" && pwd) || exit 1
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
n=0
fail=0

ok()
{
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fail=1
	fi
}

t=$work/tree
mkdir -p "$t/dir/sub" "$t/many"
for s in 0 1 4095 4096 4097 1048576; do
	head -c "$s" /dev/urandom >"$t/size$s"
done
{ head -c 4096 /dev/urandom; head -c 4096 /dev/zero;
  head -c 100 /dev/urandom; } >"$t/hole"
echo nested >"$t/dir/sub/file"
ln -s dir/sub/file "$t/symlink"
ln "$t/size4097" "$t/hardlink"
mkfifo "$t/fifo"
long=$(printf '%04095d' 0 | tr 0 x)
# extended attributes: an empty value, a long one, and trusted.* (as
# overlayfs sets it) where the test runs as root
setfattr -n user.color -v blue "$t/size1"
setfattr -n user.empty "$t/dir"
setfattr -n user.long -v "$(printf '%03000d' 7)" "$t/dir/sub/file"
nxattr=3
if [ "$(id -u)" = 0 ]; then
	setfattr -n trusted.overlay.opaque -v y "$t/dir/sub"
	nxattr=4
fi
i=0
while [ "$i" -lt 300 ]; do
	: >"$t/many/f$i"
	i=$((i + 1))
done

for geo in "128K 2K 64M" "256K 4K 64M" "64K 1 8M"; do
	set -- $geo
	img=$work/img
	rc=0
	"$bin/mkfs.sffs" -q -o "$img" -e "$1" -m "$2" -c "$3" -r "$t" || rc=1
	ok "$rc" "mkfs.sffs -r, erase $1 write $2"
	rc=0
	"$bin/dump.sffs" -l -e "$1" -m "$2" "$img" >"$work/dump" || rc=1
	for f in size0 size1 size4095 size4096 size4097 size1048576 hole \
		 dir/sub/file symlink hardlink fifo many/f0 many/f299; do
		grep -q " /$f\( \|$\)" "$work/dump" || {
			echo "# /$f missing"
			rc=1
		}
	done
	grep -q "^- 0644 2 4097 .* /hardlink$" "$work/dump" || rc=1
	grep -q " /symlink -> dir/sub/file$" "$work/dump" || rc=1
	[ "$(grep -c ' /many/' "$work/dump")" -eq 300 ] || rc=1
	grep -q "^- [0-7]* 1 8292 .* /hole$" "$work/dump" || rc=1
	grep -q "^xattrs: $nxattr$" "$work/dump" || rc=1
	ok "$rc" "dump.sffs lists the tree, erase $1 write $2"
	rc=0
	"$bin/fsck.sffs" -e "$1" -m "$2" "$img" >"$work/fsck" || rc=1
	grep -q "^errors: 0$" "$work/fsck" || rc=1
	grep -q "^inodes: 314$" "$work/fsck" || rc=1
	grep -q "^orphans: 0$" "$work/fsck" || rc=1
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/fsck"
	ok "$rc" "fsck.sffs finds no error, erase $1 write $2"
done

# reproducible images: with SOURCE_DATE_EPOCH set, the same tree gives
# the same bytes after its times moved on (touched, read) and when its
# files were made in another order; a -u UUID is taken as given
sde=1700000000
rc=0
SOURCE_DATE_EPOCH=$sde "$bin/mkfs.sffs" -q -o "$work/rep1" -e 128K -m 2K \
	-c 16M -r "$t" || rc=1
find "$t" -exec touch -h {} + && cat "$t/size4096" >/dev/null
SOURCE_DATE_EPOCH=$sde "$bin/mkfs.sffs" -q -o "$work/rep2" -e 128K -m 2K \
	-c 16M -r "$t" || rc=1
cmp "$work/rep1" "$work/rep2" || rc=1
ok "$rc" "mkfs.sffs -r makes the same image twice, times touched between"
# ext4 lists a directory in hash order whatever the order of creation;
# tmpfs lists it newest first, so two copies of the tree, one made in
# order and one in reverse order, go there when there is one
rc=0
for o in fwd rev; do
	d=$(mktemp -d -p /dev/shm 2>/dev/null) || d=$(mktemp -d -p "$work")
	eval "$o=\$d"
	chmod --reference="$t" "$d"
	[ "$o" = fwd ] && sort="sort" || sort="sort -r"
	(cd "$t" && find . -mindepth 1 | $sort >"$work/list" &&
		tar --no-recursion -T "$work/list" -cf - | tar -C "$d" -xpf -) ||
		rc=1
	SOURCE_DATE_EPOCH=$sde "$bin/mkfs.sffs" -q -o "$work/rep-$o" -e 128K \
		-m 2K -c 16M -r "$d" || rc=1
done
[ "$(ls -f "$fwd" | head -3)" != "$(ls -f "$rev" | head -3)" ] ||
	echo "# readdir gives the same order in both copies"
cmp "$work/rep-fwd" "$work/rep-rev" || rc=1
rm -rf "$fwd" "$rev"
ok "$rc" "mkfs.sffs -r makes the same image of a tree made in reverse order"
rc=0
"$bin/mkfs.sffs" -q -o "$work/rep2" -e 128K -m 2K -c 16M -r "$t" || rc=1
cmp -s "$work/rep1" "$work/rep2" && rc=1
"$bin/dump.sffs" "$work/rep1" | grep -q "^uuid: 97869f5e940584aca0f6a4bf6375cf4d$" ||
	rc=1
SOURCE_DATE_EPOCH=$sde "$bin/mkfs.sffs" -q -o "$work/rep2" -e 128K -m 2K \
	-c 16M -u 01234567-89ab-cdef-0123-456789abcdef || rc=1
"$bin/dump.sffs" "$work/rep2" | grep -q "^uuid: 0123456789abcdef0123456789abcdef$" ||
	rc=1
SOURCE_DATE_EPOCH=x "$bin/mkfs.sffs" -q -o "$work/rep2" -e 128K -m 2K \
	-c 16M 2>/dev/null && rc=1
ok "$rc" "SOURCE_DATE_EPOCH unset: another image; set: its UUID; -u UUID"

# unsffs extracts what mkfs.sffs -r copied: contents, types, modes,
# owners, times, link counts, symlink targets, device numbers and
# extended attributes are those of the source tree.  Not the access time
# of symlinks: reading one (the listing does) sets it, as its change time,
# the time of the extraction, is later.
listing()
{
	(cd "$1" && find . \( -type d -printf '%p d %m %U %G %T@\n' \) -o \
		\( -type l -printf '%p l %U %G %T@ %n %l\n' \) -o \
		-printf '%p %y %m %U %G %s %T@ %A@ %n\n' | sort
	 find . \( -type b -o -type c \) -exec stat -c '%n %t:%T' {} + | sort
	 getfattr -R -h -d -m - . 2>/dev/null)
}
xt=$work/xtree
cp -a "$t" "$xt"
ln -s "$long" "$xt/dir/longlink"
touch -h -d @1600000000.5 "$xt/size0" "$xt/dir/longlink"
if [ "$(id -u)" = 0 ]; then
	mknod "$xt/null" c 1 3
	mknod "$xt/dir/blk" b 259 300000	# minor above 255
	chown 1234:5678 "$xt/size1" "$xt/dir"
	chown -h 4321:8765 "$xt/symlink"
	setfattr -h -n trusted.t -v 1 "$xt/symlink"
fi
# after chown, which clears them
chmod 4750 "$xt/size1"
chmod 1777 "$xt/dir/sub"
listing "$xt" >"$work/want"
rc=0
"$bin/mkfs.sffs" -q -o "$work/ximg" -e 128K -m 2K -c 16M -r "$xt" || rc=1
"$bin/unsffs" -D -p -x "$work/out" "$work/ximg" >"$work/unsffs" 2>&1 || rc=1
listing "$work/out" >"$work/got"
diff -u "$work/want" "$work/got" | head -20 | sed 's/^/# /' | cut -c1-200
cmp -s "$work/want" "$work/got" || rc=1
diff -r --no-dereference "$xt" "$work/out" 2>&1 | grep -v " while file .* is a " &&
	rc=1
[ "$(stat -c %i "$work/out/hardlink")" = "$(stat -c %i "$work/out/size4097")" ] ||
	rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/unsffs"
lines=$(wc -l <"$work/want")
ok "$rc" "unsffs -x extracts the tree mkfs.sffs -r was given ($lines lines listed)"

# each file is made and its attributes set relative to a descriptor of
# its directory (or through its own), never by a path from DEST down
# that a symlink swapped in could redirect
if command -v strace >/dev/null; then
	rc=0
	calls=chmod,fchmod,fchmodat,chown,lchown,fchownat,utimensat,open,openat
	strace -f -qq -o "$work/strace" -e trace=$calls,mkdir,mkdirat,mknodat \
		"$bin/unsffs" -D -p -x "$work/sout" "$work/ximg" >/dev/null 2>&1 ||
		rc=1
	grep -E "(chmod|chown|utimensat|mkdir|mknod|open|openat)\((AT_FDCWD, )?\"$work/sout/" \
		"$work/strace" | head -5 | sed 's/^/# /' | grep . && rc=1
	grep -Eq "^[0-9]+ +fchmod\([0-9]+, 04750\)" "$work/strace" || rc=1
	ok "$rc" "unsffs -x works relative to directory descriptors (strace)"
fi

# as another user: owners, device nodes and trusted.* are reported, the
# rest is extracted; unsffs -l lists without extracting
rc=0
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$work"
	mkdir "$work/user" && chown nobody "$work/user"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$bin/unsffs" -D -p -x "$work/user/out" "$work/ximg" >"$work/unsffs" 2>&1 ||
		rc=1
	grep -q "^unsffs: not root: the owners of [0-9]* files not set$" \
		"$work/unsffs" || rc=1
	grep -q "^unsffs: 2 device nodes not made (not root)$" "$work/unsffs" ||
		rc=1
	grep -q "^unsffs: [0-9]* extended attributes not set" "$work/unsffs" ||
		rc=1
	cmp -s "$work/out/dir/sub/file" "$work/user/out/dir/sub/file" || rc=1
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/unsffs"
else
	echo "# not root: the extraction as another user is not tried"
fi
"$bin/unsffs" -l "$work/ximg" >"$work/list" || rc=1
grep -q "^-4750 [0-9]*/[0-9]* 1 .* /size1$" "$work/list" || rc=1
grep -q "^  xattr user.color (4 bytes)$" "$work/list" || rc=1
grep -q "^l0777 .* 4095 2020-09-13 12:26:40 /dir/longlink -> x*$" "$work/list" ||
	rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/list" | cut -c1-200
ok "$rc" "unsffs as another user reports what it could not set; unsffs -l lists"

# an image is not trusted: without -D no device node, without -p no
# set-user-ID bit and no security.* or trusted.* attribute, each said;
# a DIR that was there keeps its mode (the sticky bit of a /tmp) and owner
rc=0
mkdir "$work/np" && chmod 1777 "$work/np"
owner=$(stat -c %u:%g "$work/np")
"$bin/unsffs" -x "$work/np" "$work/ximg" >"$work/unsffs" 2>&1 || rc=1
[ "$(stat -c %a "$work/np")" = 1777 ] || rc=1
[ "$(stat -c %u:%g "$work/np")" = "$owner" ] || rc=1
grep -q "^unsffs: $work/np existed: its mode, owner and times are kept$" \
	"$work/unsffs" || rc=1
[ "$(stat -c %a "$work/np/size1")" = 750 ] || rc=1
grep -q "^unsffs: 1 set-user-ID or set-group-ID bits not set (no -p)$" \
	"$work/unsffs" || rc=1
if [ "$(id -u)" = 0 ]; then
	[ -e "$work/np/null" ] && rc=1
	grep -q "^unsffs: 2 device nodes not made (no -D)$" "$work/unsffs" ||
		rc=1
	getfattr -h -n trusted.t "$work/np/symlink" >/dev/null 2>&1 && rc=1
	grep -q "^unsffs: 2 security.\* or trusted.\* attributes not set (no -p)$" \
		"$work/unsffs" || rc=1
fi
cmp -s "$work/out/dir/sub/file" "$work/np/dir/sub/file" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/unsffs"
ok "$rc" "unsffs without -D and -p leaves out devices and privileges; DIR kept"

# trusted.* is only listed to root: mkfs.sffs as another user says so,
# once; -X leaves out the attributes of a prefix
rc=0
"$bin/mkfs.sffs" -q -o "$work/ximg2" -e 128K -m 2K -c 16M -X user.col \
	-X user.lo -r "$t" 2>"$work/mkfs" || rc=1
"$bin/dump.sffs" -l "$work/ximg2" >"$work/dump2" || rc=1
grep -q "^xattrs: $((nxattr - 2))$" "$work/dump2" || rc=1
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	! grep -q "not root" "$work/mkfs" || rc=1
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$bin/mkfs.sffs" -q -o "$work/user/img" -e 128K -m 2K -c 16M \
		-r "$t" 2>"$work/mkfs" || rc=1
	msg="^mkfs.sffs: not root: trusted.\* attributes not copied$"
	[ "$(grep -c "$msg" "$work/mkfs")" = 1 ] || rc=1
	"$bin/dump.sffs" -l "$work/user/img" >"$work/dump2" || rc=1
	grep -q "^xattrs: $((nxattr - 1))$" "$work/dump2" || rc=1
fi
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/mkfs"
ok "$rc" "mkfs.sffs as another user says trusted.* is not copied; -X"

# a name that would lead out of the directory extracted to is refused,
# and the rest extracted
rc=0
"$bin/corrupt.sffs" "$work/ximg" escape || rc=1
mkdir -p "$work/esc/a/b"
"$bin/unsffs" -x "$work/esc/a/b/out" "$work/ximg" >"$work/unsffs" 2>&1 && rc=1
grep -q "^unsffs: $work/esc/a/b/out: bad name in directory 2$" "$work/unsffs" ||
	rc=1
[ -e "$work/esc/a/b/out/dir/sub/file" ] || rc=1
[ -z "$(find "$work/esc" -maxdepth 2 -type f)" ] || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/unsffs"
ok "$rc" "unsffs refuses a name that leads out of its directory"

# nodes too short for their type, a length inside one too long, an
# address that wraps, all with right checksums: unsffs refuses each node
# with a clear error and exits with 1, reading nothing past what it read
# (under valgrind when there is one)
vg=
command -v valgrind >/dev/null && vg="valgrind -q --error-exitcode=99"
"$bin/mkfs.sffs" -q -o "$work/cimg0" -e 128K -m 2K -c 16M -r "$t" || rc=1
for what in short-inode short-data short-dentry short-xattr symlen far dag; do
	rc=0
	cp "$work/cimg0" "$work/cimg"
	"$bin/corrupt.sffs" "$work/cimg" "$what" || rc=1
	rm -rf "$work/cout"
	$vg "$bin/unsffs" -l -x "$work/cout" "$work/cimg" >"$work/unsffs" 2>&1
	st=$?
	[ "$st" -eq 1 ] || rc=1
	if [ "$what" = dag ]; then
		grep -q "^unsffs: index node at [0-9]*: keys out of order$" \
			"$work/unsffs" || rc=1
	else
		grep -q "^unsffs: bad node at [0-9]*" "$work/unsffs" || rc=1
		[ -e "$work/cout/dir/sub/file" ] || rc=1
	fi
	[ "$rc" -eq 0 ] || {
		echo "# exit status $st"
		sed 's/^/# /' "$work/unsffs" | cut -c1-200 | tail -20
	}
	ok "$rc" "unsffs refuses a crafted node: $what${vg:+ (valgrind)}"
done

# replay goes on after a torn write, to the next journal block, as the
# kernel's replay.c does: the inode written there wins
rc=0
cp "$work/cimg0" "$work/cimg"
"$bin/corrupt.sffs" "$work/cimg" jtorn || rc=1
"$bin/unsffs" -l "$work/cimg" >"$work/list" 2>"$work/unsffs" || rc=1
grep -q "^-0602 .* /size1$" "$work/list" || rc=1
grep -q "^unsffs: 2 journal nodes applied, the last write torn$" \
	"$work/unsffs" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/unsffs" "$work/list" | grep -v many/
ok "$rc" "unsffs replays the journal block after a torn write"

# a journal node too short for its type is a torn write to replay, as
# sffs_node_check() makes it to the kernel: what follows is not applied
rc=0
cp "$work/cimg0" "$work/cimg"
"$bin/corrupt.sffs" "$work/cimg" jshort || rc=1
$vg "$bin/unsffs" -l "$work/cimg" >"$work/list" 2>"$work/unsffs" || rc=1
grep -q "^-0601 .* /size1$" "$work/list" || rc=1
grep -q "^unsffs: 1 journal nodes applied, the last write torn$" \
	"$work/unsffs" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/unsffs" "$work/list" | grep -v many/
ok "$rc" "unsffs takes a journal node too short for its type for a torn write"

# a symlink target of PATH_MAX - 1 bytes is kept whole, and only a tree
# with a target longer than 3840 bytes turns on the incompatible feature
# for it; every image has the one that has its first mount place it
# (0x2, SFFS_FEAT_INCOMPAT_PLACE), and the one that lets the kernel pack
# index nodes (0x8) unless mkfs.sffs -P said not to
rc=0
grep -q "^features: .* incompat 0xa$" "$work/dump" || rc=1
mkdir -p "$work/long"
ln -s "$long" "$work/long/link"
"$bin/mkfs.sffs" -q -o "$work/longimg" -e 128K -m 2K -c 16M -r "$work/long" ||
	rc=1
"$bin/dump.sffs" -l "$work/longimg" >"$work/dump2" || rc=1
grep -q "^features: .* incompat 0xb$" "$work/dump2" || rc=1
"$bin/mkfs.sffs" -q -P -o "$work/plainimg" -e 128K -m 2K -c 16M || rc=1
"$bin/dump.sffs" "$work/plainimg" >"$work/dump3" || rc=1
grep -q "^features: .* incompat 0x2$" "$work/dump3" || rc=1
grep -q " /link -> $long$" "$work/dump2" || rc=1
"$bin/fsck.sffs" "$work/longimg" >"$work/fsck" || rc=1
grep -q "^errors: 0$" "$work/fsck" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/dump2" "$work/fsck" | cut -c1-200
ok "$rc" "mkfs.sffs -r keeps a 4095-byte symlink, with its feature flag; -P leaves packing off"

# -t: the image ends before the journal's first block, which a flasher
# then leaves erased; the tools take it whole, as the kernel's first
# mount does
rc=0
listing "$xt" >"$work/twant"
"$bin/mkfs.sffs" -q -t -o "$work/timg" -e 128K -m 2K -c 16M -r "$xt" || rc=1
tsize=$(stat -c %s "$work/timg")
[ "$tsize" -gt 0 ] && [ "$tsize" -lt $((16 << 20)) ] &&
	[ $((tsize % (128 << 10))) -eq 0 ] || rc=1
"$bin/mkfs.sffs" -q -o "$work/fimg" -e 128K -m 2K -c 16M -r "$xt" || rc=1
tail -c +$((tsize + 1)) "$work/fimg" | tr -d '\377' | cmp -s - /dev/null ||
	rc=1
"$bin/fsck.sffs" "$work/timg" >"$work/fsck" || rc=1
grep -q "^errors: 0$" "$work/fsck" || rc=1
rm -rf "$work/tout"
"$bin/unsffs" -D -p -x "$work/tout" "$work/timg" >/dev/null 2>&1 || rc=1
listing "$work/tout" >"$work/got"
diff -u "$work/twant" "$work/got" | head -20 | sed 's/^/# /' | cut -c1-200
cmp -s "$work/twant" "$work/got" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/fsck" | head -20
ok "$rc" "mkfs.sffs -t ends the image after its data ($tsize bytes); fsck.sffs and unsffs read it"

# the flag lost: a kernel without the feature would take the node for a
# torn write, and fsck.sffs says so
rc=0
"$bin/corrupt.sffs" "$work/longimg" longlink || rc=1
"$bin/fsck.sffs" "$work/longimg" >"$work/fsck"
[ $? -eq 4 ] || rc=1
grep -q "^error: inode [0-9]*: symlink of 4095 bytes, but no long-symlink feature$" \
	"$work/fsck" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/fsck"
ok "$rc" "fsck.sffs finds a long symlink without its feature flag"

# fsck.sffs names each kind of damage, and exits with 4; -y repairs it:
# exit status 1, and a check of the repaired image finds no error
for what in "nlink:link count 3, should be 2" \
	    "unlinked:has no link and no orphan record" \
	    "dangling:names inode 999999, which does not exist" \
	    "hash:name size2 is filed under another hash" \
	    "dirnames:has 2 names" \
	    "space:is not the [0-9]* there are"; do
	kind=${what%%:*}
	rc=0
	"$bin/mkfs.sffs" -q -o "$work/bad" -e 128K -m 2K -c 16M -r "$t" || rc=1
	"$bin/corrupt.sffs" "$work/bad" "$kind" || rc=1
	"$bin/fsck.sffs" "$work/bad" >"$work/fsck"
	[ $? -eq 4 ] || rc=1
	grep -q "^error: .*${what#*:}" "$work/fsck" || rc=1
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/fsck"
	ok "$rc" "fsck.sffs finds damage: $kind"
	rc=0
	"$bin/fsck.sffs" -y "$work/bad" >"$work/fsck"
	[ $? -eq 1 ] || rc=1
	grep -q "^repair: " "$work/fsck" || rc=1
	"$bin/fsck.sffs" "$work/bad" >"$work/fsck2"
	[ $? -eq 0 ] || rc=1
	grep -q "^errors: 0$" "$work/fsck2" || rc=1
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/fsck" "$work/fsck2"
	ok "$rc" "fsck.sffs -y repairs damage: $kind"
done

# what the repairs did: a lost file in /lost+found, the link count
# right, the space counted right, every file still there
rc=0
"$bin/mkfs.sffs" -q -o "$work/bad" -e 128K -m 2K -c 16M -r "$t" || rc=1
"$bin/corrupt.sffs" "$work/bad" dangling || rc=1
"$bin/fsck.sffs" -y -v "$work/bad" >"$work/fsck"
grep -q "^repair: inode [0-9]* goes to /lost+found/#[0-9]*$" "$work/fsck" ||
	rc=1
grep -q "^inodes: 315$" "$work/fsck" || rc=1
"$bin/fsck.sffs" -y "$work/bad" >"$work/fsck2"
[ $? -eq 0 ] || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/fsck" "$work/fsck2"
ok "$rc" "fsck.sffs -y links a lost file in /lost+found, then finds nothing"

# a journal the kernel did not commit is not written to
rc=0
"$bin/corrupt.sffs" "$work/bad" nlink || rc=1
"$bin/fsck.sffs" -y "$work/bad" >"$work/fsck"
[ $? -eq 4 ] || rc=1
grep -q "^repair: there is a journal to replay" "$work/fsck" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$work/fsck"
ok "$rc" "fsck.sffs -y leaves a journal to replay alone"

# one flipped byte in the first node after the anchor must be found
size=$(stat -c %s "$img")
printf '\001' | dd of="$img" bs=1 seek=$((4 * 65536 + 40)) conv=notrunc \
	2>/dev/null
rc=0
"$bin/dump.sffs" -e 64K -m 1 "$img" >"$work/dump" && rc=1
grep -q "^error: bad node" "$work/dump" || rc=1
"$bin/fsck.sffs" -e 64K -m 1 "$img" >"$work/fsck"
[ $? -eq 4 ] || rc=1
grep -q "^error: .*bad node" "$work/fsck" || rc=1
ok "$rc" "dump.sffs and fsck.sffs find a corrupt node ($size byte image)"
echo "1..$n"
exit "$fail"
