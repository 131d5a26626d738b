#!/usr/bin/python3
"""check_dot.py [ULPGATE] [DIR] - grade a dot product computed by NumPy with `ulpgate check`.

A kernel that lives in Python (NumPy here; PyTorch, Triton, JAX or CuPy alike: anything that
can write a .npy file) computes a batch of dot products; this script saves its inputs and its
results as .npy files, runs `ulpgate check` on them, and shows what it printed:
  1. float32 dots (numpy.einsum, a batch of 8 rows of 4096): graded against the exact results,
     limited by the a-priori tree bound (--bound tree);
  2. float16 inputs, products and sums in float16 (a serial loop with numpy.float16): graded in
     binary16 ULP;
  3. a wrong kernel (it drops the last term): `ulpgate check` exits 1.
Then the tolerance it derived, used with numpy.testing.assert_allclose (the same test as
torch.testing.assert_close).  ULPGATE defaults to `ulpgate` on the PATH; DIR to a new
temporary folder.  Exit 0 when the good kernels pass and the wrong one fails.
"""
import json
import subprocess
import sys
import tempfile

import numpy as np

ug = sys.argv[1] if len(sys.argv) > 1 else "ulpgate"
out = tempfile.mkdtemp(prefix="python_check_", dir=sys.argv[2] if len(sys.argv) > 2 else None)
rng = np.random.default_rng(7)


def check(*args):
    cmd = [ug, "check", *args]
    print("$ " + " ".join(cmd[1:]).replace(out + "/", ""))
    r = subprocess.run(cmd, capture_output=True, text=True)
    print(r.stdout + r.stderr, end="")
    return r.returncode


def save(name, a):
    np.save(f"{out}/{name}", a)
    return f"{out}/{name}"


# 1. float32: 8 dots of 4096 terms
x = rng.standard_normal((8, 4096)).astype(np.float32)
y = rng.standard_normal((8, 4096)).astype(np.float32)
got = np.einsum("ij,ij->i", x, y).astype(np.float32)
rc1 = check("--op", "dot", "--got", save("got32.npy", got), save("x32.npy", x),
            save("y32.npy", y), "--bound", "tree")

# 2. float16 all through: a serial loop, each product and sum rounded to binary16
xh = (rng.standard_normal((4, 256)) / 4).astype(np.float16)
yh = (rng.standard_normal((4, 256)) / 4).astype(np.float16)
goth = np.zeros(4, np.float16)
for b in range(4):
    acc = np.float16(0)
    for a, c in zip(xh[b], yh[b]):
        acc = np.float16(acc + np.float16(a * c))
    goth[b] = acc
rc2 = check("--op", "dot", "--got", save("got16.npy", goth), save("x16.npy", xh),
            save("y16.npy", yh), "--bound", "tree")

# 3. a wrong kernel: drops the last term
bad = np.einsum("ij,ij->i", x[:, :-1], y[:, :-1]).astype(np.float32)
rc3 = check("--op", "dot", "--got", save("bad.npy", bad), f"{out}/x32.npy", f"{out}/y32.npy",
            "--ulp-max", "64")

# the tolerance check derived, used as assert_close would use it (against want, the exact
# result rounded to float32: here the float64 dot rounded, close enough for a demonstration)
r = subprocess.run([ug, "check", "--json", "--op", "dot", "--got", f"{out}/got32.npy",
                    f"{out}/x32.npy", f"{out}/y32.npy"], capture_output=True, text=True)
tol = json.loads(r.stdout)["tolerance"]
want = np.einsum("ij,ij->i", x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
np.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"])
print(f"assert_allclose(got, want, rtol={tol['rtol']:.3e}, atol={tol['atol']:.3e}): passed")

print(f"exit codes: float32 {rc1}, float16 {rc2}, wrong kernel {rc3}")
sys.exit(0 if (rc1, rc2, rc3) == (0, 0, 1) else 1)
