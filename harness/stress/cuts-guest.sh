#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cuts-guest.sh BOOT SEED MTD [work|check [FILL]]   (in the guest, from /payload)
#
# One boot of the real power cuts of make stress (harness/stress-cuts.sh):
# the host kills QEMU at a random moment while this script works, and boots
# it again on the same flash, many times over.  Each boot
#
#  1. mounts SFFS from the MTD device called MTD in /proc/mtd (with
#     ./mtdcount.ko in the payload, through that pass-through with
#     sync_each=1, so that block2mtd writes through to the disk);
#  2. checks what the previous boot, killed, left: every file whose fsync
#     returned is there with its size and SHA-256, the config file,
#     replaced by rename over it, is one whole version, no older than the
#     last one made durable, and the log holds whole lines only (the last
#     one may be cut short: it was not fsync'd);
#  3. prints "# CHECK ..." with the counts and "# WORKING", from which the
#     host times the next cut; with "check" as fourth argument it unmounts
#     and ends there instead;
#  4. works until killed, with sizes and choices from a PRNG seeded with
#     SEED (the data itself is random): files of random sizes written in
#     one to three appends, fsync'd or fdatasync'd, then logged; the config
#     file rewritten as config.tmp, fsync'd or not, renamed over config
#     and, sometimes, the file system synced and the generation logged;
#     logged files deleted (logged as deleted first); files written and
#     never fsync'd (named u*, the five newest kept, the others removed,
#     the rest by the next boot).  Logged files are kept below 12 MiB, so
#     that garbage collection runs but the flash never fills; with FILL, a
#     percentage, below FILL% of what statfs offers, less 4 MiB for the
#     work's own overshoot (a file written after the check, files never
#     logged, the config and the log), counted in 4 KiB pages as statfs
#     counts, so that the flash stays nearly full and every new file's
#     room is made by garbage collection.  A write may fail then only if
#     statfs offers less than the file and 1 MiB ("# N FULL").  With FILL the host
#     formats the flash with files already in it (the "ballast", in
#     ./expect like any logged file); the work deletes them at random like
#     its own, so that old data is overwritten all over the flash as the
#     cuts go on.  When it starts and every 4 steps the work prints the
#     file system's garbage-collection counters since the mount ("# GC
#     ...", debugfs), so that the host can tell how much collection the
#     boots did before they were cut.
#
# What must have survived is known twice, as lines "add NAME SIZE SHA256"
# (NAME's fsync returned), "del NAME" (NAME may be gone) and "cfg GEN"
# (config generation GEN was made durable by syncfs):
#
#  - on the console, "# I add ...", "# I del ...", "# I cfg ...", printed
#    once the step is durable (a "del" before the file is removed); the
#    host collects them into ./expect for the next boots.  Only the console
#    can tell a file system that lost everything since some point in
#    time, log included, from one that lost nothing.
#  - in the log on the file system, /mnt/cuts/log, each line appended and
#    the log fsync'd before the next step, so that it holds what the
#    console did not show before the cut, and says "del" before a file
#    goes.
#
# A file is expected when either source adds it and neither deletes it
# (names are never used twice); the config generation is the later of the
# two.  A file neither names (never logged, or deleted after its "del")
# is removed by the next boot.  A cut can fall between a "del" in the log
# and the same on the console: the check prints "# GONE NAME" for each
# file the console added and only the log deleted, so that the host
# forgets it before the log is rewritten without its "del".
#
# The config file is self-checking: "sffs-cuts-config GEN LEN SHA256" and
# a body of LEN bytes with that checksum.  Its first version is made
# durable before the work starts, so that every rename of the work
# replaces it.
set -u

boot=$1
seed=$2
mtdname=$3
mode=${4:-work}
fill=${5:-0}
mnt=/mnt/cuts
log=$mnt/log
cfg=$mnt/config
budget=$((12 << 20))	# live bytes of logged files kept below this
n=0

result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

mtd_by_name() {
	awk -F'"' -v name="$1" '$2 == name { sub(/^mtd/, ""); sub(/:.*/, "");
		print; exit }' /proc/mtd
}

sha() { sha256sum "$1" | cut -c1-64; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.2f", b - a }'; }

# --- 1. mount -------------------------------------------------------------
dev=$(mtd_by_name "$mtdname")
if [ -z "$dev" ]; then
	cat /proc/mtd
	echo "Bail out! no MTD device \"$mtdname\""
	exit 1
fi
if [ -f ./mtdcount.ko ]; then
	insmod ./mtdcount.ko mtd="$dev" sync_each=1 ||
		{ echo "Bail out! mtdcount"; exit 1; }
	dev=$(mtd_by_name mtdcount)
fi
echo "# boot $boot, seed $seed, mtd$dev: $(grep "^mtd$dev:" /proc/mtd)"
mkdir -p $mnt
t0=$(uptime_s)
if ! mount -t sffs "mtd$dev" $mnt; then
	result 1 "mount"
	dmesg | tail -n 30 | sed 's/^/# /'
	echo "# CHECK boot=$boot mount=fail"
	exit 1
fi
result 0 "mount"
echo "# METRIC mount_s $(since "$t0") s"
# erase counts are kept on the flash: how much the cuts so far made
# garbage collection erase
for a in erase_count_avg erase_count_max free_bytes dirty_bytes; do
	echo "# METRIC $a $(cat /sys/fs/sffs/mtd$dev/$a 2>/dev/null)"
done
# how full the flash is, as statfs counts it (KiB): of what it offers,
# used plus available (its total also counts the reserves that writes
# may not take)
df -Pk $mnt | awk 'NR == 2 { print $3, $4 }' >/tmp/df
read -r used_k avail_k </tmp/df
offered_k=$((${used_k:-0} + ${avail_k:-0}))
if [ "$offered_k" = 0 ]; then
	df -Pk $mnt | sed 's/^/# /'
	echo "Bail out! no statfs figures"
	exit 1
fi
echo "# METRIC used_pct $((used_k * 100 / offered_k)) %"
if [ "$fill" -gt 0 ]; then
	budget=$((offered_k * fill / 100 * 1024 - (4 << 20)))
	[ "$budget" -gt 0 ] || { echo "Bail out! fill $fill%: no room"; exit 1; }
fi
gcstats=/sys/kernel/debug/sffs/mtd$dev/stats
# gc_print: the garbage-collection counters since the mount, one line
gc_print() {
	[ ! -r $gcstats ] ||
		awk '$1 ~ /^gc_(runs|blocks|more_rounds|ahead_runs|moved_bytes)$/ {
			s = s " " $1 "=" $2 } END { print "# GC" s }' $gcstats
}
t0=$(uptime_s)

# --- 2. check what the last cut left ---------------------------------------
mkdir -p $mnt/d
rm -f $mnt/log.tmp $mnt/config.tmp
[ -f $log ] || : >$log
# NUL bytes anywhere in the log: a size ahead of its data.
nuls=$(tr -dc '\000' <$log | wc -c)
# The model: complete lines only.  The last may lack its newline (an
# append the cut interrupted before its fsync, and so before what it logs
# was done); any malformed complete line is damage.
loglines=$(wc -l <$log)
partial=0
[ "$(wc -c <$log)" = 0 ] ||
	[ "$(tail -c 1 $log | od -An -c | tr -d ' ')" = '\n' ] || partial=1
: >/tmp/badlines
[ -f ./expect ] || : >./expect
head -n "$loglines" $log | awk -v live=/tmp/live -v bad=/tmp/badlines '
	function flag(why) { print FNR ": " why ": " substr($0, 1, 80) >bad }
	{ con = FILENAME != "-" }
	$1 == "add" && NF == 4 && $3 ~ /^[0-9]+$/ && length($4) == 64 {
		if (!($2 in gone)) {
			size[$2] = $3; sum[$2] = $4
			src[$2] = src[$2] (con ? "console" : "+log")
		}
		next
	}
	$1 == "del" && NF == 2 {
		if (!con && ($2 in src) && src[$2] ~ /^console/ && !($2 in gone))
			print "# GONE", $2
		gone[$2] = 1; delete size[$2]; next
	}
	$1 == "cfg" && NF == 2 && $2 ~ /^[0-9]+$/ {
		if ($2 > gen || con) gen = $2
		next
	}
	!con { flag("malformed") }
	END {
		for (f in size) print f, size[f], sum[f], src[f] >live
		print "cfg", gen + 0 >live
	}' ./expect -
badlines=$(wc -l </tmp/badlines)
sed 's/^/# log line /' /tmp/badlines

lost=0
: >/tmp/lostnames
grep -v '^cfg ' /tmp/live >/tmp/files
files=$(wc -l </tmp/files)
# One sha256sum for all (a process each costs a lot under TCG, and a
# nearly full flash holds hundreds of files); only a file whose sum is
# not the logged one is looked at more closely.
(cd $mnt/d && cut -d' ' -f1 /tmp/files | xargs -r sha256sum 2>/dev/null) \
	>/tmp/sums
awk 'BEGIN { while ((getline l <"/tmp/sums") > 0) {
		split(l, a, " "); got[a[2]] = a[1] } }
	got[$1] != $3' /tmp/files >/tmp/suspects
while read -r f size sum from; do
	p=$mnt/d/$f
	why=
	if [ ! -f "$p" ]; then
		why=missing
	elif [ "$(wc -c <"$p")" != "$size" ]; then
		why="size $(wc -c <"$p")"
	elif [ "$(sha "$p")" != "$sum" ]; then
		why="sha256 $(sha "$p")"
		zeros=$(tr -dc '\000' <"$p" | wc -c)
		why="$why, $zeros NUL bytes"
	fi
	if [ -n "$why" ]; then
		lost=$((lost + 1))
		echo "# LOST $f (logged $size $sum by ${from#+}): $why"
		echo "$f" >>/tmp/lostnames
	fi
done </tmp/suspects
result $((lost > 0)) "fsync'd files intact: $files logged, $lost lost"

# config: one whole version, not older than the last durable generation
# (0: none yet)
durable=$(sed -n 's/^cfg //p' /tmp/live)
config=ok gen=-1
if [ ! -f $cfg ]; then
	[ "$durable" = 0 ] || config=missing
else
	read -r magic gen len sum <$cfg
	tail -n +2 $cfg >/tmp/body
	cnul=$(tr -dc '\000' <$cfg | wc -c)
	if [ "$magic" != sffs-cuts-config ] || [ "$cnul" != 0 ] ||
	   [ "$(wc -c </tmp/body)" != "$len" ] ||
	   [ "$(sha /tmp/body)" != "$sum" ]; then
		config=torn
		echo "# config torn: header \"$(head -n 1 $cfg | cut -c1-100)\"," \
			"$(wc -c <$cfg) bytes, $cnul NUL bytes"
		od -Ax -c $cfg | head -n 8 | sed 's/^/# /'
		gen=-1
	elif [ "$gen" -lt "$durable" ]; then
		config=old
		echo "# config generation $gen, older than the durable $durable"
	fi
fi
result $([ $config = ok ]; echo $?) "config whole: $config (generation $gen, durable $durable)"
logok=$([ "$nuls" = 0 ] && [ "$badlines" = 0 ]; echo $?)
result "$logok" "log whole: $loglines lines, $badlines damaged, $nuls NUL bytes, partial last line $partial"
echo "# CHECK boot=$boot mount=ok files=$files lost=$lost config=$config" \
	"gen=$gen log_damage=$((badlines + nuls)) partial=$partial"

# Files nobody logged, or deleted after their "del": removed.  (Lists
# read with getline: NR == FNR is no test for the first file when it may
# be empty.)
ls $mnt/d | awk 'BEGIN { while ((getline l <"/tmp/files") > 0) {
		split(l, a, " "); keep[a[1]] = 1 } }
	!($1 in keep)' | while read -r f; do rm -f "$mnt/d/$f"; done

# Start again from a log of what is there, so that each loss is reported
# once: the lost files and a damaged config forgotten (the torn config
# removed), a partial or damaged line gone, the log short again.  Renamed
# over the old one and synced: a cut in between leaves one of the two,
# both whole and both true.
awk 'BEGIN { while ((getline l <"/tmp/lostnames") > 0) lost[l] = 1 }
	!($1 in lost) { print $1, $2, $3 }' /tmp/files >/tmp/kept
mv /tmp/kept /tmp/files
compact() {
	awk '{ print "add", $0 }' /tmp/files >$mnt/log.tmp
	[ $config != ok ] || echo "cfg $durable" >>$mnt/log.tmp
	sync $mnt/log.tmp && mv $mnt/log.tmp $log && sync -f $log
}
if [ "$lost" != 0 ] || [ "$partial" = 1 ] || [ "$badlines" != 0 ] ||
   [ "$nuls" != 0 ] || [ $config != ok ] || [ "$loglines" -gt 1500 ]; then
	[ $config != torn ] || rm -f $cfg
	compact || { echo "Bail out! log compaction"; exit 1; }
fi
# generations keep growing whatever was found
[ "$gen" -ge "$durable" ] || gen=$durable

if [ "$mode" = check ]; then
	umount $mnt
	result $? "umount"
	exit 0
fi

# --- 4. work until killed ---------------------------------------------------
RANDOM=$seed
# the files that must be there, "name size sha256" in /tmp/files, and
# their bytes
# (in 4 KiB pages, as statfs counts them)
live=$(awk '{ s += int(($2 + 4095) / 4096) * 4096 } END { print s + 0 }' \
	/tmp/files)
i=0
logadd() {
	echo "$1" >>$log || return 1
	if [ $((RANDOM % 2)) = 0 ]; then sync $log; else sync -d $log; fi
}
fail() { echo "not ok $((n + 1)) work: $*"; exit 1; }

# nospace: a write of file $f ($size bytes) failed.  Busybox says only
# "I/O error", whatever the error; the flash being full is the one
# allowed, and only when statfs offered less than the file and 1 MiB more
# (what the check after the cut finds of the file does not matter: it was
# never logged).  Returns 2 then, else 1.
nospace() {
	a=$(df -Pk $mnt | awk 'NR == 2 { print $4 }')
	rm -f "$p"
	if [ "${a:-0}" -lt $(((size >> 10) + 1024)) ]; then
		echo "# $i FULL $f $size: statfs offers ${a:-?} KiB"
		return 2
	fi
	echo "# $i write of $f, $size bytes, failed while statfs offered $a KiB"
	return 1
}

write_file() {
	r=$((RANDOM % 100))
	if [ $r -lt 40 ]; then size=$((RANDOM % 4096))
	elif [ $r -lt 80 ]; then size=$((4096 + RANDOM * 2))
	elif [ $r -lt 97 ]; then size=$((65536 + RANDOM * 14))
	else size=$((524288 + RANDOM * 48))
	fi
	f=f$boot-$i
	[ "${1:-}" != nolog ] || f=u$boot-$i
	p=$mnt/d/$f
	: >"$p" || { nospace; return; }
	left=$size parts=$((1 + RANDOM % 3))
	while [ $parts -gt 1 ]; do
		c=$((left * (RANDOM % 100) / 100))
		head -c $c /dev/urandom >>"$p" || { nospace; return; }
		left=$((left - c)) parts=$((parts - 1))
	done
	head -c $left /dev/urandom >>"$p" || { nospace; return; }
	if [ "${1:-}" = nolog ]; then
		echo "# $i nolog $f $size"
		return 0
	fi
	if [ $((RANDOM % 2)) = 0 ]; then
		sync "$p" && how=fsync
	else
		sync -d "$p" && how=fdatasync
	fi || return 1
	s=$(sha "$p")
	echo "# $i add $f $size $s $how"
	logadd "add $f $size $s" || return 1
	echo "$f $size $s" >>/tmp/files
	live=$((live + (size + 4095) / 4096 * 4096))
}

# write_config [first]: the next generation, renamed over the config file
# (first: made durable, for a config file that is not there yet)
write_config() {
	gen=$((gen + 1))
	head -c $((RANDOM % 6000)) /dev/urandom | od -An -tx1 -v >/tmp/body
	{
		echo "sffs-cuts-config $gen $(wc -c </tmp/body) $(sha /tmp/body)"
		cat /tmp/body
	} >$mnt/config.tmp || return 1
	how=tmp-nofsync
	if [ -n "${1:-}" ] || [ $((RANDOM % 2)) = 0 ]; then
		sync $mnt/config.tmp || return 1
		how=tmp-fsync
	fi
	mv $mnt/config.tmp $cfg || return 1
	if [ -n "${1:-}" ] || [ $((RANDOM % 3)) = 0 ]; then
		sync -f $cfg || return 1
		echo "# $i cfg $gen $how synced"
		logadd "cfg $gen" || return 1
	else
		echo "# $i config $gen $how"
	fi
}

delete_file() {
	nf=$(wc -l </tmp/files)
	k=$((1 + RANDOM % nf))
	set -- $(sed -n "${k}p" /tmp/files)
	logadd "del $1" || return 1
	echo "# $i del $1 $2"
	rm "$mnt/d/$1" || return 1
	sed -i "${k}d" /tmp/files
	live=$((live - ($2 + 4095) / 4096 * 4096))
}

# The first read of /dev/urandom waits until the kernel's generator is
# seeded, seconds under TCG without a hardware source (ARM): wait here, so
# that the cut falls into the work.
echo "# METRIC check_s $(since "$t0") s"
t0=$(uptime_s)
head -c 1 /dev/urandom >/dev/null
echo "# METRIC rng_wait_s $(since "$t0") s"
# The first config file is made durable before the work: SFFS, as ext4
# with auto_da_alloc, writes a file's data before a rename only when the
# rename replaces another file, so a new file renamed to a new name
# without fsync may be found empty after a cut once a later fsync made
# the rename durable.  Every rename of the work replaces the config file.
if [ ! -f $cfg ]; then
	write_config first || fail "first config"
fi
: >/tmp/nolog
echo "# WORKING"
gc_print
while :; do
	i=$((i + 1))
	r=$((RANDOM % 100))
	if { [ $live -gt $budget ] || [ $r -lt 15 ]; } && [ -s /tmp/files ]; then
		delete_file || fail "delete"
	elif [ $r -lt 30 ]; then
		write_config || fail "config $gen"
	elif [ $r -lt 38 ]; then
		write_file nolog
		case $? in
		0) ;;
		2) { [ -s /tmp/files ] && delete_file; } || fail "full" ;;
		*) fail "write" ;;
		esac
		# the five newest stay
		echo "u$boot-$i" >>/tmp/nolog
		[ "$(wc -l </tmp/nolog)" -le 5 ] ||
			{ rm -f "$mnt/d/$(head -n 1 /tmp/nolog)" &&
			  sed -i 1d /tmp/nolog; }
	else
		write_file
		case $? in
		0) ;;
		2) { [ -s /tmp/files ] && delete_file; } || fail "full" ;;
		*) fail "write" ;;
		esac
	fi
	[ $((i % 4)) != 0 ] || gc_print
done
