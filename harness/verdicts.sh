# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by harness/root-test.sh and harness/overlay-test.sh: the host's
# checks and the guest boots' verdicts, counted in $pass and $fail in the
# form of harness/qemu-run's verdicts, which make test's recap collects.

# result RC DESC: a check of this host
result() {
	if [ "$1" = 0 ]; then
		echo "PASS $2"
		pass=$((pass + 1))
	else
		echo "FAIL $2"
		fail=$((fail + 1))
	fi
}

# boot_verdicts B OUT: the verdicts of boot B, which qemu-run wrote to OUT,
# joined to ours; a boot that ended without its count line is a failure
boot_verdicts() {
	local line p f
	sed -e "s/^\(PASS\|FAIL\|SKIP\) /\1 boot $1: /" \
		-e '/^[0-9]* passed, /d' "$2"
	line=$(tail -n 1 "$2")
	p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
	f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
	[ -n "$p" ] || p=0 f=1
	pass=$((pass + p)) fail=$((fail + f))
}
