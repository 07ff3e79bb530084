#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""idle-cost-report.py OUT ARCHES RUNS: the table of bench-idle-cost.sh.

Reads OUT/idle-cost-<arch>-<off|on>-<run>/result.json (qemu-run) and
writes OUT/idle-cost.json and OUT/idle-cost.md: for each workload, the
mean of the runs with wakeup_reduce=off and on, their range, and the
change.  Every figure comes from the guests.
"""

import json
import os
import sys

ROWS = [
    ('pingpong_per_s', 'pipe ping-pong between the CPUs, round trips/s'),
    ('pingpong_tick_stops_per_cpu_s', 'ping-pong: tick stops per CPU/s'),
    ('pingpong_timer_irq_per_cpu_s', 'ping-pong: timer interrupts per CPU/s'),
    ('sleep10000_per_s', '10 ms sleeps per s'),
    ('sleep10000_late_us', '10 ms sleeps: wakeup lateness, us'),
    ('sleep10ms_tick_stops_per_cpu_s', '10 ms sleeps: tick stops per CPU/s'),
    ('sleep10ms_timer_irq_per_cpu_s',
     '10 ms sleeps: timer interrupts per CPU/s'),
    ('sleep2000_per_s', '2 ms sleeps per s'),
    ('sleep2000_late_us', '2 ms sleeps: wakeup lateness, us'),
    ('sleep2ms_tick_stops_per_cpu_s', '2 ms sleeps: tick stops per CPU/s'),
    ('sleep2ms_timer_irq_per_cpu_s',
     '2 ms sleeps: timer interrupts per CPU/s'),
]


def load(out, arch, mode, run):
    path = os.path.join(out, 'idle-cost-%s-%s-%d' % (arch, mode, run),
                        'result.json')
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return {}
    if r.get('failed', 1):
        return {}
    return {k: v['value'] for k, v in r['metrics'].items()}


def cell(vals):
    if not vals:
        return '-', None
    mean = sum(vals) / len(vals)
    if len(vals) == 1:
        return '%.1f' % mean, mean
    return '%.1f (%.1f-%.1f)' % (mean, min(vals), max(vals)), mean


def main():
    out, arches, runs = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
    res = {}
    md = ['# What stopping the tick at every idle entry costs', '',
          'Tiny series kernel of make bench-idle (HZ=250, no cpuidle '
          'driver), 2 vCPUs under QEMU TCG, booted with wakeup_reduce=off '
          '(the base tree\'s idle loop) and on, %d runs each; mean '
          '(range).' % runs, '']
    for arch in arches:
        res[arch] = {m: [load(out, arch, m, r) for r in range(1, runs + 1)]
                     for m in ('off', 'on')}
        md += ['## %s' % arch, '',
               '| workload | wakeup_reduce=off | on | change |',
               '| --- | --- | --- | --- |']
        for key, title in ROWS:
            cells, means = [], []
            for m in ('off', 'on'):
                c, mean = cell([r[key] for r in res[arch][m] if key in r])
                cells.append(c)
                means.append(mean)
            if None in means or not means[0]:
                change = '-'
            else:
                change = '%+.1f%%' % (100 * (means[1] - means[0]) / means[0])
            md.append('| %s | %s | %s | %s |' % (title, cells[0], cells[1],
                                                change))
        md.append('')
    with open(os.path.join(out, 'idle-cost.json'), 'w') as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, 'idle-cost.md'), 'w') as f:
        f.write('\n'.join(md))
    print('\n'.join(md))


if __name__ == '__main__':
    main()
