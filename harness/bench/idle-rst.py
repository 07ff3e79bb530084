#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""idle-rst.py IDLE_MD COST_MD RST: put the tables of out/bench/idle.md
(make bench-idle) and out/bench/idle-cost.md (make bench-idle-cost) into
the Results section of Documentation/timers/wakeup-reduce.rst, as
reStructuredText simple tables, between the comment lines
".. idle-rst.py: start" and ".. idle-rst.py: end".  The numbers are
copied as idle-report.py and idle-cost-report.py wrote them; nothing is
computed here.  COST_MD may be "-" to leave its tables out.
"""
import sys

from rst import table as rst_table

START = '.. idle-rst.py: start'
END = '.. idle-rst.py: end'


def md_tables(text):
    """[(heading, [row cells])] of every table, the latest heading or
    the line before the table as its title"""
    tables, head, para, cur = [], None, None, None
    for line in text.splitlines():
        if line.startswith('#'):
            head, para = line.lstrip('#').strip(), None
        elif line.startswith('|'):
            if line.startswith('| ---') or line.startswith('|---'):
                continue
            if cur is None:
                cur = (head + (', ' + para if para else ''), [])
                tables.append(cur)
            cur[1].append([c.strip() for c in line.strip('|').split('|')])
            continue
        elif line.strip():
            para = line.strip().rstrip(':')
        cur = None
    return tables


def section(title, char):
    return [title, char * len(title), '']


def main():
    idle_md, cost_md, rst = sys.argv[1], sys.argv[2], sys.argv[3]
    new = ['']
    for title, rows in md_tables(open(idle_md).read()):
        # of each guest, only what still wakes the series (with the RNG
        # unseeded and seeded); the
        # attribution of wakeup_reduce=off and the interrupts of the
        # stock kernel are in idle.md
        if 'what wakes the idle CPUs' in title and \
                not title.endswith(', series (attribution, per CPU)') and \
                not title.endswith(', series, virtio-rng (attribution, '
                                   'per CPU)'):
            continue
        new += section(title, '-') + rst_table(rows) + ['']
    if cost_md != '-':
        for title, rows in md_tables(open(cost_md).read()):
            new += section('Cost on a busy CPU, ' + title, '-') + \
                rst_table(rows) + ['']
    lines = open(rst).read().split('\n')
    start = lines.index(START)
    end = lines.index(END)
    lines[start + 1:end] = new
    open(rst, 'w').write('\n'.join(lines))


if __name__ == '__main__':
    main()
