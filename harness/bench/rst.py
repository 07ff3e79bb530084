# SPDX-License-Identifier: GPL-2.0
"""What the *-rst.py scripts share: turning the cells of a Markdown table
that a bench report wrote into a reStructuredText simple table, copied as
they are."""
import re


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
