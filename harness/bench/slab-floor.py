#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""slab-floor.py CONSOLE_LOG: the floor of slab memory on a bench guest.

How little memory any slab allocator could hold for the objects live on
a guest: the sum of the sizes callers asked for.  The figures come from
stock SLOB with harness/bench/slab-floor.patch applied (not part of the
series: it counts live kmalloc() objects by size, live objects per
cache and large allocations, and shows them in /proc/slobinstr), booted
as bench-slab boots it with slab-floor-guest.sh, which dumps the file
after boot and after the slab_bench churn:

    cd build/linux && git worktree add ../instr HEAD && cd ../instr &&
    git apply ../../harness/bench/slab-floor.patch
    harness/kbuild.sh ARCH build/instr OBJ harness/configs/ARCH.config \\
        FRAGMENT   # CONFIG_SLOB=y, CONFIG_SLAB_BENCH=y
    harness/qemu-run ... --payload harness/bench/slab-floor-guest.sh:g.sh \\
        --run ./g.sh

Prints, for both points: the floor (bytes asked for), the floor with
the alignment the API requires (ARCH_KMALLOC_MINALIGN and power-of-two
sizes for kmalloc(), each cache's alignment), both as a share of SLOB's
Slab in the same boot, where SLOB's pages go, and the biggest users.
"""
import math
import re
import sys

PAGE = 4096


def order_bytes(n):
    return PAGE << max(0, math.ceil(math.log2(max(1, n) / PAGE)))


def al(x, a):
    return (x + a - 1) // a * a


def parse(path, phase):
    d = {'km': {}, 'cache': [], 'large': [], 'lists': [], 'meminfo': {}}
    for ln in open(path, errors='replace'):
        ln = re.sub(r'^\[[^\]]*\]\s*', '', ln.rstrip())
        m = re.match(r'# %s (\w+):\s+(\d+) kB' % phase, ln)
        if m:
            d['meminfo'][m.group(1)] = int(m.group(2))
        m = re.match(r'# I %s (.*)' % phase, ln)
        if not m:
            continue
        f = m.group(1).split()
        if f[0] == 'minalign':
            d['minalign'] = int(f[1])
        elif f[0] == 'list':
            d['lists'].append((int(f[3]), int(f[5])))
        elif f[0] == 'kmalloc':
            d['km'][int(f[1])] = int(f[2])
        elif f[0] == 'cache':
            d['cache'].append(dict(name=f[1], osize=int(f[2]),
                                   size=int(f[3]), align=int(f[4]),
                                   live=int(f[6])))
        elif f[0] == 'large':
            d['large'].append(int(f[1]))
    return d


def report(path, phase):
    d = parse(path, phase)
    ma = d['minalign']
    slab = d['meminfo']['Slab'] * 1024
    req_km = sum(s * n for s, n in d['km'].items())
    req_c = sum((c['osize'] or c['size']) * c['live'] for c in d['cache'])
    req_l = sum(d['large'])
    floor = req_km + req_c + req_l

    def km_align(s):
        a = ma if s & (s - 1) else max(ma, s)
        return al(s, a)
    afloor = (sum(km_align(s) * n for s, n in d['km'].items()) +
              sum(al(c['size'], max(c['align'], 1)) * c['live']
                  for c in d['cache']) + req_l)
    big = [c for c in d['cache'] if c['size'] >= PAGE]
    big_pages = sum(order_bytes(c['size']) * c['live'] for c in big)
    large_pages = sum(order_bytes(s) for s in d['large'])
    hdr = sum(ma * n for n in d['km'].values())
    free = sum(fb for _, fb in d['lists'])
    print('%s: SLOB Slab %d kB' % (phase, slab // 1024))
    print('  floor, bytes asked for: %d kB = %.1f%% of SLOB\'s Slab '
          '(kmalloc %d kB in %d objects, caches %d kB, large kmalloc %d kB)'
          % (floor // 1024, 100.0 * floor / slab, req_km // 1024,
             sum(d['km'].values()), req_c // 1024, req_l // 1024))
    print('  floor with the alignment the API requires: %d kB = %.1f%%'
          % (afloor // 1024, 100.0 * afloor / slab))
    print('  SLOB: kmalloc headers %d kB, free bytes in %d partially free '
          'pages %d kB, pages of objects >= 4 KiB %d kB for %d kB asked'
          % (hdr // 1024, sum(p for p, _ in d['lists']), free // 1024,
             (big_pages + large_pages) // 1024,
             (sum(c['osize'] * c['live'] for c in big) + req_l) // 1024))
    top = sorted(d['cache'], key=lambda c: -(c['osize'] or c['size']) *
                 c['live'])[:8]
    print('  biggest caches: ' + ', '.join(
        '%s %dx%d' % (c['name'], c['live'], c['osize'] or c['size'])
        for c in top))
    kms = sorted(d['km'].items(), key=lambda x: -x[0] * x[1])[:6]
    print('  biggest kmalloc sizes: ' + ', '.join(
        '%dx%d' % (n, s) for s, n in kms))


if __name__ == '__main__':
    for phase in ('boot', 'churn'):
        report(sys.argv[1], phase)
