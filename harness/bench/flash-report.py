#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""flash-report.py OUT RUNS REPEATS KVER SIZES FILLS FSS [ARM_SIZES]

Reads OUT/flash/[arm-]<size>-<pct>-<kind>-<main|sum>-r<run>/result.json
(qemu-run; the ARM guests ran the first fill case only),
writes OUT/flash.json (every raw figure, by case and file system),
OUT/flash.md (medians with their spread) and gnuplot scripts OUT/flash-*.gp
for OUT/flash-*.png and OUT/flash-*.svg.  Nothing is edited by hand: a
figure that no run produced is "-"; a median whose spread (max - min)
exceeds a third of it is marked "~" and the bench says it cannot conclude
from it.
"""

import json
import os
import statistics
import sys

import flashstat
from flashstat import NAMES


def ram_fit(points):
    """Least squares of memory against the files listed and the flash
    size: points are (files, flash GiB, kB); returns (fixed kB, kB per
    file, kB per GiB, largest residual kB), or None when the points
    cannot tell files from flash size (fewer than four, or one flash
    size, or one file count per size)."""
    if len(points) < 4 or len({p[1] for p in points}) < 2:
        return None
    rows = [(1.0, f, g) for f, g, _ in points]
    # normal equations, solved by Gauss-Jordan with partial pivoting
    m = [[sum(r[i] * r[j] for r in rows) for j in range(3)] +
         [sum(r[i] * p[2] for r, p in zip(rows, points))] for i in range(3)]
    diag = [m[i][i] for i in range(3)]
    for i in range(3):
        piv = max(range(i, 3), key=lambda k: abs(m[k][i]))
        # what is left of a column the others explain is rounding noise
        if abs(m[piv][i]) <= 1e-9 * diag[i]:
            return None
        m[i], m[piv] = m[piv], m[i]
        for k in range(3):
            if k != i:
                f = m[k][i] / m[i][i]
                m[k] = [a - f * b for a, b in zip(m[k], m[i])]
    b = [m[i][3] / m[i][i] for i in range(3)]
    res = max(abs(p[2] - b[0] - b[1] * p[0] - b[2] * p[1]) for p in points)
    return b[0], b[1], b[2], res


def main():
    out, runs, repeats, kver = sys.argv[1:5]
    sizes = [int(s) for s in sys.argv[5].split()]
    fills = [f.split(':') for f in sys.argv[6].split()]
    fss = sys.argv[7].split()
    asizes = [int(s) for s in sys.argv[8].split()] if len(sys.argv) > 8 \
        else []
    runs, repeats = int(runs), int(repeats)
    res = {'kernel': kver, 'machine': os.uname().nodename,
           'qemu': 'x86_64 TCG, 2 vCPUs',
           'nandsim': '2 KiB pages, 128 KiB erase blocks',
           'runs': runs, 'remounts_per_run': repeats,
           'cases': {}, 'failed': [], 'skipped': {}}
    todo = [('x86_64', mb, f) for mb in sizes for f in fills] + \
        [('arm', mb, fills[0]) for mb in asizes]
    for arch, mb, f in todo:
        pct, kind = int(f[0]), f[1]
        case = '%s%d-%d-%s' % ('arm-' if arch == 'arm' else '', mb, pct,
                               kind)
        c = res['cases'][case] = {
            'arch': arch, 'size_mb': mb, 'fill_pct': pct, 'kind': kind,
            'data_mb': mb * pct // 100, 'fs': {}}
        for run in range(1, runs + 1):
            for k in ('main', 'sum'):
                name = '%s-%s-r%d' % (case, k, run)
                wd = os.path.join(out, 'flash', name)
                r = flashstat.load(wd)
                if r is None:
                    # bench-flash.sh did not start a guest that would
                    # not fit in the host's memory, and said why
                    why = flashstat.skipped(wd)
                    if why:
                        res['skipped'][case] = why
                    continue
                c.setdefault('guests', {})[name] = flashstat.ran_at(wd)
                res['failed'] += flashstat.failures(name, r)
                flashstat.figures(r, c['fs'])

    def vals(case, fs, what):
        return res['cases'].get(case, {}).get('fs', {}).get(fs, {}).get(
            what, [])

    def med(case, fs, what):
        v = vals(case, fs, what)
        return statistics.median(v) if v else None

    def cell(case, fs, what, spec='%.1f', scale=None):
        v = vals(case, fs, what)
        if scale:
            v = [scale(x) for x in v if x]
        return flashstat.cell(v, spec)

    ran = [t for c in res['cases'].values()
           for t in c.get('guests', {}).values()]
    present = [fs for fs in fss if any(
        res['cases'][c]['fs'].get(fs) for c in res['cases'])]
    cases = list(res['cases'])

    lines = [
        '# SFFS against UBIFS and JFFS2', '',
        'Kernel %s, x86_64 (and where marked ARM -M virt) guests under '
        'QEMU TCG (2 vCPUs), nandsim with '
        '2 KiB pages and 128 KiB erase blocks, each file system on the '
        'same `mtdcount` pass-through that counts programs and erases.  '
        '%d run(s) per case, %d remounts per run; cells give the median '
        'and, in brackets, the lowest and highest value seen.  "~" marks '
        'a spread over a third of the median: too noisy to conclude from.  '
        '"-": not run or failed.' % (kver, runs, repeats), '',
        'The guests ran between %s and %s UTC on %s.' % (
            min(ran) if ran else '-', max(ran) if ran else '-',
            res['machine']), '',
        'Each file system compresses with its default: SFFS with LZO, '
        'UBIFS with zstd (6.1 builds it unless UBIFS_FS_ADVANCED_COMPR '
        'leaves it out, and then formats with it), JFFS2 with zlib.  '
        'SFFS+zstd is SFFS mounted with compr=zstd, run in the '
        'compressible fills to compare the file systems with the same '
        'compressor.', '']
    if res['failed']:
        lines += ['Failed: ' + ', '.join(res['failed']), '']
    if any(mb >= 4096 for mb in sizes) and any(
            fs.startswith('jffs2') for fs in fss):
        lines += ['JFFS2 does not run at 4 GiB and above: it keeps the '
                  'flash size in 32 bits (jffs2_sb_info.flash_size), which '
                  'these sizes wrap to zero, and refuses the mount ("Too '
                  'few erase blocks").', '']
    if res['skipped']:
        lines += ['Not run: ' + '; '.join(
            '%s (its guest %s)' % (case, why)
            for case, why in res['skipped'].items()) + '.', '']

    def flash(c):
        return '%d MiB%s' % (c['size_mb'],
                             ' ARM' if c['arch'] == 'arm' else '')

    def table(title, what, spec='%.1f', scale=None, only=None, note=''):
        lines.extend(['## ' + title, ''] + ([note, ''] if note else []))
        lines.append('| flash | data | ' + ' | '.join(
            NAMES[fs] for fs in present) + ' |')
        lines.append('|---|---|' + '---|' * len(present))
        for case in cases:
            c = res['cases'][case]
            if only and not only(c):
                continue
            lines.append('| %s | %d%% %s | ' % (
                flash(c), c['fill_pct'], c['kind']) + ' | '.join(
                cell(case, fs, what, spec, scale) for fs in present) + ' |')
        lines.append('')

    table('Clean mount, ms', 'mount_ms', note='The mount(2) call after '
          'unmount and dropped caches; UBIFS: UBI attach ioctl plus '
          'mount(2).')
    table('UBI attach alone, ms', 'attach_ms')
    table('SFFS mount as the kernel times it, ms', 'kmount_ms', '%.2f')
    table('Mount after a power cut, ms', 'unclean_ms', note='Files written '
          'and synced, then the power cut before the next commit (SFFS: '
          'mtdcount drops every later program and erase; UBI: '
          'tst_emulate_power_cut), so that the mount '
          'replays the journal.  JFFS2 keeps no clean state: it scans at '
          'every mount.')
    table('RAM after mount and ls -lR, kB', 'slab_kB', '%d',
          note='Slab + VmallocUsed after the mount and a listing of the '
          'tree, minus the same before the mount, caches dropped first.')
    fits = {}
    for fs in present:
        pts = [(c['data_mb'], c['size_mb'] / 1024, med(case, fs, 'slab_kB'))
               for case, c in res['cases'].items() if c['arch'] == 'x86_64']
        f = ram_fit([p for p in pts if p[2] is not None])
        if f:
            fits[fs] = dict(zip(('fixed_kB', 'per_file_kB', 'per_GiB_kB',
                                 'largest_residual_kB'), f),
                            cases=sum(p[2] is not None for p in pts))
    res['ram_fit'] = fits
    if fits:
        lines.extend([
            '## What the RAM grows with', '',
            'The medians of the table above (x86_64) fitted by least '
            'squares to fixed + a x (1 MiB files listed) + b x (GiB of '
            'flash): how much of the memory follows the files the listing '
            'cached, and how much the size of the flash.  The largest '
            'residual says how well the fit holds.', '',
            '| file system | fixed, kB | per file, kB | per GiB of flash, '
            'kB | largest residual, kB | cases |', '|---|---|---|---|---|---|'])
        for fs, f in fits.items():
            lines.append('| %s | %.0f | %.2f | %.0f | %.0f | %d |' % (
                NAMES[fs], f['fixed_kB'], f['per_file_kB'], f['per_GiB_kB'],
                f['largest_residual_kB'], f['cases']))
        lines.append('')
    table('SFFS index nodes and buffers held, kB', 'own_kB', '%d',
          note='What SFFS itself holds after the mount and ls -lR '
          '(debugfs znode_bytes + buffer_bytes); the slab figures above '
          'also count the inodes and dentries the listing cached.')
    table('Kernel memory after mount and ls -lR, kB', 'ram_kB', '%d',
          note='MemTotal - MemFree - Buffers - Cached, the same way; it '
          'also counts pages allocated directly, and the per-CPU page '
          'lists make it noisier.')
    lines.append('## Sequential write, MB/s')
    lines.append('')
    lines.append('1 MiB files copied, then sync.')
    lines.append('')
    lines.append('| flash | data | ' + ' | '.join(
        NAMES[fs] for fs in present) + ' |')
    lines.append('|---|---|' + '---|' * len(present))
    for case in cases:
        c = res['cases'][case]
        dm = c['data_mb']
        lines.append('| %s | %d%% %s | ' % (
            flash(c), c['fill_pct'], c['kind']) + ' | '.join(
            cell(case, fs, 'write_s', '%.1f', lambda s, dm=dm: dm / s)
            for fs in present) + ' |')
    lines.append('')
    def extra(c):
        return any(c['fs'].get(fs, {}).get('read_MBps') for fs in present)

    table('Sequential read, cold cache, MB/s', 'read_MBps', only=extra)
    table('Random 4 KiB overwrites with fsync, per second', 'fsync_iops',
          '%.0f', only=extra, note='300 writes at random 4 KiB offsets of '
          'a 16 MiB file, each followed by fsync.')
    table('Small files created per second', 'files_per_s', '%.0f',
          only=extra, note='20,000 files of 512 bytes, 1,000 per '
          'directory, sync included.')
    table('du -s over 20,000 files, ms', 'du_ms', '%.0f', only=extra,
          note='After a remount, caches dropped.')
    table('ls -lR over 20,000 files, ms', 'lsR_ms', '%.0f', only=extra)
    table('Write amplification', 'wa', '%.2f', note='Bytes programmed '
          'plus bytes erased on the flash per byte the user wrote, fill '
          'and unmount included, counted by mtdcount.')
    table('Bytes programmed per byte written', 'wa_prog', '%.2f')

    with open(os.path.join(out, 'flash.json'), 'w') as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, 'flash.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))

    # plots: one line per file system against the flash size, at the first
    # fill case; bars for throughput and write amplification
    first = '%s-%s' % (fills[0][0], fills[0][1])
    # file systems that ran in that case (sffs-zstd runs in text fills only)
    plotted = [fs for fs in present if any(
        res['cases'].get('%d-%s' % (mb, first), {}).get('fs', {}).get(fs)
        for mb in sizes)]

    def series(what, scale=None):
        rows = []
        for mb in sizes:
            case = '%d-%s' % (mb, first)
            row = []
            for fs in plotted:
                v = vals(case, fs, what)
                if scale:
                    v = [scale(case, x) for x in v if x]
                row.append(statistics.median(v) if v else None)
            rows.append((mb, row))
        return rows

    def dat(name, rows):
        with open(os.path.join(out, 'flash-%s.dat' % name), 'w') as f:
            for label, row in rows:
                f.write('"%s" %s\n' % (label, ' '.join(
                    'NaN' if v is None else '%g' % v for v in row)))

    wr = lambda case, s: res['cases'][case]['data_mb'] / s
    plots = [('mount', 'mount_ms', None, 'clean mount time (ms)', True),
             ('unclean', 'unclean_ms', None, 'mount after power cut (ms)',
              True),
             ('ram', 'slab_kB', None, 'slab + vmalloc after mount + ls (kB)',
              True),
             ('write', 'write_s', wr, 'sequential write (MB/s)', False),
             ('wa', 'wa', None, 'write amplification (programmed + erased '
              'bytes per user byte)', False)]
    for name, what, scale, label, logy in plots:
        dat(name, [('%d MiB' % mb, row) for mb, row in series(what, scale)])
        cols = ', '.join('"" using %d title "%s"' % (i + 2, NAMES[fs])
                         for i, fs in enumerate(plotted))
        cols = cols.replace('""', '"%s/flash-%s.dat"' % (out, name), 1)
        cols = cols.replace(' using 2 ', ' using 2:xtic(1) ', 1)
        with open(os.path.join(out, 'flash-%s.gp' % name), 'w') as f:
            f.write('set terminal png size 900,500\n'
                    'set output "%s/flash-%s.png"\n'
                    'set title "%s, filled %s%% with %s data (median of %d '
                    'runs)" noenhanced\n'
                    'set style data histogram\n'
                    'set style histogram clustered gap 1\n'
                    'set style fill solid 0.8 border -1\n'
                    'set ylabel "%s" noenhanced\n'
                    'set key top left noenhanced\n'
                    'set xlabel "nandsim size"\n'
                    '%s'
                    'plot %s\n' % (out, name, label, fills[0][0],
                                   fills[0][1], runs, label,
                                   'set logscale y\nset yrange [0.1:*]\n'
                                   if logy else 'set yrange [0:*]\n', cols)
                    # the same plot as SVG for flash-rst.py
                    + flashstat.svg_too(out, 'flash-' + name))
    return 1 if res['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
