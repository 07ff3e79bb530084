#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress-cuts.sh ARCH KERNEL BUSYBOX TOOLS OUT [MTDCOUNT_KO]
#
# Real power cuts: a QEMU guest works on SFFS on a flash that is a file on
# this host (harness/stress/cuts-guest.sh), and is killed with SIGKILL at a
# random moment of that work, STRESS_REAL_CUTS times in a row on the same
# file.  Each boot first checks what the previous cut left, then works
# until it is killed; one last boot only checks.  After each cut fsck.sffs
# (TOOLS, built for this host) checks the image as the cut left it.
#
#   ARCH arm     "nor": the CFI NOR flash of -M virt, the second 64 MiB
#                bank (-drive if=pflash,unit=1), 256 KiB erase blocks,
#                Intel command set; every program and erase goes to the
#                file as QEMU emulates it
#   ARCH x86_64  "block2mtd": block2mtd with 128 KiB erase blocks on a
#                64 MiB virtio disk (cache=writethrough), through
#                MTDCOUNT_KO with sync_each=1 so that every program and
#                erase reaches the disk, in order, before it returns
#
# QEMU has no raw NAND device: the page rules of NAND (program once, in
# order) under power cuts are covered by the KUnit suites on the RAM
# flash (sffs_powercut, make stress).
#
# What each boot must find is collected from the consoles: the guest
# prints each file whose fsync returned, each file it is about to delete
# and each config generation made durable, and the next boots get the
# collection as ./expect (harness/stress/cuts-guest.sh says how it is
# checked together with the log the guest keeps on the flash).
#
# The flash is formatted on this host with mkfs.sffs, again after a mount
# failed or a boot never got to its checks (the image kept first).  The
# moment of the cut is drawn uniformly from 0 to STRESS_KILL_MAX seconds
# after the guest's "# WORKING" line, which it prints once its checks are
# done, from a PRNG seeded with STRESS_SEED.
#
# A cut passes when its boot was killed while working, with no kernel
# problem on the console, fsck.sffs found no error in the image it left,
# and the next boot mounted it and found every fsync'd file, a whole
# config file no older than the last one made durable and a whole log.
# A failed cut keeps, in OUT/cuts-GEOMETRY/cut-N/, the image as the cut
# left it, both consoles and fsck's report.
#
# With STRESS_FILL set to a percentage, the flash is kept nearly full, as
# a product's is after years: mkfs.sffs formats it with files of 4 KiB to
# 1 MiB filling about FILL% of what statfs will offer (the "ballast",
# expected like any fsync'd file), and the guest keeps its live data below
# FILL% of what statfs offers while it deletes ballast and its own files at
# random and writes new ones, so that each file's room is won by garbage
# collection moving old data, and the cuts fall into that.  The geometry is
# then called GEOMETRY-full (OUT/cuts-nor-full, ...).
#
# Writes OUT/cuts-GEOMETRY/cuts.jsonl (one record per boot), the
# geometry's entry of OUT/summary.json, and ends with
# "stress-cuts: N passed, N failed".
#
# Knobs (environment):
#   STRESS_REAL_CUTS  cuts                            (500)
#   STRESS_SEED       seed of the cut moments and of the guests' PRNG (1)
#   STRESS_KILL_MAX   latest cut, seconds after "# WORKING" (6)
#   STRESS_FILL       keep the flash this many percent full (0: off)
set -uo pipefail
arch=$1 kernel=$2 busybox=$3 tools=$4 out=$5 mtdcount=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
cuts=${STRESS_REAL_CUTS:-500}
seed=${STRESS_SEED:-1}
kill_max=${STRESS_KILL_MAX:-6}
fill=${STRESS_FILL:-0}
flash_mib=64	# both geometries: a pflash bank, the virtio disk

case $arch in
arm)
	geom=nor erase=256KiB mtdname=sffs
	# physmap names the concatenation of the two banks after its device
	drive="if=pflash,format=raw,unit=1" rng=virtio-rng-device
	append="mtdparts=0.flash:64m(pflash0)ro,64m(sffs)"
	mtdcount=
	;;
x86_64)
	geom=block2mtd erase=128KiB mtdname="block2mtd: /dev/vda"
	drive="if=virtio,format=raw,cache=writethrough" rng=virtio-rng-pci
	append="block2mtd.block2mtd=/dev/vda,$erase"
	[ -n "$mtdcount" ] || { echo "stress-cuts: x86_64 needs mtdcount.ko" >&2; exit 1; }
	;;
*)	echo "stress-cuts: unknown ARCH $arch (arm or x86_64)" >&2; exit 1 ;;
esac

[ "$fill" = 0 ] || geom=$geom-full
dir=$out/cuts-$geom
img=$dir/flash.img
model=$dir/expect
rm -rf "$dir"
mkdir -p "$dir"
records=$dir/cuts.jsonl
: >"$records"

# ballast DIR: files of 4 KiB to 1 MiB (log-uniform sizes, random bytes)
# in DIR/d, about FILL% of 85% of the flash, a guess at what statfs offers
# (the guest's budget, from statfs itself, evens out the difference);
# prints the model's "add" line of each
ballast() {
	python3 - "$1" "$fill" "$seed" "$flash_mib" <<-'EOF'
	import hashlib, os, random, sys
	top, fill, seed, mib = sys.argv[1], *map(int, sys.argv[2:5])
	rng = random.Random(seed)
	d = os.path.join(top, 'd')
	os.makedirs(d)
	left, k = (mib << 20) * 85 // 100 * fill // 100, 0
	while left > 4096:
	    size = min(left, int(4096 * 256 ** rng.random()))
	    data = os.urandom(size)
	    k += 1
	    with open(os.path.join(d, 'b%d' % k), 'wb') as f:
	        f.write(data)
	    print('add b%d %d %s' % (k, size, hashlib.sha256(data).hexdigest()))
	    left -= size
	EOF
}

format() {
	local root=
	if [ "$fill" != 0 ]; then
		root=$dir/ballast
		rm -rf "$root" && mkdir -p "$root"
		ballast "$root" >"$model" ||
			{ echo "stress-cuts: no ballast" >&2; exit 1; }
	else
		: >"$model"
	fi
	"$tools/mkfs.sffs" -q -o "$img" -e $erase -m 1 -c ${flash_mib}MiB \
		${root:+-r "$root"} ||
		{ echo "stress-cuts: mkfs.sffs failed" >&2; exit 1; }
	[ -z "$root" ] || rm -rf "$root"
}

# learn CONSOLE: add what a boot made durable to the model and forget what
# its checks reported lost (each loss is reported once) or found deleted
# in the log only (GONE); keep the model to
# the files that must be there and the last config generation.  A line a
# kernel message broke into, or the last one the cut cut short, does not
# match and is left out: the model may know less, never more.
learn() {
	awk '
	{ sub(/\r$/, "") }
	$1 == "#" && $3 == "add" && NF == 7 && $5 ~ /^[0-9]+$/ &&
	    $6 ~ /^[0-9a-f]+$/ && length($6) == 64 &&
	    $7 ~ /^(fsync|fdatasync)$/ { print "add", $4, $5, $6 }
	$1 == "#" && $3 == "del" && NF == 5 { print "del", $4 }
	$1 == "#" && $3 == "cfg" && NF == 6 && $6 == "synced" { print "cfg", $4 }
	$1 == "#" && $2 == "LOST" { print "del", $3 }
	$1 == "#" && $2 == "GONE" && NF == 3 { print "del", $3 }
	$1 == "#" && $2 == "CHECK" && !/ config=ok / { print "cfg 0" }
	' "$1" >>"$model"
	awk '$1 == "add" { f[$2] = $0; next }
	     $1 == "del" { delete f[$2]; next }
	     $1 == "cfg" { c = $0 }
	     END { for (k in f) print f[k]; if (c) print c }' \
		"$model" >"$model.new" && mv "$model.new" "$model"
}

# boot N MODE DELAY: one guest on the image, killed DELAY s after it
# starts working (MODE work), or left to end after its checks (check)
boot() {
	local wd=$dir/boot
	local kill=()
	[ "$2" = check ] || kill=(--kill-after '^# WORKING' --kill-delay "$3")
	rm -rf "$wd"
	"$here/qemu-run" --arch "$arch" --kernel "$kernel" --busybox "$busybox" \
		--name "stress-cuts-$geom-$1" --workdir "$wd" --mem 256 \
		--payload "$here/stress/cuts-guest.sh:cuts-guest.sh" \
		--payload "$model:expect" \
		${mtdcount:+--payload "$mtdcount:mtdcount.ko"} \
		--qemu-arg=-drive --qemu-arg="$drive,file=$img" \
		--qemu-arg=-device --qemu-arg=$rng \
		--append "$append" --timeout 600 "${kill[@]}" \
		--run "./cuts-guest.sh $1 $((seed * 100000 + $1)) '$mtdname' $2 $fill" \
		>"$wd.txt" 2>&1
}

RANDOM=$seed
format
start=$(date +%s)
full=
[ "$fill" = 0 ] || full=", flash kept $fill% full"
echo "stress-cuts: $geom ($arch), $cuts cuts, seed $seed, cut 0-$kill_max s into the work$full"
for n in $(seq 1 $((cuts + 1))); do
	mode=work delay=0
	if [ "$n" -le "$cuts" ]; then
		delay=$(awk -v r=$(((RANDOM << 15) | RANDOM)) -v m="$kill_max" \
			'BEGIN { printf "%.3f", r / 1073741824 * m }')
	else
		mode=check
	fi
	cp --sparse=always "$img" "$dir/pre.img"
	boot "$n" $mode "$delay"
	fsck_rc=-
	if [ $mode = work ]; then
		"$tools/fsck.sffs" -e $erase -m 1 "$img" >"$dir/fsck.txt" 2>&1
		fsck_rc=$?
	else
		: >"$dir/fsck.txt"
	fi
	# one record; prints a line for the log and, on a failure, what to keep
	verdict=$(python3 "$here/stress/cuts-report.py" record "$records" \
		"$dir/boot" "$n" "$mode" "$delay" "$fsck_rc" "$dir/fsck.txt")
	echo "$verdict" | sed -n 's/^line //p'
	# The check of this boot judges the previous cut; keep its image
	for k in $(echo "$verdict" | sed -n 's/^keep-check //p'); do
		mkdir -p "$dir/cut-$k"
		cp --sparse=always "$dir/pre.img" "$dir/cut-$k/flash.img"
		cp "$dir/boot/console.log" "$dir/cut-$k/console-next-boot.log"
		cp "$dir/boot/root/payload/expect" "$dir/cut-$k/expect"
		[ ! -f "$dir/prev-console.log" ] ||
			cp "$dir/prev-console.log" "$dir/cut-$k/console.log"
		[ ! -f "$dir/prev-fsck.txt" ] ||
			cp "$dir/prev-fsck.txt" "$dir/cut-$k/fsck.txt"
	done
	# this cut's own problems: kernel problems, no kill, fsck errors
	for k in $(echo "$verdict" | sed -n 's/^keep-cut //p'); do
		mkdir -p "$dir/cut-$k"
		cp --sparse=always "$img" "$dir/cut-$k/flash.img"
		cp "$dir/boot/console.log" "$dir/cut-$k/console.log"
		cp "$dir/fsck.txt" "$dir/cut-$k/fsck.txt"
	done
	learn "$dir/boot/console.log"
	if echo "$verdict" | grep -qx reformat; then
		echo "   formatted again"
		format
	fi
	cp "$dir/boot/console.log" "$dir/prev-console.log"
	cp "$dir/fsck.txt" "$dir/prev-fsck.txt"
done
rm -f "$dir/pre.img" "$dir/prev-console.log" "$dir/prev-fsck.txt"
python3 "$here/stress/cuts-report.py" summary "$records" "$out/summary.json" \
	"$geom" "$arch" "$seed" "$kill_max" "$(($(date +%s) - start))"
