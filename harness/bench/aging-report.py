#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""aging-report.py OUT RUNS REPEATS KVER SIZES TIMES PCT FSS

Reads OUT/aging/<size>-<fs>-r<run>/result.json (qemu-run, the guests of
bench-aging.sh), writes OUT/aging.json (every raw figure by flash size and
file system, and the medians with their spread that the tables and plots
show), OUT/aging.md and gnuplot scripts OUT/aging-<size>-<plot>.gp for
OUT/aging-<size>-<plot>.png and .svg: throughput and write amplification
over the steady state, one line per file system, the median of the runs
with bars from the lowest to the highest.  Nothing is edited by hand: a
figure that no run produced is "-"; a median whose spread exceeds a third
of it is marked "~", as in flash-report.py.
"""

import json
import math
import os
import sys

import flashstat
from flashstat import NAMES

WINDOWS = 20
# figures each run derives from its own before the runs are compared, so
# that they get a spread like the measured ones; in order, each may use
# the ones before it
DERIVED = [
    # mtdcount's erases per block: mean and standard deviation
    ('ec_mean', lambda f: f['ec_sum'] / f['ec_blocks']),
    ('ec_sd', lambda f: math.sqrt(max(f['ec_sumsq'] / f['ec_blocks'] -
                                      f['ec_mean'] ** 2, 0))),
    # how far apart the most and the least erased blocks are
    ('ec_spread', lambda f: f['ec_max'] - f['ec_min']),
    # the standard deviation over the mean
    ('ec_cv', lambda f: f['ec_sd'] / f['ec_mean'] if f['ec_mean'] else None),
    # SFFS's commits and collection, from the mount before the fill to the
    # end of the steady state, in MiB
    ('aged_index_MiB', lambda f: f['aged_commit_index_bytes'] / 2 ** 20),
    ('aged_table_MiB', lambda f: f['aged_commit_table_bytes'] / 2 ** 20),
    ('aged_moved_MiB', lambda f: f['aged_gc_moved_bytes'] / 2 ** 20),
    # table pages written for their hints, many or old (kernels before
    # the split counted them as one)
    ('aged_commit_table_hints', lambda f: f['aged_commit_table_many'] +
     f['aged_commit_table_old']),
]

# SFFS's own counters of the aged state (debugfs stats): what, label
SFFS_AGED = [
    ('aged_commits', 'commits'),
    ('aged_commits_journal_full', 'of which for a full journal list'),
    ('aged_commits_gc', 'of which by garbage collection'),
    ('aged_gc_ahead_runs', 'collection runs ahead of the journal list\'s '
     'end'),
    ('aged_index_MiB', 'index nodes commits wrote, MiB'),
    ('aged_table_MiB', 'erase-block table pages commits wrote, MiB'),
    ('aged_commit_table_exact', 'table pages written for a state or an '
     'erase count'),
    ('aged_commit_table_hints', 'table pages written for their hints'),
    ('aged_commit_table_many', 'of which for many hints'),
    ('aged_commit_table_old', 'of which for an old hint'),
    ('aged_commit_table_all', 'table pages written as every page was'),
    ('aged_ebt_hints_lost', 'live-byte hints dropped for want of RAM'),
    ('aged_moved_MiB', 'live nodes garbage collection moved, MiB'),
]


def derive(runs):
    """@runs: the figures of each run of one case and file system, as
    {what: value}; returns them as {what: [value of each run]} with the
    DERIVED ones added where a run has what they need"""
    out = {}
    for f in runs:
        f = dict(f)
        for what, fn in DERIVED:
            try:
                v = fn(f)
            except (KeyError, TypeError, ZeroDivisionError):
                continue
            if v is not None:
                f[what] = v
        for what, v in f.items():
            out.setdefault(what, []).extend(v if isinstance(v, list)
                                            else [v])
    return out


def series(figs, what, times):
    """the steady state's figure @what (MiBps, wa, ...) of each window as
    [(device writes so far, median, lowest, highest)], None where no run
    has it: the plot's points and bars"""
    out = []
    for w in range(1, WINDOWS + 1):
        iv = flashstat.interval(figs.get('w%02d_%s' % (w, what), []))
        out.append((times * w / WINDOWS,) + (iv if iv else (None,) * 3))
    return out


def summarise(cases, times):
    """{size: {fs: {what: [median, lowest, highest]}}} of every figure,
    and the window series of the plotted ones"""
    out = {}
    for size, c in cases.items():
        for fs, figs in c['fs'].items():
            s = out.setdefault(size, {}).setdefault(fs, {})
            for what, v in figs.items():
                if what[0] == 'w' and what[1:3].isdigit():
                    continue
                s[what] = list(flashstat.interval(v))
            s['windows'] = {what: series(figs, what, times) for what in
                            ('MiBps', 'wa', 'fsync_med_us', 'fsync_p99_us')}
    return out


def read_guests(out, runs, sizes, fss, res):
    """the raw figures of every guest into @res['cases']"""
    for mb in sizes:
        c = res['cases'][str(mb)] = {'size_mb': mb, 'fs': {}, 'guests': {}}
        for fs in fss:
            per_run = []
            for run in range(1, runs + 1):
                name = '%d-%s-r%d' % (mb, fs, run)
                wd = os.path.join(out, 'aging', name)
                r = flashstat.load(wd)
                if r is None:
                    why = flashstat.skipped(wd)
                    if why:
                        res['skipped']['%d MiB' % mb] = why
                    continue
                c['guests'][name] = flashstat.ran_at(wd)
                res['failed'] += flashstat.failures(name, r)
                per_run.append(flashstat.figures(r, {}).get(fs, {}))
            if per_run:
                # one value per run, except the repeated mounts: each
                # run's _<n> figures are all in
                c['fs'][fs] = derive([{w: v if len(v) > 1 else v[0]
                                       for w, v in f.items()}
                                      for f in per_run])


def markdown(res, sizes, fss, times, pct, runs, repeats):
    cases = res['cases']
    present = [fs for fs in fss if any(fs in c['fs'] for c in
                                       cases.values())]
    ran = [t for c in cases.values() for t in c['guests'].values()]

    def vals(mb, fs, what):
        return cases[str(mb)]['fs'].get(fs, {}).get(what, [])

    lines = [
        '# SFFS, UBIFS and JFFS2 aged', '',
        'Kernel %s, x86_64 guests under QEMU TCG (2 vCPUs), nandsim with '
        '2 KiB pages and 128 KiB erase blocks, each file system on the '
        'same `mtdcount` pass-through that counts programs and erases.  '
        'Each file system is filled to %d%% of the free space it reports '
        'when empty, with files of 4 KiB to 4 MiB (log-uniform), written '
        'in write() calls of 4 KiB, 64 KiB and 1 MiB in turn; then half '
        'of the operations overwrite 4 KiB, 64 KiB or 1 MiB inside a file '
        'and fsync, half replace a whole file (write, fsync, rename over '
        'it), until the user has written %d times the size of the device: '
        'the steady state.  The data is incompressible.  %d run(s) per '
        'case, interleaved, run N with workload seed N for every file '
        'system; %d clean mounts per run.  Cells give the median and, in '
        'brackets, the lowest and highest value seen.  "~" marks a spread '
        'over a third of the median: too noisy to conclude from.  "-": not '
        'run or failed.' % (res['kernel'], pct, times, runs, repeats), '',
        'The guests ran between %s and %s UTC on %s.' % (
            min(ran) if ran else '-', max(ran) if ran else '-',
            res['machine']), '']
    if res['failed']:
        lines += ['Failed: ' + ', '.join(res['failed']), '']
    if any(mb >= 4096 for mb in sizes) and 'jffs2' in fss:
        lines += ['JFFS2 does not run at 4 GiB and above: it keeps the '
                  'flash size in 32 bits (jffs2_sb_info.flash_size), which '
                  'these sizes wrap to zero, and refuses the mount.', '']
    if res['skipped']:
        lines += ['Not run: ' + '; '.join(
            '%s (each guest %s)' % (case, why)
            for case, why in res['skipped'].items()) + '.', '']

    def table(title, what, spec='%.1f', note=''):
        lines.extend(['## ' + title, ''] + ([note, ''] if note else []))
        lines.append('| flash | ' + ' | '.join(
            NAMES[fs] for fs in present) + ' |')
        lines.append('|---|' + '---|' * len(present))
        for mb in sizes:
            lines.append('| %d MiB | ' % mb + ' | '.join(
                flashstat.cell(vals(mb, fs, what), spec)
                for fs in present) + ' |')
        lines.append('')

    table('Free space when empty, MiB', 'capacity_MiB', '%.0f',
          note='statfs of the newly formatted file system: what the fill '
          'is a share of.')
    table('Data kept, MiB', 'data_MiB', '%.0f')
    table('Fill, MiB/s', 'fill_MiBps', '%.2f', note='User bytes written '
          'per second, every file fsync\'d.')
    table('Steady state, MiB/s', 'steady_MiBps', '%.2f',
          note='User bytes written per second over the whole steady state.')
    table('Last twentieth of the steady state, MiB/s', 'w%02d_MiBps' %
          WINDOWS, '%.2f', note='The aged file system.')
    table('Write amplification of the fill', 'fill_wa', '%.2f',
          note='Bytes programmed on the flash (data and OOB) per byte the '
          'user wrote, counted by mtdcount.')
    table('Write amplification of the steady state', 'steady_wa', '%.2f')
    table('Write amplification of the last twentieth', 'w%02d_wa' % WINDOWS,
          '%.2f')
    table('Bytes erased per byte written in the steady state',
          'steady_erase_wa', '%.2f')
    for phase, label in (('fill', 'the fill'), ('steady', 'the steady state')):
        for q, qlabel in (('med', 'median'), ('p99', '99th percentile')):
            table('fsync latency of %s, %s, ms' % (label, qlabel),
                  '%s_fsync_%s_ms' % (phase, q), '%.2f',
                  note='Every fsync of the phase timed, each of what the '
                  'operation before it wrote (4 KiB to 4 MiB); the median '
                  'and the 99th percentile of each run, then their median '
                  'over the runs.' if (phase, q) == ('fill', 'med') else '')
    table('Erases per block, mean', 'ec_mean', '%.1f', note='mtdcount\'s '
          'count of the erases of each erase block of the device, from '
          'the mount after the format to the end of the steady state.')
    table('Erases per block, least', 'ec_min', '%.0f')
    table('Erases per block, most', 'ec_max', '%.0f')
    table('Erases per block, most minus least', 'ec_spread', '%.0f')
    table('Erases per block, standard deviation over mean', 'ec_cv', '%.2f')
    table('Erase counts the file system keeps, most', 'fs_ec_max', '%.0f',
          note='SFFS: /sys/fs/sffs/mtdN/erase_count_max; UBI: max_ec in '
          'sysfs.  Both count the format too; JFFS2 keeps none.')
    table('Erase counts the file system keeps, mean', 'fs_ec_avg', '%.1f',
          note='SFFS: erase_count_avg; UBI: the mean of debugfs '
          'detailed_erase_block_info.')
    table('Clean mount after aging, ms', 'mount_ms', note='The mount(2) '
          'call after unmount and dropped caches; UBIFS: UBI attach ioctl '
          'plus mount(2).')
    table('Mount after a power cut after aging, ms', 'unclean_ms',
          note='Two files written and synced, then the power cut before '
          'the next commit, as in make bench-flash.')
    table('RAM after mount and ls -lR after aging, kB', 'slab_kB', '%d',
          note='Slab + VmallocUsed after the mount and a listing of the '
          'tree, minus the same before the mount, as in make bench-flash.')
    if 'sffs' in present:
        lines.extend([
            '## Where SFFS\'s programmed bytes went', '',
            'SFFS\'s counters (/sys/kernel/debug/sffs/mtdN/stats) from the '
            'mount before the fill to the end of the steady state, fill '
            'included.', '',
            '| counter | ' + ' | '.join('%d MiB' % mb for mb in sizes) + ' |',
            '|---|' + '---|' * len(sizes)])
        for what, label in SFFS_AGED:
            # a counter no run recorded (an older kernel's) is left out
            if not any(vals(mb, 'sffs', what) for mb in sizes):
                continue
            lines.append('| %s | ' % label + ' | '.join(
                flashstat.cell(vals(mb, 'sffs', what), '%.0f')
                for mb in sizes) + ' |')
        lines.append('')
    s = res['summary']
    for what, title, spec in (('MiBps', 'MiB/s', '%.2f'),
                              ('wa', 'write amplification', '%.2f')):
        for mb in sizes:
            have = [fs for fs in present if fs in s.get(str(mb), {})]
            if not have:
                continue
            lines.extend(['## Steady state at %d MiB, %s by twentieth' % (
                mb, title), '', '| device writes | ' + ' | '.join(
                    NAMES[fs] for fs in have) + ' |',
                '|---|' + '---|' * len(have)])
            for w in range(WINDOWS):
                x = s[str(mb)][have[0]]['windows'][what][w][0]
                lines.append('| %.2f | ' % x + ' | '.join(
                    flashstat.cell(vals(mb, fs, 'w%02d_%s' % (w + 1, what)),
                                   spec) for fs in have) + ' |')
            lines.append('')
    return lines


def plots(out, res, sizes, fss, times, runs):
    """gnuplot scripts: per size, throughput and write amplification over
    the steady state, a line per file system with the runs' spread"""
    for mb in sizes:
        s = res['summary'].get(str(mb), {})
        have = [fs for fs in fss if fs in s]
        if not have:
            continue
        for what, title, label in (
                ('MiBps', 'user writes', 'user bytes written per second '
                 '(MiB/s)'),
                ('wa', 'write amplification', 'bytes programmed per user '
                 'byte')):
            name = 'aging-%d-%s' % (mb, 'tput' if what == 'MiBps' else what)
            with open(os.path.join(out, name + '.dat'), 'w') as f:
                for fs in have:
                    f.write('# %s\n' % NAMES[fs])
                    for x, m, lo, hi in s[fs]['windows'][what]:
                        if m is not None:
                            f.write('%g %g %g %g\n' % (x, m, lo, hi))
                    f.write('\n\n')
            cols = ', '.join(
                '"%s/%s.dat" index %d using 1:2:3:4 with yerrorlines '
                'title "%s"' % (out, name, i, NAMES[fs])
                for i, fs in enumerate(have))
            with open(os.path.join(out, name + '.gp'), 'w') as f:
                f.write('set terminal png size 900,500\n'
                        'set output "%s/%s.png"\n'
                        'set title "%d MiB nandsim, steady state: %s '
                        '(median of %d run(s), bars lowest to highest)" '
                        'noenhanced\n'
                        'set xlabel "user bytes written, in device sizes"\n'
                        'set ylabel "%s" noenhanced\n'
                        'set key below noenhanced\n'
                        'set xrange [0:%g]\n'
                        'set yrange [0:*]\n'
                        'set grid\n'
                        'plot %s\n' % (out, name, mb, title, runs, label,
                                       times, cols)
                        + flashstat.svg_too(out, name))


def main(argv, echo=True):
    out, runs, repeats, kver = argv[1:5]
    sizes = [int(s) for s in argv[5].split()]
    times, pct = float(argv[6]), int(argv[7])
    times = int(times) if times == int(times) else times
    fss = argv[8].split()
    runs, repeats = int(runs), int(repeats)
    res = {'kernel': kver, 'machine': os.uname().nodename,
           'qemu': 'x86_64 TCG, 2 vCPUs',
           'nandsim': '2 KiB pages, 128 KiB erase blocks',
           'runs': runs, 'remounts_per_run': repeats,
           'device_writes': times, 'fill_pct': pct, 'windows': WINDOWS,
           'cases': {}, 'failed': [], 'skipped': {}}
    read_guests(out, runs, sizes, fss, res)
    # latencies in ms in the tables
    for c in res['cases'].values():
        for figs in c['fs'].values():
            for what in list(figs):
                if what.endswith('_us'):
                    figs[what[:-3] + '_ms'] = [v / 1000 for v in figs[what]]
    res['summary'] = summarise(res['cases'], times)
    lines = markdown(res, sizes, fss, times, pct, runs, repeats)
    with open(os.path.join(out, 'aging.json'), 'w') as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, 'aging.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    if echo:
        print('\n'.join(lines))
    plots(out, res, sizes, fss, times, runs)
    return 1 if res['failed'] else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
