#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-all.sh MAKE RESULTS
#
# "make test": every check of the series, one after the other, each with its
# full output in out/logs/<step>.log.  A failing step does not stop the
# others.  Each step leaves "<step>: N passed, N failed" in RESULTS, with
# ", N skipped" after it when the step can skip tests; a step that died
# before writing one counts as one failure.  A skipped test is neither
# passed nor failed: the skips are counted on their own, and the steps
# that skipped are named.  The failed steps are named once more just
# before the last line, which is the total "N passed, N failed"; the exit
# status is non-zero if anything failed.
set -uo pipefail

make=$1 results=$2
out=$(dirname "$results")
logs=$out/logs
rm -rf "$results"
mkdir -p "$results" "$logs"

steps=(tree harness-test tools-test kunit "qemu-test ARCH=x86_64" "qemu-test ARCH=arm"
	"qemu-test-4k ARCH=x86_64" "qemu-test-4k ARCH=arm" "root-test ARCH=x86_64"
	"root-test ARCH=arm" "overlay-test ARCH=x86_64" "overlay-test ARCH=arm"
	module-test checkpatch am-check
	offcheck)
total_p=0 total_f=0 total_s=0
recap=() skips=()
start_all=$SECONDS
for step in "${steps[@]}"; do
	name=${step// ARCH=/-}
	start=$SECONDS
	echo "=== make $step"
	# shellcheck disable=SC2086
	$make --no-print-directory $step > "$logs/$name.log" 2>&1
	rc=$?
	secs=$((SECONDS - start))
	if [ "$name" = tree ]; then
		# Setup, not a test; nothing else can run without it.
		if [ $rc != 0 ]; then
			tail -n 30 "$logs/$name.log"
			echo "0 passed, 1 failed"
			exit 1
		fi
		echo "    base tree and series ready (${secs} s)"
		continue
	fi
	line=$(cat "$results/$name" 2>/dev/null)
	p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
	s=$(echo "$line" | sed -n 's/.* failed, \([0-9]*\) skipped.*/\1/p')
	s=${s:-0}
	if [ -z "$p" ]; then
		p=0 f=1
	elif [ $rc != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	grep -E '^(FAIL|SKIP|METRIC) |^kunit: skip' "$logs/$name.log" | sed 's/^/    /'
	if [ "$f" != 0 ]; then
		echo "    --- last lines of $logs/$name.log:"
		tail -n 25 "$logs/$name.log" | sed 's/^/    /'
		# CI shows only the end of this output: name the failure again there.
		recap+=("$name: $p passed, $f failed (rc $rc)")
		while IFS= read -r l; do
			recap+=("    $l")
		# kunit.py prints the log of a failed case before its
		# [FAILED] line: keep its first line, which often says what
		# the case measured, and each failed expectation with the
		# two lines of values after it, at most 7 lines a case.
		done < <(awk '/^kunit: kernel log problems/ { n = 4 }
			/\[(PASSED|SKIPPED)\]|====/ { nb = 0; k = 0 }
			/^\[[0-9:]*\]     / {
				l = $0; sub(/^\[[0-9:]*\] */, "  ", l)
				if (l ~ /(EXPECTATION|ASSERTION) FAILED/)
					k = 3
				if ((!nb || k) && nb < 7)
					b[nb++] = l
				if (k)
					k--
			}
			/\[(FAILED|CRASHED)\]/ {
				for (i = 0; i < nb; i++)
					print b[i]
				nb = 0; k = 0
			}
			/^FAIL |^kunit: no summary|^kunit: skip where|\[(FAILED|CRASHED)\]/ { print }
			n && n-- { print }' \
			"$logs/$name.log" | head -n 16)
	fi
	if [ "$s" != 0 ]; then
		echo "    $name: $p passed, $f failed, $s skipped (${secs} s)"
		skips+=("$name: $s skipped")
	else
		echo "    $name: $p passed, $f failed (${secs} s)"
	fi
	total_p=$((total_p + p))
	total_f=$((total_f + f))
	total_s=$((total_s + s))
done
echo "=== make test: $((SECONDS - start_all)) s"
if [ ${#skips[@]} != 0 ]; then
	echo "=== skipped: $total_s (neither passed nor failed)"
	printf '    %s\n' "${skips[@]}"
fi
if [ ${#recap[@]} != 0 ]; then
	echo "=== failed:"
	printf '    %s\n' "${recap[@]}"
fi
echo "$total_p passed, $total_f failed"
[ "$total_f" = 0 ]
