#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit suite slob_seg (mm/slob_seg_test.c) on the running kernel,
# with the allocator's production layout (no CONFIG_SLOB_SEG_DEBUG) and
# two or more CPUs: make kunit runs it on UML, which has one CPU, so the
# per-CPU stacks, the class locks and the drain of every CPU's stacks by
# kmem_cache_shrink() never meet there.  Here seg_test_stress's two
# threads allocate and free, on the CPUs they land on, while a third
# drains; the case reports how many CPUs its threads used.
#
# Loads kunit.ko and slob_seg_test.ko from this directory (or with
# modprobe), and reads the suite's KTAP results from the kernel log,
# after a marker this script writes there.
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

skip() {
	echo "1..0 # SKIP $1"
	exit 4
}

load() {
	if [ -f "$here/$1.ko" ]; then
		insmod "$here/$1.ko"
	else
		modprobe "$1"
	fi
}

echo "TAP version 13"
cpus=$(grep -c '^processor' /proc/cpuinfo)
grep -q '^seg-spare ' /proc/slabinfo 2>/dev/null ||
	skip "the kernel's allocator is not SLOB_SEG"
[ "$cpus" -ge 2 ] || skip "$cpus CPU online: the test needs two"
[ -f "$here/slob_seg_test.ko" ] || modprobe -n slob_seg_test 2>/dev/null ||
	skip "no slob_seg_test module (CONFIG_SLOB_SEG_KUNIT_TEST=m)"
echo "1..5"
# a module loaded before ran its suite then: run it again
grep -q '^slob_seg_test ' /proc/modules && rmmod slob_seg_test
marker="slob_seg kselftest $$ $(date +%s)"
echo "$marker" > /dev/kmsg
if { grep -q '^kunit ' /proc/modules || load kunit; } && load slob_seg_test
then
	result ok "slob_seg_test loaded on $cpus CPUs"
else
	result not "slob_seg_test loaded (CONFIG_KUNIT=m, CONFIG_SLOB_SEG_KUNIT_TEST=m)"
fi
# the suite ran in the module's init: its results follow the marker
log=$(dmesg | sed -n "/$marker/,\$p" | sed 's/^\[[ 0-9.]*\] //')
suite=$(printf '%s\n' "$log" | grep -E '^(not )?ok [0-9]+ slob_seg$')
case $suite in
ok*) result ok "suite slob_seg passed" ;;
*) result not "suite slob_seg passed (${suite:-no result})" ;;
esac
cases=$(printf '%s\n' "$log" | grep -cE '^ +ok [0-9]+ ')
if printf '%s\n' "$log" | grep -qE '^ +not ok [0-9]+ '; then
	result not "no case failed"
elif [ "$cases" -lt 1 ]; then
	result not "no case failed (no case result seen)"
else
	result ok "no case failed, $cases passed"
fi
# the debug suite is built only with CONFIG_SLOB_SEG_DEBUG
if printf '%s\n' "$log" | grep -q 'Subtest: slob_seg_debug'; then
	result not "production layout (CONFIG_SLOB_SEG_DEBUG is on)"
else
	result ok "production layout"
fi
re='.*seg_test_stress: [0-9]* CPUs online, \([0-9]*\) used by the stress'
re="$re"' threads, \([0-9]*\) drains.*'
ran=$(printf '%s\n' "$log" | sed -n "s/$re/\\1 \\2/p")
# shellcheck disable=SC2086 # two words
set -- $ran
if [ "${1:-0}" -ge 2 ] && [ "${2:-0}" -gt 0 ]; then
	result ok "stress threads ran on $1 CPUs with $2 drains"
else
	result not "stress threads ran on two CPUs while draining (${ran:-not seen})"
fi
[ $failed = 0 ]
