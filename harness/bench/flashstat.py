# SPDX-License-Identifier: GPL-2.0
"""What the flash benchmarks' reports share (flash-report.py,
aging-report.py): reading a guest's figures as qemu-run left them, and
turning the runs of one figure into a median with its spread."""

import json
import os
import re
import statistics
import time

NAMES = {'sffs': 'SFFS', 'sffs-zstd': 'SFFS+zstd', 'ubifs': 'UBIFS',
         'ubifs-fm': 'UBIFS+fastmap',
         'jffs2': 'JFFS2', 'jffs2-sum': 'JFFS2+summary'}
# a spread (max - min) over this share of the median is too noisy to
# conclude from
NOISY = 1 / 3
# "# METRIC <fs>_<what>[_<n>]": repeated figures end in their number
KEY_RE = re.compile(r'^(?P<fs>sffs-zstd|sffs|ubifs-fm|ubifs|jffs2-sum|jffs2)_'
                    r'(?P<what>.*?)(_(?P<rep>\d+))?$')


def load(path):
    """result.json of the guest whose work directory is @path, or None"""
    try:
        with open(os.path.join(path, 'result.json')) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def skipped(path):
    """why the bench did not start the guest of @path, or None: it leaves
    the reason there when the guest would not fit in the host's memory"""
    try:
        with open(os.path.join(path, 'skipped')) as f:
            return f.read().strip()
    except OSError:
        return None


def ran_at(path):
    """when the guest of @path ran (BENCH_RESUME keeps earlier guests),
    UTC"""
    return time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(
        os.path.getmtime(os.path.join(path, 'result.json'))))


def failures(name, r):
    """the failed tests and problem lines of result @r of guest @name"""
    out = ['%s: %s' % (name, t.get('name'))
           for t in r.get('results', []) if not t.get('ok', True)]
    return out + ['%s: %s' % (name, p) for p in
                  r.get('problems', []) + r.get('harness_failures', [])]


def figures(r, into):
    """add the file systems' figures of result @r to @into, as
    {fs: {what: [values]}}; repeated figures (_<n>) go in one list"""
    for key, v in r.get('metrics', {}).items():
        m = KEY_RE.match(key)
        if m:
            into.setdefault(m['fs'], {}).setdefault(m['what'], []).append(
                v['value'])
    return into


def interval(v):
    """(median, lowest, highest) of the values @v, or None for none"""
    if not v:
        return None
    return statistics.median(v), min(v), max(v)


def noisy(v):
    """whether the values @v spread over NOISY of their median"""
    if len(v) < 2:
        return False
    m = statistics.median(v)
    return bool(m) and (max(v) - min(v)) / abs(m) > NOISY


def cell(v, spec='%.1f'):
    """a table cell: the median of @v and, for more than one value, the
    lowest and highest in brackets, "~" in front when noisy; "-" for no
    value"""
    if not v:
        return '-'
    m = statistics.median(v)
    s = spec % m
    if len(v) > 1:
        s += ' (%s-%s)' % (spec % min(v), spec % max(v))
        if noisy(v):
            s = '~' + s
    return s


def svg_too(out, name):
    """the gnuplot lines that draw the plot just made once more as
    @out/@name.svg, text that the documentation can carry"""
    return ('set terminal svg size 900,500 font "sans,13" '
            'background "white"\n'
            'set output "%s/%s.svg"\n'
            'replot\n' % (out, name))
