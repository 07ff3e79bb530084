#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that SFFS is built in layers: each object calls only those below.

  sffs-layers.py SRCDIR OBJDIR

SRCDIR is fs/sffs of the tree (its Makefile lists the objects of sffs-y
in layer order, lowest first); OBJDIR is where they were compiled.  For
every object, the symbols it uses that another SFFS object defines
(from nm) must come from an object listed before it.  A use of one
listed after it is a call up the layers, or half of a dependency circle,
and is reported with the symbols involved.  The KUnit objects
(sffs-$(CONFIG_SFFS_FS_KUNIT_TEST)) sit above everything and are not
checked.

Prints "ok: N objects in layers" or one line per violation, and exits 1
if there is any.
"""

import os
import re
import subprocess
import sys


def layer_order(makefile):
    """The objects of sffs-y, in the order the Makefile lists them."""
    with open(makefile) as f:
        text = f.read().replace('\\\n', ' ')
    objs = []
    for line in text.splitlines():
        m = re.match(r'\s*sffs-y\s*:?\+?=\s*(.*)', line)
        if m:
            objs += m.group(1).split()
    return objs


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
    order = layer_order(os.path.join(src, 'Makefile'))
    if len(order) < 2:
        sys.exit('sffs-layers: no sffs-y objects in %s/Makefile' % src)
    rank, owner, uses = {}, {}, {}
    for i, obj in enumerate(order):
        path = os.path.join(objdir, obj)
        if not os.path.exists(path):
            sys.exit('sffs-layers: %s not built' % path)
        defined, undefined = symbols(path)
        rank[obj] = i
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
