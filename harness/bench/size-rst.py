#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""size-rst.py SIZE_MD RST: put the tables of out/bench/size.md into
Documentation/kbuild/footprint.rst, between the comment lines
".. bench-size figures" and ".. end of the bench-size figures" (what is
there is replaced): the sizes of vmlinux and the image, and the memory
after boot, as reStructuredText simple tables.  The numbers are copied
as size-report.py wrote them; nothing is computed here.
"""
import sys
import textwrap

from rst import md_tables, table as rst_table

START = '.. bench-size figures'
END = '.. end of the bench-size figures'
# size.md heading -> rst heading
SECTIONS = [
    ('vmlinux and image, bytes', '``size vmlinux`` and the image, bytes'),
    ('Memory after boot, kB (median [95% interval])',
     'Memory after boot, kB (median [95% interval])'),
]


def main():
    md, rst = sys.argv[1], sys.argv[2]
    tables = md_tables(open(md).read())
    lines = open(rst).read().split('\n')
    start = lines.index(START) + 1
    end = lines.index(END)
    new = ['']
    for md_head, rst_head in SECTIONS:
        rows = tables.get(md_head)
        if not rows:
            sys.exit('size-rst.py: no table "%s" in %s' % (md_head, md))
        new += [rst_head, '-' * len(rst_head), ''] + rst_table(rows) + ['']
    new += textwrap.wrap(
        'The tables are put here from ``out/bench/size.md`` by '
        '``harness/bench/size-rst.py`` of the workspace, unchanged; '
        '``size.md`` has the rest (the bloat-o-meter tables, and what '
        'each part of the series costs when a run measured it).', 75,
        break_on_hyphens=False) + ['']
    lines[start:end] = new
    open(rst, 'w').write('\n'.join(lines))


if __name__ == '__main__':
    main()
