#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""probe-rst.py PROBE_MD RST [names]: put the tables of out/bench/probe.md
into the Figures section of Documentation/driver-api/parallel-probe.rst, as
reStructuredText simple tables, between the comment that starts
".. The tables up to" and the comment ".. End of the tables of
probe-rst.py.".  With "names", those of out/bench/probe-names.md, between
".. The name-stability tables up to" and ".. End of the name-stability
tables of probe-rst.py.".  Cells and sentences are copied as
probe-report.py and names-report.py wrote them; nothing is computed here.
"""
import sys

from rst import escape as rst_escape, md_sections, table as rst_table

MARKS = {'probe': ('.. The tables up to',
                   '.. End of the tables of probe-rst.py.'),
         'names': ('.. The name-stability tables up to',
                   '.. End of the name-stability tables of probe-rst.py.')}
ARCH_NAMES = {'x86_64': 'x86_64', 'arm': 'ARM'}


def main():
    md, rst = sys.argv[1], sys.argv[2]
    START, END = MARKS[sys.argv[3] if len(sys.argv) > 3 else 'probe']
    sections = md_sections(open(md).read())
    if not sections:
        sys.exit('probe-rst.py: no "## ARCH" section in %s' % md)
    lines = open(rst).read().split('\n')
    start = next(i for i, l in enumerate(lines) if l.startswith(START))
    # the comment goes on to its first blank line
    while lines[start].strip():
        start += 1
    end = next(i for i, l in enumerate(lines) if i > start and l == END)
    new = ['']
    for arch, blocks in sections:
        head = ARCH_NAMES.get(arch, arch)
        new += [head, '-' * len(head), '']
        for b in blocks:
            if isinstance(b, list):
                new += rst_table(b) + ['']
            else:
                new += [rst_escape(b), '']
    lines[start:end] = new
    open(rst, 'w').write('\n'.join(lines))


if __name__ == '__main__':
    main()
