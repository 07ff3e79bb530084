#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh TREE SERIESDIR RESULT
#
# scripts/checkpatch.pl --strict over every patch of the generated series,
# run inside TREE so that it sees MAINTAINERS and the rest of the kernel.
# Any ERROR, WARNING or CHECK fails the patch.  The only exceptions are the
# message types listed, each with its reason, in harness/checkpatch.ignore.
set -uo pipefail

tree=$1 series=$2 result=$3
here=$(cd "$(dirname "$0")" && pwd)
ignore=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/checkpatch.ignore" |
	awk '{print $1}' | paste -sd, -)
passed=0 failed=0
while read -r p; do
	out=$(cd "$tree" && perl scripts/checkpatch.pl --strict --terse \
		--show-types ${ignore:+--ignore "$ignore"} "$series/$p" 2>&1)
	if echo "$out" | grep -qE '(ERROR|WARNING|CHECK):'; then
		echo "FAIL checkpatch $p"
		echo "$out" | grep -E '(ERROR|WARNING|CHECK):' | sed 's/^/    /'
		failed=$((failed + 1))
	else
		echo "PASS checkpatch $p"
		passed=$((passed + 1))
	fi
done < "$series/series"
[ $((passed + failed)) -gt 0 ] || { echo "checkpatch: no patches"; failed=1; }
echo "checkpatch: $passed passed, $failed failed" | tee "$result"
[ "$failed" = 0 ]
