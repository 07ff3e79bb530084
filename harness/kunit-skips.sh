#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunit-skips.sh TEST.LOG
#
# The skipped KUnit cases of a raw KTAP kernel log (kunit.py's test.log),
# one a line: "suite: case # SKIP reason".  A suite skipped as a whole,
# for a reason of its own, is one line "suite: * # SKIP reason".
set -eu

[ -r "$1" ] || exit 0
sed 's/^\[[ 0-9.]*\] //' "$1" | awk '
	function indent() { match($0, /^ */); return RLENGTH }
	/^ *# Subtest: / {
		d = indent()
		sub(/^ *# Subtest: /, "")
		suite[d] = $0
		next
	}
	/^ *ok [0-9]+ .* # SKIP/ {
		d = indent()
		sub(/^ *ok [0-9]+ /, "")
		# a case is at the indentation of its suite'"'"'s "# Subtest"
		# a suite whose cases all skipped is skipped too, with no
		# reason of its own: its cases are listed already
		if (d == 0) {
			if ($0 !~ /# SKIP *$/)
				print $1 ": * " substr($0, index($0, "# SKIP"))
		} else
			print (d in suite ? suite[d] : "-") ": " $0
	}'
