#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""offcheck-syms.py NM BASE SERIES ALLOW "T D B" "T D B"

Compare two vmlinux symbol by symbol (sizes from NM --size-sort -S, as
scripts/bloat-o-meter reads them).  Symbols named after a source line
(__initcall__kmod_<file>__<id>_<line>_<fn>) are compared by name without
the id and the line, and those the compiler numbers in the order it
meets them (CSWTCH.123, foo.constprop.0, __UNIQUE_ID_x123) by their sum
over the name without the number.  Every symbol must have the same size in both, but
the functions named in ALLOW; and the text, data and bss totals of
"size vmlinux" ("T D B") must be equal, or text differ by no more than
what the allowed functions changed (they may also move alignment
padding).  Prints what differs; exit status 1 if anything else does.
"""

import re
import subprocess
import sys

LINE_NAMED = re.compile(r'^(__initcall__kmod_[A-Za-z0-9_]*?)__\d+_\d+_(.*)$')


def syms(nm, path):
    out = subprocess.run([nm, '--size-sort', '-S', path], check=True,
                         capture_output=True, text=True).stdout
    tab = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) != 4:
            continue
        size, kind, name = int(f[1], 16), f[2].lower(), f[3]
        m = LINE_NAMED.match(name)
        if m:
            name = '%s__%s' % m.groups()
        name = re.sub(r'\.\d+$', '.N', name)
        name = re.sub(r'^(__UNIQUE_ID_[A-Za-z_]*?)\d+$', r'\1N', name)
        # static symbols of the same name in several files add up
        key = (kind in 'tw', name)
        tab[key] = tab.get(key, 0) + size
    return tab


def main():
    nm, base, ours, allow_file, tb, to = sys.argv[1:7]
    allow = set()
    with open(allow_file) as f:
        for line in f:
            line = line.split('#')[0].strip()
            if line:
                allow.add(line)
    a, b = syms(nm, base), syms(nm, ours)
    bad, allowed = [], 0
    for key in sorted(set(a) | set(b), key=lambda k: k[1]):
        d = b.get(key, 0) - a.get(key, 0)
        if not d:
            continue
        if key[1] in allow:
            allowed += d
            print('offcheck: %s %+d (allowed)' % (key[1], d))
        else:
            bad.append('%s %+d' % (key[1], d))
    for s in bad:
        print('offcheck: %s changed' % s)
    tb, to = [int(x) for x in tb.split()], [int(x) for x in to.split()]
    if tb[1:] != to[1:] or abs(to[0] - tb[0]) > abs(allowed) + 64 or \
       (not allowed and to[0] != tb[0]):
        print('offcheck: size vmlinux differs by more than the allowed functions')
        bad.append('size')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
