#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-flash.sh OBJ KSFT OUT
#
# SFFS against UBIFS and JFFS2, in one run on this machine: one x86_64
# guest per nandsim size (256 MiB, 1 GiB, 4 GiB; 2 KiB pages, 128 KiB
# blocks), each file system filled to 25% with incompressible 1 MiB
# files, then unmounted, mounted again and listed.  Writes OUT/flash.json,
# OUT/flash.md and OUT/flash-{mount,ram,write}.png.
#
# Under TCG a guest writes slower the more the simulated flash holds: 1 GiB
# on the 4 GiB device takes SFFS about 20 and UBIFS about 35 minutes, so
# the time limit grows with the size.
#
# JFFS2 is not run at 4 GiB unless BENCH_JFFS2_4G=1: it takes minutes to
# write 1 GiB there, and mainline measured it unable to mount the result.
set -uo pipefail
obj=$1 ksft=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
sizes=${BENCH_SIZES:-"256 1024 4096"}
declare -A idb=([256]=0xda [512]=0xdc [1024]=0xd3 [2048]=0xd5 [4096]=0xd7)

for mb in $sizes; do
	fss="sffs ubifs jffs2"
	[ "$mb" -lt 4096 ] || [ "${BENCH_JFFS2_4G:-0}" = 1 ] || fss="sffs ubifs"
	mem=$((1024 + mb))
	echo "== nandsim $mb MiB: $fss, $((mb / 4)) MiB of data each"
	"$here/qemu-run" --arch x86_64 --kernel "$obj/arch/x86/boot/bzImage" \
		--busybox /bin/busybox --name "bench-flash-$mb" \
		--workdir "$out/flash-$mb" --payload "$ksft" \
		--payload "$here/bench/flash-guest.sh:flash-guest.sh" \
		--append "nandsim.id_bytes=0xec,${idb[$mb]},0x51,0x95" \
		--mem "$mem" --timeout $((1200 + mb * 2)) \
		--run "./flash-guest.sh $((mb / 4)) '$fss'" |
		grep -E '^(PASS|FAIL|METRIC)' | sed 's/^/   /'
done

python3 - "$out" $sizes <<'PY'
import json, os, sys
out, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
fss = ['sffs', 'ubifs', 'jffs2']
res = {'machine': os.uname().nodename, 'sizes_mb': sizes, 'runs': {}}
for mb in sizes:
    with open(os.path.join(out, 'flash-%d' % mb, 'result.json')) as f:
        r = json.load(f)
    res['runs'][mb] = {
        'data_mb': mb // 4,
        'metrics': {k: v['value'] for k, v in r['metrics'].items()},
        'passed': r['passed'], 'failed': r['failed'],
    }
with open(os.path.join(out, 'flash.json'), 'w') as f:
    json.dump(res, f, indent=1)

def get(mb, key):
    return res['runs'][mb]['metrics'].get(key)

def fmt(v, spec='%.1f'):
    return '-' if v is None else spec % v

lines = ['# SFFS against UBIFS and JFFS2', '',
         'x86_64 guest under QEMU TCG, 2 vCPUs, nandsim with 2 KiB pages '
         'and 128 KiB erase blocks, filled to 25% with incompressible '
         '1 MiB files.  Mount: after unmount and dropped caches, as a '
         'shell times it (UBIFS: UBI attach + mount).  RAM: slab + vmalloc '
         'after mount and `ls -lR`, minus the same before the mount, '
         'caches dropped first.  "-": not run or failed.', '',
         '| flash | data | SFFS mount ms (kernel) | UBIFS attach+mount ms '
         '(attach) | JFFS2 mount ms | SFFS RAM kB | UBIFS RAM kB | '
         'JFFS2 RAM kB | SFFS write MB/s | UBIFS write MB/s | '
         'JFFS2 write MB/s |',
         '|---|---|---|---|---|---|---|---|---|---|---|']
tp = lambda mb, fs: (None if get(mb, fs + '_write_s') in (None, 0)
                     else (mb // 4) / get(mb, fs + '_write_s'))
for mb in sizes:
    lines.append('| %d MiB | %d MiB | %s (%s) | %s (%s) | %s | %s | %s | %s '
                 '| %s | %s | %s |' % (
        mb, mb // 4, fmt(get(mb, 'sffs_mount_ms')),
        fmt(get(mb, 'sffs_kmount_ms')), fmt(get(mb, 'ubifs_mount_ms')),
        fmt(get(mb, 'ubifs_attach_ms')), fmt(get(mb, 'jffs2_mount_ms')),
        fmt(get(mb, 'sffs_ram_kB'), '%d'), fmt(get(mb, 'ubifs_ram_kB'), '%d'),
        fmt(get(mb, 'jffs2_ram_kB'), '%d'), fmt(tp(mb, 'sffs')),
        fmt(tp(mb, 'ubifs')), fmt(tp(mb, 'jffs2'))))
with open(os.path.join(out, 'flash.md'), 'w') as f:
    f.write('\n'.join(lines) + '\n')
print('\n'.join(lines))

for what, key, unit in (('mount', '_mount_ms', 'ms'),
                        ('ram', '_ram_kB', 'kB'),
                        ('write', None, 'MB/s')):
    with open(os.path.join(out, 'flash-%s.dat' % what), 'w') as f:
        for mb in sizes:
            vals = [tp(mb, fs) if key is None else get(mb, fs + key)
                    for fs in fss]
            f.write('"%d MiB" %s\n' % (mb, ' '.join(
                'NaN' if v is None else str(v) for v in vals)))
PY
for what in mount:"mount time (ms)" ram:"RAM after mount + ls -lR (kB)" \
	    write:"write throughput (MB/s)"; do
	name=${what%%:*} label=${what#*:}
	gnuplot <<GP
set terminal png size 800,480
set output "$out/flash-$name.png"
set title "SFFS, UBIFS, JFFS2: $label, nandsim filled to 25%"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "$label"
set key top left
set yrange [0:*]
plot "$out/flash-$name.dat" using 2:xtic(1) title "SFFS", \
     "" using 3 title "UBIFS (UBI attach + mount)", \
     "" using 4 title "JFFS2"
GP
done
ls "$out"/flash*.png
