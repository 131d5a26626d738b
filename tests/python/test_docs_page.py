"""docs/python.md's printed outputs are what its blocks print: the ```text block after a
```python block is that block's output, line for line, and a `print(...)  # OUTPUT` comment is
that line's output.  Skipped where the source tree's docs are not beside the tests (an installed
package's tests run from elsewhere)."""
import os
import re
import subprocess
import sys

import pytest

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "docs",
                    "python.md")


def blocks():
    """(line, lang, body, prose since the previous block) for every fenced block."""
    out, lang, body, prose, start = [], None, [], [], 0
    for i, line in enumerate(open(PAGE, encoding="utf-8").read().split("\n"), 1):
        if line.startswith("```"):
            if lang is None:
                lang, body, start = line[3:].strip().split(" ")[0], [], i
            else:
                out.append((start, lang, body, prose))
                lang, prose = None, []
        elif lang is None:
            prose.append(line)
        else:
            body.append(line)
    return out


def run(body, tmp_path):
    p = tmp_path / "block.py"
    p.write_text("\n".join(body) + "\n")
    r = subprocess.run([sys.executable, str(p)], capture_output=True, text=True, timeout=300,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.rstrip("\n").split("\n") if r.stdout else []


@pytest.mark.skipif(not os.path.exists(PAGE), reason="docs/python.md is not beside the tests")
def test_printed_outputs_are_what_the_blocks_print(tmp_path):
    bs = blocks()
    checked = 0
    for k, (line, lang, body, _) in enumerate(bs):
        if lang != "python":
            continue
        commented = [re.search(r"^print\(.*\)\s+# (.*)$", l) for l in body]
        commented = [m.group(1) for m in commented if m]
        nxt = bs[k + 1] if k + 1 < len(bs) else None
        shown = nxt[2] if nxt and nxt[1] == "text" and any("prints" in p for p in nxt[3]) else None
        if not commented and shown is None:
            continue
        got = run(body, tmp_path)
        if shown is not None:
            assert got == shown, "docs/python.md:%d: the block prints\n%s" % (line, "\n".join(got))
        if commented:
            assert got == commented, "docs/python.md:%d: the block prints\n%s" % (
                line, "\n".join(got))
        checked += 1
    assert checked >= 2


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# what the documented steps write into the source tree: `pip install .` (meson-python's native
# file), pytest and Hypothesis (their caches), the build folder of the page's meson line
WRITTEN = [".mesonpy-native-file.ini", ".hypothesis/examples/x", "tests/python/__pycache__/x.pyc",
           "build-py/build.ninja"]


@pytest.mark.skipif(not os.path.isdir(os.path.join(ROOT, ".git")) and
                    not os.path.isfile(os.path.join(ROOT, ".git")), reason="not a git checkout")
def test_documented_steps_leave_the_tree_clean():
    """Nothing the steps write is tracked, and git ignores all of it: `git status --porcelain`
    stays empty after them, and a report made after a `pip install .` is not `-dirty`."""
    tracked = subprocess.run(["git", "-C", ROOT, "ls-files", "--", ".mesonpy-native-file.ini",
                              ".hypothesis"], capture_output=True, text=True)
    assert tracked.returncode == 0 and tracked.stdout == "", tracked.stdout
    ignored = subprocess.run(["git", "-C", ROOT, "check-ignore", "--no-index"] + WRITTEN,
                             capture_output=True, text=True)
    assert sorted(ignored.stdout.split()) == sorted(WRITTEN), ignored.stdout + ignored.stderr
