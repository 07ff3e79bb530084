#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""idle-report.py OUT ARCHES CONFIGS: tables and plots of bench-idle.sh.

Reads OUT/idle-<arch>-<config>-<mode>/result.json and console.log
(qemu-run), writes OUT/idle.json, OUT/idle.md and gnuplot scripts
OUT/idle-<arch>.gp for OUT/idle-<arch>.png.  Every figure comes from the
guests' logs; one a run did not produce is "-".
"""

import json
import os
import re
import sys

MODES = ['periodic', 'stock', 'attributed', 'series', 'stock-rng',
         'series-rng']
TITLES = {
    'periodic': 'periodic HZ=250 (stock, nohz=off)',
    'stock': 'stock NO_HZ_IDLE',
    'attributed': 'series, wakeup_reduce=off',
    'series': 'series',
    'stock-rng': 'stock NO_HZ_IDLE, virtio-rng',
    'series-rng': 'series, virtio-rng',
}
# The rows of the main tables: the guest without an RNG device (a tiny
# guest's RNG is then never seeded under TCG), then with a virtio-rng
# device that seeds it as a hardware RNG would.  (RNG cell, stock mode,
# wakeup_reduce=off mode, series mode); None where that RNG has no such
# boot.
RNGS = [('none', 'stock', 'attributed', 'series'),
        ('virtio-rng', 'stock-rng', None, 'series-rng')]
TARGET = {'tiny': 0.2, 'realistic': 0.5}
# Why a source still wakes the series' kernel, as far as it was analysed
# (Documentation/timers/wakeup-reduce.rst); matched against "source what".
WHY = [
    ('tick max_deferment', 'timekeeping: the clocksource must be read '
     'before it wraps (max_idle_ns; 19 s for the HPET of x86_64 QEMU)'),
    ('tick next_timer', 'a tick named after the next timer: with '
     'wakeup_reduce=off the tick the idle loop retains one jiffy after a '
     'wakeup that ran a task; see wakeup-reduce.rst'),
    ('timer fib6_gc_timer_cb', 'IPv6 route GC every 30 s: removes redirect '
     'routes via a gateway that is no longer a router, which lookups still '
     'use; not deferrable (wakeup-reduce.rst)'),
    ('work wb_workfn', 'writeback of the dirty data of the setup: the dirty '
     'expiry bounds data held only in RAM'),
    ('ipi call nohz_csd_func', 'idle load balancing: the other CPU, awake '
     'for a wakeup of its own, asks this one to balance or to update its '
     'blocked load (nohz_balancer_kick(), mainline scheduler)'),
    ('ipi wake kworker', 'a work queued from the other CPU'),
    ('ipi reschedule', 'a task made runnable by the other CPU'),
    ('hrtimer hrtimer_wakeup', "the benchmark's own sleep ending"),
    ('ipi wake idle-guest.sh', 'the benchmark shell woken at the end'),
    ('ipi wake idle-snap', "the benchmark's own sleep ending, its task "
     'on the other CPU'),
    ('ipi wake rcu_sched', 'RCU grace period for the benchmark\'s own '
     'commands before the window'),
    ('tick timer_due', 'tick kept on for a timer due within a tick '
     '(start of the window)'),
    ('tick rcu', 'RCU callbacks queued on the CPU'),
    ('timer dev_watchdog', 'network TX watchdog: it must notice a hung '
     'queue, so not deferrable'),
    ('timer process_timeout', "a task's schedule_timeout(): with a "
     "virtio-rng device the hwrng thread's sleep between reads of the "
     'device, one per reseed interval of the RNG (wakeup-reduce.rst); '
     'without one only in the first 100 ms of the window, next to the RCU '
     "grace period of the benchmark's own commands"),
    ('timer mix_interrupt_randomness', 'the mix of a CPU\'s interrupt '
     'entropy a tick after a sparse interrupt: with the series only before '
     'the RNG is seeded, or with wakeup_reduce=off (wakeup-reduce.rst)'),
    ('work neigh_periodic_work', 'neighbour table GC'),
    ('timer softdog_ticktock', 'watchdog'),
]


def why(source, what):
    if source == 'irq' and ':virtio' in what:
        return ("a virtio device's interrupt; with a virtio-rng device, "
                "the device answering the hwrng thread's read")
    key = '%s %s' % (source, what)
    for k, v in WHY:
        if key.startswith(k):
            return v
    return 'not analysed'
TS_RE = re.compile(r'^\[\s*\d+\.\d+\]\s?')


def load(out, arch, config, mode):
    d = os.path.join(out, 'idle-%s-%s-%s' % (arch, config, mode))
    run = {'ok': False, 'metrics': {}, 'stats': [], 'irq': [],
           'failures': []}
    try:
        with open(os.path.join(d, 'result.json')) as f:
            r = json.load(f)
        run['metrics'] = {k: v['value'] for k, v in r['metrics'].items()}
        run['ok'] = r.get('failed', 1) == 0
        run['failures'] = r.get('harness_failures', []) + \
            [x['name'] for x in r.get('results', []) if not x['ok']]
    except (OSError, ValueError, KeyError):
        return run
    try:
        with open(os.path.join(d, 'console.log'), errors='replace') as f:
            lines = [TS_RE.sub('', ln.rstrip('\r\n')) for ln in f]
    except OSError:
        lines = []
    secs = run['metrics'].get('idle_s')
    for ln in lines:
        if ln.startswith('# STATS ') and not ln.startswith('# STATS #'):
            f = ln.split()[2:]
            if f[0] == 'cpu' or len(f) < 6:
                continue
            run['stats'].append({
                'cpu': int(f[0]), 'count': int(f[1]), 'source': f[4],
                'what': ' '.join(f[5:]),
                'per_s': round(int(f[1]) / secs, 3) if secs else None})
        elif ln.startswith('# IRQ '):
            f = ln.split()[2:]
            n = int(run['metrics'].get('cpus', 0))
            counts = [int(x) for x in f[1:1 + n]]
            if sum(counts):
                run['irq'].append({'row': f[0].rstrip(':'),
                                   'counts': counts,
                                   'name': ' '.join(f[1 + n:])})
    return run


def fmt(v, spec='%.2f'):
    return '-' if v is None else spec % v


def per_cpu(run, key):
    m = run['metrics']
    n = int(m.get('cpus', 0))
    vals = [m.get('%s_cpu%d' % (key, i)) for i in range(n)]
    if not vals or None in vals:
        return '-'
    return '%.2f (%s)' % (m.get(key), ' / '.join('%.2f' % v for v in vals))


def crng(run):
    """whether the guest's RNG was seeded by the end of its window"""
    v = run['metrics'].get('crng_ready')
    return '-' if v is None else ('yes' if v else 'no')


def met_by(run, keys, tgt):
    """the target against the mean of each measure, then against every
    CPU of each; a failed boot meets nothing"""
    if run['failures']:
        return 'failed: %s' % '; '.join(run['failures'])[:80]
    m = run['metrics']
    n = int(m.get('cpus', 0))
    means = [m.get(k) for k in keys]
    cpus = [m.get('%s_cpu%d' % (k, i)) for k in keys for i in range(n)]
    if tgt is None or None in means + cpus or not n:
        return '-'
    if max(means) > tgt:
        return 'no'
    if max(cpus) > tgt:
        return 'mean yes, busiest CPU %.2f' % max(cpus)
    return 'yes, every CPU'


NONE = {'metrics': {}, 'failures': []}


def write_plot(gp, png, what, arch, ymax, targets, data, cols):
    """a gnuplot script for a bar chart per configuration, log scale"""
    with open(gp, 'w') as f:
        f.write('''set terminal png size 900,500 noenhanced
set output '%s'
set title '%s per CPU per second, %s guest (2 vCPUs, TCG; red: target)'
set style data histogram
set style histogram clustered gap 1
set style fill solid border -1
set logscale y
set yrange [0.01:%s]
set ylabel 'per CPU per second (log)'
set key top right
set grid ytics
%s
$data << EOD
%s
EOD
plot %s
''' % (png, what, arch, ymax, targets, '\n'.join(data), cols))


def main():
    out, arches, configs = sys.argv[1], sys.argv[2].split(), \
        sys.argv[3].split()
    res = {'machine': os.uname().nodename, 'runs': {}}
    for arch in arches:
        res['runs'][arch] = {c: {m: load(out, arch, c, m) for m in MODES}
                             for c in configs}
    with open(os.path.join(out, 'idle.json'), 'w') as f:
        json.dump(res, f, indent=1)

    md = ['# Idle wakeups per CPU', '',
          'Each guest has 2 vCPUs under QEMU TCG and stays idle for the '
          'time shown after its services settled.  Figures are per CPU per '
          'second, mean (CPU0 / CPU1).  "idle exits" are the returns of a '
          'CPU to the idle loop (idle_calls in /proc/timer_list), one per '
          'wakeup, on every tickless kernel; "attributed" are the wakeups '
          'the attribution of the series charged to a cause; "irq" is every '
          'interrupt in /proc/interrupts (timer, devices, IPIs).  All three '
          'are counted over the same window, whose counters the guest reads '
          'with one read() per page and no fork (harness/bench/idle-snap.c), '
          'so that reading them keeps no CPU busy long enough for a tick.  '
          'Targets: %s.'
          % ', '.join('%s <= %.1f/s' % kv for kv in TARGET.items()), '']
    md += ['"RNG": the guest\'s RNG device, "none" or "virtio-rng".  '
           'Without one, a tiny guest under TCG gathers too little entropy '
           'while idle to seed its RNG, and the kernel keeps polling for it '
           '(fill_ptr_key_workfn() among others); a realistic guest\'s '
           'device interrupts seed it during boot.  With virtio-rng the RNG '
           'is seeded seconds after boot, as a hardware RNG seeds a '
           'device\'s, and the hwrng thread then reads the device once per '
           'reseed interval of the RNG (half the uptime during the first two '
           'minutes, then a minute).  "seeded" is whether the stock and '
           'the series boot printed "crng init done" by the end of their '
           'windows.', '']
    md += ['## Wakeups per CPU per second', '',
           '| arch | config | RNG | seeded | idle s | '
           'stock NO_HZ_IDLE, idle exits | '
           'series wakeup_reduce=off, idle exits | attributed | '
           'series, idle exits | attributed | target | met |',
           '|' + ' --- |' * 12]
    for arch in arches:
        for c in configs:
            runs = res['runs'][arch][c]
            tgt = TARGET.get(c)
            for rng, stock, off, series in RNGS:
                sr = runs[series]
                offr = runs[off] if off else NONE
                md.append('| ' + ' | '.join([
                    arch, c, rng, '%s / %s' % (crng(runs[stock]), crng(sr)),
                    fmt(sr['metrics'].get('idle_s'), '%.0f'),
                    per_cpu(runs[stock], 'idle_exits_per_cpu_s'),
                    per_cpu(offr, 'idle_exits_per_cpu_s'),
                    per_cpu(offr, 'wakeups_per_cpu_s'),
                    per_cpu(sr, 'idle_exits_per_cpu_s'),
                    per_cpu(sr, 'wakeups_per_cpu_s'),
                    fmt(tgt, '%.1f'),
                    met_by(sr, ['wakeups_per_cpu_s',
                                'idle_exits_per_cpu_s'], tgt)]) + ' |')
    md.append('')
    cols = ['periodic', 'stock', 'attributed', 'series']
    head = '| arch | config | RNG | idle s | ' + \
        ' | '.join(TITLES[m] for m in cols) + \
        ' | series wakeups/s | target | series met |'
    md += ['## Interrupts per CPU per second', '', head,
           '|' + ' --- |' * (len(cols) + 7)]
    for arch in arches:
        for c in configs:
            runs = res['runs'][arch][c]
            tgt = TARGET.get(c)
            for rng, stock, off, series in RNGS:
                mode = {'periodic': 'periodic' if rng == 'none'
                        else None, 'stock': stock, 'attributed': off,
                        'series': series}
                row = [arch, c, rng,
                       fmt(runs[series]['metrics'].get('idle_s'), '%.0f')]
                for m in cols:
                    r = runs[mode[m]] if mode[m] else NONE
                    cell = per_cpu(r, 'irq_per_cpu_s')
                    if r['failures']:
                        cell += ' (failed: %s)' % '; '.join(
                            r['failures'])[:80]
                    row.append(cell)
                row.append(per_cpu(runs[series], 'wakeups_per_cpu_s'))
                row.append('%.1f' % TARGET.get(c, 0))
                row.append(met_by(runs[series], ['irq_per_cpu_s'], tgt))
                md.append('| ' + ' | '.join(row) + ' |')
    md.append('')
    for arch in arches:
        for c in configs:
            runs = res['runs'][arch][c]
            md += ['## %s %s: what wakes the idle CPUs' % (arch, c), '']
            for m in ('attributed', 'series', 'series-rng'):
                st = runs[m]['stats']
                md += ['%s (attribution, per CPU):' % TITLES[m], '',
                       '| cpu | wakeups | per s | source | what | why it '
                       'stays |', '| --- | --- | --- | --- | --- | --- |']
                for s in st[:12 if m == 'attributed' else len(st)]:
                    md.append('| %d | %d | %s | %s | %s | %s |' % (
                        s['cpu'], s['count'], fmt(s['per_s']), s['source'],
                        s['what'], why(s['source'], s['what'])
                        if m != 'attributed' else ''))
                if not st:
                    md.append('| - | - | - | - | - | - |')
                md.append('')
            st = runs['stock']['irq']
            md += ['stock NO_HZ_IDLE, /proc/interrupts during the idle '
                   'time:', '', '| row | per CPU | name |',
                   '| --- | --- | --- |']
            for r in st:
                md.append('| %s | %s | %s |' % (
                    r['row'], ' / '.join(str(x) for x in r['counts']),
                    r['name']))
            md.append('')
    with open(os.path.join(out, 'idle.md'), 'w') as f:
        f.write('\n'.join(md))

    for arch in arches:
        data = []
        for c in configs:
            vals = []
            for m in MODES:
                v = res['runs'][arch][c][m]['metrics'].get('irq_per_cpu_s')
                vals.append('%.3f' % v if v else 'NaN')
            data.append('%s %s' % (c, ' '.join(vals)))
        gp = os.path.join(out, 'idle-%s.gp' % arch)
        # the target of each configuration, a dashed line over its bars
        targets = '\n'.join(
            "set arrow from %.2f,%s to %.2f,%s nohead dt 2 lw 2 lc 'red'"
            % (i - 0.45, TARGET[c], i + 0.45, TARGET[c])
            for i, c in enumerate(configs) if c in TARGET)
        # a mode without any figure would stop gnuplot
        have = [i for i, m in enumerate(MODES)
                if any(res['runs'][arch][c][m]['metrics'].get('irq_per_cpu_s')
                       for c in configs)]
        if not have:
            continue
        cols = ', '.join(
            "$data using %d:xtic(1) title '%s'" % (i + 2, TITLES[MODES[i]])
            for i in have)
        write_plot(gp, os.path.join(out, 'idle-%s.png' % arch),
                   'Idle interrupts', arch, '*', targets, data, cols)
        # idle exits and attributed wakeups, the measure of the targets
        series = [('stock', 'idle_exits_per_cpu_s',
                   'stock NO_HZ_IDLE, idle exits'),
                  ('attributed', 'idle_exits_per_cpu_s',
                   'series wakeup_reduce=off, idle exits'),
                  ('attributed', 'wakeups_per_cpu_s',
                   'series wakeup_reduce=off, attributed'),
                  ('series', 'idle_exits_per_cpu_s', 'series, idle exits'),
                  ('series', 'wakeups_per_cpu_s', 'series, attributed'),
                  ('stock-rng', 'idle_exits_per_cpu_s',
                   'stock, virtio-rng, idle exits'),
                  ('series-rng', 'idle_exits_per_cpu_s',
                   'series, virtio-rng, idle exits')]
        data = []
        for c in configs:
            vals = []
            for m, k, _ in series:
                v = res['runs'][arch][c][m]['metrics'].get(k)
                vals.append('%.3f' % v if v else 'NaN')
            data.append('%s %s' % (c, ' '.join(vals)))
        have = [i for i, (m, k, _) in enumerate(series)
                if any(res['runs'][arch][c][m]['metrics'].get(k)
                       for c in configs)]
        if not have:
            continue
        cols = ', '.join("$data using %d:xtic(1) title '%s'"
                         % (i + 2, series[i][2]) for i in have)
        write_plot(os.path.join(out, 'idle-%s-wakeups.gp' % arch),
                   os.path.join(out, 'idle-%s-wakeups.png' % arch),
                   'Idle wakeups', arch, '10', targets, data, cols)
    # the wakeups table, up to the next section
    print('\n'.join(md[:md.index('## Interrupts per CPU per second')]))


if __name__ == '__main__':
    main()
