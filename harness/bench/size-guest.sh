#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# size-guest.sh: run by bench-size.sh in each guest.  The memory the
# kernel left to the system after boot, as "# METRIC" lines.
echo "TAP version 13"
echo "1..1"
awk '/^(MemTotal|MemFree|MemAvailable):/ {
	sub(":", "", $1); print "# METRIC boot_" $1 " " $2 " kB" }' /proc/meminfo
echo "ok 1 meminfo after boot"
