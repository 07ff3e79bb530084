#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""size-report.py OUT ARCHES PARTS [WORK]: tables and plot of bench-size.sh.

Reads, in WORK (default OUT), <arch>-<build>.size ("size vmlinux": text data bss),
OUT/<arch>-<build>.image (bytes of the compressed image),
<arch>-{stock,footprint}/<round>/result.json (qemu-run, one per boot)
and <arch>-bloat-o-meter.txt; writes OUT/size.json, OUT/size.md and
the gnuplot script OUT/size.gp for OUT/size.png.

Sizes are exact: one build each.  Memory after boot pairs the boots of
stock and footprint by round: a difference is the median of the
per-round differences with its distribution-free 95% interval
(medci.py), and a saving is claimed only where the interval excludes
zero.  A figure the run did not produce is "-".
"""

import json
import os
import statistics
import sys

from medci import fmt_ci, median_ci

PART_NAMES = {'sffs': ('SFFS', 'mtd', 'MTD alone'),
              'dyntick': ('dyntick layer', 'series', 'options off'),
              'pprobe': ('parallel probing', 'series', 'options off'),
              'slobseg': ('SLOB_SEG', 'slob', 'SLOB')}
MEMORY = ['boot_MemTotal', 'boot_MemFree', 'boot_MemAvailable']


def read_size(out, arch, name):
    try:
        with open(os.path.join(out, '%s-%s.size' % (arch, name))) as f:
            text, data, bss = (int(x) for x in f.read().split()[:3])
        with open(os.path.join(out, '%s-%s.image' % (arch, name))) as f:
            image = int(f.read().split()[0])
    except (OSError, ValueError):
        return None
    return {'text': text, 'data': data, 'bss': bss,
            'text_data': text + data, 'image': image}


def read_boots(out, arch, name):
    top = os.path.join(out, '%s-%s' % (arch, name))
    boots, failed = {}, []
    try:
        rounds = sorted(int(d) for d in os.listdir(top) if d.isdigit())
    except OSError:
        rounds = []
    for r in rounds:
        try:
            with open(os.path.join(top, str(r), 'result.json')) as f:
                res = json.load(f)
        except (OSError, ValueError):
            failed.append(r)
            continue
        if res.get('failed', 1) != 0:
            failed.append(r)
            continue
        boots[r] = {k: v['value'] for k, v in res.get('metrics', {}).items()}
    return boots, failed


def summary(xs):
    if not xs:
        return None
    return {'n': len(xs), 'median': statistics.median(xs),
            'ci95': median_ci(xs)}


def paired(a, b, key):
    """b - a per round both booted"""
    return summary([b[r][key] - a[r][key] for r in sorted(set(a) & set(b))
                    if key in a[r] and key in b[r]])


def verdict(p):
    if p is None or p['ci95'] is None:
        return 'not shown (too few boots)'
    lo, hi = p['ci95']
    if lo > 0:
        return 'more'
    if hi < 0:
        return 'less'
    return 'no difference shown'


def pct(new, old):
    return None if not old else 100.0 * (new - old) / old


def fmt(v, spec='%d'):
    return '-' if v is None else spec % v


def bloat(out, arch, n=10):
    """the top @n growers and shrinkers of bloat-o-meter's table"""
    rows = []
    try:
        with open(os.path.join(out, '%s-bloat-o-meter.txt' % arch)) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    total = next((l for l in lines if l.startswith('Total:')), None)
    # its tables ("Function", "Data", "RO Data"): symbol, old, new, delta
    for l in lines:
        parts = l.split()
        if len(parts) != 4 or parts[3] == 'delta':
            continue
        try:
            rows.append((parts[0], int(parts[3])))
        except ValueError:
            pass
    grow = sorted([r for r in rows if r[1] > 0], key=lambda r: -r[1])[:n]
    shrink = sorted([r for r in rows if r[1] < 0], key=lambda r: r[1])[:n]
    return {'total': total, 'grow': grow, 'shrink': shrink}


def tables_check(out, arch):
    try:
        with open(os.path.join(out, '%s-tables.txt' % arch)) as f:
            return f.read().strip().splitlines()[-1:] or None
    except OSError:
        return None


def main():
    out, arches, parts = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
    work = sys.argv[4] if len(sys.argv) > 4 else out
    res = {'arches': {}}
    for arch in arches:
        a = {'sizes': {}, 'memory': {}, 'parts': {}, 'boots': {}}
        for name in ['stock', 'series', 'footprint', 'mtd', 'slob'] + parts:
            s = read_size(work, arch, name)
            if s:
                a['sizes'][name] = s
        stock, fp = a['sizes'].get('stock'), a['sizes'].get('footprint')
        if stock and fp:
            a['footprint_change'] = {k: {'bytes': fp[k] - stock[k],
                                         'pct': pct(fp[k], stock[k])}
                                     for k in stock}
        ser = a['sizes'].get('series')
        if stock and ser:
            a['series_off_change'] = {k: ser[k] - stock[k]
                                      for k in ('text', 'data', 'bss')}
        boots = {}
        for name in ('stock', 'footprint'):
            boots[name], failed = read_boots(work, arch, name)
            a['boots'][name] = {'ok': len(boots[name]), 'failed': failed}
            for key in MEMORY:
                a['memory'].setdefault(key, {})[name] = summary(
                    [b[key] for b in boots[name].values() if key in b])
        for key in MEMORY:
            p = paired(boots['stock'], boots['footprint'], key)
            a['memory'][key]['diff'] = p
            a['memory'][key]['verdict'] = verdict(p)
        for p in parts:
            base = PART_NAMES[p][1]
            on, off = a['sizes'].get(p), a['sizes'].get(base)
            if on and off:
                a['parts'][p] = {k: on[k] - off[k] for k in on}
        a['bloat'] = bloat(work, arch)
        a['tables_check'] = tables_check(work, arch)
        res['arches'][arch] = a
    with open(os.path.join(out, 'size.json'), 'w') as f:
        json.dump(res, f, indent=1, sort_keys=True)

    md = ['# bench-size', '',
          'tinyconfig plus the architecture fragment; "footprint" adds '
          'harness/configs/size-<arch>.config.', '']
    md += ['## vmlinux and image, bytes', '',
           '| arch | build | text | data | bss | text+data | image |',
           '|---|---|---|---|---|---|---|']
    for arch, a in res['arches'].items():
        for name in ('stock', 'series', 'footprint'):
            s = a['sizes'].get(name)
            if s:
                md.append('| %s | %s | %d | %d | %d | %d | %d |' % (
                    arch, name, s['text'], s['data'], s['bss'],
                    s['text_data'], s['image']))
        ch = a.get('footprint_change')
        if ch:
            md.append('| %s | footprint - stock | %s |' % (arch, ' | '.join(
                '%+d (%+.1f%%)' % (ch[k]['bytes'], ch[k]['pct'])
                for k in ('text', 'data', 'bss', 'text_data', 'image'))))
    md += ['', 'series with its options off minus stock (text, data, bss; '
           'make offcheck says which functions): ' +
           ', '.join('%s %s' % (arch, ' '.join(
               '%+d' % a['series_off_change'][k]
               for k in ('text', 'data', 'bss'))
               if a.get('series_off_change') else '-')
                     for arch, a in res['arches'].items()), '']
    md += ['## Memory after boot, kB (median [95% interval])', '',
           '| arch | | stock | footprint | footprint - stock | |',
           '|---|---|---|---|---|---|']
    for arch, a in res['arches'].items():
        for key in MEMORY:
            m = a['memory'][key]
            md.append('| %s | %s | %s | %s | %s | %s |' % (
                arch, key.replace('boot_', ''), fmt_ci(m.get('stock'), '%d'),
                fmt_ci(m.get('footprint'), '%d'), fmt_ci(m.get('diff'), '%+d'),
                m['verdict']))
        md.append('| %s | boots | %d ok | %d ok | | |' % (
            arch, a['boots']['stock']['ok'], a['boots']['footprint']['ok']))
    if parts:
        md += ['', '## What each part of the series costs when on, bytes', '',
               '| arch | part | against | text | data | bss | text+data | image |',
               '|---|---|---|---|---|---|---|---|']
        for arch, a in res['arches'].items():
            for p in parts:
                c = a['parts'].get(p)
                md.append('| %s | %s | %s | %s |' % (
                    arch, PART_NAMES[p][0], PART_NAMES[p][2],
                    ' | '.join(fmt(c and c[k], '%+d') for k in
                               ('text', 'data', 'bss', 'text_data', 'image'))))
    for arch, a in res['arches'].items():
        b = a.get('bloat')
        md += ['', '## bloat-o-meter, stock to footprint, %s' % arch, '']
        if not b:
            md.append('-')
            continue
        md.append(b['total'] or '')
        md += ['', '| shrank most | bytes | grew most | bytes |',
               '|---|---|---|---|']
        for i in range(max(len(b['shrink']), len(b['grow']))):
            s = b['shrink'][i] if i < len(b['shrink']) else ('', '')
            g = b['grow'][i] if i < len(b['grow']) else ('', '')
            md.append('| %s | %s | %s | %s |' % (s[0], s[1], g[0], g[1]))
        md += ['', 'size-tables.py: %s' % (' '.join(a['tables_check'] or
                                                     ['-']))]
    with open(os.path.join(out, 'size.md'), 'w') as f:
        f.write('\n'.join(md) + '\n')

    rows = [(arch, a['sizes'][n]['text_data'] / 1024.0)
            for arch, a in res['arches'].items()
            for n in ('stock', 'footprint') if n in a['sizes']]
    if rows:
        with open(os.path.join(out, 'size.dat'), 'w') as f:
            for arch, a in res['arches'].items():
                s, p = a['sizes'].get('stock'), a['sizes'].get('footprint')
                f.write('%s %s %s\n' % (
                    arch, fmt(s and s['text_data'] / 1024.0, '%.1f'),
                    fmt(p and p['text_data'] / 1024.0, '%.1f')))
        with open(os.path.join(out, 'size.gp'), 'w') as f:
            f.write('''set terminal png size 640,400 noenhanced
set output "%s"
set title "vmlinux text+data, tinyconfig"
set ylabel "KiB"
set style data histograms
set style histogram clustered
set style fill solid 0.8
set yrange [0:*]
set datafile missing "-"
plot "%s" using 2:xtic(1) title "stock 6.1", "" using 3 title "footprint options"
''' % (os.path.join(out, 'size.png'), os.path.join(out, 'size.dat')))
    print('\n'.join(md))


if __name__ == '__main__':
    main()
