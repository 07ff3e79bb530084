#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn this repository into a git-am-able patch series on a 6.1 base tree.

The repository keeps the series the way vendors carry one: new files at
their in-tree paths (fs/, mm/, tools/, ...), changes to upstream files as
small patches in patches/, MAINTAINERS entries in MAINTAINERS.fragment, and
series.manifest saying which of those make up each commit.  A patch may also
extend a file an earlier commit of the series added (a layered series grows
its Makefile commit by commit): that commit then adds the file as the later
patches, undone, leave it.

  series.py check                  validate the manifest against the tree
  series.py apply TREE             (re)build branch 'series' on tag 'base'
  series.py export TREE OUTDIR     git format-patch base..series

'apply' builds the commits in a private index with git plumbing and then
moves the work tree to the result with 'git read-tree -m -u', which rewrites
only the files that differ.  Unchanged files keep their timestamps, so an
incremental kernel build after editing one file recompiles only what that
file touches.  Commit dates are fixed, so an unchanged series gives the
same commit ids.
"""

import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(TOP, 'series.manifest')
PATCHDIR = os.path.join(TOP, 'patches')
FRAGMENT = os.path.join(TOP, 'MAINTAINERS.fragment')

# Top-level directories of a kernel tree: a file below one of these in this
# repository is part of the series and must be named by the manifest.
KERNEL_DIRS = {
    'Documentation', 'LICENSES', 'arch', 'block', 'certs', 'crypto',
    'drivers', 'fs', 'include', 'init', 'io_uring', 'ipc', 'kernel', 'lib',
    'mm', 'net', 'rust', 'samples', 'scripts', 'security', 'sound', 'tools',
    'usr', 'virt',
}

COMMIT_DATE = '2026-01-01T00:00:00+0000'


class SeriesError(Exception):
    pass


def die(msg):
    print('series: ' + msg, file=sys.stderr)
    sys.exit(1)


def git(args, cwd, env=None, data=None):
    res = subprocess.run(['git'] + args, cwd=cwd, env=env, input=data,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if res.returncode:
        raise SeriesError('git %s: %s' % (' '.join(args),
                                           res.stderr.decode().strip()))
    return res.stdout


def parse_manifest(path=MANIFEST):
    """Return (header dict, [commit dict]) from series.manifest.

    Blocks are separated by lines holding only '---'.  A block is
    'Field: value' lines, a blank line and the commit message body.  The
    first block without a Subject is the header (Author).  A field line
    starting with white space continues the field above.  Lines starting
    with '#' before the fields are comments.
    """
    with open(path) as f:
        text = f.read()
    blocks, cur = [], []
    for line in text.splitlines():
        if line.strip() == '---':
            blocks.append(cur)
            cur = []
        else:
            cur.append(line)
    blocks.append(cur)

    header, commits = {}, []
    for lines in blocks:
        while lines and (not lines[0].strip() or lines[0].startswith('#')):
            lines.pop(0)
        if not lines:
            continue
        fields, i, key = {}, 0, None
        while i < len(lines) and lines[i].strip():
            if lines[i][0] in ' \t' and key:
                # continuation of the previous field, as in mail headers
                fields[key] += ' ' + lines[i].strip()
                i += 1
                continue
            key, sep, val = lines[i].partition(':')
            if not sep:
                raise SeriesError('manifest: bad field line: %r' % lines[i])
            key = key.strip().lower()
            fields[key] = val.strip()
            i += 1
        body = '\n'.join(lines[i:]).strip()
        if 'subject' not in fields:
            header.update(fields)
            continue
        commit = {
            'subject': fields['subject'],
            'files': fields.get('files', '').split(),
            'patches': fields.get('patches', '').split(),
            'maintainers': [t.strip() for t in
                            fields.get('maintainers', '').split(',')
                            if t.strip()],
            'body': body,
        }
        if not body:
            raise SeriesError('manifest: commit "%s" has no message body'
                              % commit['subject'])
        if len(commit['subject']) > 75:
            raise SeriesError('manifest: subject longer than 75 chars: %s'
                              % commit['subject'])
        # what checkpatch's COMMIT_LOG_LONG_LINE asks, found before a build
        for line in body.splitlines():
            if len(line) > 75:
                raise SeriesError('manifest: line of "%s" longer than 75 '
                                  'chars: %s' % (commit['subject'], line))
        commits.append(commit)
    if 'author' not in header:
        raise SeriesError('manifest: no Author in the header block')
    return header, commits


def parse_fragment(path=FRAGMENT):
    """Return {title: entry text} of the MAINTAINERS fragment."""
    entries = {}
    if not os.path.exists(path):
        return entries
    with open(path) as f:
        text = f.read()
    for block in text.split('\n\n'):
        lines = [ln for ln in block.strip('\n').splitlines()
                 if not ln.startswith('#')]
        if not lines:
            continue
        entries[lines[0]] = '\n'.join(lines) + '\n'
    return entries


def repo_files():
    """Series content files in the repository (tracked or new, not ignored)."""
    out = git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
              TOP)
    files = []
    for name in out.decode().split('\0'):
        if not name or not os.path.isfile(os.path.join(TOP, name)):
            continue
        if name.split('/', 1)[0] in KERNEL_DIRS:
            files.append(name)
    return sorted(files)


def patch_order():
    path = os.path.join(PATCHDIR, 'series')
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [ln.split('#')[0].strip() for ln in f
                if ln.split('#')[0].strip()]


def assign(commits):
    """Map every content file to the commit that adds it; check coverage."""
    files = repo_files()
    owner = {}
    for idx, c in enumerate(commits):
        c['paths'] = []
        for spec in c['files']:
            if spec.endswith('/'):
                hits = [f for f in files if f.startswith(spec)]
            else:
                hits = [f for f in files if f == spec]
            if not hits:
                raise SeriesError('manifest: "%s" (in "%s") matches no file'
                                  % (spec, c['subject']))
            for f in hits:
                if f in owner and owner[f] != idx:
                    raise SeriesError('%s is claimed by two commits' % f)
                owner[f] = idx
                c['paths'].append(f)
    orphans = [f for f in files if f not in owner]
    if orphans:
        raise SeriesError('files not in any commit of series.manifest:\n  '
                          + '\n  '.join(orphans))

    listed = [p for c in commits for p in c['patches']]
    order = patch_order()
    if listed != order:
        raise SeriesError('patches/series and series.manifest disagree:\n'
                          '  patches/series: %s\n  manifest:       %s'
                          % (' '.join(order), ' '.join(listed)))
    for p in order:
        if not os.path.isfile(os.path.join(PATCHDIR, p)):
            raise SeriesError('patches/series names missing %s' % p)
    on_disk = {p for p in os.listdir(PATCHDIR) if p.endswith('.patch')} \
        if os.path.isdir(PATCHDIR) else set()
    if on_disk - set(order):
        raise SeriesError('patches not in patches/series: %s'
                          % ' '.join(sorted(on_disk - set(order))))

    frag = parse_fragment()
    used = [t for c in commits for t in c['maintainers']]
    for t in used:
        if t not in frag:
            raise SeriesError('no MAINTAINERS.fragment entry titled "%s"' % t)
    if sorted(used) != sorted(frag):
        raise SeriesError('MAINTAINERS.fragment entries not used exactly '
                          'once: %s' % ', '.join(sorted(set(frag) ^ set(used))))
    check_coverage(commits, frag)
    return frag


def patch_paths(patch):
    """The paths a patch changes (its '+++ b/' lines)."""
    paths = []
    with open(os.path.join(PATCHDIR, patch)) as f:
        for line in f:
            if line.startswith('+++ b/'):
                paths.append(line[6:].rstrip('\n').split('\t')[0])
    return paths


def staged_contents(commits):
    """First contents of the series' own files that later patches change.

    A layered series adds a file such as fs/sffs/Makefile in one commit and
    lets each later commit extend it with a patch, as git am would.  The
    repository keeps the file as it ends up; its first content is what the
    patches of later commits, undone last first, leave of it.  Return
    {path: bytes} for those files, after checking that the patches, applied
    forward, give the repository's file back.
    """
    owner = {p: i for i, c in enumerate(commits) for p in c['paths']}
    touching = {}
    for i, c in enumerate(commits):
        for patch in c['patches']:
            for path in patch_paths(patch):
                if path not in owner:
                    continue
                if owner[path] >= i:
                    raise SeriesError('%s changes %s, which a later commit '
                                      'adds' % (patch, path))
                touching.setdefault(path, []).append(patch)
    staged = {}
    with tempfile.TemporaryDirectory() as tmp:
        # git apply in a directory of a work tree would apply to that
        # tree's paths, or skip: keep it from finding one above tmp
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(tmp))
        for path, patches in touching.items():
            dst = os.path.join(tmp, path)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(os.path.join(TOP, path), 'rb') as f:
                final = f.read()
            with open(dst, 'wb') as f:
                f.write(final)
            for direction, order in (('-R', reversed(patches)),
                                     (None, patches)):
                for patch in order:
                    args = ['apply', '--include=' + path]
                    if direction:
                        args.append(direction)
                    try:
                        git(args + [os.path.join(PATCHDIR, patch)], tmp,
                            env)
                    except SeriesError as e:
                        raise SeriesError('%s does not %s on %s: %s'
                                          % (patch, 'undo' if direction
                                             else 'apply', path, e))
                if direction:
                    with open(dst, 'rb') as f:
                        staged[path] = f.read()
            with open(dst, 'rb') as f:
                if f.read() != final:
                    raise SeriesError('the patches changing %s do not give '
                                      'the repository\'s file' % path)
    return staged


def covers(pattern, path):
    """Does a MAINTAINERS F: pattern cover path?  As in MAINTAINERS, a
    pattern ending in "/" takes everything below it, "*" and "?" do not
    match "/", and a pattern naming a directory takes the files in it."""
    if pattern.endswith('/'):
        return path.startswith(pattern)
    if '*' not in pattern and '?' not in pattern:
        return path == pattern or (path.startswith(pattern + '/') and
                                   '/' not in path[len(pattern) + 1:])
    rx = ''.join('[^/]*' if ch == '*' else '[^/]' if ch == '?'
                 else re.escape(ch) for ch in pattern)
    return re.fullmatch(rx, path) is not None


def check_coverage(commits, frag):
    """Every file a commit adds is covered by a MAINTAINERS.fragment entry
    that this commit or an earlier one adds.  checkpatch's
    FILE_PATH_CHANGES warning asks that of each patch, but only looks for
    MAINTAINERS in the same patch; a layered series adds the files of one
    entry over several commits."""
    patterns = []
    for c in commits:
        for t in c['maintainers']:
            patterns += [ln.split(':', 1)[1].strip()
                         for ln in frag[t].splitlines()
                         if ln.startswith('F:')]
        for path in c['paths']:
            if not any(covers(pat, path) for pat in patterns):
                raise SeriesError('%s (in "%s") is in no MAINTAINERS entry '
                                  'of this commit or an earlier one'
                                  % (path, c['subject']))


def insert_maintainers(text, entry):
    """Insert entry into MAINTAINERS text in alphabetical order."""
    title = entry.splitlines()[0]
    lines = text.split('\n')
    start = lines.index('Maintainers List')
    i = start
    while i < len(lines) - 1:
        line, nxt = lines[i], lines[i + 1]
        is_title = (line and not line.startswith((' ', '\t')) and
                    len(nxt) > 2 and nxt[1] == ':' and nxt[2] == '\t' and
                    (i == 0 or lines[i - 1] == ''))
        if is_title and (line >= title or line == 'THE REST'):
            if line == title:
                raise SeriesError('MAINTAINERS already has "%s"' % title)
            lines[i:i] = entry.rstrip('\n').split('\n') + ['']
            return '\n'.join(lines)
        i += 1
    raise SeriesError('no place in MAINTAINERS for "%s"' % title)


def build_commits(tree, header, commits, frag):
    env = dict(os.environ)
    author = header['author']
    name, _, mail = author.partition('<')
    env.update({
        'GIT_AUTHOR_NAME': name.strip(), 'GIT_AUTHOR_EMAIL': mail.rstrip('>'),
        'GIT_COMMITTER_NAME': name.strip(),
        'GIT_COMMITTER_EMAIL': mail.rstrip('>'),
        'GIT_AUTHOR_DATE': COMMIT_DATE, 'GIT_COMMITTER_DATE': COMMIT_DATE,
    })
    staged = staged_contents(commits)
    with tempfile.TemporaryDirectory() as tmp:
        env['GIT_INDEX_FILE'] = os.path.join(tmp, 'index')
        parent = git(['rev-parse', 'base^{commit}'], tree).decode().strip()
        git(['read-tree', parent], tree, env)
        for c in commits:
            for path in c['paths']:
                src = os.path.join(TOP, path)
                if path in staged:
                    blob = git(['hash-object', '-w', '--stdin'], tree, env,
                               staged[path]).decode().strip()
                else:
                    blob = git(['hash-object', '-w', '--', src], tree,
                               env).decode().strip()
                mode = '100755' if os.access(src, os.X_OK) else '100644'
                git(['update-index', '--add', '--cacheinfo',
                     '%s,%s,%s' % (mode, blob, path)], tree, env)
            for p in c['patches']:
                git(['apply', '--cached', '--whitespace=error-all',
                     os.path.join(PATCHDIR, p)], tree, env)
            if c['maintainers']:
                text = git(['cat-file', 'blob', ':MAINTAINERS'], tree,
                           env).decode()
                for t in c['maintainers']:
                    text = insert_maintainers(text, frag[t])
                blob = git(['hash-object', '-w', '--stdin'], tree, env,
                           text.encode()).decode().strip()
                git(['update-index', '--cacheinfo',
                     '100644,%s,MAINTAINERS' % blob], tree, env)
            treeid = git(['write-tree'], tree, env).decode().strip()
            msg = '%s\n\n%s\n\nSigned-off-by: %s\n' % (c['subject'],
                                                       c['body'], author)
            parent = git(['commit-tree', treeid, '-p', parent], tree, env,
                         msg.encode()).decode().strip()
    return parent


def cmd_apply(tree):
    header, commits = parse_manifest()
    frag = assign(commits)
    head = build_commits(tree, header, commits, frag)
    status = git(['status', '--porcelain', '--untracked-files=no'],
                 tree).decode()
    if status.strip():
        raise SeriesError('%s has local changes; refusing to overwrite:\n%s'
                          % (tree, status))
    old = git(['rev-parse', 'HEAD'], tree).decode().strip()
    if old != head:
        # Two-tree merge: only files that differ between old and new are
        # rewritten in the work tree.
        git(['read-tree', '-m', '-u', old, head], tree)
    git(['update-ref', 'refs/heads/series', head], tree)
    git(['symbolic-ref', 'HEAD', 'refs/heads/series'], tree)
    print('series: %d commits, head %s%s' % (len(commits), head[:12],
                                             '' if old != head else
                                             ' (unchanged)'))


def cmd_export(tree, outdir):
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        if f.endswith('.patch') or f == 'series':
            os.unlink(os.path.join(outdir, f))
    out = git(['format-patch', '--no-signature', '--zero-commit',
               '-o', outdir, 'base..series'], tree).decode()
    names = [os.path.basename(p) for p in out.split()]
    with open(os.path.join(outdir, 'series'), 'w') as f:
        f.write(''.join(n + '\n' for n in names))
    print('series: wrote %d patches to %s' % (len(names), outdir))


def main(argv):
    if len(argv) < 2:
        die(__doc__.strip().split('\n\n')[1])
    try:
        if argv[1] == 'check':
            _, commits = parse_manifest()
            assign(commits)
            staged_contents(commits)
            print('series: manifest ok, %d commits' % len(commits))
        elif argv[1] == 'apply' and len(argv) == 3:
            cmd_apply(argv[2])
        elif argv[1] == 'export' and len(argv) == 4:
            cmd_export(argv[2], argv[3])
        else:
            die('unknown command; see the top of %s' % argv[0])
    except SeriesError as e:
        die(str(e))


if __name__ == '__main__':
    main(sys.argv)
