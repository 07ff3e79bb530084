#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""offcheck-syms.py NM ARCH BASE SERIES ALLOW "T D B" "T D B"

Compare two vmlinux symbol by symbol, every sized symbol of any kind
(sizes from NM --size-sort -S, as scripts/bloat-o-meter reads them).
Symbols named after a source line (__initcall__kmod_<file>__<id>_<line>_
<fn>) are compared by name without the id and the line; those the
compiler or __COUNTER__ numbers in the order it meets them (CSWTCH.123,
foo.constprop.0, __already_done.7, __UNIQUE_ID_...) by the sorted list of
the sizes of all the symbols of their stem, which renumbering leaves
alone.  Every symbol must have the same size in both, but the functions
ALLOW names, each by exactly the bytes it gives for ARCH.

"size vmlinux" ("T D B") then checks what has no symbol size (assembly
without .size): data and bss must be equal, and text may differ from
what the allowed functions changed by SLACK bytes at most, the alignment
padding of the functions that changed.  On x86_64 .text is padded to a
large boundary, so its total shows no small change at all: there the
symbols are the check.  Not checked: a symbol that moves between init
and resident sections with its size.

Prints what differs; exit status 1 if anything else does.
"""

import re
import subprocess
import sys

SLACK = 64
LINE_NAMED = re.compile(r'^(__initcall__kmod_[A-Za-z0-9_]*?)__\d+_\d+_(.*)$')


def syms(nm, path):
    out = subprocess.run([nm, '--size-sort', '-S', path], check=True,
                         capture_output=True, text=True).stdout
    named, stems = {}, {}
    for line in out.splitlines():
        f = line.split()
        if len(f) != 4:
            continue
        size, kind, name = int(f[1], 16), f[2].lower(), f[3]
        text = kind in 'tw'
        m = LINE_NAMED.match(name)
        if m:
            name = '%s__%s' % m.groups()
        stem = None
        if re.search(r'\.\d+$', name):
            stem = re.sub(r'\.\d+$', '.N', name)
        elif name.startswith('__UNIQUE_ID_'):
            stem = '__UNIQUE_ID_'
        if stem:
            stems.setdefault((text, stem), []).append(size)
        else:
            # static symbols of the same name in several files add up
            named[(text, name)] = named.get((text, name), 0) + size
    if len(named) < 100:
        raise SystemExit('offcheck: %d symbols in %s: nm read nothing?' %
                         (len(named), path))
    return named, {k: sorted(v) for k, v in stems.items()}


def main():
    nm, arch, base, ours, allow_file, tb, to = sys.argv[1:8]
    allow = {}
    with open(allow_file) as f:
        for line in f:
            fields = line.split('#')[0].split()
            if fields:
                allow[fields[0]] = dict(x.split('=') for x in fields[1:])
    (a, sa), (b, sb) = syms(nm, base), syms(nm, ours)
    bad, allowed, nchanged = [], 0, 0
    for key in sorted(set(a) | set(b), key=lambda k: k[1]):
        d = b.get(key, 0) - a.get(key, 0)
        if key[1] in allow:
            want = int(allow[key[1]].get(arch, 0))
            if d != want:
                bad.append('%s %+d, not %+d' % (key[1], d, want))
            else:
                print('offcheck: %s %+d (allowed)' % (key[1], d))
            allowed += d
            nchanged += d != 0
        elif d:
            bad.append('%s %+d' % (key[1], d))
    for key in sorted(set(sa) | set(sb), key=lambda k: k[1]):
        if sa.get(key) != sb.get(key):
            bad.append('%s* sizes %s, not %s' % (key[1], sb.get(key),
                                                 sa.get(key)))
    for s in bad:
        print('offcheck: %s changed' % s)
    tb, to = [int(x) for x in tb.split()], [int(x) for x in to.split()]
    if tb[1:] != to[1:] or abs((to[0] - tb[0]) - allowed) > SLACK * nchanged:
        print('offcheck: size vmlinux differs by more than the allowed functions')
        bad.append('size')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
