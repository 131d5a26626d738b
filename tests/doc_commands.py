#!/usr/bin/env python3
"""doc_commands.py DOC.md MODE - the shell commands of a document, as one bash script.

A fenced ```sh block right after a line `<!-- run -->` is run by tests (MODE test and ci);
after `<!-- run: exit 1 -->` its last command must exit 1 (the others 0); after
`<!-- run: ci -->` only MODE ci runs it (CI builds ulpgate itself from a clean clone).  The
script runs the blocks in order in one shell (cd and export carry on), each command echoed, and
stops at the first command whose status is not the one expected, naming its line of DOC.
"""
import re
import shlex
import sys

doc, mode = sys.argv[1], sys.argv[2]
lines = open(doc, encoding="utf-8").read().split("\n")
out = ["set -u", "fail() { echo \"doc_commands: $1\" >&2; exit 3; }"]
marker = None
i = 0
blocks = 0
while i < len(lines):
    m = re.match(r"<!-- run(?::\s*(exit 1|ci))? -->\s*$", lines[i])
    if m:
        marker = m.group(1) or "run"
        i += 1
        continue
    if lines[i].startswith("```sh") and marker:
        j = i + 1
        cmds = []
        while not lines[j].startswith("```"):
            start = j
            cmd = lines[j]
            while cmd.endswith("\\"):
                j += 1
                cmd = cmd[:-1] + lines[j]
            if cmd.strip():
                cmds.append((start + 1, cmd))
            j += 1
        if marker != "ci" or mode == "ci":
            blocks += 1
            for k, (no, cmd) in enumerate(cmds):
                want = 1 if marker == "exit 1" and k == len(cmds) - 1 else 0
                where = "%s:%d" % (doc, no)
                out.append("echo %s" % shlex.quote("$ " + cmd))
                out.append(cmd)
                out.append('rc=$?; [ "$rc" = %d ] || fail %s"exit status $rc, not %d"' % (
                    want, shlex.quote(where + ": " + cmd + ": "), want))
        marker = None
        i = j + 1
        continue
    if lines[i].strip():
        marker = None
    i += 1
if blocks == 0:
    sys.exit("doc_commands: no <!-- run --> block in %s" % doc)
out.append("echo doc_commands: done")
print("\n".join(out))
