#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""aging-rst.py AGING_MD RST: put the plots and tables of
out/bench/aging.md into the Aging section of
Documentation/filesystems/sffs.rst, between the comment lines
".. bench-aging figures" and ".. end of the bench-aging figures" (what is
there, the placeholder or earlier figures, is replaced): the SVG plots
that aging-report.py had gnuplot draw next to AGING_MD are copied next to
RST as sffs-aging-<size>-<plot>.svg, and the tables become
reStructuredText simple tables.  The numbers are copied as
aging-report.py wrote them; nothing is computed here.
"""
import json
import os
import sys
import textwrap

from rst import copy_svg, figure, md_tables, table as rst_table

START = '.. bench-aging figures'
END = '.. end of the bench-aging figures'
# aging.md heading -> rst heading
SECTIONS = [
    ('Free space when empty, MiB', 'Free space when empty, MiB'),
    ('Data kept, MiB', 'Data kept after the fill, MiB'),
    ('Steady state, MiB/s', 'Steady state, MiB/s written'),
    ('Last twentieth of the steady state, MiB/s',
     'Last twentieth of the steady state, MiB/s written'),
    ('Write amplification of the steady state',
     'Write amplification of the steady state (bytes programmed per byte '
     'written)'),
    ('Write amplification of the last twentieth',
     'Write amplification of the last twentieth'),
    ('fsync latency of the steady state, median, ms',
     '``fsync`` latency in the steady state, median, ms'),
    ('fsync latency of the steady state, 99th percentile, ms',
     '``fsync`` latency in the steady state, 99th percentile, ms'),
    ('Erases per block, mean', 'Erases per erase block, mean'),
    ('Erases per block, most minus least',
     'Erases per erase block, most minus least'),
    ('Clean mount after aging, ms',
     'Clean mount after aging, ms (UBIFS: UBI attach plus mount)'),
    ('Mount after a power cut after aging, ms',
     'Mount after a power cut after aging, ms'),
    ('RAM after mount and ls -lR after aging, kB',
     'Slab and vmalloc after mount and ``ls -lR`` after aging, kB'),
    ('Where SFFS\'s programmed bytes went',
     'Where SFFS\'s programmed bytes went, fill and steady state'),
]
# tables an aging.md may lack: written only when plain SFFS ran, and
# not by the aging-report.py of before 2026-12-07
OPTIONAL = {'Where SFFS\'s programmed bytes went'}
PLOTS = [('tput', 'User writes over the steady state at %d MiB'),
         ('wa', 'Write amplification over the steady state at %d MiB')]


def main():
    md, rst = sys.argv[1], sys.argv[2]
    here = os.path.dirname(md)
    tables = md_tables(open(md).read())
    with open(os.path.join(here, 'aging.json')) as f:
        res = json.load(f)
    lines = open(rst).read().split('\n')
    start = lines.index(START) + 1
    end = lines.index(END)
    sizes = [c['size_mb'] for c in res['cases'].values() if c['fs']]
    new = [''] + textwrap.wrap(
        'Kernel %s; %d run(s) per case; filled to %d%%, then the device '
        'written %s times over.  Each plot shows the median of the runs '
        'for each twentieth of the steady state, with a bar from the '
        'lowest to the highest run.' % (
            res['kernel'], res['runs'], res['fill_pct'],
            res['device_writes']), 75, break_on_hyphens=False) + ['']
    for mb in sizes:
        for plot, alt in PLOTS:
            svg = os.path.join(here, 'aging-%d-%s.svg' % (mb, plot))
            if not os.path.exists(svg):
                continue
            fig = 'sffs-aging-%d-%s.svg' % (mb, plot)
            copy_svg(svg, os.path.join(os.path.dirname(rst), fig))
            new += figure(fig, alt % mb)
    for md_head, rst_head in SECTIONS:
        rows = tables.get(md_head)
        if not rows and md_head in OPTIONAL:
            continue
        if not rows:
            sys.exit('aging-rst.py: no table "%s" in %s' % (md_head, md))
        # the sizes that ran
        rows = [rows[0]] + [r for r in rows[1:] if any(
            c != '-' for c in r[1:])]
        new += [rst_head, '-' * len(rst_head), ''] + rst_table(rows) + ['']
    new += textwrap.wrap(
        'A ``~`` marks a median whose runs spread by more than a third of '
        'it.  The tables are put here from ``out/bench/aging.md`` by '
        '``harness/bench/aging-rst.py`` of the workspace, unchanged; '
        '``aging.md`` has the rest (the fill, wear, erase counts the file '
        'systems keep, every twentieth of the steady state).', 75,
        break_on_hyphens=False) + ['']
    lines[start:end] = new
    open(rst, 'w').write('\n'.join(lines))


if __name__ == '__main__':
    main()
