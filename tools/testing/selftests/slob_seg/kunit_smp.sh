#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit suites of the segregated-fit SLOB (mm/slob_seg_test.c) on the
# running kernel, with the allocator's production layout (no
# CONFIG_SLOB_SEG_DEBUG) and two or more CPUs: make kunit runs them on
# UML, which has one CPU, so the per-CPU stacks, the class locks and the
# drain of every CPU's stacks by kmem_cache_shrink() never meet there.
# Here seg_test_stress's two threads allocate and free on different CPUs
# while a third drains.
#
# Loads kunit.ko and slob_seg_test.ko from this directory (or from the
# kernel's modules, with modprobe), and reads the suites' KTAP results
# from the kernel log.
here=$(cd "$(dirname "$0")" && pwd)
n=0 failed=0

result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}

load() {
	grep -q "^$1 " /proc/modules && return 0
	if [ -f "$here/$1.ko" ]; then
		insmod "$here/$1.ko"
	else
		modprobe "$1"
	fi
}

echo "TAP version 13"
cpus=$(grep -c '^processor' /proc/cpuinfo)
if ! grep -q '^seg-spare ' /proc/slabinfo 2>/dev/null; then
	echo "1..0 # SKIP the kernel's allocator is not SLOB_SEG"
	exit 4
fi
if [ "$cpus" -lt 2 ]; then
	echo "1..0 # SKIP $cpus CPU online: the test needs two"
	exit 4
fi
echo "1..4"
before=$(dmesg | wc -l)
if load kunit && load slob_seg_test; then
	result ok "slob_seg_test loaded on $cpus CPUs"
else
	result not "slob_seg_test loaded (CONFIG_KUNIT=m, CONFIG_SLOB_SEG_KUNIT_TEST=m)"
fi
# the suites ran in the module's init: their results are in the log
log=$(dmesg | tail -n +"$((before + 1))" | sed 's/^\[[ 0-9.]*\] //')
# (the console has the suite's own KTAP lines: not repeated here)
echo "$log" | grep -E '# seg_test_stress:' | sed 's/^ */# /'
suite=$(echo "$log" | grep -E '^(not )?ok [0-9]+ slob_seg$')
case $suite in
ok*) result ok "suite slob_seg passed" ;;
*) result not "suite slob_seg passed (${suite:-no result})" ;;
esac
if echo "$log" | grep -qE '^ +not ok [0-9]+ '; then
	result not "no case failed"
else
	result ok "no case failed"
fi
re='.*seg_test_stress: \([0-9]*\) CPUs online, \([0-9]*\) drains.*'
drains=$(echo "$log" | sed -n "s/$re/\\1 \\2/p")
# shellcheck disable=SC2086 # two words
set -- $drains
if [ "${1:-0}" -ge 2 ] && [ "${2:-0}" -gt 0 ]; then
	result ok "stress ran on $1 CPUs with $2 drains"
else
	result not "stress ran on two CPUs while draining (${drains:-not seen})"
fi
[ $failed = 0 ]
