#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""flash-rst.py FLASH_MD RST: put the tables of out/bench/flash.md into
the Performance section of Documentation/filesystems/sffs.rst, as
reStructuredText simple tables, between the line after the command that
made them and the paragraph that starts "A ``~`` marks".  The numbers
are copied as flash-report.py wrote them; nothing is computed here.
"""
import re
import sys

from rst import table as rst_table

# flash.md heading -> (rst heading, columns kept: None for all)
SECTIONS = [
    ('Clean mount, ms', 'Clean mount, ms (UBIFS: UBI attach plus mount)',
     None),
    ('Mount after a power cut, ms', 'Mount after a power cut, ms', None),
    ('RAM after mount and ls -lR, kB',
     'Slab and vmalloc after mount and ``ls -lR``, kB', None),
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
START = re.compile(r'^Clean mount, ms')
END = 'A ``~`` marks'


def md_tables(text):
    """{heading: [row cells]} of every table in flash.md"""
    tables, head = {}, None
    for line in text.splitlines():
        if line.startswith('## '):
            head = line[3:].strip()
        elif line.startswith('|') and head and not line.startswith('|---'):
            cells = [c.strip() for c in line.strip('|').split('|')]
            tables.setdefault(head, []).append(cells)
    return tables


def main():
    md, rst = sys.argv[1], sys.argv[2]
    tables = md_tables(open(md).read())
    lines = open(rst).read().split('\n')
    start = next(i for i, l in enumerate(lines) if START.match(l))
    end = next(i for i, l in enumerate(lines) if i > start and
               l.startswith(END))
    new = []
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
