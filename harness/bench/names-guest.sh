#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# names-guest.sh EXPECT   (in the name-stability guest, /payload)
#
# Loads the modules of the drivers whose names users rely on, one after
# the other in the order of modules.order below, as modprobe does, then
# runs the parallel_probe kselftest's names.sh, which prints the name of
# every device by bus address ("# <class>: <address>=<name> ...") and
# checks that each class's names follow the bus addresses, and that each
# class has the devices EXPECT says ("block=8 net=4 ...").
set -u
rc=0
for m in failover net_failover virtio_net virtio_blk virtio_input 8250_pci; do
	[ -e "./$m.ko" ] || continue
	if ! insmod "./$m.ko"; then
		echo "not ok 1 insmod $m"
		exit 1
	fi
done
NAMES_EXPECT=${1-} ./parallel_probe/names.sh || rc=$?
exit $rc
