#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that SFFS is built in layers: each object calls only those below.

  sffs-layers.py SRCDIR OBJDIR

SRCDIR is fs/sffs of the tree (its Makefile lists the objects of sffs-y
in layer order, lowest first); OBJDIR is where they were compiled.  For
every object, the symbols it uses that another SFFS object defines
(functions and data, from nm) must come from an object listed before it.
A use of one listed after it is a call up the layers, or half of a
dependency circle, and is reported with the symbols involved.  Objects
on the same line are layers in the order written.  The KUnit objects
(the sffs-$(CONFIG_..._KUNIT_TEST) lines) sit above everything: they
are not checked, and no layer may use them.  Calls through function
pointers a layer is handed (the index's node I/O) are not seen, and are
how an upper layer lets a lower one call it.

Prints "ok: N objects in layers" or one line per violation, and exits 1
if there is any.
"""

import os
import re
import subprocess
import sys


def layer_order(makefile):
    """(layers, tests): the objects of sffs, in the order the Makefile lists
    them, and those of its KUnit lines (sffs-$(CONFIG_..._KUNIT_TEST)),
    which sit above every layer."""
    with open(makefile) as f:
        text = f.read().replace('\\\n', ' ')
    layers, tests = [], []
    for line in text.splitlines():
        line = line.split('#', 1)[0]
        m = re.match(r'\s*sffs-(\S+)\s*:?\+?=\s*(.*)', line)
        if not m:
            continue
        (tests if 'KUNIT' in m.group(1) else layers).extend(m.group(2).split())
    return layers, tests


def symbols(obj):
    """(defined, undefined) global symbols of an object file."""
    out = subprocess.run(['nm', obj], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == 'U':
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in 'TDBRVWG':
            defined.add(parts[2])
    return defined, undefined


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().split('\n\n')[1])
    src, objdir = argv[1], argv[2]
    order, tests = layer_order(os.path.join(src, 'Makefile'))
    if len(order) < 2:
        sys.exit('sffs-layers: no sffs-y objects in %s/Makefile' % src)
    rank, owner, uses = {}, {}, {}
    for i, obj in enumerate(order + tests):
        path = os.path.join(objdir, obj)
        if not os.path.exists(path):
            if obj in tests:
                continue
            sys.exit('sffs-layers: %s not built' % path)
        defined, undefined = symbols(path)
        rank[obj] = min(i, len(order))
        uses[obj] = undefined
        for sym in defined:
            owner[sym] = obj
    bad = 0
    for obj in order:
        up = {}
        for sym in sorted(uses[obj]):
            other = owner.get(sym)
            if other and rank[other] > rank[obj]:
                up.setdefault(other, []).append(sym)
        for other, syms in sorted(up.items(), key=lambda x: rank[x[0]]):
            print('sffs-layers: %s calls up into %s: %s'
                  % (obj, other, ' '.join(syms)))
            bad += 1
    if bad:
        return 1
    print('ok: %d objects in layers: %s' % (len(order), ' '.join(order)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
