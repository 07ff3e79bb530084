#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh TREE BUILDDIR RESULT KUNITCONFIG|--KUNIT.PY-OPTION=VALUE|filter=GLOB...
#
# Run kunit.py on UML in TREE with every given .kunitconfig (paths relative
# to the repository are read from TREE, where the series has put them).
# The build directory persists, so a one-file change rebuilds incrementally.
# A KUnit run can pass while the kernel log holds a lockdep or sanitizer
# report from code outside any assertion: the log is checked for those too.
# The last line is "kunit: N passed, N failed, N skipped".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tree=$1 build=$2 result=$3
shift 3
args=()
for k in "$@"; do
	case "$k" in
	--*) args+=("$k") ;;
	filter=*) args+=("${k#filter=}") ;;
	/*) args+=(--kunitconfig "$k") ;;
	*) args+=(--kunitconfig "$tree/$k") ;;
	esac
done

mkdir -p "$build"
log=$build/kunit-run.txt
# kunit.py writes the kernel's log there: none left from an earlier run
rm -f "$build/test.log"
cd "$tree" || exit 1
python3 tools/testing/kunit/kunit.py run --arch um --build_dir "$build" \
	--jobs "${JOBS:-$(nproc)}" --timeout 900 \
	--make_options CC="ccache gcc" "${args[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

summary=$(grep -a -o 'Ran [0-9]* tests: .*' "$log" | tail -n 1)
passed=$(echo "$summary" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
failed=$(echo "$summary" | sed -n 's/.*failed: \([0-9]*\).*/\1/p')
crashed=$(echo "$summary" | sed -n 's/.*crashed: \([0-9]*\).*/\1/p')
failed=$(( ${failed:-0} + ${crashed:-0} ))
passed=${passed:-0}
[ -n "$summary" ] || { echo "kunit: no summary from kunit.py"; failed=$((failed + 1)); }
[ "$rc" = 0 ] || [ "$failed" -gt 0 ] || failed=1

# kunit.py counts a skipped case neither as passed nor as failed, and
# returns success.  The kernels of make kunit have a fixed configuration,
# so a case that skips there did not run where it should have, unless it
# skips for an option that kernel does not build: only a reason of the
# form "needs CONFIG_..." is a legitimate skip.  Any other skip counts as
# a failure; every skip is named.
skips=$("$here/kunit-skips.sh" "$build/test.log")
skipped=0
if [ -n "$skips" ]; then
	while IFS= read -r s; do
		case "${s#*: * # SKIP }" in
		"needs CONFIG_"*)
			echo "kunit: skipped $s"
			skipped=$((skipped + 1)) ;;
		*)
			echo "kunit: skip where the test should run, counted as failed: $s"
			failed=$((failed + 1)) ;;
		esac
	done <<< "$skips"
fi

# The KUnit executor (the init task, "swapper" on UML) sleeps while a
# long test runs, and the hung task detector names it: only a test's own
# tasks blocked that long are a hang.
problems=$(grep -a -E 'BUG:|WARNING:|KASAN:|UBSAN:|possible circular locking|inconsistent lock state|blocked for more than|Kernel panic' \
	"$build/test.log" 2>/dev/null | grep -v 'INFO: task swapper[/0-9]*:1 blocked')
if [ -n "$problems" ]; then
	echo "kunit: kernel log problems:"
	echo "$problems" | head -n 20
	failed=$((failed + 1))
fi
echo "kunit: $passed passed, $failed failed, $skipped skipped" | tee "$result"
[ "$failed" = 0 ]
