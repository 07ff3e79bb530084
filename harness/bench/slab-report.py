#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""slab-report.py OUT ARCHES ALLOCS: tables and plots of bench-slab.sh.

Reads OUT/<arch>-<alloc>/<round>/result.json (qemu-run, one per boot) and
OUT/<arch>-<alloc>.size (size vmlinux), writes OUT/slab.json, OUT/slab.md
and gnuplot scripts OUT/slab-{memory,churn,ops}.gp for OUT/slab-*.png.

Every allocator boots once per round, so the boots of two allocators pair
up by round: a difference is the median of the per-round differences,
with the distribution-free 95% interval of that median (medci.py), and
a gain is claimed only where the interval excludes zero.  Nothing is
edited by hand: a figure that a run did not produce is "-".
"""

import json
import os
import statistics
import sys

from medci import fmt_ci as fmt_pair, median_ci

NAMES = {'slab': 'SLAB', 'slub': 'SLUB', 'small': 'SLUB small',
         'slob': 'SLOB', 'seg': 'SLOB_SEG'}
# (metric, column title, True if more is better)
MEMORY = [('boot_Slab', 'boot Slab', False),
          ('boot_MemAvailable', 'boot MemAvailable', True),
          ('boot_MemFree', 'boot MemFree', True),
          ('churn_Slab', 'churn Slab', False),
          ('churn_MemAvailable', 'churn MemAvailable', True),
          ('churn_MemFree', 'churn MemFree', True)]
SPEED = [('ops_1cpu_ns', 'alloc+free ns, 1 CPU', False),
         ('ops_2cpu_ns', 'alloc+free ns, 2 CPUs', False),
         ('churn_time', 'churn ms', False)]


def load_boot(path):
    """the metrics of one boot, or None if it failed or did not run"""
    try:
        with open(os.path.join(path, 'result.json')) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    if not r.get('ok', r.get('failed', 1) == 0):
        return None
    return {k: v['value'] for k, v in r.get('metrics', {}).items()}


def load(out, arch, alloc):
    """{'boots': {round: metrics}, 'failed': [rounds], 'size': ...}"""
    run = {'boots': {}, 'failed': [], 'size': None}
    top = os.path.join(out, '%s-%s' % (arch, alloc))
    try:
        rounds = sorted(int(d) for d in os.listdir(top) if d.isdigit())
    except OSError:
        rounds = []
    for r in rounds:
        m = load_boot(os.path.join(top, str(r)))
        if m is None:
            run['failed'].append(r)
        else:
            run['boots'][r] = m
    try:
        with open(os.path.join(out, '%s-%s.size' % (arch, alloc))) as f:
            text, data, bss = (int(x) for x in f.read().split()[:3])
        run['size'] = {'text': text, 'data': data, 'bss': bss}
    except (OSError, ValueError):
        pass
    return run


def values(run, key):
    return [m[key] for m in run['boots'].values() if key in m]


def median(run, key):
    v = values(run, key)
    return statistics.median(v) if v else None


def paired(a, b, key, op):
    """op(a, b) per round both booted, with its median and 95% interval"""
    xs = [op(a['boots'][r][key], b['boots'][r][key])
          for r in sorted(set(a['boots']) & set(b['boots']))
          if key in a['boots'][r] and key in b['boots'][r]
          and (op is not ratio or b['boots'][r][key])]
    if not xs:
        return None
    return {'n': len(xs), 'median': statistics.median(xs),
            'ci95': median_ci(xs)}


def diff(x, y):
    return x - y


def ratio(x, y):
    return x / y


def fmt(v, spec='%d'):
    return '-' if v is None else spec % v


def verdict(p, better_high, bound=0):
    """whether the interval of @p lies on the good side of @bound"""
    if p is None or p['ci95'] is None:
        return 'not shown (too few boots)'
    lo, hi = p['ci95']
    if (lo > bound) if better_high else (hi < bound):
        return 'gain'
    if (hi < bound) if better_high else (lo > bound):
        return 'loss'
    return 'no difference shown'


def target(p, ok):
    """met only if the whole interval of @p meets @ok"""
    if p is None or p['ci95'] is None:
        return 'not shown'
    lo, hi = p['ci95']
    if ok(lo) and ok(hi):
        return 'met'
    if not ok(lo) and not ok(hi):
        return 'missed'
    return 'not shown (interval spans the target)'


def main():
    out, arches, allocs = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
    res = {'machine': os.uname().nodename, 'runs': {}, 'compare': {}}
    for arch in arches:
        res['runs'][arch] = {a: load(out, arch, a) for a in allocs}

    lines = ['# Slab allocators on small guests', '',
             'Tiny kernels (tinyconfig + harness/configs/<arch>.config + the '
             'allocator + CONFIG_SLAB_BENCH) under QEMU TCG with 2 vCPUs; '
             'every allocator boots once per round, in an order that '
             'rotates.  "SLUB small": SLUB without SLUB_CPU_PARTIAL and '
             'SLUB_DEBUG, booted with slub_max_order=0.  Memory in kB from '
             '/proc/meminfo right after boot to a busybox shell, and again '
             'after the slab_bench churn (40,000 kmalloc() of 8..4096 bytes '
             'with mixed lifetimes, its long-lived 3% kept); "Slab" is every '
             'page the allocator holds.  ns: best of 5 runs of 400 x (64 '
             'kmalloc() of the churn size mix, then 64 kfree()), per '
             'alloc+free pair, on one CPU and on each of two CPUs at once; '
             'churn ms: the churn\'s time.  Per allocator: the median of its '
             'boots.  Differences: the median of the per-round differences '
             'with its 95% interval in brackets; a gain only where the '
             'interval excludes zero.  Sizes from `size vmlinux`.  "-": not '
             'run or failed.', '']
    for arch in arches:
        runs = res['runs'][arch]
        res['compare'][arch] = {}
        nboots = {a: len(runs[a]['boots']) for a in allocs}
        mem = next((median(runs[a], 'boot_MemTotal') for a in allocs
                    if median(runs[a], 'boot_MemTotal')), None)
        lines += ['## %s (%s)' % (arch, '%s kB MemTotal' % fmt(mem)
                                  if mem else 'no run'), '',
                  '| allocator | boots | ' +
                  ' | '.join(t for _, t, _ in MEMORY + SPEED) +
                  ' | vmlinux text | data | bss |',
                  '|---|---|' + '---|' * (len(MEMORY) + len(SPEED) + 3)]
        for a in allocs:
            sz = runs[a]['size'] or {}
            failed = runs[a]['failed']
            lines.append('| %s | %d%s | %s | %s | %s | %s |' % (
                NAMES[a], nboots[a],
                ' (%d failed)' % len(failed) if failed else '',
                ' | '.join(fmt(median(runs[a], k), '%.0f')
                           for k, _, _ in MEMORY + SPEED),
                fmt(sz.get('text')), fmt(sz.get('data')),
                fmt(sz.get('bss'))))
        for base in ('slob', 'small'):
            if 'seg' not in allocs or base not in allocs:
                continue
            comp = {}
            lines += ['', '%s: SLOB_SEG minus %s, per round' %
                      (arch, NAMES[base]), '',
                      '| figure | difference [95%] | SLOB_SEG |',
                      '|---|---|---|']
            for key, title, high in MEMORY + SPEED:
                p = paired(runs['seg'], runs[base], key, diff)
                comp[key] = dict(p or {}, verdict=verdict(p, high))
                lines.append('| %s | %s | %s |' % (
                    title, fmt_pair(p, '%+.0f'), comp[key]['verdict']))
            res['compare'][arch]['seg-' + base] = comp

        if 'seg' in allocs:
            t = []
            for base in ('slob', 'small'):
                if base not in allocs:
                    continue
                for key in ('boot_MemAvailable', 'churn_MemAvailable'):
                    p = paired(runs['seg'], runs[base], key, diff)
                    t.append(('%s, SLOB_SEG minus %s (target >= 0 kB)' %
                              (key, NAMES[base]), fmt_pair(p, '%+.0f'),
                              target(p, lambda v: v >= 0)))
            if 'small' in allocs:
                p = paired(runs['seg'], runs['small'], 'ops_2cpu_ns', ratio)
                t.append(('alloc+free on 2 CPUs, SLOB_SEG / SLUB small '
                          '(target <= 1.2)', fmt_pair(p, '%.2f'),
                          target(p, lambda v: v <= 1.2)))
            if 'slob' in allocs:
                p = paired(runs['slob'], runs['seg'], 'ops_2cpu_ns', ratio)
                t.append(('alloc+free on 2 CPUs, SLOB / SLOB_SEG '
                          '(target >= 5)', fmt_pair(p, '%.2f'),
                          target(p, lambda v: v >= 5)))
                s1, s2 = runs['slob']['size'], runs['seg']['size']
                if s1 and s2:
                    d = (s2['text'] + s2['data']) - (s1['text'] + s1['data'])
                    limit = 0 if arch == 'x86_64' else 2048
                    t.append(('text+data, SLOB_SEG minus SLOB in bytes '
                              '(target <= %d)' % limit, '%+d' % d,
                              'met' if d <= limit else 'missed'))
            t.append(('Slab overhead above the live-object floor, a third '
                      'of SLOB\'s at most', '-',
                      'not measured in this run (harness/bench/'
                      'slab-floor.py)'))
            res['compare'][arch]['targets'] = [
                {'target': n, 'measured': m, 'result': r} for n, m, r in t]
            lines += ['', '| %s target | measured [95%%] | result |' % arch,
                      '|---|---|---|']
            lines += ['| %s | %s | %s |' % x for x in t]
            bloat = os.path.join(out, '%s-bloat-o-meter.txt' % arch)
            if os.path.exists(bloat):
                with open(bloat) as f:
                    head = [ln.rstrip() for ln in f if ln.startswith(
                        ('add/remove', 'Total'))]
                lines += ['', 'bloat-o-meter, stock SLOB -> SLOB_SEG: ' +
                          ('; '.join(head) if head else 'failed, see ' +
                           os.path.basename(bloat))]
        lines.append('')
    with open(os.path.join(out, 'slab.json'), 'w') as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, 'slab.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))

    # Plots: one cluster per architecture, one bar per allocator: the
    # median of its boots, the bar's range its smallest and largest.
    plots = (('memory', 'boot_Slab', 'Slab after boot (kB)'),
             ('churn', 'churn_Slab', 'Slab after churn (kB)'),
             ('ops', 'ops_2cpu_ns', 'alloc+free on 2 CPUs (ns)'))
    for name, key, label in plots:
        dat = os.path.join(out, 'slab-%s.dat' % name)
        with open(dat, 'w') as f:
            for arch in arches:
                cols = []
                for a in allocs:
                    v = values(res['runs'][arch][a], key)
                    cols += (['NaN'] * 3 if not v else
                             [str(statistics.median(v)), str(min(v)),
                              str(max(v))])
                f.write('"%s" %s\n' % (arch, ' '.join(cols)))
        cols = ', '.join(
            '"%s" using %d:%d:%d%s title "%s"' % (
                dat if not i else '', 3 * i + 2, 3 * i + 3, 3 * i + 4,
                ':xtic(1)' if not i else '', NAMES[a])
            for i, a in enumerate(allocs))
        with open(os.path.join(out, 'slab-%s.gp' % name), 'w') as f:
            f.write('set terminal png size 900,480 noenhanced\n'
                    'set output "%s"\n'
                    'set title "Slab allocators: %s (median, min to max)"\n'
                    'set style data histogram\n'
                    'set style histogram errorbars gap 1 lw 1\n'
                    'set style fill solid 0.8 border -1\n'
                    'set ylabel "%s"\nset key top left\nset yrange [0:*]\n'
                    'plot %s\n' % (os.path.join(out, 'slab-%s.png' % name),
                                   label, label, cols))


if __name__ == '__main__':
    main()
