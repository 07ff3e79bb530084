#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""probe-report.py ARCH OUT REPS BOOTS: the tables and charts of bench-probe.

Reads what bench-probe.sh left in OUT (qemu-run's result.json and
console.log of each boot) and writes OUT/probe.json (merged with the
other architecture's figures if there), OUT/probe.md and, with gnuplot,
OUT/probe-ARCH.png (probing phase per mode against the critical path) and
OUT/probe-ARCH-timeline.png (the series' probe timeline).  Every figure
comes from the guests; nothing is computed here but medians, ratios and
the order-statistics confidence interval of a median.
"""

import json
import os
import re
import statistics
import subprocess
import sys

from medci import median_ci

BOOTS = [('stock', 'stock 6.1 (series not applied)'),
         ('stock-again', 'stock 6.1 again (the same kernel: the spread '
          'alone)'),
         ('series', 'series, no benchmark module'),
         ('series-off', 'series, driver_parallel_probe=off')]
MODES = [('sync', 'synchronous'),
         ('async', 'mainline driver_async_probe=*'),
         ('series', 'series (parallel_probe)'),
         ('ordered', 'series, drivers ordered (ordered=1)')]


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    arch, out, reps, boots = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    res = {}
    jpath = os.path.join(out, 'probe.json')
    if os.path.exists(jpath):
        res = load(jpath)
    a = res[arch] = {'modes': {}, 'boot_to_init_s': {}}
    ok = True
    for mode, _ in MODES:
        wd = os.path.join(out, 'probe-%s-%s' % (arch, mode))
        r = load(os.path.join(wd, 'result.json'))
        m = {k: v['value'] for k, v in r['metrics'].items()}
        runs = []
        for i in range(reps):
            key = lambda k: '%s_%s_%d' % (mode, k, i)
            if key('bound_us') not in m:
                continue
            runs.append({k: m[key(k)] for k in
                         ('bound_us', 'done_us', 'critical_us',
                          'critical_run_us', 'sum_us', 'deferrals',
                          'drvdefer', 'at_once', 'path_wait_us',
                          'path_probe_us') if key(k) in m})
        ok &= bool(runs) and r['failed'] == 0
        entry = {'runs': runs, 'passed': r['passed'], 'failed': r['failed']}
        if runs:
            for k in ('bound_us', 'done_us', 'deferrals', 'drvdefer',
                      'at_once', 'critical_run_us', 'path_wait_us',
                      'path_probe_us'):
                if all(k in x for x in runs):
                    entry[k] = statistics.median(x[k] for x in runs)
            entry['x_critical_run'] = statistics.median(
                x['bound_us'] / x['critical_run_us'] for x in runs)
            entry['critical_us'] = runs[0]['critical_us']
            entry['sum_us'] = runs[0]['sum_us']
        a['modes'][mode] = entry
        if mode == 'series':
            tl = []
            with open(os.path.join(wd, 'console.log'),
                      errors='replace') as f:
                for line in f:
                    mt = re.search(r'# TIMELINE (\d+) (\d+) (\d+) (-?\d+) '
                                   r'(-?\d+) (\S+) (\S+)', line)
                    if mt:
                        tl.append([int(mt.group(i)) for i in range(1, 6)] +
                                  [mt.group(6), mt.group(7)])
            a['series_timeline'] = tl
    for k, _ in BOOTS:
        t, kt, loads, rounds = [], [], [], []
        for b in range(1, boots + 1):
            wd = os.path.join(out, 'boot-%s-%s-%d' % (arch, k, b))
            path = os.path.join(wd, 'console.log')
            if not os.path.exists(path):
                continue
            with open(path, errors='replace') as f:
                log = f.read()
            mt = re.search(r'qemu-run: guest up ([\d.]+) s', log)
            mk = re.search(r'\[\s*([\d.]+)\] Run /init as init process', log)
            if not mt or not mk:
                continue
            t.append(float(mt.group(1)))
            kt.append(float(mk.group(1)))
            rounds.append(b)
            try:
                with open(os.path.join(wd, 'loadavg')) as f:
                    loads.append(float(f.read().split()[0]))
            except (OSError, ValueError, IndexError):
                pass
        a['boot_to_init_s'][k] = {
            'boots': t, 'median': statistics.median(t) if t else None,
            'run_init': kt,
            'run_init_median': statistics.median(kt) if kt else None,
            'rounds': rounds, 'host_load': loads}
    # Each kernel against the stock kernel booted in the same round: the
    # median of those differences is less at the mercy of the host's load
    # changing from one round to the next than a difference of medians.
    bt = a['boot_to_init_s']
    stock_by_round = dict(zip(bt['stock']['rounds'], bt['stock']['run_init']))
    for k, e in bt.items():
        diffs = [x - stock_by_round[b] for b, x in
                 zip(e['rounds'], e['run_init']) if b in stock_by_round]
        e['vs_stock_same_round'] = diffs
        e['vs_stock_median'] = statistics.median(diffs) if diffs else None
        e['vs_stock_ci95'] = median_ci(diffs) if k != 'stock' else None
    with open(jpath, 'w') as f:
        json.dump(res, f, indent=1)

    lines = ['# Device probing: synchronous, mainline async, the series', '',
             'parallel_probe_bench.ko in a QEMU (TCG) guest, loaded after '
             'boot: one graph (seed, 64 devices, probes sleeping 20-100 ms, '
             'suppliers up to 6 deep, some bound by a late driver).  '
             'Probing phase: driver registration to the last bind, median '
             'of the runs.  Critical path: the longest chain of probe '
             'times along the dependencies, with the nominal sleeps and '
             'with the probe times of each run (the lower bound of that '
             'run: under TCG on a loaded host sleeps overshoot); "x '
             'critical path" is the median over the runs of the phase '
             'divided by its run\'s critical path.  Deferrals: '
             'probe attempts ending in -EPROBE_DEFER (driver core '
             'counters).  Boot to /init, without the module: the kernel\'s '
             '"Run /init" printk time and /proc/uptime when the /init '
             'script is up (after its mounts), median of the boots; the '
             'stock kernel is configured as the series\' one but for '
             'CONFIG_DRIVER_PARALLEL_PROBE, and the kernels take turns '
             'in an order that rotates from round to round.  "Minus stock '
             'in the same round" is the median over the rounds of the '
             'kernel\'s time less the stock kernel\'s in that round, with '
             'the 95% confidence interval of that median (order statistics, '
             'no assumption about the distribution): an interval that '
             'holds 0 means no difference this run can tell from noise.  '
             'Other work on the host only slows a boot down: the fastest '
             'boot is the least disturbed.  Every boot\'s time and host '
             'load are in probe.json.', '']
    for arch_name, d in sorted(res.items()):
        lines += ['## %s' % arch_name, '',
                  '| mode | probing phase ms | critical path of the runs ms '
                  '| x critical path | x nominal critical path | '
                  'speed-up vs sync | deferrals | deferrals by the driver '
                  '| probes at once | runs |',
                  '|---|---|---|---|---|---|---|---|---|---|']
        sync = d['modes'].get('sync', {}).get('bound_us')
        crit = None
        for mode, label in MODES:
            e = d['modes'].get(mode, {})
            if 'bound_us' not in e:
                lines.append('| %s | - | - | - | - | - | - | - | - | 0 |'
                             % label)
                continue
            crit = e['critical_us']
            lines.append('| %s | %.1f | %.1f | %.2f | %.2f | %.1fx | %d | %d '
                         '| %d | %d |' % (
                label, e['bound_us'] / 1000, e['critical_run_us'] / 1000,
                e['x_critical_run'], e['bound_us'] / crit,
                sync / e['bound_us'] if sync else float('nan'),
                e['deferrals'], e['drvdefer'], e['at_once'], len(e['runs'])))
        if crit:
            lines += ['', 'Nominal critical path %.1f ms; all nominal probe '
                      'times added %.1f ms.' % (
                          crit / 1000, d['modes']['sync']['sum_us'] / 1000)]
        waits = ['%s %.1f ms probing, %.1f ms waiting' % (
            label, e['path_probe_us'] / 1000, e['path_wait_us'] / 1000)
            for mode, label in MODES
            for e in [d['modes'].get(mode, {})] if 'path_wait_us' in e]
        if waits:
            lines += ['', 'The chain of probes that ended last (back along '
                      'the dependency bound last before each start), '
                      'median: ' + '; '.join(waits) + '.']
        bt = d['boot_to_init_s']
        lines += ['', '| kernel | kernel runs /init s (median) | (fastest) '
                  '| (slowest) | minus stock in the same round s (median) '
                  '| 95% interval | /init script up s (median) '
                  '| boots | host load average at the boots |',
                  '|---|---|---|---|---|---|---|---|---|']
        for k, label in BOOTS:
            e = bt.get(k, {})
            ci = e.get('vs_stock_ci95')
            lines.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                label, '-' if e.get('run_init_median') is None else
                '%.3f' % e['run_init_median'],
                '%.3f' % min(e['run_init']) if e.get('run_init') else '-',
                '%.3f' % max(e['run_init']) if e.get('run_init') else '-',
                '-' if e.get('vs_stock_median') is None else
                '%+.3f' % e['vs_stock_median'],
                '%+.3f to %+.3f' % tuple(ci) if ci else '-',
                '-' if e.get('median') is None else '%.3f' % e['median'],
                len(e.get('run_init', [])),
                '%.1f-%.1f' % (min(e['host_load']), max(e['host_load']))
                if e.get('host_load') else '-'))
        lines.append('')
    with open(os.path.join(out, 'probe.md'), 'w') as f:
        f.write('\n'.join(lines))
    print('\n'.join(lines))

    # charts
    dat = os.path.join(out, 'probe-%s.dat' % arch)
    with open(dat, 'w') as f:
        for mode, label in MODES:
            e = a['modes'].get(mode, {})
            short = {'sync': 'synchronous', 'async': 'driver_async_probe=*',
                     'series': 'series', 'ordered': 'series, ordered'}[mode]
            f.write('"%s" %s %s\n' % (short, e.get('bound_us', 0) / 1000,
                                      e.get('critical_run_us', 0) / 1000))
    gp = '''set terminal png size 800,480 noenhanced
set output "%(out)s/probe-%(arch)s.png"
set title "Probing phase, %(arch)s guest, 64 devices (median)"
set style data histogram
set style fill solid 0.8 border -1
set ylabel "ms"
set yrange [0:*]
set key top right
plot "%(dat)s" using 2:xtic(1) title "probing phase", \\
     "" using 0:3 with points pt 7 ps 2 title "critical path of the runs (lower bound)"
''' % {'out': out, 'arch': arch, 'dat': dat}
    tl = a.get('series_timeline', [])
    if tl:
        t0 = min(x[1] for x in tl)
        tdat = os.path.join(out, 'probe-%s-timeline.dat' % arch)
        with open(tdat, 'w') as f:
            for i, x in enumerate(sorted(tl, key=lambda x: x[1])):
                f.write('%d %.1f %.1f %.1f %s\n' % (
                    i, (x[0] - t0) / 1000, (x[1] - t0) / 1000,
                    (x[2] - t0) / 1000, x[5]))
        gp += '''set output "%(out)s/probe-%(arch)s-timeline.png"
set title "Series: probe timeline of the first run, %(arch)s (grey: waiting)"
set style data vectors
unset style
set xlabel "ms from the first probe"
set ylabel "probe (by start)"
set yrange [-1:*]
set xrange [*:*]
plot "%(tdat)s" using 2:1:($3-$2):(0) with vectors nohead lc rgb "grey" \\
     title "queued", \\
     "" using 3:1:($4-$3):(0) with vectors nohead lw 3 lc rgb "blue" \\
     title "probing"
''' % {'out': out, 'arch': arch, 'tdat': tdat}
    subprocess.run(['gnuplot'], input=gp, text=True, check=False)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
