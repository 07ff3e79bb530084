#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh TREE OBJ KSFT OUT
#
# The default "make" target: show what the series is, which Kconfig options
# it adds and how they are set in the demo kernel, boot that kernel under
# QEMU and show the mainline baselines each part is measured against.
set -uo pipefail

tree=$1 obj=$2 ksft=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)

echo
echo "== The series on $(make -s -C "$tree" kernelversion) ($(git -C "$tree" rev-list --count base..series) commits)"
git -C "$tree" log --reverse --format='   %h %s' base..series

echo
echo "== Kconfig options the series adds, as set in the demo kernel"
opts=$(git -C "$tree" diff base..series -- '*Kconfig*' |
	sed -n 's/^+\(menu\)\{0,1\}config \([A-Za-z0-9_]*\).*/\2/p')
if [ -z "$opts" ]; then
	echo "   (none yet: each subsystem brings its own option as it lands)"
fi
for o in $opts; do
	v=$(grep -E "^CONFIG_$o=|^# CONFIG_$o is not set" "$obj/.config" || true)
	printf '   %-32s %s\n' "CONFIG_$o" "${v:-(not visible in this config)}"
done

echo
echo "== Booting the demo kernel (x86_64, QEMU TCG, 2 CPUs)"
mkdir -p "$out"
"$here/qemu-run" --arch x86_64 --kernel "$obj/arch/x86/boot/bzImage" \
	--busybox /bin/busybox --name demo --workdir "$out" \
	--payload "$ksft" --payload "$here/demo/guest-demo:guest-demo" \
	--append "nandsim.id_bytes=0xec,0xd3,0x51,0x95" --mem 768 \
	--timeout 600 --run ./guest-demo > "$out/summary.txt"
rc=$?
grep -E '^(PASS|FAIL|SKIP) ' "$out/summary.txt" | sed 's/^/   /'

echo
echo "== Mainline 6.1 baselines and the series, measured in this boot"
python3 - "$out/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r['metrics']
rows = [
    ('boot', 'boot to /init', 'boot_to_init_s', 'probe: parallel probing'),
    ('mm', 'Slab after boot', 'slab_after_boot_kB', 'slab: SLOB-style'),
    ('mm', 'MemFree after boot', 'memfree_after_boot_kB', ''),
    ('time', 'idle timer irqs per CPU', 'idle_timer_irqs_per_cpu_s',
     'dyntick: < 0.2/s/CPU'),
    ('flash', 'JFFS2 write', 'jffs2_write_s', 'SFFS'),
    ('flash', 'JFFS2 mount (scan)', 'jffs2_mount_ms', 'SFFS: < 30 ms'),
    ('flash', 'UBIFS write', 'ubifs_write_s', 'SFFS'),
    ('flash', 'UBI attach (scan)', 'ubi_attach_ms', ''),
    ('flash', 'UBIFS mount', 'ubifs_mount_ms', 'SFFS: < 30 ms'),
    ('series', 'SFFS write', 'sffs_write_s', 'same files, same nandsim'),
    ('series', 'SFFS mount', 'sffs_mount_ms', 'no scan: constant time'),
]
print('   %-6s %-24s %14s   %s' % ('area', 'what', 'measured', 'series target'))
for area, what, key, target in rows:
    v = m.get(key)
    val = '%s %s' % (v['value'], v['unit']) if v else '(not measured)'
    print('   %-6s %-24s %14s   %s' % (area, what, val, target))
print('   guest wall time %.1f s; console log: %s' % (
    r['wall_s'], sys.argv[1].replace('result.json', 'console.log')))
PY
if grep -q '^# top: ' "$out/console.log"; then
	echo
	echo "== What woke the idle CPUs during 5 s (series: CONFIG_IDLE_WAKEUP_STATS)"
	sed -n 's/^# top: /   /p' "$out/console.log"
fi
echo
tail -n 1 "$out/summary.txt"
exit $rc
