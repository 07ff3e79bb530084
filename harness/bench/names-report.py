#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""names-report.py ARCH OUT BOOTS JITTER_US

Reads the boots of bench-probe-names.sh (OUT/names-ARCH-MODE-N/), the
names each device took by bus address ("# <class>: <address>=<name> ..."
from names.sh), and compares every boot with the first synchronous boot
that printed names.  Per mode and class: the names that differ from it,
added up over the boots, and the boots with at least one.  Also the boots
whose names were out of bus order (names.sh's check) and those whose
kernel log had a problem line (a warning, say).  Updates OUT/probe-names.json
(one key per architecture) and writes OUT/probe-names.md and
OUT/probe-names-ARCH.png.  Exits 1 when no synchronous boot printed names,
when a mode has no boot with names, or when a boot missed devices.
"""

import json
import os
import re
import subprocess
import sys

MODES = [('sync', 'synchronous'),
         ('async', 'mainline driver_async_probe=*'),
         ('series', 'series (parallel_probe)')]
CLASSES = [('block', 'disks (vdX)'), ('net', 'interfaces (ethN)'),
           ('serial', 'serial ports (ttySN)'), ('input', 'input (inputN)'),
           ('event', 'input (eventN)'), ('virtio', 'virtio devices (virtioN)')]
LINE_RE = re.compile(r'^[#\s]*(%s):\s*(.*)$'
                     % '|'.join(c for c, _ in CLASSES))
ORDER_RE = re.compile(r'^[#\s]*(not )?ok \d+ names follow the bus addresses')
EXPECT_RE = re.compile(r'^[#\s]*(not )?ok \d+ every class has its devices')


def parse(path):
    """{class: {address: name}} or None, in order, all devices (each a
    bool, or None when names.sh did not say)"""
    names, in_order, complete = {}, None, None
    try:
        with open(path, errors='replace') as f:
            for line in f:
                line = line.replace('\r', '').rstrip('\n')
                m = LINE_RE.match(line)
                # "<class>: <address>=<name> ...", nothing else
                if m and all('=' in kv for kv in m.group(2).split()):
                    names[m.group(1)] = dict(
                        kv.split('=', 1) for kv in m.group(2).split())
                    continue
                m = ORDER_RE.match(line)
                if m:
                    in_order = not m.group(1)
                m = EXPECT_RE.match(line)
                if m:
                    complete = not m.group(1)
    except OSError:
        return None, None, None
    if not any(names.values()):
        return None, in_order, complete
    return names, in_order, complete


def changed(base, names, cls):
    """names of class cls that differ from base's (missing ones too)"""
    b, n = base.get(cls, {}), names.get(cls, {})
    return sum(1 for a in set(b) | set(n) if b.get(a) != n.get(a))


def problems(wd):
    try:
        with open(os.path.join(wd, 'result.json')) as f:
            return len(json.load(f).get('problems', []))
    except (OSError, ValueError):
        return 0


def main():
    arch, out, boots, jitter = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    boot = {}
    for mode, _ in MODES:
        for b in range(1, boots + 1):
            wd = os.path.join(out, 'names-%s-%s-%d' % (arch, mode, b))
            names, in_order, complete = parse(
                os.path.join(wd, 'console.log'))
            boot[mode, b] = (names, in_order, problems(wd), complete)
    base_boot = next((b for b in range(1, boots + 1)
                      if boot['sync', b][0]), None)
    ok = base_boot is not None
    base = boot['sync', base_boot][0] if ok else {}
    classes = [c for c, _ in CLASSES if base.get(c)]
    res = {}
    jpath = os.path.join(out, 'probe-names.json')
    if os.path.exists(jpath):
        with open(jpath) as f:
            res = json.load(f)
    a = res[arch] = {'boots_per_mode': boots, 'jitter_us': jitter,
                     'baseline': {'mode': 'sync', 'boot': base_boot,
                                  'names': base},
                     'classes': classes, 'devices': {
                         c: len(base.get(c, {})) for c in classes},
                     'modes': {}}
    for mode, _ in MODES:
        with_names = [b for b in range(1, boots + 1) if boot[mode, b][0]]
        ok &= bool(with_names)
        e = {'boots': len(with_names),
             'boots_without_names': boots - len(with_names),
             'out_of_order_boots': sum(1 for b in with_names
                                       if boot[mode, b][1] is False),
             'problem_boots': sum(1 for b in range(1, boots + 1)
                                  if boot[mode, b][2]),
             # names.sh found fewer devices than the guest has: a driver
             # that did not bind, not a name that moved
             'missing_device_boots': sum(1 for b in range(1, boots + 1)
                                         if boot[mode, b][3] is False),
             'changed': {}, 'boots_changed': {}, 'per_boot': {}}
        for c in classes:
            per = [changed(base, boot[mode, b][0], c) for b in with_names]
            e['changed'][c] = sum(per)
            e['boots_changed'][c] = sum(1 for x in per if x)
            e['per_boot'][c] = per
        a['modes'][mode] = e
        ok &= e['missing_device_boots'] == 0
    with open(jpath, 'w') as f:
        json.dump(res, f, indent=1)

    lines = ['# Name stability: names by bus address across jittered boots',
             '',
             'Every probe delayed by a random time of up to %d us '
             '(parallel_probe.jitter_us); each boot compared with the first '
             'synchronous boot.  A cell: names that differ from it, added '
             'up over the boots (boots with at least one).' % jitter, '']
    for ar in sorted(res):
        d = res[ar]
        lines += ['## %s' % ar, '',
                  '| names | devices | %s |'
                  % ' | '.join(lbl for _, lbl in MODES),
                  '|---|---|%s' % ('---|' * len(MODES))]
        for c, lbl in CLASSES:
            if c not in d['classes']:
                continue
            cells = []
            for mode, _ in MODES:
                e = d['modes'][mode]
                cells.append('%d (%d of %d)' % (
                    e['changed'][c], e['boots_changed'][c], e['boots']))
            lines.append('| %s | %d | %s |' % (lbl, d['devices'][c],
                                               ' | '.join(cells)))
        for key, lbl in (('out_of_order_boots',
                          'boots with names out of bus order'),
                         ('problem_boots',
                          'boots with a kernel warning or error'),
                         ('missing_device_boots',
                          'boots with devices missing'),
                         ('boots_without_names', 'boots without names')):
            lines.append('| %s | | %s |' % (lbl, ' | '.join(
                str(d['modes'][m][key]) for m, _ in MODES)))
        lines.append('')
    with open(os.path.join(out, 'probe-names.md'), 'w') as f:
        f.write('\n'.join(lines))
    print('\n'.join(lines))

    dat = os.path.join(out, 'probe-names-%s.dat' % arch)
    with open(dat, 'w') as f:
        for c in classes:
            f.write('"%s" %s\n' % (c, ' '.join(
                str(a['modes'][m]['boots_changed'][c]) for m, _ in MODES)))
    gp = '''set terminal png size 800,480 noenhanced
set output "%(out)s/probe-names-%(arch)s.png"
set title "Boots (of %(boots)d) whose names differ from a synchronous boot, %(arch)s"
set style data histogram
set style histogram clustered
set style fill solid 0.8 border -1
set ylabel "boots"
set yrange [0:%(boots)d]
plot "%(dat)s" using 2:xtic(1) title "synchronous", \\
     "" using 3 title "driver_async_probe=*", \\
     "" using 4 title "series"
''' % {'out': out, 'arch': arch, 'dat': dat, 'boots': boots}
    subprocess.run(['gnuplot'], input=gp, text=True, check=False)
    if not ok:
        print('names-report: a mode has no boot with names, or a boot '
              'missed devices', file=sys.stderr)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
