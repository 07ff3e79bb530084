#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the harness itself: the console parser every in-guest test
relies on, qemu-run's power cut at a console marker, the verdicts of the
real power cuts of make stress, the MAINTAINERS insertion of series.py
and the first content it gives a file later patches extend, the SFFS
layer check (sffs-layers.py), the RAM fit of the flash benchmark's report, the aging benchmark's report
math, offcheck's symbol comparison and bench-size's report, deps.sh
riding out a mirror in mid-sync, and skips counted as
skips (kunit.sh, qemu-run, test-all.sh), never as passes, and README's
status table copied from the documents' benchmark tables.  A
harness that misreads a failure as a pass would make every other test
worthless."""

import fcntl
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# the bench reports import what they share from there
sys.path.insert(0, os.path.join(HERE, 'bench'))
import series  # noqa: E402


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


qr = load('qemu_run', os.path.join(HERE, 'qemu-run'))
fr = load('flash_report', os.path.join(HERE, 'bench', 'flash-report.py'))
ar = load('aging_report', os.path.join(HERE, 'bench', 'aging-report.py'))
rs = load('readme_status', os.path.join(HERE, 'readme-status.py'))
TOP = os.path.dirname(HERE)

KSFT = """\
TAP version 13
1..1
# selftests: flash: t.sh
# TAP version 13
# 1..3
# ok 1 write
# not ok 2 remount
# ok 3 verify # SKIP no jffs2
# METRIC jffs2_mount_ms 2800.5 ms
not ok 1 selftests: flash: t.sh # exit=1
qemu-run: exit 1
"""

KTAP = """\
[    1.000000] KTAP version 1
[    1.000000] 1..1
[    1.000000]     KTAP version 1
[    1.000000]     # Subtest: sffs_index
[    1.000000]     1..2
[    1.000000]     ok 1 test_insert
[    1.000000]     ok 2 test_delete
[    1.000000] ok 1 sffs_index
qemu-run: exit 0
"""


class ConsoleParser(unittest.TestCase):
    def test_nested_kselftest_leaves_and_groups(self):
        res, metrics, problems, rc = qr.parse_console(KSFT.splitlines())
        leaves = [r for r in res if r['leaf']]
        self.assertEqual([r['name'] for r in leaves],
                         ['write', 'remount', 'verify'])
        self.assertEqual([r['ok'] for r in leaves], [True, False, True])
        self.assertTrue(leaves[2]['skip'])
        group = [r for r in res if not r['leaf']]
        self.assertEqual(len(group), 1)
        self.assertFalse(group[0]['ok'])
        self.assertEqual(rc, 1)
        self.assertEqual(metrics['jffs2_mount_ms'],
                         {'value': 2800.5, 'unit': 'ms'})
        self.assertEqual(problems, [])

    def test_ktap_with_printk_timestamps(self):
        res, _, _, rc = qr.parse_console(KTAP.splitlines())
        leaves = [r for r in res if r['leaf']]
        self.assertEqual([r['name'] for r in leaves],
                         ['test_insert', 'test_delete'])
        self.assertTrue(all(r['ok'] for r in leaves))
        self.assertEqual(rc, 0)

    def test_kernel_problems_are_caught(self):
        for line in ('[   2.1] BUG: KASAN: use-after-free in foo+0x1/0x2',
                     'WARNING: CPU: 0 PID: 1 at fs/x.c:3 f+0x0/0x1',
                     'Oops: 0000 [#1] SMP',
                     'UBSAN: shift-out-of-bounds in mm/x.c:1:2',
                     'Kernel panic - not syncing: Fatal exception',
                     'Unable to handle kernel NULL pointer dereference'):
            _, _, problems, _ = qr.parse_console([line])
            self.assertEqual(len(problems), 1, line)

    def test_ordinary_lines_are_not_problems(self):
        _, _, problems, rc = qr.parse_console([
            '[nandsim] warning: read_byte: unexpected data output cycle',
            'kasan: KernelAddressSanitizer initialized',
            'ok 1 no bugs here'])
        self.assertEqual(problems, [])
        self.assertIsNone(rc)


class KillAfter(unittest.TestCase):
    """qemu-run --kill-after, with a stand-in for qemu-system-x86_64 that
    prints a console and then waits as a working guest would."""

    def run_qemu_run(self, console, *opts, end='exec sleep 30',
                     busybox=True):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        stub = os.path.join(tmp.name, 'qemu-system-x86_64')
        with open(stub, 'w') as f:
            f.write('#!/bin/sh\n')
            for line in console.splitlines():
                f.write("echo '%s'\n" % line)
            # exec: no child left holding the console pipe after SIGKILL
            f.write(end + '\n')
        os.chmod(stub, 0o755)
        kernel = os.path.join(tmp.name, 'bzImage')
        open(kernel, 'w').close()
        work = os.path.join(tmp.name, 'work')
        env = dict(os.environ, PATH=tmp.name + ':' + os.environ['PATH'])
        res = subprocess.run(
            [sys.executable, os.path.join(HERE, 'qemu-run'), '--arch',
             'x86_64', '--kernel', kernel, '--workdir', work,
             '--timeout', '20'] +
            (['--busybox', sys.executable] if busybox else []) + list(opts),
            env=env, capture_output=True, text=True)
        self.stdout = res.stdout
        self.work = work
        with open(os.path.join(work, 'result.json')) as f:
            return res.returncode, json.load(f)

    def test_killed_after_the_marker_is_no_failure(self):
        rc, res = self.run_qemu_run(
            'qemu-run: guest up 0.1 s\nok 1 previous boot checked\n'
            '# WORKING\n', '--kill-after', '^# WORKING',
            '--kill-delay', '0.3')
        self.assertEqual(rc, 0, res['harness_failures'])
        self.assertGreaterEqual(res['killed_s'], 0.3)
        self.assertLess(res['wall_s'], 10)
        self.assertFalse(res['timed_out'])
        self.assertIsNone(res['exit_status'])
        self.assertEqual(res['passed'], 1)

    def test_skips_are_counted_apart(self):
        rc, res = self.run_qemu_run(
            'qemu-run: guest up 0.1 s\nok 1 a\nok 2 b # SKIP no b\n'
            'qemu-run: exit 0\n', end='exit 0')
        self.assertEqual(rc, 0, res['harness_failures'])
        self.assertEqual((res['passed'], res['skipped']), (1, 1))
        self.assertEqual(self.stdout.splitlines()[-1],
                         '1 passed, 0 failed, 1 skipped')
        self.assertIn('SKIP b', self.stdout.splitlines())

    def test_marker_never_seen_is_a_failure(self):
        rc, res = self.run_qemu_run(
            'qemu-run: guest up 0.1 s\nnot ok 1 mount\nqemu-run: exit 0\n',
            '--kill-after', '^# WORKING', end='exit 0')
        self.assertEqual(rc, 1)
        self.assertIsNone(res['killed_s'])
        self.assertFalse(res['timed_out'])
        self.assertIn('no console line matched --kill-after ^# WORKING',
                      res['harness_failures'])

    def test_no_initramfs(self):
        """--no-initramfs (make root-test): QEMU gets no -initrd and no
        busybox is asked for; the init on the root speaks the protocol."""
        rc, res = self.run_qemu_run(
            'qemu-run: guest up 0.1 s\nok 1 / is sffs\nqemu-run: exit 0\n',
            '--no-initramfs', end='exit 0', busybox=False)
        self.assertEqual(rc, 0, res['harness_failures'])
        self.assertNotIn('-initrd', res['cmdline'])
        self.assertFalse(os.path.exists(os.path.join(self.work, 'root')))
        self.assertEqual(res['passed'], 1)

    def test_without_kill_after_a_silent_end_is_a_failure(self):
        rc, res = self.run_qemu_run('qemu-run: guest up 0.1 s\nok 1 a\n',
                                    '--timeout', '1')
        self.assertEqual(rc, 1)
        self.assertIsNone(res['killed_s'])


class SizeTables(unittest.TestCase):
    """harness/size-tables.py: a table entry the gc link lost, and a gc
    link that collected nothing, both fail."""

    REF = {'c0001000': 'T start_kernel', 'c0002000': 't unused_helper',
           'c0010000': 'D __initcall__kmod_foo__12_34_foo_init6',
           'c0010004': 'D __start_bar', 'c0010010': 'D __stop_bar'}

    def run_tables(self, gc):
        paths = []
        for syms in (self.REF, gc):
            path = os.path.join(self.tmp, '%d.map' % len(paths))
            with open(path, 'w') as f:
                for addr, rest in syms.items():
                    f.write('%s %s\n' % (addr, rest))
            paths.append(path)
        res = subprocess.run([sys.executable, self.tool] + paths,
                             capture_output=True, text=True)
        return res.returncode, res.stdout

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.tool = os.path.join(HERE, 'size-tables.py')

    def test_dead_code_gone_tables_kept(self):
        gc = dict(self.REF)
        del gc['c0002000']
        rc, out = self.run_tables(gc)
        self.assertEqual(rc, 0, out)
        self.assertIn('1 of 5 symbols collected', out)

    def test_lost_entry_and_shrunk_table_fail(self):
        gc = dict(self.REF)
        del gc['c0002000'], gc['c0010000']
        gc['c001000c'] = gc.pop('c0010010')
        rc, out = self.run_tables(gc)
        self.assertEqual(rc, 1)
        self.assertIn('entry dropped: __initcall__kmod_foo_', out)
        self.assertIn('table bar: 12 bytes, 8 with gc', out)

    def test_nothing_collected_fails(self):
        rc, out = self.run_tables(dict(self.REF))
        self.assertEqual(rc, 1)
        self.assertIn('nothing collected', out)

    def test_x86_tables_checked(self):
        # x86 names its tables __X .. __X_end and __brk_base ..
        # __brk_limit; CPU vendor records and brk reservations by name
        ref = dict(self.REF)
        ref.update({'c0020000': 'R __alt_instructions',
                    'c0020030': 'R __alt_instructions_end',
                    'c0020040': 'R __cpu_dev_intel_cpu_dev',
                    'c0030000': 'B __brk_base',
                    'c0031000': 'B __brk_early_pgt_alloc',
                    'c0036000': 'B __brk_limit'})
        self.REF = ref
        gc = dict(ref)
        del gc['c0002000']
        rc, out = self.run_tables(gc)
        self.assertEqual(rc, 0, out)
        self.assertIn('3 tables, 0 differ', out)
        del gc['c0020040'], gc['c0031000']
        gc['c0020018'] = gc.pop('c0020030')
        gc['c0035000'] = gc.pop('c0036000')
        rc, out = self.run_tables(gc)
        self.assertEqual(rc, 1)
        self.assertIn('entry dropped: __cpu_dev_intel_cpu_dev', out)
        self.assertIn('entry dropped: __brk_early_pgt_alloc', out)
        self.assertIn('table __alt_instructions: 48 bytes, 24 with gc', out)
        self.assertIn('table __brk: 24576 bytes, 20480 with gc', out)


class OffcheckSyms(unittest.TestCase):
    """harness/offcheck-syms.py: symbols renamed by line or numbering
    compare equal, any other change fails unless allowed, and the section
    totals must agree with the allowed changes."""

    BASE = ['00000010 00000020 T start_kernel',
            '00000030 00000010 t deferred_probe_initcall',
            '00000040 00000004 d __initcall__kmod_dd__247_370_deferred6',
            '00000044 0000000c r CSWTCH.378',
            '00000048 00000008 r CSWTCH.379',
            '00000050 00000030 T device_links_check_suppliers']
    # the series: the allowed fix grown by its bytes on ARM
    OURS = BASE[:5] + ['00000050 00000040 T device_links_check_suppliers']
    # nm of a real vmlinux lists thousands: fewer means nm read nothing
    FILL = ['%08x 00000010 t filler%d' % (0x1000 + 16 * i, i)
            for i in range(100)]

    def run_syms(self, ours, sizes=('100 20 8', '116 20 8'), arch='arm',
                 fill=True):
        paths = []
        for lines in (self.BASE, ours):
            path = os.path.join(self.tmp, '%d.nm' % len(paths))
            with open(path, 'w') as f:
                f.write('\n'.join(lines + (self.FILL if fill else [])) +
                        '\n')
            paths.append(path)
        res = subprocess.run([sys.executable, self.tool, self.nm, arch] +
                             paths + [self.allow] + list(sizes),
                             capture_output=True, text=True)
        return res.returncode, res.stdout + res.stderr

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.tool = os.path.join(HERE, 'offcheck-syms.py')
        self.nm = os.path.join(self.tmp, 'nm')
        with open(self.nm, 'w') as f:
            f.write('#!/bin/sh\ncat "$3"\n')
        os.chmod(self.nm, 0o755)
        self.allow = os.path.join(self.tmp, 'allow')
        with open(self.allow, 'w') as f:
            f.write('# fixes\ndevice_links_check_suppliers x86_64=21 '
                    'arm=16  # 799\n')

    def test_renamed_and_renumbered_compare_equal(self):
        ours = list(self.OURS)
        ours[2] = '00000040 00000004 d __initcall__kmod_dd__247_392_deferred6'
        ours[3] = '00000044 0000000c r CSWTCH.390'
        ours[4] = '00000048 00000008 r CSWTCH.381'
        rc, out = self.run_syms(ours)
        self.assertEqual(rc, 0, out)

    def test_numbered_sizes_that_change_fail(self):
        ours = list(self.OURS)
        ours[3] = '00000044 00000010 r CSWTCH.378'
        ours[4] = '00000048 00000004 r CSWTCH.379'
        rc, out = self.run_syms(ours)
        self.assertEqual(rc, 1)
        self.assertIn('CSWTCH.N* sizes', out)

    def test_empty_nm_fails(self):
        rc, out = self.run_syms(list(self.OURS), fill=False)
        self.assertNotEqual(rc, 0)
        self.assertIn('nm read nothing', out)

    def test_changed_function_fails_and_is_named(self):
        ours = list(self.OURS)
        ours[1] = '00000030 00000018 t deferred_probe_initcall'
        rc, out = self.run_syms(ours, ('100 20 8', '124 20 8'))
        self.assertEqual(rc, 1)
        self.assertIn('deferred_probe_initcall +8 changed', out)

    def test_allowed_function_and_its_bytes_pass(self):
        ours = list(self.OURS)
        rc, out = self.run_syms(ours, ('100 20 8', '116 20 8'))
        self.assertEqual(rc, 0, out)
        self.assertIn('device_links_check_suppliers +16 (allowed)', out)
        # the same growth where the allowance is another
        rc, out = self.run_syms(ours, ('100 20 8', '116 20 8'), 'x86_64')
        self.assertEqual(rc, 1)
        self.assertIn('+16, not +21', out)

    def test_totals_beyond_the_allowed_fail(self):
        ours = list(self.OURS)
        rc, out = self.run_syms(ours, ('100 20 8', '300 20 8'))
        self.assertEqual(rc, 1)
        # text that shrank while the allowed function grew
        rc, out = self.run_syms(ours, ('100 20 8', '20 20 8'))
        self.assertEqual(rc, 1)
        rc, out = self.run_syms(ours, ('100 20 8', '116 24 8'))
        self.assertEqual(rc, 1)


class SizeReport(unittest.TestCase):
    """harness/bench/size-report.py: exact size changes, and memory after
    boot judged by the interval of the paired differences."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.out = tmp.name
        sizes = {'stock': (1000, 500, 100, 900), 'series': (1000, 500, 100, 900),
                 'footprint': (800, 480, 90, 700)}
        for name, (t, d, b, img) in sizes.items():
            with open(os.path.join(self.out, 'arm-%s.size' % name), 'w') as f:
                f.write('%d %d %d\n' % (t, d, b))
            with open(os.path.join(self.out, 'arm-%s.image' % name), 'w') as f:
                f.write('%d\n' % img)

    def boots(self, name, free, failed=()):
        for r, v in enumerate(free, 1):
            d = os.path.join(self.out, 'arm-%s' % name, str(r))
            os.makedirs(d)
            with open(os.path.join(d, 'result.json'), 'w') as f:
                json.dump({'failed': 1 if r in failed else 0, 'metrics': {
                    'boot_MemFree': {'value': v},
                    'boot_MemTotal': {'value': 30000},
                    'boot_MemAvailable': {'value': v - 500}}}, f)

    def report(self):
        res = subprocess.run([sys.executable,
                              os.path.join(HERE, 'bench', 'size-report.py'),
                              self.out, 'arm', ''],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(self.out, 'size.json')) as f:
            return json.load(f)['arches']['arm']

    def test_sizes_and_a_shown_gain(self):
        self.boots('stock', [22000 + i for i in range(7)])
        self.boots('footprint', [22900 + i for i in range(7)])
        a = self.report()
        self.assertEqual(a['footprint_change']['text_data']['bytes'], -220)
        self.assertAlmostEqual(a['footprint_change']['text']['pct'], -20.0)
        self.assertEqual(a['series_off_change'],
                         {'text': 0, 'data': 0, 'bss': 0})
        self.assertEqual(a['memory']['boot_MemFree']['verdict'], 'more')
        self.assertEqual(a['memory']['boot_MemTotal']['verdict'],
                         'no difference shown')

    def test_bloat_o_meter_tables(self):
        with open(os.path.join(self.out, 'arm-bloat-o-meter.txt'), 'w') as f:
            f.write('add/remove: 0/2 grow/shrink: 1/1 up/down: 8/-300 (-292)\n'
                    'Function                                     old     new   delta\n'
                    'grows                                         10      18      +8\n'
                    'gone                                         200       -    -200\n'
                    'Data                                         old     new   delta\n'
                    'table                                        100       -    -100\n'
                    'Total: Before=1000, After=708, chg -29.20%\n')
        b = self.report()['bloat']
        self.assertEqual(b['grow'], [['grows', 8]])
        self.assertEqual(b['shrink'], [['gone', -200], ['table', -100]])
        self.assertTrue(b['total'].startswith('Total: Before=1000'))

    def test_failed_boots_and_too_few_show_nothing(self):
        self.boots('stock', [22000] * 7, failed=(1, 2, 3))
        self.boots('footprint', [22900] * 7)
        a = self.report()
        self.assertEqual(a['boots']['stock']['failed'], [1, 2, 3])
        self.assertEqual(a['memory']['boot_MemFree']['verdict'],
                         'not shown (too few boots)')


class RealCuts(unittest.TestCase):
    """harness/stress/cuts-report.py: which cut a boot's findings condemn,
    and the counts of summary.json."""

    CUT = """\
# qemu-system-arm ...
qemu-run: guest up 5.1 s
ok 1 mount
# CHECK boot=%d mount=ok files=3 lost=%d config=%s gen=4 log_damage=0 partial=1
%s# WORKING
# 1 add f2-1 100 %s fsync
# 2 FULL f2-2 5000: statfs offers 900 KiB
# GC gc_runs=1 gc_blocks=2 gc_more_rounds=0 gc_moved_bytes=10
# 2 cfg 5 tmp-fsync synced
# GC gc_runs=2 gc_blocks=5 gc_more_rounds=1 gc_ahead_runs=3 gc_moved_bytes=300
# GC gc_runs=2 gc_blocks=5 gc_more
# 3 cfg 6 tmp-fsync synced
# GC gc_runs=9 gc_blocks=9 gc_more_rounds=9 gc_moved_bytes=9"""

    def boot(self, n, lost=0, config='ok', killed=True, fsck_rc=0,
             mode='work', problem=''):
        wd = os.path.join(self.tmp, 'boot')
        os.makedirs(wd, exist_ok=True)
        with open(os.path.join(wd, 'console.log'), 'w') as f:
            f.write(self.CUT % (n, lost, config, problem, 'a' * 64))
        with open(os.path.join(wd, 'result.json'), 'w') as f:
            json.dump({'harness_failures': [], 'problems': [],
                       'killed_s': 9.5 if killed else None, 'wall_s': 10,
                       'guest_up_s': 5.1, 'timed_out': False,
                       'metrics': {'check_s': {'value': 1.5, 'unit': 's'}}},
                      f)
        fsck = os.path.join(self.tmp, 'fsck.txt')
        with open(fsck, 'w') as f:
            f.write('journal: 3 nodes in 1 blocks to replay\n'
                    'errors: %d\nwarnings: 2\n' % (fsck_rc and 1))
        res = subprocess.run(
            [sys.executable, self.report, 'record', self.records, wd,
             str(n), mode, '1.5', str(fsck_rc) if mode == 'work' else '-',
             fsck], capture_output=True, text=True, check=True)
        return res.stdout.splitlines()

    def summary(self):
        res = subprocess.run(
            [sys.executable, self.report, 'summary', self.records,
             os.path.join(self.tmp, 'summary.json'), 'nor', 'arm', '1', '6',
             '40'], capture_output=True, text=True)
        with open(os.path.join(self.tmp, 'summary.json')) as f:
            return res.returncode, res.stdout.splitlines()[-1], \
                json.load(f)['nor']

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.records = os.path.join(self.tmp, 'cuts.jsonl')
        self.report = os.path.join(HERE, 'stress', 'cuts-report.py')

    def test_clean_cuts_pass(self):
        for n in (1, 2, 3):
            out = self.boot(n)
            self.assertFalse([x for x in out if not x.startswith('line ')])
        self.boot(4, mode='check', killed=False)
        rc, last, s = self.summary()
        self.assertEqual((rc, last), (0, 'stress-cuts: 3 passed, 0 failed'))
        self.assertEqual((s['cuts'], s['files_checked'], s['fsck_warnings'],
                          s['cuts_with_journal_to_replay'],
                          s['partial_log_lines']), (3, 9, 6, 3, 3))
        # the last whole counters each cut boot printed, summed over the
        # cuts: neither a line a kernel message broke nor the last one,
        # which the cut ended before its newline
        self.assertEqual((s['gc_runs'], s['gc_blocks'], s['gc_more_rounds'],
                          s['gc_ahead_runs'], s['gc_moved_bytes']),
                         (6, 15, 3, 9, 900))
        # writes refused on a full flash, one a cut boot
        self.assertEqual(s['full_writes'], 3)

    def test_a_loss_condemns_the_cut_before(self):
        self.boot(1)
        out = self.boot(2, lost=2, config='torn')
        self.assertIn('keep-check 1', out)
        self.assertNotIn('keep-cut 2', out)
        self.assertNotIn('reformat', out)
        out = self.boot(3, fsck_rc=4)
        self.assertIn('keep-cut 3', out)
        rc, last, s = self.summary()
        self.assertEqual((rc, last), (1, 'stress-cuts: 1 passed, 2 failed'))
        self.assertEqual((s['lost_fsyncd_files'], s['torn_configs'],
                          s['fsck_failed']), (2, 1, 1))
        self.assertEqual(sorted(s['failed_cuts']), ['1', '3'])

    def test_kernel_problems_belong_to_their_phase(self):
        self.boot(1)
        out = self.boot(2, problem='WARNING: at fs/sffs/replay.c:1\n')
        self.assertIn('keep-check 1', out)
        self.assertNotIn('keep-cut 2', out)

    def test_no_check_means_format_again(self):
        wd = os.path.join(self.tmp, 'boot')
        self.boot(1)
        with open(os.path.join(wd, 'console.log'), 'w') as f:
            f.write('# qemu\nnot ok 1 mount\n# CHECK boot=2 mount=fail\n')
        with open(os.path.join(wd, 'result.json'), 'w') as f:
            json.dump({'harness_failures': ['payload exited with status 1'],
                       'problems': [], 'killed_s': None}, f)
        res = subprocess.run(
            [sys.executable, self.report, 'record', self.records, wd, '2',
             'work', '1', '0', os.path.join(self.tmp, 'fsck.txt')],
            capture_output=True, text=True, check=True)
        out = res.stdout.splitlines()
        self.assertIn('reformat', out)
        self.assertIn('keep-check 1', out)
        self.assertNotIn('keep-cut 2', out)
        rc, last, s = self.summary()
        self.assertEqual(s['failed_mounts'], 1)

    def test_summaries_of_two_lanes_both_kept(self):
        """make stress runs two geometries at once: a summary waits for
        the other's lock and keeps the entry the other wrote meanwhile."""
        self.boot(1)
        self.boot(2, mode='check', killed=False)
        path = os.path.join(self.tmp, 'summary.json')
        with open(path + '.lock', 'w') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            proc = subprocess.Popen(
                [sys.executable, self.report, 'summary', self.records, path,
                 'nor', 'arm', '1', '6', '40'], stdout=subprocess.DEVNULL)
            self.addCleanup(proc.kill)
            # /proc/locks marks a process blocked on a lock with "->"
            ino = ':%d ' % os.fstat(lock.fileno()).st_ino
            for _ in range(600):
                self.assertIsNone(proc.poll(),
                                  'summary did not wait for the lock')
                with open('/proc/locks') as f:
                    if any('->' in x and ino in x for x in f):
                        break
                time.sleep(0.05)
            else:
                self.fail('summary never blocked on the lock')
            # the other lane's summary, written while this one waits
            with open(path, 'w') as f:
                json.dump({'block2mtd': {'cuts': 7}}, f)
        self.assertEqual(proc.wait(timeout=30), 0)
        with open(path) as f:
            s = json.load(f)
        self.assertEqual(s['block2mtd'], {'cuts': 7})
        self.assertEqual(s['nor']['cuts'], 1)


class Maintainers(unittest.TestCase):
    TEXT = ('Maintainers List\n----------------\n\n'
            'ALPHA\nM:\tA <a@x>\nS:\tMaintained\n\n'
            'GAMMA\nM:\tG <g@x>\nS:\tMaintained\n\n'
            'THE REST\nM:\tL <l@x>\n')

    def test_inserted_in_alphabetical_order(self):
        out = series.insert_maintainers(self.TEXT, 'BETA\nS:\tMaintained\n')
        self.assertLess(out.index('ALPHA'), out.index('BETA'))
        self.assertLess(out.index('BETA'), out.index('GAMMA'))
        self.assertIn('S:\tMaintained\n\nGAMMA', out)

    def test_last_entry_goes_before_the_rest(self):
        out = series.insert_maintainers(self.TEXT, 'ZETA\nS:\tMaintained\n')
        self.assertLess(out.index('ZETA'), out.index('THE REST'))

    def test_duplicate_is_refused(self):
        with self.assertRaises(series.SeriesError):
            series.insert_maintainers(self.TEXT, 'GAMMA\nS:\tMaintained\n')


class SeriesStaged(unittest.TestCase):
    """A later commit's patch extends a file an earlier commit added."""

    MK1 = 'obj-y += x.o\n\nx-y := a.o\n'
    MK2 = 'obj-y += x.o\n\nx-y := a.o\nx-y += b.o\n'
    MK3 = 'obj-y += x.o\n\nx-y := a.o\nx-y += b.o\nx-y += c.o\n'

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.top = os.path.join(self.tmp, 'top')
        self.pdir = os.path.join(self.top, 'patches')
        os.makedirs(os.path.join(self.top, 'fs/x'))
        os.makedirs(self.pdir)
        self.write('fs/x/Makefile', self.MK3)
        self.diff('10-b.patch', self.MK1, self.MK2)
        self.diff('11-c.patch', self.MK2, self.MK3)
        for name, val in (('TOP', self.top), ('PATCHDIR', self.pdir)):
            old = getattr(series, name)
            setattr(series, name, val)
            self.addCleanup(setattr, series, name, old)

    def write(self, path, text):
        with open(os.path.join(self.top, path), 'w') as f:
            f.write(text)

    def diff(self, name, old, new):
        d = os.path.join(self.tmp, 'd')
        for side, text in (('a', old), ('b', new)):
            os.makedirs(os.path.join(d, side, 'fs/x'), exist_ok=True)
            with open(os.path.join(d, side, 'fs/x/Makefile'), 'w') as f:
                f.write(text)
        out = subprocess.run(['diff', '-u', 'a/fs/x/Makefile',
                              'b/fs/x/Makefile'], cwd=d,
                             capture_output=True, text=True).stdout
        out = ''.join(ln.split('\t')[0] + '\n'
                      if ln.startswith(('---', '+++')) else ln
                      for ln in out.splitlines(keepends=True))
        with open(os.path.join(self.pdir, name), 'w') as f:
            f.write(out)

    def commits(self, *patches):
        return [{'paths': ['fs/x/Makefile'], 'patches': []}] + \
            [{'paths': [], 'patches': [p]} for p in patches]

    def test_first_commit_gets_the_file_before_the_patches(self):
        staged = series.staged_contents(self.commits('10-b.patch',
                                                     '11-c.patch'))
        self.assertEqual(staged, {'fs/x/Makefile': self.MK1.encode()})

    def test_file_no_patch_changes_is_not_staged(self):
        self.assertEqual(series.staged_contents(self.commits()), {})

    def test_patch_before_the_commit_adding_the_file_is_refused(self):
        commits = [{'paths': [], 'patches': ['10-b.patch']},
                   {'paths': ['fs/x/Makefile'], 'patches': []}]
        with self.assertRaisesRegex(series.SeriesError, 'later commit'):
            series.staged_contents(commits)

    def test_patch_that_does_not_fit_the_file_is_refused(self):
        self.write('fs/x/Makefile', self.MK2)
        with self.assertRaisesRegex(series.SeriesError, 'does not undo'):
            series.staged_contents(self.commits('10-b.patch',
                                                '11-c.patch'))


class SffsLayers(unittest.TestCase):
    """harness/sffs-layers.py: a use of an object listed later fails."""

    def run_layers(self, makefile, src):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, 'Makefile'), 'w') as f:
            f.write(makefile)
        for name, text in src.items():
            with open(os.path.join(tmp, name), 'w') as f:
                f.write(text)
            subprocess.run(['gcc', '-c', '-o', name[:-2] + '.o', name],
                           cwd=tmp, check=True)
        return subprocess.run([sys.executable,
                               os.path.join(HERE, 'sffs-layers.py'), tmp,
                               tmp], capture_output=True, text=True)

    MK = ('sffs-y := a.o  # the lowest\nsffs-y += b.o\n'
          'sffs-$(CONFIG_SFFS_FS_KUNIT_TEST) += t.o\n')
    B = 'int fa(void);\nint fb(void) { return fa(); }\n'
    T = 'int fa(void);\nint tt(void) { return fa(); }\n'

    def test_calls_down_pass(self):
        res = self.run_layers(self.MK, {
            'a.c': 'int fa(void) { return 1; }\n', 'b.c': self.B,
            't.c': self.T})
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn('ok: 2 objects in layers: a.o b.o', res.stdout)

    def test_call_up_fails_and_is_named(self):
        res = self.run_layers(self.MK, {
            'a.c': 'int fb(void);\nint fa(void) { return fb(); }\n',
            'b.c': self.B, 't.c': self.T})
        self.assertEqual(res.returncode, 1)
        self.assertIn('a.o calls up into b.o: fb', res.stdout)

    def test_data_of_a_later_object_on_the_same_line_fails(self):
        res = self.run_layers('sffs-y := a.o b.o\n', {
            'a.c': 'extern int db;\nint fa(void) { return db; }\n',
            'b.c': 'int db = 1;\n'})
        self.assertEqual(res.returncode, 1)
        self.assertIn('a.o calls up into b.o: db', res.stdout)

    def test_layer_using_a_test_object_fails(self):
        res = self.run_layers(self.MK, {
            'a.c': 'int fa(void) { return 1; }\n',
            'b.c': 'int tt(void);\nint fb(void) { return tt(); }\n',
            't.c': self.T})
        self.assertEqual(res.returncode, 1)
        self.assertIn('b.o calls up into t.o: tt', res.stdout)


class Coverage(unittest.TestCase):
    """series.py: every file a commit adds is in a MAINTAINERS entry."""

    def test_patterns_as_maintainers_reads_them(self):
        self.assertTrue(series.covers('fs/sffs/', 'fs/sffs/a/b.c'))
        self.assertTrue(series.covers('Documentation/fs/sffs*',
                                      'Documentation/fs/sffs-a.svg'))
        self.assertFalse(series.covers('fs/*', 'fs/sffs/a.c'))
        self.assertTrue(series.covers('fs/sffs', 'fs/sffs/a.c'))
        self.assertFalse(series.covers('fs/sffs', 'fs/sffs/x/a.c'))
        self.assertFalse(series.covers('fs/sffs.c', 'fs/sffsXc'))

    def test_file_before_its_entry_is_refused(self):
        frag = {'X': 'X\nF:\tfs/x/\n'}
        ok = [{'subject': '1', 'paths': ['fs/x/a.c'], 'maintainers': ['X']},
              {'subject': '2', 'paths': ['fs/x/b.c'], 'maintainers': []}]
        series.check_coverage(ok, frag)
        late = [{'subject': '1', 'paths': ['fs/x/a.c'], 'maintainers': []},
                {'subject': '2', 'paths': [], 'maintainers': ['X']}]
        with self.assertRaisesRegex(series.SeriesError, 'fs/x/a.c'):
            series.check_coverage(late, frag)


class RamFit(unittest.TestCase):
    """flash-report.py's split of the RAM figures into what follows the
    files listed and what follows the flash size"""

    def test_recovers_the_model(self):
        pts = [(f, g, 300 + 0.9 * f + 450 * g)
               for g in (0.25, 1, 4, 16) for f in (64 * g, 192 * g)]
        fixed, per_file, per_gib, res = fr.ram_fit(pts)
        self.assertAlmostEqual(fixed, 300, places=6)
        self.assertAlmostEqual(per_file, 0.9, places=6)
        self.assertAlmostEqual(per_gib, 450, places=6)
        self.assertLess(res, 1e-6)

    def test_residual_reports_a_bad_fit(self):
        pts = [(f, g, 300 + 0.9 * f) for g in (0.25, 1, 4)
               for f in (64 * g, 192 * g)]
        pts[0] = (pts[0][0], pts[0][1], pts[0][2] + 1000)
        self.assertGreater(fr.ram_fit(pts)[3], 500)

    def test_files_tied_to_flash_size_cannot_be_split(self):
        pts = [(256 * g, g, 100 + 256 * g) for g in (0.25, 1, 4, 16)]
        self.assertIsNone(fr.ram_fit(pts))

    def test_one_flash_size_cannot_be_split(self):
        self.assertIsNone(fr.ram_fit([(f, 1, f) for f in (64, 128, 256, 512)]))


class IdleCostReport(unittest.TestCase):
    """idle-cost-report.py on made-up guests: ratios to off round by
    round, a change claimed only where the interval excludes 1, and the
    two targets met or missed"""

    def run_report(self, pingpong, stops, wrong=None):
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        for mode in ('off', 'filter', 'every'):
            for r in range(1, 7):
                d = os.path.join(out, 'idle-cost-x86_64-%s-%d' % (mode, r))
                os.makedirs(d)
                m = {'wakeup_reduce_on': int(mode != 'off'),
                     'idle_stop_tick_us': 0 if mode == 'every' else 4000,
                     'cpuidle_driver': int(mode == wrong),
                     'pingpong_per_s': pingpong[mode] * (1 + r / 100),
                     'sleep10000_per_s': 100.0,
                     'sleep10ms_cpu0_tick_stops_per_s': stops[mode],
                     'sleep10ms_cpu0_timer_irq_per_s':
                         100.0 if mode == 'off' else 60.0}
                with open(os.path.join(d, 'result.json'), 'w') as f:
                    json.dump({'failed': 0, 'metrics': {
                        k: {'value': v} for k, v in m.items()}}, f)
        subprocess.run([sys.executable,
                        os.path.join(HERE, 'bench', 'idle-cost-report.py'),
                        out, 'x86_64', '6'], check=True,
                       capture_output=True)
        with open(os.path.join(out, 'idle-cost.json')) as f:
            return json.load(f)['x86_64']

    def test_slower_filter_misses_and_is_worse(self):
        res = self.run_report({'off': 1000, 'filter': 800, 'every': 1000},
                              {'off': 100, 'filter': 100, 'every': 100})
        row = res['rows']['pingpong_per_s']
        self.assertEqual(row['filter/off']['verdict'], 'worse')
        self.assertEqual(row['every/off']['verdict'], 'no difference shown')
        self.assertEqual(res['targets']['pingpong_no_slower'], 'missed')
        self.assertEqual(res['targets']['one_stop_per_long_idle'], 'met')
        self.assertEqual(res['targets']['no_retained_tick_on_long_idle'],
                         'met')

    def test_boot_in_the_wrong_mode_is_left_out(self):
        res = self.run_report({'off': 1000, 'filter': 1000, 'every': 1000},
                              {'off': 100, 'filter': 100, 'every': 100},
                              wrong='filter')
        self.assertIsNone(res['rows']['pingpong_per_s']['filter'])

    def test_two_stops_per_sleep_miss(self):
        res = self.run_report({'off': 1000, 'filter': 1200, 'every': 900},
                              {'off': 100, 'filter': 200, 'every': 100})
        self.assertEqual(res['rows']['pingpong_per_s']['filter/off']
                         ['verdict'], 'better')
        self.assertEqual(res['targets']['pingpong_no_slower'], 'met')
        self.assertEqual(res['targets']['one_stop_per_long_idle'], 'missed')


class IdleReport(unittest.TestCase):
    """idle-report.py on made-up guests: each RNG row judged on its own
    series boot, a failed boot meets nothing, seeded shown for both"""

    def run_report(self, failed=None, unseeded=None):
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        for mode in ('periodic', 'stock', 'attributed', 'series',
                     'stock-rng', 'series-rng'):
            d = os.path.join(out, 'idle-x86_64-tiny-%s' % mode)
            os.makedirs(d)
            rate = 0.5 if mode.startswith('series') else 1.0
            m = {'cpus': 2, 'idle_s': 60.0, 'crng_ready':
                 int(mode.endswith('rng') and mode != unseeded)}
            for k in ('irq_per_cpu_s', 'idle_exits_per_cpu_s',
                      'wakeups_per_cpu_s'):
                m[k] = rate / 10
                m[k + '_cpu0'] = m[k + '_cpu1'] = rate / 10
            if mode == 'series-rng':
                m['irq_per_cpu_s_cpu1'] = 0.3
            with open(os.path.join(d, 'result.json'), 'w') as f:
                json.dump({'failed': int(mode == failed),
                           'results': [{'name': 'idle', 'ok':
                                        mode != failed}],
                           'metrics': {k: {'value': v}
                                       for k, v in m.items()}}, f)
        subprocess.run([sys.executable,
                        os.path.join(HERE, 'bench', 'idle-report.py'), out,
                        'x86_64', 'tiny'], check=True, capture_output=True)
        with open(os.path.join(out, 'idle.md')) as f:
            md = f.read()
        rows = {}
        for line in md.splitlines():
            c = [x.strip() for x in line.strip('|').split('|')]
            if len(c) > 3 and c[0] == 'x86_64':
                rows.setdefault(c[2], []).append(c)
        return rows

    def test_rows_judged_apart(self):
        rows = self.run_report()
        wake, irq = rows['none'][0], rows['none'][1]
        self.assertEqual(wake[3], 'no / no')
        self.assertEqual(wake[-1], 'yes, every CPU')
        self.assertEqual(irq[-1], 'yes, every CPU')
        wake, irq = rows['virtio-rng']
        self.assertEqual(wake[3], 'yes / yes')
        self.assertEqual(wake[-1], 'yes, every CPU')
        # CPU 1 took 0.3 interrupts a second with the device
        self.assertEqual(irq[-1], 'mean yes, busiest CPU 0.30')

    def test_failed_boot_meets_nothing(self):
        rows = self.run_report(failed='series')
        self.assertTrue(rows['none'][0][-1].startswith('failed'))
        self.assertTrue(rows['none'][1][-1].startswith('failed'))

    def test_seeded_shown_for_stock(self):
        rows = self.run_report(unseeded='stock-rng')
        self.assertEqual(rows['virtio-rng'][0][3], 'no / yes')


class DemoReport(unittest.TestCase):
    """demo-report.py on made-up boots: each part's verdict follows its
    figures, a failed or missing boot is counted and named"""

    STOCK = {'ubifs_write_s': 0.40, 'jffs2_write_s': 0.80,
             'ubi_attach_ms': 140.0, 'ubifs_mount_ms': 9.0,
             'jffs2_mount_ms': 160.0, 'cpus': 2, 'idle_s': 10.0,
             'irq_per_cpu_s': 1.2, 'irq_per_cpu_s_cpu0': 1.0,
             'irq_per_cpu_s_cpu1': 1.4, 'crng_ready': 1, 'Slab_kB': 3300,
             'MemAvailable_kB': 700000, 'boot_to_init_s': 1.1}
    SERIES = {'sffs_write_s': 0.15, 'sffs_mount_ms': 11.0, 'cpus': 2,
              'idle_s': 10.0, 'irq_per_cpu_s': 0.05,
              'irq_per_cpu_s_cpu0': 0.0, 'irq_per_cpu_s_cpu1': 0.1,
              'wakeups_per_cpu_s': 0.05, 'wakeups_per_cpu_s_cpu0': 0.0,
              'wakeups_per_cpu_s_cpu1': 0.1, 'crng_ready': 1,
              'Slab_kB': 2600, 'MemAvailable_kB': 701000,
              'series_bound_us_0': 700000, 'series_deferrals_0': 0,
              'series_bound_us_1': 490000, 'series_deferrals_1': 0,
              'series_bound_us_2': 515000, 'series_deferrals_2': 0,
              'boot_to_init_s': 1.1}
    # medians: series 515 ms, async 495 ms (within 5%)
    ASYNC = {'async_bound_us_0': 495000, 'async_deferrals_0': 1300,
             'async_bound_us_1': 480000, 'async_deferrals_1': 1200,
             'async_bound_us_2': 510000, 'async_deferrals_2': 1400}

    def run_report(self, **change):
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        boots = {'stock': dict(self.STOCK), 'series': dict(self.SERIES),
                 'async': dict(self.ASYNC)}
        for k, v in change.items():
            name, key = k.split('__')
            if v is None:
                boots[name].pop(key)
            else:
                boots[name][key] = v
        for name, m in boots.items():
            if m.pop('missing', None):
                continue
            failed = m.pop('failed', 0)
            os.makedirs(os.path.join(out, name))
            with open(os.path.join(out, name, 'result.json'), 'w') as f:
                json.dump({'failed': failed, 'passed': 3,
                           'results': [{'name': 'x', 'ok': not failed}],
                           'metrics': {k: {'value': v}
                                       for k, v in m.items()}}, f)
        p = subprocess.run([sys.executable,
                            os.path.join(HERE, 'demo', 'demo-report.py'),
                            out], capture_output=True, text=True)
        with open(os.path.join(out, 'demo.json')) as f:
            rows = json.load(f)['rows']
        return p, {r['measure'].split(',')[0]: r['verdict'] for r in rows}

    def test_all_met(self):
        p, v = self.run_report()
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.endswith('9 passed, 0 failed\n'))
        self.assertNotIn('MISSED', p.stdout)
        for k in ('write the demo files (cp', 'remount after the write',
                  'interrupts per CPU per s',
                  'wakeups the series attributed per CPU per s',
                  'MemAvailable after boot', '64-device graph',
                  'probe deferrals in that graph (most in a run)',
                  'RNG seeded by the end of the window (virtio-rng)'):
            self.assertEqual(v[k], 'met', k)
        self.assertEqual(v['boot to /init'], '-')
        self.assertEqual(v['Slab after boot'], '-')

    def test_misses_are_said(self):
        p, v = self.run_report(series__sffs_write_s=0.5,
                               series__sffs_mount_ms=31.0,
                               series__irq_per_cpu_s_cpu1=0.3,
                               series__wakeups_per_cpu_s_cpu1=0.21,
                               series__MemAvailable_kB=699999,
                               series__series_bound_us_1=520000,
                               series__series_deferrals_1=1)
        for k in ('write the demo files (cp', 'remount after the write',
                  'interrupts per CPU per s',
                  'wakeups the series attributed per CPU per s',
                  'MemAvailable after boot', '64-device graph',
                  'probe deferrals in that graph (most in a run)'):
            self.assertEqual(v[k], 'MISSED', k)
        self.assertIn('Missed in this run: ', p.stdout)
        # a missed target is said, not failed
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.endswith('9 passed, 0 failed\n'))

    def test_probe_median_of_the_runs(self):
        # one slow run (the first) is not the verdict; the median is,
        # with 5% slack
        p, v = self.run_report(series__series_bound_us_2=519000)
        self.assertEqual(v['64-device graph'], 'met')
        self.assertRegex(p.stdout, r'median of the runs\) .* 519\.0 ')
        p, v = self.run_report(series__series_bound_us_2=520000)
        self.assertEqual(v['64-device graph'], 'MISSED')

    def test_unseeded_rng_fails(self):
        p, v = self.run_report(stock__crng_ready=0)
        self.assertEqual(v['RNG seeded by the end of the window (virtio-rng)'],
                         'MISSED')
        self.assertEqual(p.returncode, 1)
        self.assertIn('the idle comparison does not hold', p.stdout)

    def test_no_figure_on_a_passing_boot_fails(self):
        # an empty value parses as its unit: no figure, not a crash
        p, v = self.run_report(series__sffs_mount_ms='ms',
                               series__irq_per_cpu_s=None)
        self.assertEqual(v['remount after the write'], '-')
        self.assertEqual(v['interrupts per CPU per s'], '-')
        self.assertEqual(p.returncode, 1)
        self.assertIn('no figure for "remount after the write, ms"',
                      p.stdout)
        self.assertTrue(p.stdout.endswith('9 passed, 2 failed\n'))

    def test_missing_boot_fails(self):
        p, v = self.run_report(async__missing=True, stock__failed=1)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(v['64-device graph'], '-')
        self.assertIn('async boot: no result', p.stdout)
        self.assertIn('stock boot failed: x', p.stdout)
        # the async boot, the stock boot's failed result, and the graph
        # row the async boot left without a figure
        self.assertTrue(p.stdout.endswith('6 passed, 3 failed\n'))


class NamesReport(unittest.TestCase):
    """bench/names-report.py: names by bus address against a sync boot"""

    BASE = {'block': {'0000:00:12.0': 'vda', '0000:00:13.0': 'vdb'},
            'net': {'0000:00:0e.0': 'eth0', '0000:00:0f.0': 'eth1'}}

    def write_boot(self, out, mode, b, names, in_order=True, problems=0,
                   complete=True):
        wd = os.path.join(out, 'names-x86_64-%s-%d' % (mode, b))
        os.makedirs(wd)
        with open(os.path.join(wd, 'console.log'), 'w') as f:
            for c, m in names.items():
                f.write('# %s: %s\r\n' % (c, ' '.join(
                    '%s=%s' % kv for kv in m.items())))
            f.write('# serial: \n')
            if not in_order:
                # a line about a class that is not a list of names
                f.write('# block: vdb at 0000:00:13.0 after vdc\n')
                f.write('# out of order, block: vdb at 0000:00:13.0\n')
            f.write('%sok 1 names follow the bus addresses\n'
                    % ('' if in_order else 'not '))
            f.write('%sok 2 every class has its devices (block=2)\n'
                    % ('' if complete else 'not '))
        with open(os.path.join(wd, 'result.json'), 'w') as f:
            json.dump({'problems': ['WARNING: x'] * problems}, f)

    def run_report(self, boots):
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        for (mode, b), kw in boots.items():
            self.write_boot(out, mode, b, **kw)
        p = subprocess.run([sys.executable,
                            os.path.join(HERE, 'bench', 'names-report.py'),
                            'x86_64', out, '2', '20000'],
                           capture_output=True, text=True)
        path = os.path.join(out, 'probe-names.json')
        res = None
        if os.path.exists(path):
            with open(path) as f:
                res = json.load(f)['x86_64']
        return p, res

    def test_changes_counted_against_the_first_sync_boot(self):
        swapped = {'block': {'0000:00:12.0': 'vdb', '0000:00:13.0': 'vda'},
                   'net': dict(self.BASE['net'])}
        lost = {'block': {'0000:00:12.0': 'vda'},
                'net': dict(self.BASE['net'])}
        p, r = self.run_report({
            ('sync', 1): {'names': self.BASE},
            ('sync', 2): {'names': self.BASE},
            ('async', 1): {'names': swapped, 'in_order': False,
                           'problems': 2},
            ('async', 2): {'names': lost},
            ('series', 1): {'names': self.BASE},
            ('series', 2): {'names': self.BASE}})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(r['classes'], ['block', 'net'])
        self.assertEqual(r['devices'], {'block': 2, 'net': 2})
        a = r['modes']['async']
        # two swapped names in boot 1, one missing in boot 2
        self.assertEqual(a['changed'], {'block': 3, 'net': 0})
        self.assertEqual(a['boots_changed'], {'block': 2, 'net': 0})
        self.assertEqual(a['out_of_order_boots'], 1)
        self.assertEqual(a['problem_boots'], 1)
        s = r['modes']['series']
        self.assertEqual(s['changed'], {'block': 0, 'net': 0})
        self.assertEqual(s['boots'], 2)
        self.assertIn('| disks (vdX) | 2 | 0 (0 of 2) | 3 (2 of 2) | '
                      '0 (0 of 2) |', p.stdout)
        self.assertIn('\n|---|---|---|---|---|\n', p.stdout)

    def test_baseline_is_a_sync_boot_with_names(self):
        # the first sync boot printed nothing: the second is the baseline
        other = {'block': {'0000:00:12.0': 'vdb', '0000:00:13.0': 'vda'}}
        p, r = self.run_report({
            ('sync', 1): {'names': {}},
            ('sync', 2): {'names': other},
            ('async', 1): {'names': other},
            ('series', 1): {'names': other}})
        self.assertEqual(r['baseline']['boot'], 2)
        self.assertEqual(r['modes']['series']['changed'], {'block': 0})
        self.assertEqual(r['modes']['sync']['boots_without_names'], 1)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_missing_devices_fail(self):
        # a driver that did not bind is a failed run, not a moved name
        fewer = {'block': {'0000:00:12.0': 'vda'}}
        p, r = self.run_report({
            ('sync', 1): {'names': self.BASE},
            ('async', 1): {'names': self.BASE},
            ('series', 1): {'names': fewer, 'complete': False}})
        self.assertEqual(r['modes']['series']['missing_device_boots'], 1)
        self.assertEqual(r['modes']['sync']['missing_device_boots'], 0)
        self.assertIn('| boots with devices missing | | 0 | 0 | 1 |',
                      p.stdout)
        self.assertEqual(p.returncode, 1)

    def test_no_sync_names_fails(self):
        p, r = self.run_report({('series', 1): {'names': self.BASE}})
        self.assertEqual(p.returncode, 1)


class AgingReport(unittest.TestCase):
    """aging-report.py on the figures of made-up guests: medians and
    spreads over the runs, figures derived per run, the steady state's
    windows, and what was not run"""

    def guest(self, out, name, metrics, ok=True):
        d = os.path.join(out, 'aging', name)
        os.makedirs(d)
        with open(os.path.join(d, 'result.json'), 'w') as f:
            json.dump({'failed': 0 if ok else 1,
                       'results': [{'name': 'aged', 'ok': ok}],
                       'metrics': {k: {'value': v, 'unit': ''}
                                   for k, v in metrics.items()}}, f)

    @staticmethod
    def figures(fs, run):
        """run 1, 2 and 3 of @fs: steady state 10, 14 and 12 MiB/s,
        throughput falling over the windows, run 3 without window 20"""
        m = {'%s_steady_MiBps' % fs: (10, 14, 12)[run - 1],
             '%s_steady_fsync_p99_us' % fs: 1000.0 * run,
             # 4 blocks erased 5 - run, 5, 5 and 5 + run times
             '%s_ec_min' % fs: 5 - run, '%s_ec_max' % fs: 5 + run,
             '%s_ec_sum' % fs: 20, '%s_ec_sumsq' % fs: 100 + 2 * run * run,
             '%s_ec_blocks' % fs: 4,
             '%s_unclean_ms' % fs: 20.0 + run}
        for r in (1, 2):
            m['%s_mount_ms_%d' % (fs, r)] = 10.0 * run + r
        for w in range(1, 21 if run < 3 else 20):
            m['%s_w%02d_MiBps' % (fs, w)] = 40.0 - w - run
            m['%s_w%02d_wa' % (fs, w)] = 1 + w / 10
        return m

    def report(self, fss=('sffs', 'ubifs', 'jffs2')):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        out = tmp.name
        for run in (1, 2, 3):
            for fs in fss:
                self.guest(out, '1024-%s-r%d' % (fs, run),
                           self.figures(fs, run), ok=(fs, run) != ('jffs2', 2))
        os.makedirs(os.path.join(out, 'aging', '16384-sffs-r1'))
        with open(os.path.join(out, 'aging', '16384-sffs-r1', 'skipped'),
                  'w') as f:
            f.write('needs 20224 MiB, more than the host had free\n')
        rc = ar.main(['aging-report.py', out, '3', '2', '6.1.0',
                      '1024 4096 16384', '5', '90', ' '.join(fss)],
                     echo=False)
        with open(os.path.join(out, 'aging.json')) as f:
            res = json.load(f)
        with open(os.path.join(out, 'aging.md')) as f:
            md = f.read()
        return rc, res, md, out

    def test_medians_and_spread_over_the_runs(self):
        _, res, md, _ = self.report()
        s = res['summary']['1024']['sffs']
        self.assertEqual(s['steady_MiBps'], [12, 10, 14])
        # latencies in the tables are in ms
        self.assertEqual(s['steady_fsync_p99_ms'], [2.0, 1.0, 3.0])
        self.assertIn('| 1024 MiB | 12.00 (10.00-14.00) |', md)

    def test_repeated_mounts_of_every_run_pooled(self):
        _, res, _, _ = self.report()
        v = res['cases']['1024']['fs']['ubifs']['mount_ms']
        self.assertEqual(sorted(v), [11, 12, 21, 22, 31, 32])
        self.assertEqual(res['summary']['1024']['ubifs']['mount_ms'],
                         [21.5, 11, 32])

    def test_wear_derived_per_run_before_the_median(self):
        _, res, _, _ = self.report()
        f = res['cases']['1024']['fs']['sffs']
        self.assertEqual(f['ec_mean'], [5, 5, 5])
        # standard deviations sqrt(2 / 4), sqrt(8 / 4), sqrt(18 / 4)
        for sd, want in zip(f['ec_sd'], (0.5 ** 0.5, 2 ** 0.5, 4.5 ** 0.5)):
            self.assertAlmostEqual(sd, want)
        self.assertEqual(f['ec_spread'], [2, 4, 6])
        self.assertAlmostEqual(f['ec_cv'][1], 2 ** 0.5 / 5)
        self.assertEqual(res['summary']['1024']['sffs']['ec_spread'],
                         [4, 2, 6])

    def test_windows_over_the_device_writes(self):
        _, res, md, _ = self.report()
        w = res['summary']['1024']['jffs2']['windows']['MiBps']
        self.assertEqual(len(w), 20)
        self.assertEqual(w[0], [0.25, 37.0, 36.0, 38.0])
        # the window only two runs reached: their median and spread
        self.assertEqual(w[19], [5.0, 18.5, 18.0, 19.0])
        self.assertIn('| 5.00 | 18.50 (18.00-19.00) |', md)

    def test_noisy_figure_marked(self):
        _, _, md, _ = self.report()
        # unclean mounts 21, 22, 23 are steady; the spread of the
        # erase counts, 2 to 6, is not
        self.assertIn('| 22.0 (21.0-23.0) |', md)
        self.assertIn('| ~4 (2-6) |', md)

    def test_failed_and_skipped_guests_reported(self):
        rc, res, md, _ = self.report()
        self.assertEqual(rc, 1)
        self.assertEqual(res['failed'], ['1024-jffs2-r2: aged'])
        self.assertIn('16384 MiB', res['skipped'])
        self.assertIn('Not run: 16384 MiB (each guest needs 20224 MiB',
                      md)
        self.assertIn('| 4096 MiB | - | - | - |', md)

    def test_plots_for_the_sizes_that_ran(self):
        _, _, _, out = self.report(fss=('sffs', 'ubifs'))
        gps = sorted(f for f in os.listdir(out) if f.endswith('.gp'))
        self.assertEqual(gps, ['aging-1024-tput.gp', 'aging-1024-wa.gp'])
        with open(os.path.join(out, 'aging-1024-wa.dat')) as f:
            blocks = f.read().split('\n\n\n')
        # one data block per file system, 20 windows each
        self.assertEqual(blocks[0].splitlines()[0], '# SFFS')
        self.assertEqual(len(blocks[0].splitlines()), 21)
        self.assertEqual(blocks[0].splitlines()[1], '0.25 1.1 1.1 1.1')


# Stand-ins for the Debian tools deps.sh calls.  apt-get logs each call and
# fails "update" as often as $FAIL_UPDATES says, counting in a file.
STUBS = {
    'apt-get': """#!/bin/sh
echo "apt-get $*" >> "$STUB_LOG"
case " $* " in
*" update "*)
	n=$(cat "$STUB_DIR/updates" 2>/dev/null || echo 0)
	echo $((n + 1)) > "$STUB_DIR/updates"
	[ "$n" -ge "$FAIL_UPDATES" ] || exit 100 ;;
*" download "*) : > busybox-static_1_armhf.deb ;;
esac
""",
    'dpkg-query': """#!/bin/sh
[ "$3" = gnuplot-nox ] || echo "install ok installed"
""",
    'dpkg': """#!/bin/sh
echo armhf
""",
    'dpkg-deb': """#!/bin/sh
mkdir -p "$3/bin"
printf '\\177ELF\\001\\001\\001' > "$3/bin/busybox"
chmod +x "$3/bin/busybox"
""",
    'sleep': """#!/bin/sh
echo "sleep $*" >> "$STUB_LOG"
""",
    'sudo': """#!/bin/sh
exec "$@"
""",
}


class Deps(unittest.TestCase):
    """CI once failed because apt-get update hit a mirror in mid-sync
    ("File has unexpected size ... Mirror sync in progress?")."""

    def run_deps(self, fail_updates):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        for name, text in STUBS.items():
            path = os.path.join(tmp.name, name)
            with open(path, 'w') as f:
                f.write(text)
            os.chmod(path, 0o755)
        log = os.path.join(tmp.name, 'log')
        env = dict(os.environ, PATH=tmp.name + ':' + os.environ['PATH'],
                   STUB_DIR=tmp.name, STUB_LOG=log,
                   FAIL_UPDATES=str(fail_updates))
        dl = os.path.join(tmp.name, 'dl')
        res = subprocess.run(['sh', os.path.join(HERE, 'deps.sh'), dl],
                             env=env, capture_output=True, text=True)
        with open(log) as f:
            calls = f.read().splitlines()
        self.assertTrue(os.path.exists(
            os.path.join(dl, 'busybox-armhf', 'bin', 'busybox')))
        # The last check wants the host's own /bin/busybox, which only a
        # real install provides.
        if os.path.exists('/bin/busybox'):
            self.assertEqual(res.returncode, 0, res.stderr)
        else:
            self.assertIn('/bin/busybox missing', res.stderr)
        return calls, res.stderr

    def test_update_retried_after_a_mirror_sync(self):
        calls, err = self.run_deps(1)
        self.assertEqual([c for c in calls if 'update' in c],
                         ['apt-get update -qq'] * 2)
        self.assertIn('sleep 15', calls)
        self.assertNotIn('still failing', err)
        self.assertTrue(any(c.startswith('apt-get install') and
                            'Acquire::Retries=3' in c and
                            c.endswith(' gnuplot-nox') for c in calls))

    def test_goes_on_when_the_mirror_stays_broken(self):
        calls, err = self.run_deps(99)
        self.assertEqual(len([c for c in calls if 'update' in c]), 3)
        self.assertEqual([c for c in calls if c.startswith('sleep')],
                         ['sleep 15', 'sleep 45'])
        self.assertIn('still failing', err)
        self.assertTrue(any(c.startswith('apt-get download') for c in calls))
        self.assertTrue(any(c.startswith('apt-get install') for c in calls))


KUNIT_LOG = """\
[    0.1] KTAP version 1
[    0.1] 1..2
[    0.1]     KTAP version 1
[    0.1]     # Subtest: idle
[    0.1]     1..3
[    0.1]     ok 1 test_runs
[    0.1]     ok 2 test_idle # SKIP %s
[    0.1]     ok 3 test_more
[    0.1] ok 1 idle
[    0.1]     KTAP version 1
[    0.1]     # Subtest: opt
[    0.1]     1..1
[    0.1]     ok 1 test_opt # SKIP needs CONFIG_FOO
[    0.1] ok 2 opt # SKIP
"""


class KunitSkips(unittest.TestCase):
    """kunit.sh with a stand-in for kunit.py: a skip is reported as a skip,
    and only a skip for an option the kernel does not build is one."""

    def run_kunit(self, reason, run=True):
        """@run: kunit.py runs the kernel and writes its log into the build
        directory; else it fails at once, with an earlier run's log left
        there."""
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        tree, build = (os.path.join(tmp.name, d) for d in ('tree', 'build'))
        kdir = os.path.join(tree, 'tools', 'testing', 'kunit')
        os.makedirs(kdir)
        os.makedirs(build)
        log = os.path.join(tmp.name if run else build, 'test.log')
        with open(log, 'w') as f:
            f.write(KUNIT_LOG % reason)
        with open(os.path.join(kdir, 'kunit.py'), 'w') as f:
            if run:
                f.write('import shutil\nshutil.copy("%s", "%s")\n'
                        'print("[00:00:01] Testing complete. Ran 4 tests: '
                        'passed: 2, skipped: 2")\n'
                        % (log, os.path.join(build, 'test.log')))
            else:
                f.write('raise SystemExit("no such kunitconfig")\n')
        result = os.path.join(tmp.name, 'result')
        res = subprocess.run(['bash', os.path.join(HERE, 'kunit.sh'), tree,
                              build, result], capture_output=True, text=True)
        with open(result) as f:
            return res.returncode, f.read().strip(), res.stdout

    def test_skip_for_an_option_not_built_is_a_skip(self):
        rc, line, out = self.run_kunit('needs CONFIG_BAR')
        self.assertEqual((rc, line), (0, 'kunit: 2 passed, 0 failed, '
                                         '2 skipped'))
        self.assertIn('kunit: skipped idle: test_idle # SKIP needs '
                      'CONFIG_BAR', out)
        self.assertIn('kunit: skipped opt: test_opt # SKIP needs '
                      'CONFIG_FOO', out)

    def test_log_of_an_earlier_run_is_not_read(self):
        rc, line, out = self.run_kunit('no idle period seen', run=False)
        self.assertEqual((rc, line), (1, 'kunit: 0 passed, 1 failed, '
                                         '0 skipped'))
        self.assertNotIn('SKIP', out)

    def test_skip_where_the_test_should_run_fails(self):
        rc, line, out = self.run_kunit('no idle period seen')
        self.assertEqual((rc, line), (1, 'kunit: 2 passed, 1 failed, '
                                         '1 skipped'))
        self.assertIn('counted as failed: idle: test_idle # SKIP no idle '
                      'period seen', out)


class TestAll(unittest.TestCase):
    """test-all.sh with a stand-in for make: skips are summed apart and
    the last line stays "N passed, N failed"."""

    def test_skips_summed_apart(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        results = os.path.join(tmp.name, 'out', 'results')
        make = os.path.join(tmp.name, 'make')
        with open(make, 'w') as f:
            f.write('#!/bin/bash\nshift\nname=${1}${2:+-${2#ARCH=}}\n'
                    '[ "$name" = tree ] && exit 0\n'
                    'case $name in\n'
                    'kunit) echo "kunit: 5 passed, 0 failed, 2 skipped" ;;\n'
                    'qemu-test-arm) echo "x: 3 passed, 1 failed, 1 skipped"'
                    '; r=1 ;;\n'
                    '*) echo "$name: 1 passed, 0 failed" ;;\n'
                    'esac > "%s/$name"\nexit ${r:-0}\n' % results)
        os.chmod(make, 0o755)
        res = subprocess.run(['bash', os.path.join(HERE, 'test-all.sh'),
                              make, results], capture_output=True, text=True)
        out = res.stdout.splitlines()
        self.assertEqual(res.returncode, 1)
        # 5 + 3 and one for each of the 13 other steps
        self.assertEqual(out[-1], '21 passed, 1 failed')
        self.assertIn('=== skipped: 3 (neither passed nor failed)', out)
        self.assertIn('    kunit: 5 passed, 0 failed, 2 skipped', [
            x.split(' (')[0] for x in out])


    def test_failed_case_log_recapped(self):
        """The recap at the end, all that CI shows, holds what a failed
        KUnit case logged: what it measured and what it expected."""
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        results = os.path.join(tmp.name, 'out', 'results')
        make = os.path.join(tmp.name, 'make')
        log = ('[07:09:22]     # t_ok: logged by a case that passed\n'
               '[07:09:22] [PASSED] t_ok\n'
               '[07:09:27]     # t_bad: measured 1160 per 1000\n'
               '[07:09:27]     # t_bad: more of what it measured\n'
               '[07:09:27]     # t_bad: and more\n'
               '[07:09:27]     # t_bad: EXPECTATION FAILED at t.c:9\n'
               '[07:09:27]     Expected a <= b, but\n'
               '[07:09:27]         a == 1160\n'
               '[07:09:27] [FAILED] t_bad\n')
        with open(make, 'w') as f:
            f.write('#!/bin/bash\nshift\nname=${1}${2:+-${2#ARCH=}}\n'
                    '[ "$name" = tree ] && exit 0\n'
                    'if [ $name = kunit ]; then printf "%s"; '
                    'echo "kunit: 5 passed, 1 failed" > "%s/$name"; '
                    'exit 1; fi\n'
                    'echo "$name: 1 passed, 0 failed" > "%s/$name"\n'
                    % (log, results, results))
        os.chmod(make, 0o755)
        res = subprocess.run(['bash', os.path.join(HERE, 'test-all.sh'),
                              make, results], capture_output=True, text=True)
        out = res.stdout.splitlines()
        self.assertEqual(res.returncode, 1)
        recap = out[out.index('=== failed:'):]
        self.assertIn('          # t_bad: measured 1160 per 1000', recap)
        self.assertIn('          Expected a <= b, but', recap)
        self.assertIn('          a == 1160', recap)
        self.assertNotIn('          # t_bad: and more', recap)
        self.assertNotIn('          # t_ok: logged by a case that passed',
                         recap)


class ReadmeStatus(unittest.TestCase):
    """README.md's status table is what readme-status.py copies from the
    benchmark tables in Documentation/, and no figure is typed around it"""

    def readme(self):
        with open(os.path.join(TOP, 'README.md')) as f:
            return f.read()

    def test_table_is_generated(self):
        lines = self.readme().split('\n')
        table = lines[lines.index(rs.START) + 1:lines.index(rs.END)]
        self.maxDiff = None
        self.assertEqual(table, rs.status(TOP), 'README.md\'s status table differs from '
                         'what harness/readme-status.py makes of '
                         'Documentation/: run "make figures"')

    def test_no_typed_figure(self):
        text = self.readme()
        status = text[text.index('\n## Status\n'):]
        nxt = status.find('\n## ', 1)
        status = status[:nxt] if nxt > 0 else status
        # the generated table is checked above; around it, prose only
        prose = status[:status.index(rs.START)] + \
            status[status.index(rs.END):]
        typed = re.findall(r'\d+\.\d+|\d+(?:\.\d+)?\s*%|\d+ times', prose)
        self.assertEqual(typed, [], 'figures typed into README\'s status '
                         'section; they belong in the generated table')

    def fake(self, rst):
        top = tempfile.mkdtemp()
        d = os.path.join(top, 'Documentation', 'timers')
        os.makedirs(d)
        with open(os.path.join(d, 'wakeup-reduce.rst'), 'w') as f:
            f.write(rst)
        return top

    # the rows as idle-report.py writes them, in a table made by the
    # rst.py that idle-rst.py uses
    HEAD = ['arch', 'config', 'RNG', 'stock NO_HZ_IDLE', 'series',
            'target', 'series met']
    ROWS = [['x86_64', 'tiny', 'none', '7.11 (7.00 / 7.22)', '0.01',
             '0.2', 'yes'],
            ['x86_64', 'tiny', 'virtio-rng', '6.11', '0.09', '0.2', 'yes'],
            ['x86_64', 'realistic', 'none', '7.33', '0.03', '0.5',
             'no, CPU1'],
            ['x86_64', 'realistic', 'virtio-rng', '6.33', '0.6', '0.5',
             'no'],
            ['arm', 'tiny', 'none', '7.44', '0.04', '0.2', 'yes'],
            ['arm', 'tiny', 'virtio-rng', '6.44', '0.14', '0.2', 'yes'],
            ['arm', 'realistic', 'none', '7.55', '0.05', '0.5', 'yes'],
            ['arm', 'realistic', 'virtio-rng', '6.55', '0.15', '0.5',
             'yes']]

    def idle_rst(self, head):
        import rst
        title = 'Interrupts per CPU per second'
        return '\n'.join(['.. idle-rst.py: start', '', title,
                          '-' * len(title), ''] +
                         rst.table([head] + self.ROWS) +
                         ['', '.. idle-rst.py: end', ''])

    def idle_row(self, top):
        return next(l for l in rs.status(top) if 'NO_HZ_IDLE' in l)

    def test_cells_copied(self):
        top = self.fake(self.idle_rst(self.HEAD))
        row = self.idle_row(top)
        self.assertIn('x86_64 tiny 7.11 → 0.01, with virtio-rng 6.11 → 0.09 '
                      '(target 0.2: yes; with virtio-rng: yes)', row)
        self.assertIn('x86_64 realistic 7.33 → 0.03, with virtio-rng 6.33 → '
                      '0.6 (target 0.5: no, CPU1; with virtio-rng: no)', row)
        self.assertIn('arm realistic 7.55 → 0.05, with virtio-rng 6.55 → '
                      '0.15', row)
        for line in rs.status(top)[2:]:
            if 'NO_HZ_IDLE' not in line:
                self.assertIn('not measured yet (`make bench-', line)

    def test_not_measured(self):
        top = self.fake('.. idle-rst.py: start\n\n.. idle-rst.py: end\n')
        self.assertIn('| not measured yet (`make bench-idle`) |',
                      self.idle_row(top))

    def test_missing_markers_fail(self):
        # a document without its region's markers is no "not measured"
        for rst, which in (('Interrupts\n----------\n', 'start'),
                           ('.. idle-rst.py: start\n\n', 'end')):
            with self.assertRaisesRegex(SystemExit,
                                        'the %s of the idle region' % which):
                rs.status(self.fake(rst))

    def test_missing_table_fails(self):
        # tables there, but not the column a figure is copied from
        top = self.fake(self.idle_rst(self.HEAD[:-1] + ['met']))
        with self.assertRaises(SystemExit):
            rs.status(top)

    def test_slab_chain(self):
        """made-up guests' figures through slab-report.py (JSON and
        Markdown), slab-rst.py (the document) to the README row"""
        top = tempfile.mkdtemp()
        out = os.path.join(top, 'out')
        avail = {'slab': 30000, 'slub': 29000, 'small': 29500,
                 'slob': 30500, 'seg': 30600}
        ns = {'slab': 500, 'slub': 600, 'small': 700, 'slob': 9000,
              'seg': 1000}
        for arch in ('x86_64', 'arm'):
            for a in avail:
                for r in range(1, 8):
                    d = os.path.join(out, '%s-%s' % (arch, a), str(r))
                    os.makedirs(d)
                    # SLOB_SEG +100 kB over SLUB small... +10 in round 7,
                    # and 9 to 10.2 times faster than SLOB
                    metrics = {'boot_MemAvailable': avail[a] + (
                                   r * 10 if a == 'seg' else 0) + (
                                   1000 if a == 'small' else 0),
                               'boot_Slab': 2000,
                               'ops_2cpu_ns': ns[a] - (r * 20 if a == 'seg'
                                                       else 0)}
                    with open(os.path.join(d, 'result.json'), 'w') as f:
                        json.dump({'ok': True, 'metrics': {
                            k: {'value': v} for k, v in metrics.items()}}, f)
        # a failed boot counts as no boot, not as a figure
        with open(os.path.join(out, 'arm-slob', '3', 'result.json'),
                  'w') as f:
            json.dump({'ok': False, 'metrics': {
                'boot_MemAvailable': {'value': 1}}}, f)
        subprocess.run([sys.executable,
                        os.path.join(HERE, 'bench', 'slab-report.py'), out,
                        'x86_64 arm', 'slab slub small slob seg'],
                       check=True, capture_output=True)
        with open(os.path.join(out, 'slab.json')) as f:
            res = json.load(f)
        self.assertEqual(res['runs']['arm']['slob']['failed'], [3])
        self.assertEqual(len(res['runs']['arm']['slob']['boots']), 6)
        doc = os.path.join(top, 'Documentation', 'mm')
        os.makedirs(doc)
        rst = os.path.join(doc, 'slob-seg.rst')
        with open(rst, 'w') as f:
            f.write('Figures\n=======\n\n.. slab-rst.py: start\n\n'
                    'placeholder\n\n.. slab-rst.py: end\n\nafter\n')
        row = next(l for l in rs.status(top) if 'SLOB_SEG slab' in l)
        self.assertIn('not measured yet (`make bench-slab`)', row)
        subprocess.run([sys.executable,
                        os.path.join(HERE, 'bench', 'slab-rst.py'),
                        os.path.join(out, 'slab.md'), rst], check=True)
        with open(rst) as f:
            text = f.read()
        self.assertNotIn('placeholder', text)
        self.assertTrue(text.endswith('.. slab-rst.py: end\n\nafter\n'))
        row = next(l for l in rs.status(top) if 'SLOB_SEG slab' in l)
        # per round SLOB_SEG minus SLUB small: 30610..30670 - 30500, an
        # interval of [+110, +170] (7 rounds: the smallest and largest);
        # SLOB / SLOB_SEG 9000 / 980..860: 9.18 .. 10.47, median 9.78
        self.assertIn('boot_MemAvailable, SLOB_SEG minus SLUB small '
                      '(target >= 0 kB): x86_64 +140 [+110, +170] (met)',
                      row)
        self.assertIn('alloc+free on 2 CPUs, SLOB / SLOB_SEG (target >= 5):'
                      ' x86_64 9.78 [9.18, 10.47] (met), arm', row)


def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(res.failures) + len(res.errors)
    line = 'harness: %d passed, %d failed' % (res.testsRun - failed, failed)
    print(line)
    if len(sys.argv) > 1:
        with open(sys.argv[1], 'w') as f:
            f.write(line + '\n')
    return 1 if failed or not res.testsRun else 0


if __name__ == '__main__':
    sys.exit(main())
