# SPDX-License-Identifier: GPL-2.0
"""What the *-rst.py scripts share: reading the tables of the Markdown a
bench report wrote and turning their cells into reStructuredText simple
tables, copied as they are."""
import re
import textwrap


def md_tables(text):
    """{heading: [row cells]} of every table in a report's Markdown, the
    header row first"""
    tables, head = {}, None
    for line in text.splitlines():
        if line.startswith('## '):
            head = line[3:].strip()
        elif line.startswith('|') and head and not line.startswith('|---'):
            cells = [c.strip() for c in line.strip('|').split('|')]
            tables.setdefault(head, []).append(cells)
    return tables


def escape(text):
    """Escape what reStructuredText would read as markup; an empty cell
    becomes "-", as a blank first cell would continue the row above."""
    return re.sub(r'([\\*`_|~])', r'\\\1', text) if text else '-'


def table(rows):
    """A simple table of @rows, the first row its header."""
    rows = [[escape(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    rule = '  '.join('=' * w for w in widths)
    out = [rule]
    for n, r in enumerate(rows):
        out.append('  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if n == 0:
            out.append(rule)
    out.append(rule)
    return out


def copy_svg(src, dst):
    """copy a plot gnuplot drew as SVG into the documentation, as text a
    patch can carry: no trailing white space, no blank line at the end
    (git am --whitespace=error refuses both)"""
    with open(src) as f:
        text = ''.join(l.rstrip() + '\n' for l in f).rstrip('\n') + '\n'
    with open(dst, 'w') as f:
        f.write(text)


def figure(name, alt):
    """the kernel-figure directive of the plot @name, @alt its caption"""
    return ['.. kernel-figure:: ' + name, '   :alt: ' + alt, ''] + \
        textwrap.wrap(alt, 72, initial_indent='   ',
                      subsequent_indent='   ') + ['']


def md_sections(text):
    """[(heading, [block])] of every "## " section of a report's Markdown,
    in order; a block is a table (list of rows, the header first) or a
    sentence (str)"""
    sections, cur, table = [], None, None
    for line in text.splitlines():
        if line.startswith('## '):
            cur = (line[3:].strip(), [])
            sections.append(cur)
            table = None
        elif cur is None or line.startswith('|---'):
            continue
        elif line.startswith('|'):
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if table is None:
                table = []
                cur[1].append(table)
            table.append(cells)
        else:
            table = None
            if line.strip():
                cur[1].append(line.strip())
    return sections
