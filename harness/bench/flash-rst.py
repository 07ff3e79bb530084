#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""flash-rst.py FLASH_MD RST: put the plots and tables of
out/bench/flash.md into the Performance section of
Documentation/filesystems/sffs.rst, between the line after the command
that made them and the paragraph that starts "A ``~`` marks": the SVG
plots that flash-report.py had gnuplot draw next to FLASH_MD are copied
next to RST as sffs-<plot>.svg, and the tables become reStructuredText
simple tables.  The numbers are copied as flash-report.py wrote them;
nothing is computed here.
"""
import json
import os
import re
import sys
import textwrap

from rst import copy_svg, figure, md_tables, table as rst_table

# flash.md heading -> (rst heading, columns kept: None for all)
SECTIONS = [
    ('Clean mount, ms', 'Clean mount, ms (UBIFS: UBI attach plus mount)',
     None),
    ('Mount after a power cut, ms', 'Mount after a power cut, ms', None),
    ('RAM after mount and ls -lR, kB',
     'Slab and vmalloc after mount and ``ls -lR``, kB', None),
    ('What the RAM grows with',
     'What the slab and vmalloc figures grow with (least-squares fit)',
     None),
    ('SFFS index nodes and buffers held, kB',
     'SFFS index nodes and buffers held, kB', 3),
    ('Sequential write, MB/s', 'Sequential write of 1 MiB files, MB/s', None),
    ('Sequential read, cold cache, MB/s', 'Sequential read, cold cache, MB/s',
     None),
    ('Random 4 KiB overwrites with fsync, per second',
     'Random 4 KiB overwrites with ``fsync``, per second', None),
    ('Small files created per second', 'Small files created per second',
     None),
    ('Write amplification',
     'Write amplification (bytes programmed plus erased per byte written)',
     None),
]
# flash-report.py's plots of the first fill case against the flash size
FIGURES = [
    ('mount', 'Clean mount time against flash size'),
    ('unclean', 'Mount time after a power cut against flash size'),
    ('ram', 'Slab and vmalloc held after mount and ls -lR against flash '
     'size'),
    ('write', 'Sequential write against flash size'),
    ('wa', 'Write amplification against flash size'),
]
PLOTS = 'Plots of the first fill case'
START = re.compile(r'^(%s|Clean mount, ms)' % PLOTS)
END = 'A ``~`` marks'


def main():
    md, rst = sys.argv[1], sys.argv[2]
    tables = md_tables(open(md).read())
    lines = open(rst).read().split('\n')
    start = next(i for i, l in enumerate(lines) if START.match(l))
    end = next(i for i, l in enumerate(lines) if i > start and
               l.startswith(END))
    with open(os.path.join(os.path.dirname(md), 'flash.json')) as f:
        first = next(iter(json.load(f)['cases'].values()))
    new = [PLOTS, '-' * len(PLOTS), ''] + textwrap.wrap(
        'Each plot has one bar per file system and flash size, the median '
        'of the runs, with the flash filled to %d%% with %s data; mount '
        'times and memory are on a logarithmic scale.' % (
            first['fill_pct'], 'incompressible' if first['kind'] == 'random'
            else 'compressible'), 75) + ['']
    for name, alt in FIGURES:
        svg = os.path.join(os.path.dirname(md), 'flash-%s.svg' % name)
        fig = 'sffs-%s.svg' % name
        copy_svg(svg, os.path.join(os.path.dirname(rst), fig))
        new += figure(fig, alt)
    for md_head, rst_head, keep in SECTIONS:
        rows = tables.get(md_head)
        if not rows:
            sys.exit('flash-rst.py: no table "%s" in %s' % (md_head, md))
        if keep:
            rows = [r[:keep] for r in rows]
        new += [rst_head, '-' * len(rst_head), ''] + rst_table(rows) + ['']
    lines[start:end] = new
    open(rst, 'w').write('\n'.join(lines))


if __name__ == '__main__':
    main()
