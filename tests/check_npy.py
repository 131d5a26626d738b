"""check_npy.py - what the `ulpgate check` tests on .npy files share (check_test.py,
check_attention_test.py): ULPGATE and SRCDIR from argv, a scratch folder, TAP lines, .npy files
saved with NumPy, the CLI run (its JSON), `ulpgate oracle` on the same values.  Skips the whole
test cleanly where NumPy is missing."""
import json
import math
import os
import subprocess
import sys
import shutil
import tempfile
from fractions import Fraction

try:
    import numpy as np
except ImportError:
    print("1..0 # SKIP numpy missing (Debian: apt-get install python3-numpy)")
    sys.exit(0)

UG, SRC = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="ug_check_")
count = 0
failed = 0


def ok(cond, name, detail=""):
    global count, failed
    count += 1
    if not cond:
        failed += 1
        print(f"not ok {count} - {name}")
        for line in str(detail).splitlines():
            print(f"# {line}")
    else:
        print(f"ok {count} - {name}")


def path(name):
    return os.path.join(TMP, name)


def save(name, arr, version=None):
    p = path(name)
    with open(p, "wb") as f:
        np.lib.format.write_array(f, np.asarray(arr), version=version)
    return p


def run(*args):
    r = subprocess.run([UG, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def check_json(*args):
    rc, out, err = run("check", "--json", *args)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, out + err


def oracle(op, x, y=None, got=None):
    """ulpgate oracle on the binary32 values x (and y), as hex-floats; its JSON."""
    p = path("oracle.txt")
    with open(p, "w") as f:
        for i in range(len(x)):
            f.write(float(x[i]).hex() + ("" if y is None else " " + float(y[i]).hex()) + "\n")
    args = ["oracle", "--op", op, "--json", p]
    if got is not None:
        args += ["--got", float(got).hex()]
    rc, out, err = run(*args)
    return json.loads(out)


def same_as_oracle(name, j, o):
    ok(j is not None and j["worst"]["exact"] == o["exact"] and j["worst"]["want"] == o["rounded"]
       and j["worst"]["ulp"] == o["ulp_error"], name, f"check {j and j['worst']}\noracle {o}")



def finish():
    """The plan line and the exit status: 1 when a check failed.  The scratch folder is
    removed (kept when a check failed: its files are what the failure was about)."""
    print(f"1..{count}")
    if not failed:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(1 if failed else 0)
