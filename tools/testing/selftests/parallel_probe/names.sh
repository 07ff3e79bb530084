#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Names that probes take, with probes in parallel (CONFIG_DRIVER_PARALLEL_PROBE).
# Virtio disks (vdX), network interfaces (ethN), PCI serial ports (ttySN)
# and virtio input devices (inputN, eventN) are numbered in their drivers'
# probes, and the virtio devices under them (virtioN) in the transport's.
# The guests of make qemu-test have several of each that their bus offers
# and their kernel drives (x86_64: disks, serial ports and input devices
# on PCI; ARM: disks and input devices on virtio-mmio), and boot with
# parallel_probe.jitter_us=20000: every probe first sleeps a random time
# of up to 20 ms, as hardware that answers in a different time at each
# boot would make it.
#
#  1. each class's names follow the order of the bus addresses, as
#     synchronous probing gives them (the bus registers its devices in
#     address order, and the probes of one driver take their names in the
#     order they were asked for);
#  2. with NAMES_EXPECT ("block=8 input=2 ..."), each of those classes has
#     that many devices: a driver that stopped binding fails, instead of
#     leaving a class too small to be out of order.
#
# Without naming domains, or under mainline's driver_async_probe=*, the
# jittered probes take their numbers in whatever order they reach them, and
# check 1 fails.  make bench-probe-names boots many times and compares
# the names across boots and with a synchronous boot.  A class the guest
# does not have is left out; without any, the test skips.  Warnings in the
# kernel log are left to the harness, which reads the whole console.

ksft_skip=4
knob=/sys/module/parallel_probe/parameters/jitter_us
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

ok()
{
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok()
{
	n=$((n + 1))
	failed=1
	echo "not ok $n $1"
}

# the bus address of a device: the PCI address or the virtio-mmio
# platform device of itself, or of the parent of a virtio device
addr_of()
{
	t=$(readlink -f "$1")
	case ${t##*/} in
	virtio[0-9]*) t=${t%/*} ;;
	esac
	case ${t##*/} in
	0000:* | *.virtio_mmio) echo "${t##*/}" ;;
	esac
}

# "$1 address name" for the device of class directory $2 if it sits on
# those buses, and "virtio address virtioN" when it is a virtio device's
addr_entry()
{
	[ -e "$2/device" ] || return 1
	a=$(addr_of "$2/device")
	[ -n "$a" ] || return 1
	echo "$1 $a ${2##*/}"
	v=$(readlink -f "$2/device")
	case ${v##*/} in
	virtio[0-9]*) echo "virtio $a ${v##*/}" ;;
	esac
}

# "class address name" for every named device on those buses
names()
{
	for d in /sys/block/vd*; do
		addr_entry block "$d"
	done
	for i in /sys/class/net/*; do
		addr_entry net "$i"
	done
	for t in /sys/class/tty/ttyS*; do
		addr_entry serial "$t"
	done
	for i in /sys/class/input/input*; do
		addr_entry input "$i" || continue
		for e in "$i"/event*; do
			[ -e "$e" ] && echo "event $a ${e##*/}"
		done
	done
}

# the number in a name: vdc -> 3 (letters as digits of base 26), ttyS5 -> 5
# (kernel names: nothing renames interfaces in these guests)
number()
{
	case $1 in
	vd*)
		echo "${1#vd}" | awk '{ v = 0
			for (i = 1; i <= length($0); i++)
				v = v * 26 + index("abcdefghijklmnopqrstuvwxyz",
						   substr($0, i, 1))
			print v }' ;;
	*)
		echo "$1" | sed 's/^[^0-9]*//' ;;
	esac
}

# Classes whose names, in address order, do not increase
out_of_order()
{
	sort -k1,1 -k2,2 "$1" | while read -r class addr name; do
		echo "$class $addr $name $(number "$name")"
	done | awk '$1 == c && $4 <= last { print "out of order, " $1 \
			": " $3 " at " $2 " after " lastname }
		{ if ($1 != c) { c = $1 }; last = $4; lastname = $3 }'
}

boot=$tmp/names
names | sort > $boot
if [ ! -s $boot ]; then
	echo "ok 1 # SKIP no virtio disk, network or input device, or PCI serial port"
	exit $ksft_skip
fi
for c in block virtio net serial input event; do
	echo "# $c: $(awk -v c=$c '$1 == c { printf " %s=%s", $2, $3 }' $boot)"
done

echo "# parallel_probe.jitter_us: $(cat $knob 2>/dev/null || echo none)"
bad=$(out_of_order $boot)
if [ -z "$bad" ]; then
	ok "names follow the bus addresses"
else
	echo "$bad" | sed 's/^/# /'
	not_ok "names follow the bus addresses"
fi

if [ -n "${NAMES_EXPECT:-}" ]; then
	short=
	for e in $NAMES_EXPECT; do
		c=${e%%=*}
		have=$(awk -v c="$c" '$1 == c' $boot | wc -l)
		[ "$have" -eq "${e#*=}" ] || short="$short $c=$have"
	done
	if [ -z "$short" ]; then
		ok "every class has its devices ($NAMES_EXPECT)"
	else
		not_ok "every class has its devices ($NAMES_EXPECT; found$short)"
	fi
fi
exit $failed
