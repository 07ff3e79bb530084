#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""slab-report.py OUT ARCHES ALLOCS: tables and plots of bench-slab.sh.

Reads OUT/<arch>-<alloc>/result.json (qemu-run) and OUT/<arch>-<alloc>.size
(size vmlinux), writes OUT/slab.json, OUT/slab.md and gnuplot scripts
OUT/slab-{memory,churn,ops}.gp for OUT/slab-*.png.  Nothing is edited by
hand: a figure that a run did not produce is "-".
"""

import json
import os
import sys

NAMES = {'slab': 'SLAB', 'slub': 'SLUB', 'slob': 'SLOB',
         'seg': 'SLOB_SEG'}


def load(out, arch, alloc):
    run = {'metrics': {}, 'size': None, 'passed': False}
    try:
        with open(os.path.join(out, '%s-%s' % (arch, alloc),
                               'result.json')) as f:
            r = json.load(f)
        run['metrics'] = {k: v['value'] for k, v in r['metrics'].items()}
        run['passed'] = r.get('ok', r.get('failed', 1) == 0)
        run['problems'] = r.get('problems', [])
    except (OSError, ValueError, KeyError):
        pass
    try:
        with open(os.path.join(out, '%s-%s.size' % (arch, alloc))) as f:
            text, data, bss = (int(x) for x in f.read().split()[:3])
        run['size'] = {'text': text, 'data': data, 'bss': bss}
    except (OSError, ValueError):
        pass
    return run


def fmt(v, spec='%d'):
    return '-' if v is None else spec % v


def ratio(a, b):
    if a is None or b in (None, 0):
        return None
    return a / b


def main():
    out, arches, allocs = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
    res = {'machine': os.uname().nodename, 'runs': {}}
    for arch in arches:
        res['runs'][arch] = {a: load(out, arch, a) for a in allocs}
    with open(os.path.join(out, 'slab.json'), 'w') as f:
        json.dump(res, f, indent=1)

    def m(arch, a, key):
        return res['runs'][arch].get(a, {}).get('metrics', {}).get(key)

    lines = ['# Slab allocators on small guests', '',
             'Tiny kernels (tinyconfig + harness/configs/<arch>.config + the '
             'allocator + CONFIG_SLAB_BENCH) under QEMU TCG with 2 vCPUs.  '
             'Memory in kB from /proc/meminfo right after boot to a busybox '
             'shell, and again after the slab_bench churn (40,000 kmalloc() '
             'of 8..4096 bytes with mixed lifetimes, its long-lived 3% kept).  '
             '"Slab" is every page the allocator holds.  ns: best of 5 runs '
             'of 400 x (64 kmalloc() of the churn size mix, then 64 kfree()), '
             'per alloc+free pair, on one CPU and on each of two CPUs at '
             'once.  Sizes from `size vmlinux`.  "-": not run or failed.', '']
    for arch in arches:
        mem = None
        runs = res['runs'][arch]
        for a in allocs:
            mem = mem or m(arch, a, 'boot_MemTotal')
        lines += ['## %s (%s)' % (arch, '%s kB MemTotal' % fmt(mem)
                                  if mem else 'no run'), '',
                  '| allocator | boot MemFree | boot MemAvailable | '
                  'boot Slab | boot SUnreclaim | churn MemFree | churn Slab | '
                  'alloc+free ns, 1 CPU | alloc+free ns, 2 CPUs | '
                  'vmlinux text | data | bss |',
                  '|---|---|---|---|---|---|---|---|---|---|---|---|']
        for a in allocs:
            sz = runs[a]['size'] or {}
            lines.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s '
                         '| %s | %s |' % (
                NAMES[a], fmt(m(arch, a, 'boot_MemFree')),
                fmt(m(arch, a, 'boot_MemAvailable')),
                fmt(m(arch, a, 'boot_Slab')),
                fmt(m(arch, a, 'boot_SUnreclaim')),
                fmt(m(arch, a, 'churn_MemFree')),
                fmt(m(arch, a, 'churn_Slab')),
                fmt(m(arch, a, 'ops_1cpu_ns')),
                fmt(m(arch, a, 'ops_2cpu_ns')),
                fmt(sz.get('text')), fmt(sz.get('data')),
                fmt(sz.get('bss'))))
        if 'seg' in allocs and 'slob' in allocs:
            targets = [
                ('Slab after boot, SLOB_SEG / SLOB (target <= 0.80)',
                 ratio(m(arch, 'seg', 'boot_Slab'),
                       m(arch, 'slob', 'boot_Slab'))),
                ('Slab after churn, SLOB_SEG / SLOB (target <= 0.80)',
                 ratio(m(arch, 'seg', 'churn_Slab'),
                       m(arch, 'slob', 'churn_Slab'))),
                ('alloc+free on 2 CPUs, SLOB / SLOB_SEG (target >= 5)',
                 ratio(m(arch, 'slob', 'ops_2cpu_ns'),
                       m(arch, 'seg', 'ops_2cpu_ns'))),
                ('alloc+free on 2 CPUs, SLOB_SEG / SLUB (target <= 1.5)',
                 ratio(m(arch, 'seg', 'ops_2cpu_ns'),
                       m(arch, 'slub', 'ops_2cpu_ns'))),
                ('alloc+free on 1 CPU, SLOB / SLOB_SEG',
                 ratio(m(arch, 'slob', 'ops_1cpu_ns'),
                       m(arch, 'seg', 'ops_1cpu_ns'))),
            ]
            s1 = runs['slob']['size']
            s2 = runs['seg']['size']
            if s1 and s2:
                targets.append(('text+data+bss, SLOB_SEG - SLOB in bytes '
                                '(target <= 0)',
                                sum(s2.values()) - sum(s1.values())))
            lines += ['', '| %s target | measured |' % arch, '|---|---|']
            for name, v in targets:
                lines.append('| %s | %s |' % (
                    name, fmt(v, '%d' if isinstance(v, int) else '%.2f')))
            bloat = os.path.join(out, '%s-bloat-o-meter.txt' % arch)
            if os.path.exists(bloat):
                with open(bloat) as f:
                    head = [ln.rstrip() for ln in f if ln.startswith(
                        ('add/remove', 'Total'))]
                lines += ['', 'bloat-o-meter, stock SLOB -> SLOB_SEG: ' +
                          ('; '.join(head) if head else 'failed, see ' +
                           os.path.basename(bloat))]
        lines.append('')
    with open(os.path.join(out, 'slab.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))

    # Plots: one cluster per architecture, one bar per allocator.
    plots = (('memory', 'boot_Slab', 'Slab after boot (kB)'),
             ('churn', 'churn_Slab', 'Slab after churn (kB)'),
             ('ops', 'ops_2cpu_ns', 'alloc+free on 2 CPUs (ns)'))
    for name, key, label in plots:
        dat = os.path.join(out, 'slab-%s.dat' % name)
        with open(dat, 'w') as f:
            for arch in arches:
                vals = [m(arch, a, key) for a in allocs]
                f.write('"%s" %s\n' % (arch, ' '.join(
                    'NaN' if v is None else str(v) for v in vals)))
        cols = ', '.join('"" using %d title "%s"' % (i + 2, NAMES[a])
                         if i else '"%s" using 2:xtic(1) title "%s"' %
                         (dat, NAMES[a]) for i, a in enumerate(allocs))
        with open(os.path.join(out, 'slab-%s.gp' % name), 'w') as f:
            f.write('set terminal png size 800,480\n'
                    'set output "%s"\n'
                    'set title "Slab allocators: %s"\n'
                    'set style data histogram\n'
                    'set style histogram clustered gap 1\n'
                    'set style fill solid 0.8 border -1\n'
                    'set ylabel "%s"\nset key top left\nset yrange [0:*]\n'
                    'plot %s\n' % (os.path.join(out, 'slab-%s.png' % name),
                                   label, label, cols))


if __name__ == '__main__':
    main()
