#!/usr/bin/env python3
"""bench_python_check.py [--n N] [--reps R] [--cli ULPGATE] - ulpgate.check from Python next to
`ulpgate check` on the same data, in one run (Python <= 1.2x the CLI).

The data: N float32 terms of normal(0, 1) (NumPy, seed 36), one sum (and a batch of 10 rows of
N/10), got = NumPy's float32 sum, saved as .npy for the CLI.  Timed: the best of R runs of each
side, wall clock: the CLI as a process (start, mapping the files, grading, printing: what a
user of `check` waits for), Python as the call ulpgate.check("sum", x, got=got) on the arrays
in memory (no copy: the extension reads them in place).  Prints both, and Python / CLI.
Needs NumPy and the package (PYTHONPATH=build/python of a -Dpython=enabled tree, or installed).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import ulpgate


def best(f, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cli", default=None, help="the ulpgate executable (default: the "
                    "package's, else ulpgate on PATH)")
    a = ap.parse_args()
    import ulpgate._cli
    cli = a.cli or (ulpgate._cli.path() if os.access(ulpgate._cli.path(), os.X_OK)
                    else shutil.which("ulpgate"))
    if not cli:
        sys.exit("bench_python_check: no ulpgate CLI (--cli)")
    rng = np.random.default_rng(36)
    x = rng.standard_normal(a.n, dtype=np.float32)
    tmp = tempfile.mkdtemp(prefix="ug_bench_py_")
    print("ulpgate.check vs `ulpgate check`: sum of %d float32 terms, best of %d (%s)"
          % (a.n, a.reps, cli))
    print("%-22s %12s %12s %8s" % ("data", "cli (s)", "python (s)", "py/cli"))
    worst = 0
    for label, xs in (("1 x %d" % a.n, x), ("10 x %d" % (a.n // 10), x[: a.n // 10 * 10].reshape(10, -1))):
        got = xs.sum(axis=-1, dtype=np.float32)
        xp, gp = os.path.join(tmp, "x.npy"), os.path.join(tmp, "got.npy")
        np.save(xp, xs)
        np.save(gp, got)
        cmd = [cli, "check", "--op", "sum", "--json", "--got", gp, xp]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        r = ulpgate.check("sum", xs, got=got)
        assert r.figures["json"] == out, "the CLI and Python differ"
        t_cli = best(lambda: subprocess.run(cmd, capture_output=True, check=True), a.reps)
        t_py = best(lambda: ulpgate.check("sum", xs, got=got), a.reps)
        worst = max(worst, t_py / t_cli)
        print("%-22s %12.4f %12.4f %8.2f" % (label, t_cli, t_py, t_py / t_cli))
    shutil.rmtree(tmp, ignore_errors=True)
    print("python/cli at most %.2f (goal <= 1.2); identical figures on both sides" % worst)


if __name__ == "__main__":
    main()
