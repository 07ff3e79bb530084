#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw the device probes of a boot as an SVG chart, with the critical path.

    probechart.py [TIMELINE] > probes.svg

TIMELINE is /sys/kernel/debug/parallel_probe/timeline (the default) or a
copy of it; "-" reads standard input.  Each probe attempt is a bar: grey
while the asynchronous probe waited for its parent and suppliers, then
green (bound), orange (-EPROBE_DEFER) or red (any other error), labelled
with the device, the driver and the CPU it ended on.  Like
scripts/bootgraph.pl does for initcalls.

The critical path is the chain of probes that decided when the last one
ended: walking back from the probe that ended last, the predecessor of a
probe is the probe that ended last before it started (within --slack
microseconds), since a parked probe starts when the last of its
dependencies binds.  The path is inferred from the times alone.  Its bars are outlined and joined in red, and its
length is printed next to the whole probing phase.
"""

import argparse
import html
import sys


def parse(lines):
    probes = []
    for line in lines:
        if line.startswith('#') or not line.strip():
            continue
        f = line.split()
        if len(f) < 7:
            continue
        probes.append({'queued': int(f[0]), 'start': int(f[1]),
                       'end': int(f[2]), 'cpu': int(f[3]), 'ret': int(f[4]),
                       'dev': f[5], 'drv': f[6]})
    return probes


def critical_path(probes, slack):
    """Indices of the critical path, first probe first."""
    if not probes:
        return []
    cur = max(range(len(probes)), key=lambda i: probes[i]['end'])
    path = [cur]
    while True:
        start = probes[cur]['start']
        best = None
        for i, p in enumerate(probes):
            if i == cur or p['end'] > start or p['ret'] != 0:
                continue
            if best is None or p['end'] > probes[best]['end']:
                best = i
        # a gap longer than the slack: nothing we know of held it back
        if best is None or start - probes[best]['end'] > slack:
            break
        path.append(best)
        cur = best
    return path[::-1]


def svg(probes, path, title):
    row, left, right, top = 16, 10, 360, 60
    t0 = min(p['queued'] for p in probes)
    t1 = max(p['end'] for p in probes)
    span = max(t1 - t0, 1)
    width = 1200
    scale = (width - left - right) / span
    height = top + row * len(probes) + 40
    x = lambda t: left + (t - t0) * scale
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14">%s</text>' % (
               left, html.escape(title))]
    crit = sum(probes[i]['end'] - probes[i]['start'] for i in path)
    out.append('<text x="%d" y="38">probing phase %.1f ms, %d attempts; '
               'critical path (red) %d probes, %.1f ms of probing</text>' % (
                   left, span / 1000, len(probes), len(path), crit / 1000))
    # time axis, every 10% of the span, rounded to a "nice" step
    step = 10 ** len(str(int(span / 10))) // 10 or 1
    while span / step > 12:
        step *= 2
    t = 0
    while t <= span:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" '
                   'stroke="#ddd"/>' % (x(t0 + t), top - 5, x(t0 + t),
                                       height - 30))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%g ms'
                   '</text>' % (x(t0 + t), height - 15, t / 1000))
        t += step
    on_path = set(path)
    ypos = {}
    for r, i in enumerate(sorted(range(len(probes)),
                                 key=lambda i: probes[i]['start'])):
        p = probes[i]
        y = top + r * row
        ypos[i] = y + row / 2
        if p['start'] > p['queued']:
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" '
                       'fill="#ccc"/>' % (x(p['queued']), y + 3,
                                          (p['start'] - p['queued']) * scale,
                                          row - 6))
        color = '#3a3' if p['ret'] == 0 else \
            '#f90' if p['ret'] == -517 else '#d33'
        stroke = ' stroke="red" stroke-width="2"' if i in on_path else ''
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" '
                   'fill="%s"%s><title>%s (%s): %.1f ms, ret %d, CPU %d'
                   '</title></rect>' % (
                       x(p['start']), y + 1,
                       max((p['end'] - p['start']) * scale, 1), row - 2,
                       color, stroke, html.escape(p['dev']),
                       html.escape(p['drv']),
                       (p['end'] - p['start']) / 1000, p['ret'], p['cpu']))
        out.append('<text x="%.1f" y="%d">%s %s cpu%d%s</text>' % (
            width - right + 10, y + row - 4, html.escape(p['dev']),
            html.escape(p['drv']), p['cpu'],
            '' if p['ret'] == 0 else ' ret %d' % p['ret']))
    for a, b in zip(path, path[1:]):
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                   'stroke="red" stroke-width="1.5"/>' % (
                       x(probes[a]['end']), ypos[a], x(probes[b]['start']),
                       ypos[b]))
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('timeline', nargs='?',
                    default='/sys/kernel/debug/parallel_probe/timeline')
    ap.add_argument('--slack', type=int, default=2000,
                    help='microseconds between the end of a probe and the '
                    'start of one it unblocks (default 2000)')
    ap.add_argument('--match', default='',
                    help='only probes whose device or driver contains this')
    ap.add_argument('--title', default='Device probes')
    args = ap.parse_args()
    f = sys.stdin if args.timeline == '-' else open(args.timeline)
    probes = [p for p in parse(f)
              if args.match in p['dev'] or args.match in p['drv']]
    if not probes:
        sys.exit('probechart: no probes in %s' % args.timeline)
    sys.stdout.write(svg(probes, critical_path(probes, args.slack),
                         args.title))


if __name__ == '__main__':
    main()
