#!/usr/bin/env python3
"""docs/cli.md from the CLI's own help: `ulpgate --help`, then `ulpgate SUB --help` for every
subcommand the top-level usage names (and `ulpgate --version`).

usage: gen_cli_md.py [--check] ULPGATE OUT.md

Without --check it writes OUT.md (`ninja -C build docs-cli` runs it on docs/cli.md).  With --check
it writes nothing and exits 1, with a diff, when OUT.md differs from what it would write: the
`cli_docs` test, so the committed reference cannot go stale.  A subcommand whose --help exits
non-zero is listed with that status and what it printed: the reference shows the CLI as it is.
"""
import difflib
import re
import subprocess
import sys


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60,
                       env={'LC_ALL': 'C', 'PATH': '/usr/bin:/bin'})
    return p.returncode, p.stdout.decode('utf-8', 'replace').rstrip('\n')


def fence(text):
    return '```text\n' + text + '\n```\n'


def generate(exe):
    rc, top = run([exe, '--help'])
    if rc != 0:
        sys.exit('gen_cli_md: %s --help exited %d' % (exe, rc))
    _, version = run([exe, '--version'])
    subs = []
    for m in re.finditer(r'^(?:usage:)?\s*ulpgate ([a-z][a-z-]*)', top, re.M):
        if m.group(1) not in subs:
            subs.append(m.group(1))
    out = ['# Command-line reference', '',
           'Generated from the CLI\'s own help by `scripts/gen_cli_md.py` (`ninja -C build docs-cli`);',
           '`meson test -C build cli_docs` fails when this file is stale. Do not edit by hand.', '',
           'Version: `%s`.' % version.replace('`', "'"), '',
           '## ulpgate --help', '', fence(top)]
    for s in subs:
        rc, text = run([exe, s, '--help'])
        out.append('## ulpgate %s --help' % s)
        out.append('')
        if rc != 0:
            out.append('`ulpgate %s --help` exits %d in this build (no help of its own yet); '
                       'it prints:' % (s, rc))
            out.append('')
            text = '\n'.join(text.split('\n')[:3]) + ('\n...' if text.count('\n') > 2 else '')
        out.append(fence(text))
    return '\n'.join(out)


def main():
    args = sys.argv[1:]
    check = args[:1] == ['--check']
    if check:
        args = args[1:]
    if len(args) != 2:
        sys.exit('usage: gen_cli_md.py [--check] ULPGATE OUT.md')
    exe, path = args
    text = generate(exe)
    if not check:
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return 0
    try:
        old = open(path, encoding='utf-8').read()
    except OSError as e:
        print('not ok 1 - %s is current\n# %s\n1..1' % (path, e))
        return 1
    if old == text:
        print('ok 1 - %s is what the CLI\'s help says\n1..1' % path)
        return 0
    print('not ok 1 - %s is stale: regenerate with `ninja -C build docs-cli`' % path)
    for line in list(difflib.unified_diff(old.split('\n'), text.split('\n'), 'committed', 'generated',
                                          lineterm=''))[:80]:
        print('# ' + line)
    print('1..1')
    return 1


if __name__ == '__main__':
    sys.exit(main())
