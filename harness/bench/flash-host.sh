# SPDX-License-Identifier: GPL-2.0
#
# flash-host.sh: what the flash benchmarks' host scripts share (sourced by
# bench-flash.sh and bench-aging.sh, bash): the nandsim geometry, the
# mtdcount module built for a bench kernel, and the bookkeeping of guests
# (kept from an earlier run with BENCH_RESUME=1, or not started because
# they would not fit in the host's memory).

flash_mc=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/mtdcount

# second ID byte of a 2 KiB page, 128 KiB block chip of each size in MiB
# (drivers/mtd/nand/raw/nand_ids.c)
declare -A flash_idb=([256]=0xda [512]=0xdc [1024]=0xd3 [2048]=0xd5
		      [4096]=0xd7 [8192]=0xde [16384]=0x3a)

# flash_nandsim SIZE_MB: the kernel parameter of a nandsim of that size
flash_nandsim() {
	echo "nandsim.id_bytes=0xec,${flash_idb[$1]},0x51,0x95"
}

# build_mtdcount TREE OBJ ARCH: OBJ/mtdcount/mtdcount.ko for the kernel
# built in OBJ (an absolute path: make -C changes directory)
build_mtdcount() {
	local cross=
	[ "$3" = x86_64 ] || cross=arm-linux-gnueabihf-
	mkdir -p "$2/mtdcount"
	cp "$flash_mc/Kbuild" "$flash_mc/mtdcount.c" "$2/mtdcount/"
	make -s -C "$1" O="$2" M="$2/mtdcount" ARCH="$3" CROSS_COMPILE=$cross \
		CC="ccache ${cross}gcc" modules
}

# guest_inputs FILE... -- PARAM...: what a guest's figures depend on, to
# tell whether a kept one still stands for this kernel and these
# parameters: the contents of the files and the parameters, not where the
# files are, so that make and a direct call share their guests
guest_inputs() {
	local files=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		files+=("$1")
		shift
	done
	shift
	(sha256sum "${files[@]}" 2>/dev/null | cut -d' ' -f1
	 echo "$*") | sha256sum | cut -d' ' -f1
}

# guest_kept WD INPUTS: with BENCH_RESUME=1, true (and says so) when WD
# holds a guest that passed with the same inputs
guest_kept() {
	[ "${BENCH_RESUME:-0}" = 1 ] && [ -f "$1/result.json" ] &&
	[ "$(cat "$1/inputs" 2>/dev/null)" = "$2" ] &&
	python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1])).get("failed", 1) != 0)' \
		"$1/result.json" || return 1
	echo "   kept from $(date -u -r "$1/result.json" '+%F %T') UTC"
}

# guest_fits WD MEM_MB: true when a guest of MEM_MB fits in the host's
# free memory with 2 GiB to spare; if not, says so and leaves the reason
# in WD/skipped for the report
guest_fits() {
	mkdir -p "$1"
	if [ $(($2 + 2048)) -gt "$(awk '/^MemAvailable:/ {
			print int($2 / 1024) }' /proc/meminfo)" ]; then
		echo "   SKIP: $2 MiB of guest memory do not fit on this host"
		echo "needs $2 MiB, more than the host had free" > "$1/skipped"
		return 1
	fi
	rm -f "$1/skipped"
}
