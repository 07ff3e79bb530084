#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""slab-rst.py SLAB_MD RST: put the tables of out/bench/slab.md (make
bench-slab) into the Figures section of Documentation/mm/slob-seg.rst, as
reStructuredText simple tables, between the comment lines
".. slab-rst.py: start" and ".. slab-rst.py: end" (what is there is
replaced).  Cells and sentences are copied as slab-report.py wrote them;
nothing is computed here.
"""
import sys

from rst import escape as rst_escape, md_sections, table as rst_table

START = '.. slab-rst.py: start'
END = '.. slab-rst.py: end'


def main():
    md, rst = sys.argv[1], sys.argv[2]
    with open(md) as f:
        sections = md_sections(f.read())
    if not sections:
        sys.exit('slab-rst.py: no "## ARCH" section in %s' % md)
    with open(rst) as f:
        lines = f.read().split('\n')
    try:
        start, end = lines.index(START), lines.index(END)
    except ValueError:
        sys.exit('slab-rst.py: no "%s" and "%s" lines in %s' %
                 (START, END, rst))
    new = ['']
    for head, blocks in sections:
        new += [head, '-' * len(head), '']
        for b in blocks:
            if isinstance(b, list):
                new += rst_table(b) + ['']
            else:
                new += [rst_escape(b), '']
    lines[start + 1:end] = new
    with open(rst, 'w') as f:
        f.write('\n'.join(lines))


if __name__ == '__main__':
    main()
