#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Records and summary of the real power cuts (harness/stress-cuts.sh).

    cuts-report.py record RECORDS WORKDIR N MODE DELAY FSCK_RC FSCK_TXT
    cuts-report.py summary RECORDS SUMMARY_JSON GEOMETRY ARCH SEED KILL_MAX SECONDS

"record" reads boot N's qemu-run result and console and fsck.sffs's report
on the image its cut left, appends one JSON line to RECORDS and prints
what the driver acts on: "line TEXT" (the progress line), "keep-check K"
(this boot's checks found cut K's damage: keep the image from before the
boot), "keep-cut N" (this boot's own cut failed: kept as it is) and
"reformat" (no usable file system is left to go on with).

Boot N checks what cut N-1 left (boot 1 a new file system), and is cut
itself unless MODE is "check".  Kernel problem lines before the guest's
"# WORKING" line belong to the check, after it to the boot's own cut.

"summary" counts the records of one geometry into its entry of
SUMMARY_JSON (other geometries' entries are kept) and prints
"stress-cuts: N passed, N failed" for this one.
"""

import fcntl
import importlib.machinery
import importlib.util
import json
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load_qemu_run():
    path = os.path.join(HERE, '..', 'qemu-run')
    loader = importlib.machinery.SourceFileLoader('qemu_run', path)
    spec = importlib.util.spec_from_loader('qemu_run', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


# gc_ahead_runs: not printed by kernels before collection ran ahead of
# the end of the journal list
GC_RE = re.compile(r'^# GC gc_runs=(?P<gc_runs>\d+) gc_blocks=(?P<gc_blocks>\d+)'
                   r' gc_more_rounds=(?P<gc_more_rounds>\d+)'
                   r'( gc_ahead_runs=(?P<gc_ahead_runs>\d+))?'
                   r' gc_moved_bytes=(?P<gc_moved_bytes>\d+)$')


def parse_console(path, problem_re, ts_re):
    """The CHECK counts, the losses, the last operation started, the last
    garbage-collection counters and the kernel problems before and after
    "# WORKING"."""
    check, notes, last_op, gc = None, [], None, {}
    full = 0
    problems = {'check': [], 'work': []}
    phase = 'check'
    try:
        with open(path, errors='replace') as f:
            text = f.read()
    except OSError:
        text = ''
    lines = text.splitlines()[1:]     # [0] is the command
    # a last line the cut ended before its newline may hold any prefix of
    # what the guest printed: no counters from it
    whole = len(lines) - (0 if text.endswith('\n') else 1)
    for n, raw in enumerate(lines):
        line = ts_re.sub('', raw)
        if problem_re.search(line):
            problems[phase].append(line)
        if line.startswith('# CHECK '):
            check = dict(kv.split('=', 1) for kv in line[8:].split()
                         if '=' in kv)
            for k in ('files', 'lost', 'gen', 'log_damage', 'partial',
                      'boot'):
                if k in check:
                    check[k] = int(check[k])
        elif line.startswith(('# LOST ', '# config ', '# log line ',
                              'not ok ', 'Bail out!')):
            notes.append(line)
        elif line == '# WORKING':
            phase = 'work'
        elif phase == 'work' and re.match(r'^# \d+ FULL ', line):
            full += 1
        elif phase == 'work' and re.match(r'^# \d+ write of .* failed ',
                                          line):
            notes.append(line)
        elif phase == 'work' and re.match(r'^# \d+ ', line):
            last_op = line[2:]
        elif phase == 'work' and n < whole and GC_RE.match(line):
            gc = {k: int(v) for k, v in GC_RE.match(line).groupdict().items()
                  if v is not None}
    return check, notes, last_op, gc, full, problems, phase == 'work'


def parse_fsck(path, rc):
    if rc == '-':
        return None
    res = {'rc': int(rc), 'errors': None, 'warnings': None,
           'journal_nodes': None, 'messages': []}
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'^(errors|warnings): (\d+)$', line)
            if m:
                res[m.group(1)] = int(m.group(2))
            m = re.match(r'^journal: (\d+) nodes', line)
            if m:
                res['journal_nodes'] = int(m.group(1))
            if line.startswith(('error:', 'warning:')) and \
               len(res['messages']) < 20:
                res['messages'].append(line)
    return res


def check_failures(check):
    """Why a boot's checks condemn the cut before it, or []."""
    if check is None:
        return ['no checks (the guest never got to them)']
    why = []
    if check.get('mount') != 'ok':
        why.append('mount failed')
        return why
    if check['lost']:
        why.append("%d fsync'd files lost" % check['lost'])
    if check['config'] != 'ok':
        why.append('config %s' % check['config'])
    if check['log_damage']:
        why.append('log damaged (%d)' % check['log_damage'])
    return why


def record(args):
    records, wd, n, mode, delay, fsck_rc, fsck_txt = args
    n = int(n)
    qr = load_qemu_run()
    try:
        with open(os.path.join(wd, 'result.json')) as f:
            res = json.load(f)
    except (OSError, ValueError):
        res = {'harness_failures': ['qemu-run left no result.json'],
               'killed_s': None, 'wall_s': None, 'guest_up_s': None,
               'timed_out': False}
    check, notes, last_op, gc, full, problems, working = parse_console(
        os.path.join(wd, 'console.log'), qr.PROBLEM_RE, qr.TIMESTAMP_RE)
    fsck = parse_fsck(fsck_txt, fsck_rc)
    killed = res.get('killed_s')
    failures = [f for f in res.get('harness_failures', [])
                if not f.startswith('%d kernel problem' %
                                    len(res.get('problems', [])))]
    rec = {'boot': n, 'mode': mode, 'delay_s': float(delay),
           'killed_s': killed, 'wall_s': res.get('wall_s'),
           'guest_up_s': res.get('guest_up_s'),
           'working_s': (round(killed - float(delay), 3)
                         if killed is not None else None),
           'timed_out': res.get('timed_out'), 'check': check,
           'metrics': {k: v['value']
                       for k, v in res.get('metrics', {}).items()},
           'notes': notes[:40], 'last_op': last_op, 'gc': gc,
           'full_writes': full,
           'problems_check': problems['check'][:10],
           'problems_work': problems['work'][:10],
           'harness_failures': failures, 'fsck': fsck}
    # what condemns the previous cut (and, for the last boot, all of it)
    prev = check_failures(check)
    if problems['check']:
        prev.append('kernel problems at mount/check: %s'
                    % problems['check'][0])
    if mode == 'check' or not working:
        prev += failures
    # what condemns this boot's own cut
    own = []
    if mode == 'work':
        if working and killed is None:
            own.append('stopped working before the cut: %s'
                       % '; '.join(failures or ['?']))
        if problems['work']:
            own.append('kernel problems while working: %s'
                       % problems['work'][0])
        if fsck['rc'] != 0:
            own.append('fsck.sffs exit %d, %s errors: %s'
                       % (fsck['rc'], fsck['errors'],
                          '; '.join(fsck['messages'][:3])))
    rec['prev_cut_failures'] = prev
    rec['own_failures'] = own
    with open(records, 'a') as f:
        f.write(json.dumps(rec) + '\n')

    if check and check.get('mount') == 'ok':
        seen = ('%d files, %d lost, config %s (gen %d), log %s'
                % (check['files'], check['lost'], check['config'],
                   check['gen'], 'ok' if not check['log_damage']
                   else 'damaged'))
    else:
        seen = 'no mount' if check else 'no check'
    text = 'boot %d: checked cut %d: %s' % (n, n - 1, seen)
    if mode == 'work':
        text += '; cut %.2f s into the work' % float(delay) \
            if killed is not None else '; not cut'
        text += (' (last done: %s)' % re.sub(r'\b([0-9a-f]{8})[0-9a-f]{56}\b',
                                             r'\1..', last_op)
                 if last_op else '')
        text += '; fsck %s' % ('ok' if fsck['rc'] == 0 else
                               'exit %d' % fsck['rc'])
        if fsck['warnings']:
            text += ' (%d warnings)' % fsck['warnings']
    print('line ' + text)
    for why in prev:
        print('line    FAIL cut %d: %s' % (n - 1, why))
    for why in own:
        print('line    FAIL cut %d: %s' % (n, why))
    if prev:
        print('keep-check %d' % (n - 1))
    if own:
        print('keep-cut %d' % n)
    if check is None or check.get('mount') != 'ok':
        print('reformat')


def median(recs, metric):
    vals = [r['metrics'][metric] for r in recs
            if metric in r.get('metrics', {})]
    return round(statistics.median(vals), 3) if vals else None


def last_metric(recs, metric):
    """the last mount's figure that is not 0: SFFS reports 0 for the erase
    counts after a mount until garbage collection scans its table"""
    vals = [r['metrics'][metric] for r in recs
            if r.get('metrics', {}).get(metric)]
    return vals[-1] if vals else 0


def summary(args):
    records, path, geom, arch, seed, kill_max, secs = args
    with open(records) as f:
        recs = [json.loads(line) for line in f]
    work = [r for r in recs if r['mode'] == 'work']
    checks = [r['check'] for r in recs if r['check'] and r['boot'] > 1]
    failed_cuts = {}
    for r in recs:
        for why in r['prev_cut_failures']:
            failed_cuts.setdefault(r['boot'] - 1, []).append(why)
        for why in r['own_failures']:
            failed_cuts.setdefault(r['boot'], []).append(why)
    cuts = len(work)
    fsck = [r['fsck'] for r in work]
    s = {
        'geometry': geom, 'arch': arch, 'seed': int(seed),
        'kill_max_s': float(kill_max),
        'finished': time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime()),
        'cuts': cuts,
        'cuts_while_working': sum(1 for r in work
                                  if r['killed_s'] is not None),
        'boots': len(recs),
        'failed_mounts': sum(1 for r in recs if r['check'] and
                             r['check'].get('mount') != 'ok'),
        'boots_without_checks': sum(1 for r in recs if not r['check']),
        'lost_fsyncd_files': sum(c.get('lost', 0) for c in checks),
        'torn_configs': sum(1 for c in checks if c.get('config') == 'torn'),
        'missing_configs': sum(1 for c in checks
                               if c.get('config') == 'missing'),
        'old_configs': sum(1 for c in checks if c.get('config') == 'old'),
        'damaged_logs': sum(1 for c in checks if c.get('log_damage')),
        'partial_log_lines': sum(1 for c in checks if c.get('partial')),
        'fsck_failed': sum(1 for x in fsck if x['rc'] != 0),
        'fsck_errors': sum(x['errors'] or 0 for x in fsck),
        'fsck_warnings': sum(x['warnings'] or 0 for x in fsck),
        'cuts_with_journal_to_replay': sum(1 for x in fsck
                                           if x['journal_nodes']),
        'kernel_problem_boots': sum(1 for r in recs if r['problems_check']
                                    or r['problems_work']),
        'work_errors': sum(1 for r in work if r['killed_s'] is None and
                           any(w.startswith('stopped working')
                               for w in r['own_failures'])),
        'files_checked': sum(c.get('files', 0) for c in checks),
        'seconds': int(secs),
        'seconds_per_cut': round(int(secs) / max(cuts, 1), 1),
        'median_mount_s': median(recs, 'mount_s'),
        'median_check_s': median(recs, 'check_s'),
        'median_rng_wait_s': median(recs, 'rng_wait_s'),
        'median_boot_to_work_s': (
            round(statistics.median(r['working_s'] for r in work
                                    if r['working_s'] is not None), 3)
            if any(r['working_s'] is not None for r in work) else None),
        # kept on the flash: what the whole run made it erase (the last
        # mount's figures)
        'erase_count_avg': last_metric(recs, 'erase_count_avg'),
        'erase_count_max': last_metric(recs, 'erase_count_max'),
        # how full statfs said the flash was at each mount
        'median_used_pct': median(recs, 'used_pct'),
        'max_used_pct': max((r['metrics']['used_pct'] for r in recs
                             if 'used_pct' in r.get('metrics', {})),
                            default=None),
        # garbage collection the boots did, as last printed before
        # each cut (the counters start again at each mount)
        'gc_runs': sum(r.get('gc', {}).get('gc_runs', 0) for r in work),
        'gc_blocks': sum(r.get('gc', {}).get('gc_blocks', 0) for r in work),
        'gc_more_rounds': sum(r.get('gc', {}).get('gc_more_rounds', 0)
                              for r in work),
        'gc_ahead_runs': sum(r.get('gc', {}).get('gc_ahead_runs', 0)
                             for r in work),
        'gc_moved_bytes': sum(r.get('gc', {}).get('gc_moved_bytes', 0)
                              for r in work),
        # writes refused while statfs offered less than the file and 1 MiB
        'full_writes': sum(r.get('full_writes', 0) for r in work),
        'failed_cuts': {str(k): v for k, v in sorted(failed_cuts.items())},
    }
    s['failed'] = len(failed_cuts)
    s['passed'] = cuts - len([k for k in failed_cuts if 1 <= k <= cuts])
    # make stress runs two geometries at once: each adds its entry under
    # a lock, and replaces the file whole, so that neither loses the other's
    with open(path + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(path) as f:
                allsum = json.load(f)
        except (OSError, ValueError):
            allsum = {}
        allsum[geom] = s
        with open(path + '.new', 'w') as f:
            json.dump(allsum, f, indent=1)
        os.replace(path + '.new', path)
    for k in ('cuts', 'failed_mounts', 'lost_fsyncd_files', 'torn_configs',
              'missing_configs', 'old_configs', 'damaged_logs',
              'fsck_failed', 'fsck_warnings', 'kernel_problem_boots',
              'work_errors', 'files_checked', 'cuts_with_journal_to_replay',
              'seconds_per_cut', 'median_boot_to_work_s', 'median_mount_s',
              'median_check_s', 'median_rng_wait_s', 'erase_count_avg',
              'erase_count_max', 'median_used_pct', 'max_used_pct',
              'gc_runs', 'gc_blocks', 'gc_more_rounds', 'gc_ahead_runs',
              'gc_moved_bytes',
              'full_writes'):
        print('stress-cuts: %s %s: %s' % (geom, k, s[k]))
    print('stress-cuts: %d passed, %d failed' % (s['passed'], s['failed']))
    return 1 if s['failed'] else 0


def main():
    if len(sys.argv) == 9 and sys.argv[1] == 'record':
        return record(sys.argv[2:]) or 0
    if len(sys.argv) == 9 and sys.argv[1] == 'summary':
        return summary(sys.argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
