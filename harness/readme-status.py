#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""readme-status.py [--check] [TOP]: the status table of README.md, between
the lines "<!-- readme-status.py: start -->" and
"<!-- readme-status.py: end -->", from the benchmark tables in
Documentation/.

Those tables are the one committed copy of the benchmarks' figures: each
benchmark writes out/bench/NAME.json and NAME.md, and its
harness/bench/NAME-rst.py puts the Markdown tables into the part's
document, between markers, unchanged ("make figures" runs them all, then
this script).  Every figure here is a cell copied from one of those
tables, picked by its section, its table's first column header, its row
and its column; nothing is typed or computed.  A part whose table is not
in its document (the region between its markers is empty) says "not
measured yet" and names the make target that measures it; a document
without the markers of its region, or whose tables lack the one a figure
is copied from, is an error.

With --check nothing is written: the exit status is 1, with the lines
that differ, when README.md's table is not what the documents give.
"""
import difflib
import os
import re
import sys

START = '<!-- readme-status.py: start -->'
END = '<!-- readme-status.py: end -->'

# Where each generator puts its tables: (document, first line of the
# region, last line), the first two as regular expressions matched at the
# start of a line.  They are the markers of harness/bench/*-rst.py.
REGIONS = {
    'flash': ('Documentation/filesystems/sffs.rst',
              r'(Plots of the first fill case|Clean mount, ms)',
              r'A ``~`` marks'),
    'aging': ('Documentation/filesystems/sffs.rst',
              r'\.\. bench-aging figures$',
              r'\.\. end of the bench-aging figures$'),
    'idle': ('Documentation/timers/wakeup-reduce.rst',
             r'\.\. idle-rst\.py: start$', r'\.\. idle-rst\.py: end$'),
    'probe': ('Documentation/driver-api/parallel-probe.rst',
              r'\.\. The tables up to',
              r'\.\. End of the tables of probe-rst\.py\.$'),
    'slab': ('Documentation/mm/slob-seg.rst',
             r'\.\. slab-rst\.py: start$', r'\.\. slab-rst\.py: end$'),
}


class Missing(Exception):
    """the table, row or column a figure is copied from is not there"""


def region(top, name):
    """the lines of @name's generated region; [] if the document is not
    there (a part of a tree without it); Missing if its markers are not"""
    doc, start, end = REGIONS[name]
    try:
        with open(os.path.join(top, doc)) as f:
            lines = f.read().split('\n')
    except FileNotFoundError:
        return []
    first = next((i for i, l in enumerate(lines) if re.match(start, l)),
                 None)
    if first is None:
        raise Missing('no line matching "%s" (the start of the %s region)'
                      % (start, name))
    last = next((i for i in range(first + 1, len(lines))
                 if re.match(end, lines[i])), None)
    if last is None:
        raise Missing('no line matching "%s" after its start (the end of '
                      'the %s region)' % (end, name))
    return lines[first + 1:last]


RULE = re.compile(r'^=+(  +=+)*$')


def unescape(cell):
    """the cell as the report wrote it: rst.py's escapes undone, its "-"
    for an empty cell kept"""
    return re.sub(r'\\(.)', r'\1', cell.strip())


def tables(lines):
    """{(section title, first header cell): {'head': [...], 'rows': [...]}}
    of the simple tables in @lines"""
    found, title, i = {}, None, 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and line.strip() and \
                re.match(r'^-{3,}$', lines[i + 1]) and \
                len(lines[i + 1]) == len(line):
            title = line.strip()
            i += 2
            continue
        if RULE.match(line):
            starts = [m.start() for m in re.finditer(r'=+', line)]

            def cells(row):
                ends = starts[1:] + [None]
                return [unescape(row[s:e]) for s, e in zip(starts, ends)]
            head = cells(lines[i + 1])
            rows, j = [], i + 3
            while j < len(lines) and not RULE.match(lines[j]):
                rows.append(cells(lines[j]))
                j += 1
            found[(title, head[0])] = {'head': head, 'rows': rows}
            i = j + 1
            continue
        i += 1
    return found


class Source:
    """the tables of one region, and cells looked up in them"""

    def __init__(self, top, name):
        self.tables = tables(region(top, name))

    def cell(self, title, first, key, column):
        """the cell in column @column of the row whose first cells are
        @key, in the table under @title whose first header is @first"""
        # a section may be titled with more after the name:
        # "arm (11372 kB MemTotal)"
        t = next((v for (sect, head), v in self.tables.items()
                  if head == first and (sect == title or
                                        sect.startswith(title + ' ('))),
                 None)
        if t is None:
            raise Missing('no table "%s"' % title)
        if column not in t['head']:
            raise Missing('no column "%s" in "%s"' % (column, title))
        col = t['head'].index(column)
        for row in t['rows']:
            if tuple(row[:len(key)]) == tuple(key):
                if row[col] == '-':
                    raise Missing('no figure in "%s" %s' % (title, key))
                return row[col]
        raise Missing('no row %s in "%s"' % (key, title))


def mean(cell):
    """the first figure of a cell: "0.53 (0.02 / 1.03)" is the mean of
    two CPUs, then each CPU's"""
    return cell.split()[0]


def flash(src):
    """clean mount of a 1 GiB NAND a quarter full, medians and ranges"""
    t = 'Clean mount, ms (UBIFS: UBI attach plus mount)'
    row = ('1024 MiB', '25% random')
    return ('clean mount of a 1 GiB NAND 25%% full, ms: SFFS %s, UBIFS %s, '
            'UBIFS+fastmap %s, JFFS2 %s' %
            tuple(src.cell(t, 'flash', row, c) for c in
                  ('SFFS', 'UBIFS', 'UBIFS+fastmap', 'JFFS2')))


def aging(src):
    t = 'Write amplification of the steady state (bytes programmed per ' \
        'byte written)'
    return 'write amplification aged, 1 GiB: SFFS %s, UBIFS %s' % tuple(
        src.cell(t, 'flash', ('1024 MiB',), c) for c in ('SFFS', 'UBIFS'))


def idle(src):
    """interrupts of an idle CPU per second, every guest, without an RNG
    device, then with virtio-rng seeding the RNG as hardware would"""
    t = 'Interrupts per CPU per second'
    out = []
    for arch, conf in (('x86_64', 'tiny'), ('x86_64', 'realistic'),
                       ('arm', 'tiny'), ('arm', 'realistic')):
        c = lambda rng, col: src.cell(t, 'arch', (arch, conf, rng), col)
        out.append('%s %s %s → %s, with virtio-rng %s → %s (target %s: '
                   '%s; with virtio-rng: %s)' % (
                       arch, conf, mean(c('none', 'stock NO_HZ_IDLE')),
                       mean(c('none', 'series')),
                       mean(c('virtio-rng', 'stock NO_HZ_IDLE')),
                       mean(c('virtio-rng', 'series')),
                       c('none', 'target'),
                       c('none', 'series met'),
                       c('virtio-rng', 'series met')))
    return 'interrupts per idle CPU per second, mean of the CPUs, ' \
        '`NO_HZ_IDLE` → series: ' + '; '.join(out)


def probe(src):
    """probing phase of the benchmark graph and boot to /init"""
    out = []
    for arch in ('x86_64', 'ARM'):
        c = lambda key, col: src.cell(arch, 'mode', (key,), col)
        b = lambda col: src.cell(arch, 'kernel',
                                 ('series, no benchmark module',), col)
        out.append('%s: probing 64 devices %s ms (`driver_async_probe=*` '
                   '%s, synchronous %s), deferrals %s (%s); boot to '
                   '`/init` minus stock %s s (%s)' % (
                       arch,
                       c('series (parallel_probe)', 'probing phase ms'),
                       c('mainline driver_async_probe=*',
                         'probing phase ms'),
                       c('synchronous', 'probing phase ms'),
                       c('series (parallel_probe)', 'deferrals'),
                       c('mainline driver_async_probe=*', 'deferrals'),
                       b('minus stock in the same round s (median)'),
                       b('95% interval')))
    return '; '.join(out)


def slab(src):
    """slab-report.py's targets: memory against SLUB small, speed against
    stock SLOB, each with its interval and whether it is met"""
    out = []
    for row in ('boot_MemAvailable, SLOB_SEG minus SLUB small '
                '(target >= 0 kB)',
                'alloc+free on 2 CPUs, SLOB / SLOB_SEG (target >= 5)'):
        out.append('%s: %s' % (row, ', '.join(
            '%s %s (%s)' % (arch,
                            src.cell(arch, arch + ' target', (row,),
                                     'measured [95%]'),
                            src.cell(arch, arch + ' target', (row,),
                                     'result'))
            for arch in ('x86_64', 'arm'))))
    return '; '.join(out)


# part, option, measured against, figure (region, function, make target),
# document and the section that holds the tables
PARTS = [
    ('SFFS flash file system', '`CONFIG_SFFS_FS`',
     'JFFS2, UBIFS (with and without fastmap)',
     ('flash', flash, 'make bench-flash'),
     'Documentation/filesystems/sffs.rst', 'Performance', 'performance'),
    ('SFFS aged by rewrites', '`CONFIG_SFFS_FS`', 'JFFS2, UBIFS',
     ('aging', aging, 'make bench-aging'),
     'Documentation/filesystems/sffs.rst', 'Aging', 'aging'),
    ('dyntick: wakeup attribution and reduction',
     '`CONFIG_IDLE_WAKEUP_STATS`, `CONFIG_IDLE_WAKEUP_REDUCE`',
     '`NO_HZ_IDLE`', ('idle', idle, 'make bench-idle'),
     'Documentation/timers/wakeup-reduce.rst', 'Results', 'results'),
    ('dependency-aware parallel probing', '`CONFIG_DRIVER_PARALLEL_PROBE`',
     'synchronous probing, `driver_async_probe=*`',
     ('probe', probe, 'make bench-probe'),
     'Documentation/driver-api/parallel-probe.rst', 'Figures', 'figures'),
    ('SLOB_SEG slab allocator', '`CONFIG_SLOB_SEG`',
     'SLOB, SLUB, SLUB small, SLAB',
     ('slab', slab, 'make bench-slab'),
     'Documentation/mm/slob-seg.rst', 'Figures', 'figures'),
]


def status(top):
    """the Markdown table, one line a row"""
    lines = ['| part | option | measured against | headline figure '
             '| figures |', '| --- | --- | --- | --- | --- |']
    for part, option, against, (name, fig, target), doc, sect, anchor \
            in PARTS:
        try:
            src = Source(top, name)
        except Missing as e:
            raise SystemExit('readme-status.py: %s: %s' % (doc, e))
        if not src.tables:
            figure = 'not measured yet (`%s`)' % target
        else:
            # tables there but not the one named: the generator and
            # this script disagree, which must not pass as "not measured"
            try:
                figure = fig(src)
            except Missing as e:
                raise SystemExit('readme-status.py: %s: %s' % (doc, e))
        lines.append('| %s | %s | %s | %s | [%s, %s](%s#%s) |' % (
            part, option, against, figure.replace('|', '\\|'),
            os.path.basename(doc), sect, doc, anchor))
    return lines


def rewrite(text, table):
    """@text (README.md) with @table between the markers"""
    lines = text.split('\n')
    try:
        start, end = lines.index(START), lines.index(END)
    except ValueError:
        raise SystemExit('readme-status.py: README.md has no "%s" and '
                         '"%s" lines' % (START, END))
    return '\n'.join(lines[:start + 1] + table + lines[end:])


def main(argv):
    check = '--check' in argv
    args = [a for a in argv[1:] if a != '--check']
    top = args[0] if args else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    readme = os.path.join(top, 'README.md')
    with open(readme) as f:
        old = f.read()
    new = rewrite(old, status(top))
    if new == old:
        return 0
    if check:
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(True), new.splitlines(True),
            'README.md', 'README.md from readme-status.py'))
        return 1
    with open(readme, 'w') as f:
        f.write(new)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
