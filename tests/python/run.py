#!/usr/bin/env python3
"""run.py SRCROOT - the Python package's tests under meson (test 'python', with -Dpython=enabled):
pytest on tests/python and examples/python, the package from the build tree (PYTHONPATH, set by
tests/meson.build).  Exit 77 (meson: skipped) when pytest or NumPy is missing; pytest's exit 5
(nothing collected) is a failure: the tests were not found."""
import os
import sys

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print("skipped: %s (Debian: python3-pytest, python3-numpy)" % e)
    sys.exit(77)

src = sys.argv[1]
rc = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", os.path.join(src, "tests", "python"),
                  os.path.join(src, "examples", "python")])
if rc == 5:
    print("run.py: pytest collected no tests under %s/tests/python" % src)
    sys.exit(1)
sys.exit(int(rc))
