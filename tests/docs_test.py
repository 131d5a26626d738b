#!/usr/bin/env python3
"""Every command shown in the docs is run: the fenced shell blocks of README.md, CONTRIBUTING.md,
BENCHMARKS.md and docs/*.md, against the built ulpgate, in a scratch directory.  TAP on stdout.

usage: docs_test.py SOURCE_ROOT BUILD_DIR [DOC ...]   (DOC: only these files, e.g. docs/python.md)

Conventions (what a doc writer needs to know):
- A block fenced ```sh (or ```bash, ```shell) is run; ```text, ```console, ```c and the rest are
  not.  The info string after the language may carry, space separated:
    skip: REASON        the block is shown, never run (needs a GPU, Slurm, root, network ...);
                        everything after "skip:" is the reason, printed as the TAP skip note
    exit=N              a command of the block may exit N as well as 0 (a run that fails on purpose)
    test-args="ARGS"    appended to every `ulpgate run` of the block when the test runs it (the
                        doc shows a full run; the doc's prose names the shorter selection)
- A block fenced ```python is run as a script by an interpreter that imports the package ulpgate
  (docs/python.md): $ULPGATE_PYTHON (an installed package: CI's virtual environment), else
  /usr/bin/python3 with PYTHONPATH=BUILD_DIR/python when this build has the extension
  (-Dpython=enabled); without either, skipped saying so.  So are the `sh` blocks that run the
  package (`python3 -m pytest`, examples/python/, scripts/bench_python_check.py): they find that
  interpreter as `python3` on their PATH, and its pytest plugin loaded.
- Whole blocks are skipped, with the reason, when a command needs what a test cannot have:
  root or system packages, a CUDA device or nvcc, Slurm, a browser, the network.
- A line that configures, builds or tests the build directory itself (`meson setup build`,
  `ninja -C build`, `meson test -C build`) is not run (this test runs inside that build): it is
  reported as a diagnostic and the rest of its block runs.
- Each logical command (backslash continuations joined; `#` lines are comments) must end with 0
  (or the block's exit=N); in a pipeline every stage must, except 141 (SIGPIPE: `| head`).
- The scratch directory holds a symlink to every top-level entry of the source root, and `build/`
  with a symlink to every entry of BUILD_DIR except `reports/` (so a doc's
  `--report build/reports` writes into the scratch directory, not into the build); a command's
  `/tmp/` paths are rewritten to the scratch directory's `tmp/` (two docs tests at once on one
  machine share nothing).
Links: every relative link of these files must name a file that exists; the files other branches
are still writing (EXPECTED_LATER) are reported as skipped until they exist.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import docs_facts

EXPECTED_LATER = {'docs/your-own-kernel.md', 'docs/check.md', 'docs/formats.md',
                  'docs/reports.md'}
SHELL_LANGS = {'sh', 'bash', 'shell'}
BLOCK_SKIPS = [  # (pattern, reason): a block with a matching line is not run
    (r'\bsudo\b|\bapt-get\b|\bapt\b install|\bpip\b install', 'installs system packages (root, network)'),
    (r'-Dcuda=enabled|\bbuild-gpu\b|--gpus\b|\bnvcc\b|compute-sanitizer|--suite +(gpu|faults)\b|--gpu(?![\w-])',
     'needs nvcc or a CUDA device'),
    (r'\bsbatch\b|\bsrun\b|\bsalloc\b|scripts/slurm', 'needs Slurm'),
    (r'\bchromium\b|\bfirefox\b|xdg-open', 'needs a browser'),
    (r'\bcurl\b|\bwget\b|git clone|git fetch|\bgh\b |\bglab\b', 'needs the network'),
]
BUILD_LINE = re.compile(r'^\s*(meson setup (--\S+ )*build\b|ninja -C build\b|meson test -C build\b|'
                        r'meson compile -C build\b)')
TIMEOUT_S = 300
# The docs' NumPy examples run with Debian's /usr/bin/python3 (python3-numpy): skipped, saying so,
# where it has no NumPy.
HAVE_NUMPY = subprocess.run(['/usr/bin/python3', '-c', 'import numpy'], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode == 0 \
    if os.path.exists('/usr/bin/python3') else False
# The Python package (docs/python.md): the interpreter and environment that import it, or None.
PY_BLOCK = re.compile(r'\bpython3 -m pytest\b|examples/python/|bench_python_check')
PY_SKIP = ('needs the Python package: a build with -Dpython=enabled, or ULPGATE_PYTHON=an '
           'interpreter that imports ulpgate (and NumPy)')


def python_env(build):
    """(interpreter, extra environment) that imports ulpgate and NumPy, or (None, None)."""
    exe, env = os.environ.get('ULPGATE_PYTHON'), {}
    if not exe:
        pkg = os.path.join(build, 'python', 'ulpgate')
        if not os.path.isdir(pkg) or not any(f.startswith('_ulpgate') and f.endswith('.so')
                                             for f in os.listdir(pkg)):
            return None, None
        exe = '/usr/bin/python3'
        env = {'PYTHONPATH': os.path.join(build, 'python'),
               'PYTEST_PLUGINS': 'ulpgate.pytest_plugin'}
    ok = subprocess.run([exe, '-c', 'import ulpgate, numpy'], env=dict(os.environ, **env),
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0 \
        if os.path.exists(exe) else False
    return (exe, env) if ok else (None, None)


# Docs whose commands another test runs as written, in the setting they describe (an installed
# prefix, a user's repository): not run here, the file named with the test that runs it.
RUN_ELSEWHERE = {
    'docs/your-own-kernel.md': 'tests/install_test.sh runs its <!-- run --> blocks in order',
}


def parse_info(info):
    """The info string after ``` -> (lang, skip reason or None, allowed exit, test args)."""
    lang, _, rest = info.strip().partition(' ')
    skip = None
    if 'skip:' in rest:
        rest, _, skip = rest.partition('skip:')
        skip = skip.strip() or 'marked skip'
    allowed, targs = 0, ''
    for word in shlex.split(rest):
        k, _, v = word.partition('=')
        if k == 'exit':
            allowed = int(v)
        elif k == 'test-args':
            targs = v
        else:
            raise ValueError('unknown fence attribute %r' % word)
    return lang.lower(), skip, allowed, targs


def blocks(path):
    """Yield (line number, info string, body lines) for each fenced block of a Markdown file."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    i = 0
    while i < len(lines):
        m = re.match(r'^(\s*)(```+|~~~+)(.*)$', lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(2), m.group(3), i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(m.group(1)):] if lines[i].startswith(m.group(1)) else lines[i])
            i += 1
        i += 1
        yield start, info, body


def commands(body):
    """Logical commands of a block: continuations joined, comments and blank lines dropped."""
    out, cur = [], ''
    for line in body:
        if not cur and (not line.strip() or line.lstrip().startswith('#')):
            continue
        if line.rstrip().endswith('\\'):
            cur += line.rstrip()[:-1] + ' '
            continue
        out.append(cur + line)
        cur = ''
    if cur:
        out.append(cur)
    return out


def with_test_args(cmd, targs):
    """Append targs to an `ulpgate run` command, before its first pipe or redirection."""
    if not targs or not re.search(r'ulpgate run\b', cmd):
        return cmd
    m = re.search(r'\s(\||>|2>|&&|;)', cmd)
    cut = m.start() if m else len(cmd)
    return cmd[:cut].rstrip() + ' ' + targs + cmd[cut:]


def script(cmds, allowed):
    """A bash script that runs each command and stops at the first bad status, naming it."""
    ok = '0|141|%d' % allowed
    parts = []
    for n, c in enumerate(cmds, 1):
        parts.append(c)
        parts.append('for s in "${PIPESTATUS[@]}"; do case $s in %s) ;; *) '
                     'echo "docs: command %d exited $s" >&2; exit 1;; esac; done' % (ok, n))
    return '\n'.join(parts) + '\n'


def scratch_dir(src, build):
    d = tempfile.mkdtemp(prefix='ulpgate-docs-')
    for e in os.listdir(src):
        if e in ('.git', 'build') or e.startswith('build'):
            continue
        os.symlink(os.path.join(src, e), os.path.join(d, e))
    os.mkdir(os.path.join(d, 'build'))
    for e in os.listdir(build):
        if e != 'reports':
            os.symlink(os.path.join(build, e), os.path.join(d, 'build', e))
    return d


def doc_files(src):
    files = [f for f in ('README.md', 'CONTRIBUTING.md', 'BENCHMARKS.md') if os.path.exists(os.path.join(src, f))]
    files += sorted('docs/' + f for f in os.listdir(os.path.join(src, 'docs')) if f.endswith('.md'))
    return files


COUNTS = re.compile(r'\d+ passed, \d+ failed, \d+ skipped(, \d+ failed as expected)?')


def printed_counts(src, f, outputs):
    """A test point: every count of test points a doc prints ("270 passed, 0 failed, 48
    skipped", in a block or in prose) is one its own commands print when run here (outputs:
    their output; None when they run elsewhere: then the doc may print none).  Figures that
    drift with the suites are not written down."""
    text = open(os.path.join(src, f), encoding='utf-8').read()
    bad = []
    for m in COUNTS.finditer(text):
        line = text.count('\n', 0, m.start()) + 1
        if outputs is None:
            bad.append('%s:%d: prints "%s", and its commands do not run here (%s)'
                       % (f, line, m.group(0), RUN_ELSEWHERE[f]))
        elif not any(m.group(0) in o for o in outputs):
            bad.append('%s:%d: prints "%s", which none of its commands printed' % (f, line, m.group(0)))
    return (not bad, '%s: the counts it prints are what its commands print' % f, '', bad)


def main():
    if len(sys.argv) < 3:
        sys.stderr.write('usage: docs_test.py SOURCE_ROOT BUILD_DIR [DOC ...]\n')
        return 2
    src, build = (os.path.abspath(a) for a in sys.argv[1:3])
    points = []  # (ok, name, directive, diagnostics)
    files = doc_files(src)
    if len(sys.argv) > 3:  # only the files named
        files = [f for f in files if f in sys.argv[3:]]

    # Links first: cheap, and a moved section leaves dangling ones.
    for f in files:
        base = os.path.dirname(f)
        text = open(os.path.join(src, f), encoding='utf-8').read()
        text = re.sub(r'```.*?```', '', text, flags=re.S)
        bad, later = [], []
        for target in re.findall(r'\]\(([^)\s]+)\)', text):
            if re.match(r'^[a-z]+:', target) or target.startswith('#'):
                continue
            rel = os.path.normpath(os.path.join(base, target.split('#')[0]))
            if os.path.exists(os.path.join(src, rel)):
                continue
            (later if rel in EXPECTED_LATER else bad).append(rel)
        diag = ['link to a missing file: %s' % b for b in bad]
        diag += ['not written yet (another branch): %s' % l for l in sorted(set(later))]
        points.append((not bad, '%s: relative links resolve' % f, '', diag))
    # What the docs state about the tree (tests/docs_facts.py): bound classes, operations, fields.
    points += docs_facts.points(src, files)
    for f in sorted(EXPECTED_LATER):
        if not os.path.exists(os.path.join(src, f)):
            points.append((True, '%s: its commands' % f, 'SKIP not written yet (linked; '
                           'another branch writes it): its commands run once it exists', []))

    scratch = scratch_dir(src, build)
    # the docs' /tmp/... paths go to the scratch directory's tmp/: two docs tests at once (two
    # builds on one machine) would otherwise share /tmp/ug-report and its one-run lock
    scratch_tmp = os.path.join(scratch, 'tmp')
    os.makedirs(scratch_tmp, exist_ok=True)
    # `ulpgate` as the docs for an installed ulpgate write it: this build's binary, first on PATH.
    # The commands run as on CI, without a CUDA device (CUDA_VISIBLE_DEVICES empty): a block
    # that runs GPU cases (docs/tensor-cores.md's gpu_tensorcore and gpu_invariance) shows them
    # skipping cleanly, as its text says; on a GPU machine it would run again what the gpu_*
    # tests run (18 s of the default GPU suite's docs test), and what a doc shows is the same.
    env = dict(os.environ, LC_ALL='C', TMPDIR=scratch_tmp, CUDA_VISIBLE_DEVICES='',
               PATH=os.path.abspath(build) + os.pathsep + os.environ.get('PATH', ''))
    # the Python package's blocks: its interpreter first on PATH as python3
    py_exe, py_extra = python_env(build)
    py_env = None
    if py_exe:
        shim = os.path.join(scratch, '.python-bin')
        os.makedirs(shim, exist_ok=True)
        # a script, not a symlink: a virtual environment's python is known by its own path
        with open(os.path.join(shim, 'python3'), 'w') as sf:
            sf.write('#!/bin/sh\nexec %s "$@"\n' % shlex.quote(os.path.abspath(py_exe)))
        os.chmod(os.path.join(shim, 'python3'), 0o755)
        py_env = dict(env, **py_extra)
        py_env['PATH'] = shim + os.pathsep + env['PATH']
    for f in files:
        if f in RUN_ELSEWHERE:
            points.append((True, '%s: its commands' % f, 'SKIP ' + RUN_ELSEWHERE[f], []))
            points.append(printed_counts(src, f, None))
            continue
        outputs = []
        for line, info, body in blocks(os.path.join(src, f)):
            try:
                lang, skip, allowed, targs = parse_info(info)
            except ValueError as e:
                points.append((False, '%s:%d: fence' % (f, line), '', [str(e)]))
                continue
            if lang == 'python':
                first = next((l for l in body if l.strip() and not l.startswith(('import', 'from'))),
                             '(empty)')
                name = '%s:%d: python: %s' % (f, line, first.strip()[:50])
                if skip is not None or not py_exe:
                    points.append((True, name, 'SKIP ' + (skip or PY_SKIP), []))
                    continue
                script_path = os.path.join(scratch_tmp, 'block_%d.py' % line)
                with open(script_path, 'w', encoding='utf-8') as sf:
                    sf.write('\n'.join(body).replace('/tmp/', scratch_tmp + '/') + '\n')
                t0 = time.time()
                try:
                    p = subprocess.run([py_exe, script_path], cwd=scratch, env=py_env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       timeout=TIMEOUT_S)
                    ok, out = p.returncode == 0, p.stdout.decode('utf-8', 'replace')
                except subprocess.TimeoutExpired:
                    ok, out = False, 'timed out after %d s' % TIMEOUT_S
                diag = ['ran with %s: %d lines' % (py_exe, len(body)), '%.1f s' % (time.time() - t0)]
                if not ok:
                    diag += ['output (last 40 lines):'] + out.rstrip().split('\n')[-40:]
                points.append((ok, name, '', diag))
                continue
            if lang not in SHELL_LANGS:
                continue
            first = re.sub(r'\s+#.*$', '', (commands(body) or ['(empty)'])[0])
            name = '%s:%d: %s' % (f, line, first[:60])
            uses_py = any(PY_BLOCK.search(c) for c in commands(body))
            if skip is None and uses_py and not py_exe:
                skip = PY_SKIP
            if skip is None and not HAVE_NUMPY and any('numpy' in c or 'python_check' in c
                                                       for c in commands(body)):
                skip = 'needs NumPy for /usr/bin/python3 (Debian: python3-numpy)'
            if skip is None:
                for pat, why in BLOCK_SKIPS:
                    if any(re.search(pat, c) for c in commands(body)):
                        skip = why
                        break
            if skip is not None:
                points.append((True, name, 'SKIP ' + skip, []))
                continue
            diag, cmds = [], []
            for c in commands(body):
                if BUILD_LINE.match(c):
                    diag.append('not run (the build under test): ' + c)
                else:
                    cmds.append(with_test_args(c, targs).replace('/tmp/', scratch_tmp + '/'))
            if not cmds:
                points.append((True, name, 'SKIP only builds the tree', diag))
                continue
            t0 = time.time()
            try:
                p = subprocess.run(['bash', '-c', script(cmds, allowed)], cwd=scratch,
                                   env=py_env if uses_py else env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=TIMEOUT_S)
                ok, out = p.returncode == 0, p.stdout.decode('utf-8', 'replace')
            except subprocess.TimeoutExpired:
                ok, out = False, 'timed out after %d s' % TIMEOUT_S
            diag += ['ran: ' + c for c in cmds] + ['%.1f s' % (time.time() - t0)]
            if not ok:
                diag += ['output (last 40 lines):'] + out.rstrip().split('\n')[-40:]
            points.append((ok, name, '', diag))
            outputs.append(out)
        points.append(printed_counts(src, f, outputs))

    print('TAP version 13')
    print('1..%d' % len(points))
    failed = 0
    for n, (ok, name, directive, diag) in enumerate(points, 1):
        failed += not ok
        name = name.replace('#', '\\#').replace('\n', ' ')
        print('%s %d - %s%s' % ('ok' if ok else 'not ok', n, name, ' # ' + directive if directive else ''))
        for d in diag:
            print('#   ' + d.replace('\n', ' '))
    if failed:
        print('# scratch directory kept: ' + scratch)
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
