#!/usr/bin/python3
"""check_test.py ULPGATE SRCDIR - `ulpgate check` on .npy files made by NumPy (TAP).

Run by Debian's /usr/bin/python3 (python3-numpy); skips cleanly where NumPy is missing.
Asserts: check's exact value, rounded value and ULP error equal `ulpgate oracle`'s on the same
data (binary32, binary16 and bfloat16 data widened to binary32 for the oracle's text file);
binary64 against Python's exact rational arithmetic; a batch axis; gemm; both byte orders and
format versions; a wrong result exits 1; each bad file exits 2 naming the file; the example.
Attention's files: check_attention_test.py.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

from check_npy import (UG, SRC, TMP, np, ok, path, save, run, check_json, oracle,  # noqa: F401
                       same_as_oracle, finish)

rng = np.random.default_rng(22)

# ---- binary32: one output, against the oracle, both oracles; exit codes on the limits -------
x = rng.standard_normal(1000).astype(np.float32)
y = rng.standard_normal(1000).astype(np.float32)
got = np.float32(np.dot(x, y))
px, py, pg = save("x.npy", x), save("y.npy", y), save("got.npy", got)
o = oracle("dot", x, y, got)
for kind in ("fast", "mpfr"):
    rc, j, err = check_json("--op", "dot", "--oracle", kind, "--got", pg, px, py)
    same_as_oracle(f"f32 dot: exact, rounded and ULP error equal the oracle's ({kind})", j, o)
    ok(rc == 0 and j["pass"], f"f32 dot: exit 0 with no limit ({kind})", err)
rc, j, err = check_json("--op", "sum", "--got", save("gs.npy", np.float32(x.sum())), px)
same_as_oracle("f32 sum: equal to the oracle", j, oracle("sum", x, None, np.float32(x.sum())))

# the correctly rounded result: 0 exit under the tightest limits
want = float.fromhex(o["rounded"])
pw = save("want.npy", np.float32(want))
rc, j, err = check_json("--op", "dot", "--got", pw, px, py, "--ulp-max", "0.5", "--bound", "tree")
ok(rc == 0 and j["ulp_max"] <= 0.5 and j["bound"]["ratio_max"] < 1,
   "correctly rounded result passes --ulp-max 0.5 --bound tree", j)
# a wrong result: 4 ULP off
bad = np.nextafter(np.float32(want), np.float32(np.inf))
for _ in range(3):
    bad = np.nextafter(bad, np.float32(np.inf))
rc, j, err = check_json("--op", "dot", "--got", save("bad.npy", bad), px, py, "--ulp-max", "2")
ok(rc == 1 and not j["pass"] and j["ulp_max"] > 2, "a result 4 ULP off exits 1 past --ulp-max 2",
   (rc, j))
rc, out, err = run("check", "--op", "dot", "--got", path("bad.npy"), px, py, "--ulp-max", "2")
ok(rc == 1 and "FAIL" in out and "0x" in out, "the table says FAIL and shows got/want in hex", out)
rc, j, err = check_json("--op", "dot", "--got", save("bad.npy", bad), px, py, "--rel-max", "1e-9")
ok(rc == 1, "a result past --rel-max exits 1", (rc, j))
# past the bound: a sum of positive terms with a result far off
p1 = save("ones.npy", np.ones(100, np.float32))
rc, j, err = check_json("--op", "sum", "--got", save("g101.npy", np.float32(101)), p1,
                        "--bound", "tree")
ok(rc == 1 and j["bound"]["ratio_max"] > 1, "a result outside the tree bound exits 1 with --bound",
   (rc, j))
rc, j, err = check_json("--op", "sum", "--got", path("g101.npy"), p1)
ok(rc == 0, "the same without a limit exits 0", (rc, j))
# the tolerance: rtol = gamma_D(u) (1 + u) + u for positive data, atol covers what is left
u = 2.0 ** -24
g = 99 * u / (1 - 99 * u)
ok(j["tolerance"]["rtol"] >= g * (1 + u) + u and j["tolerance"]["rtol"] < (g * (1 + u) + u) * 1.000001,
   "rtol is gamma_D(u)(1 + u) + u", j["tolerance"])

rc, j, err = check_json("--op", "dot", "--got", pg, px, py)
ok(j is not None and abs(j["bound"]["gamma"] - 1000 * u / (1 - 1000 * u)) <= 1e-15 * j["bound"]["gamma"],
   "dot: gamma_{D+1} (the product's rounding), D = n - 1", j and j["bound"])
rc, j, err = check_json("--op", "dot", "--got", pg, px, py, "--depth", "10")
ok(j is not None and j["bound"]["depth"] == 10 and abs(j["bound"]["gamma"] - 11 * u / (1 - 11 * u)) <= 1e-15 * j["bound"]["gamma"],
   "--depth 10: gamma_11", j and j["bound"])

# ---- a batch axis ------------------------------------------------------------------------------
X = rng.standard_normal((5, 300)).astype(np.float32)
G = X.sum(axis=1, dtype=np.float32)
G[3] = np.nextafter(np.nextafter(G[3], np.float32(9)), np.float32(9))
rc, j, err = check_json("--op", "sum", "--got", save("gb.npy", G), save("xb.npy", X))
ors = [oracle("sum", X[b], None, G[b]) for b in range(5)]
worst = max(range(5), key=lambda b: ors[b]["ulp_error"])
ok(j is not None and j["outputs"] == 5 and j["batch"] == 5 and j["worst"]["index"] == worst,
   "batch (5, 300): 5 outputs, the worst row found", j)
same_as_oracle("batch: the worst row's figures equal the oracle's", j, ors[worst])
ok(abs(j["ulp_mean"] - sum(o["ulp_error"] for o in ors) / 5) < 1e-12, "batch: the mean ULP",
   j["ulp_mean"])
Y = rng.standard_normal((5, 300)).astype(np.float32)
D = np.einsum("ij,ij->i", X, Y).astype(np.float32)
rc, j, err = check_json("--op", "dot", "--got", save("gd.npy", D), path("xb.npy"), save("yb.npy", Y))
ors = [oracle("dot", X[b], Y[b], D[b]) for b in range(5)]
ok(j is not None and j["outputs"] == 5 and
   j["ulp_max"] == max(o["ulp_error"] for o in ors), "batch dot: max ULP of the rows", j)

# ---- byte order and format versions give the same figures ------------------------------------
base = check_json("--op", "dot", "--got", pg, px, py)[1]
for name, xs, ver in (("big-endian '>f4'", x.astype(">f4"), None), ("version 2.0", x, (2, 0)),
                      ("version 3.0", x, (3, 0))):
    rc, j, err = check_json("--op", "dot", "--got", pg, save("xv.npy", xs, ver), py)
    ok(j == base, f"{name}: the same figures", (j, err))
# a header longer than 65535 bytes: versions 2.0 and 3.0 read its 4-byte length whole
for ver in (2, 3):
    raw = open(save("xv.npy", x, (ver, 0)), "rb").read()
    hlen = int.from_bytes(raw[8:12], "little")
    head = raw[12:12 + hlen].rstrip(b"\n")
    pad = 70000 + (-(12 + len(head) + 70000 + 1)) % 64  # NumPy aligns the data to 64 bytes
    head += b" " * pad + b"\n"
    with open(path("xlong.npy"), "wb") as f:
        f.write(raw[:8] + len(head).to_bytes(4, "little") + head + raw[12 + hlen:])
    rc, j, err = check_json("--op", "dot", "--got", pg, path("xlong.npy"), py)
    ok(len(head) > 65535 and j == base, f"version {ver}.0, a {len(head)}-byte header: the same figures", (j, err))

# ---- binary16 (widened exactly to binary32) and bfloat16 bit patterns -----------------------
H = rng.standard_normal((3, 200)).astype(np.float16)
GH = H.astype(np.float32).sum(axis=1).astype(np.float16)
rc, j, err = check_json("--op", "sum", "--got", save("gh.npy", GH), save("xh.npy", H))
b = j["worst"]["index"] if j else 0
o = oracle("sum", H[b].astype(np.float32))
ok(j is not None and j["out_fmt"] == "f16" and j["in_fmt"] == ["f16"] and
   j["worst"]["exact"] == o["exact"], "f16: the exact value equals the oracle's on the widened data", (j, o))
want16 = np.float16(float.fromhex(o["exact"]))  # exact fits binary64: one rounding
ok(j is not None and float.fromhex(j["worst"]["want"]) == float(want16), "f16: want is the exact value "
   "rounded to binary16", j and j["worst"])
bits = (x.view(np.uint32) >> 16).astype(np.uint16)
xb16 = (bits.astype(np.uint32) << 16).view(np.float32)
rc, j, err = check_json("--op", "sum", "--dtype", "bf16", "--got", pg, save("xbf.npy", bits))
o = oracle("sum", xb16, None, got)
ok(j is not None and j["in_fmt"] == ["bf16"], "bf16 bit patterns read with --dtype bf16", (j, err))
same_as_oracle("bf16: equal to the oracle on the same values", j, o)
rc, out, err = run("check", "--op", "sum", "--got", pg, path("xbf.npy"))
ok(rc == 2 and "--dtype" in err and "xbf.npy" in err, "uint16 without --dtype: exit 2 naming it", err)

# ---- binary64: against exact rational arithmetic ---------------------------------------------
def exact_check(name, op, xs, ys, gotv):
    terms = [Fraction(float(a)) * (Fraction(float(b)) if ys is not None else 1)
             for a, b in zip(xs, ys if ys is not None else xs)]
    s = sum(terms, Fraction(0))
    hi = float(s)  # correctly rounded (CPython's Fraction.__float__ divides exactly rounded)
    ulp = abs(Fraction(float(gotv)) - s) / Fraction(math.ulp(hi))
    args = ["--op", op, "--got", save("g64.npy", np.float64(gotv)), save("x64.npy", xs)]
    if ys is not None:
        args.append(save("y64.npy", ys))
    rc, j, err = check_json(*args)
    ok(j is not None and float.fromhex(j["worst"]["exact"]) == hi and float.fromhex(j["worst"]["want"]) == hi and
       abs(j["ulp_max"] - float(ulp)) <= 1e-12 * float(ulp) and j["out_fmt"] == "f64",
       name, (j, hi.hex(), float(ulp), err))


x64 = rng.standard_normal(500) * np.exp2(rng.integers(-30, 30, 500))
y64 = rng.standard_normal(500)
exact_check("f64 sum: exact value and ULP error from exact rationals", "sum", x64, None,
            float(np.sum(x64)))
exact_check("f64 dot: exact value and ULP error from exact rationals", "dot", x64, y64,
            float(np.dot(x64, y64)))

for xs, sign in (([-0.0, -0.0], "-"), ([1.0, -1.0], "")):
    rc, j, err = check_json("--op", "dot", "--got", save("g0.npy", np.float64(0)),
                            save("x0.npy", np.array(xs)), save("y0.npy", np.array([1.0, 1.0])))
    ok(j is not None and j["worst"]["exact"] == sign + "0x0p+0",
       f"f64 dot: an exact zero's sign ({xs} . [1, 1] = {sign}0)", j and j["worst"])

# ---- gemm ----------------------------------------------------------------------------------------
A = rng.standard_normal((2, 3, 40)).astype(np.float32)
B = rng.standard_normal((2, 40, 4)).astype(np.float32)
C = np.matmul(A, B).astype(np.float32)
rc, j, err = check_json("--op", "gemm", "--got", save("gc.npy", C), save("ga.npy", A),
                        save("gbm.npy", B), "--bound", "tree")
i = j["worst"]["index"] if j else 0
bt, m, n = i // 12, (i % 12) // 4, i % 4
o = oracle("dot", A[bt, m], B[bt, :, n], C[bt, m, n])
ok(j is not None and rc == 0 and j["outputs"] == 24, "gemm (2,3,40)x(2,40,4): 24 outputs", (j, err))
same_as_oracle("gemm: the worst element equals the oracle's dot of its row and column", j, o)
rc, out, err = run("check", "--op", "gemm", "--got", path("gc.npy"), path("ga.npy"), save("gbt.npy", B[:, :39]))
ok(rc == 2 and "gbt.npy" in err and "K" in err, "gemm: B's rows not A's columns: exit 2", err)

A64 = rng.standard_normal((3, 7))
B64 = rng.standard_normal((7, 2))
C64 = A64 @ B64
rc, j, err = check_json("--op", "gemm", "--got", save("gc64.npy", C64), save("ga64.npy", A64),
                        save("gb64.npy", B64))
i = j["worst"]["index"] if j else 0
s64 = sum((Fraction(float(A64[i // 2, k])) * Fraction(float(B64[k, i % 2])) for k in range(7)), Fraction(0))
ulp64 = abs(Fraction(float(C64[i // 2, i % 2])) - s64) / Fraction(math.ulp(float(s64)))
ok(j is not None and float.fromhex(j["worst"]["exact"]) == float(s64) and abs(j["ulp_max"] - float(ulp64)) <= 1e-12 * float(ulp64),
   "f64 gemm: the worst element against exact rationals", (j, float(s64), float(ulp64)))

# ---- bad files: exit 2, naming the file and what is wrong -----------------------------------
def bad_file(name, data, what, args=None):
    p = path(name)
    with open(p, "wb") as f:
        f.write(data)
    rc, out, err = run(*(args or ["check", "--op", "sum", "--got", pg, p]))
    ok(rc == 2 and name in err and what in err and out == "", f"bad file ({what}): exit 2", (rc, out, err))


raw = open(px, "rb").read()
bad_file("bad1.npy", b"NOTNUMPY" + raw[8:], "magic")
bad_file("bad4.npy", raw[:6] + b"\x04\x00" + raw[8:], "version 4")
bad_file("bad2.npy", raw[:-10], "truncated: 3990 data bytes, the shape needs 4000")
bad_file("bad3.npy", raw[:40], "truncated header")
fifo = path("fifo.npy")
os.mkfifo(fifo)  # no writer: its open would wait for ever
try:
    r = subprocess.run([UG, "check", "--op", "sum", "--got", pg, fifo], capture_output=True,
                       text=True, timeout=30)
    ok(r.returncode == 2 and "fifo.npy: not a regular file" in r.stderr,
       "a FIFO with no writer: refused, not waited for", (r.returncode, r.stderr))
except subprocess.TimeoutExpired:
    ok(False, "a FIFO with no writer: refused, not waited for", "still waiting after 30 s")
save("ints.npy", np.arange(10, dtype=np.int32))
rc, out, err = run("check", "--op", "sum", "--got", pg, path("ints.npy"))
ok(rc == 2 and "ints.npy" in err and "<i4" in err, "an int32 file: dtype named, exit 2", err)
save("cplx.npy", np.zeros(4, np.complex64))
rc, out, err = run("check", "--op", "sum", "--got", pg, path("cplx.npy"))
ok(rc == 2 and "cplx.npy" in err and "dtype" in err, "complex: exit 2", err)
np.save(path("bad5.npy"), np.asfortranarray(rng.standard_normal((3, 4)).astype(np.float32)))
rc, out, err = run("check", "--op", "sum", "--got", save("g3.npy", np.zeros(3, np.float32)),
                   path("bad5.npy"))
ok(rc == 2 and "bad5.npy" in err and "Fortran" in err, "Fortran order: exit 2", err)
rc, out, err = run("check", "--op", "dot", "--got", pg, px, save("y999.npy", y[:999]))
ok(rc == 2 and "y999.npy" in err and "shape" in err, "x and y of different lengths: exit 2", err)
rc, out, err = run("check", "--op", "sum", "--got", save("g2.npy", np.zeros(2, np.float32)), px)
ok(rc == 2 and "g2.npy" in err and "shape" in err, "got of the wrong shape: exit 2", err)
rc, out, err = run("check", "--op", "sum", "--got", path("g3.npy"), path("xb.npy"))
ok(rc == 2 and "g3.npy" in err, "batch 5 but 3 results: exit 2", err)
rc, out, err = run("check", "--op", "sum", "--got", pg, path("missing.npy"))
ok(rc == 2 and "missing.npy" in err, "a missing file: exit 2", err)

# ---- scan, exscan, nrm2, asum (ops/scan.c, ops/norm.c) ------------------------------------------
xs = (rng.standard_normal(300) * np.exp2(rng.integers(-20, 20, 300))).astype(np.float32)
pxs = save("xs.npy", xs)
cs = np.cumsum(xs, dtype=np.float32)
rc, j, err = check_json("--op", "scan", "--got", save("cs.npy", cs), pxs)
i = j["worst"]["index"] if j else 0
want = float(sum((Fraction(float(v)) for v in xs[: i + 1]), Fraction(0)))
ok(j is not None and rc == 0 and j["outputs"] == 300 and float.fromhex(j["worst"]["exact"]) == want,
   "scan: NumPy's float32 cumsum, 300 outputs; the worst one's exact prefix sum is Python's", (j, err))
cs2 = cs.copy()
cs2[123] = np.nextafter(np.nextafter(cs2[123], np.float32(np.inf)), np.float32(np.inf)) * np.float32(1.001)
rc, j, err = check_json("--op", "scan", "--got", save("cs2.npy", cs2), pxs, "--ulp-max", "1000")
ok(j is not None and rc == 1 and j["worst"]["index"] == 123, "scan: one output off: exit 1, the worst is that output", (j, err))
ex = np.concatenate(([0], np.cumsum(xs, dtype=np.float32)[:-1])).astype(np.float32)
rc, j, err = check_json("--op", "exscan", "--got", save("ex.npy", ex), pxs)
ok(j is not None and rc == 0 and j["outputs"] == 300, "exscan: the exclusive cumsum", (j, err))
rc, out, err = run("check", "--op", "scan", "--got", save("cs1.npy", cs[:1]), pxs)
ok(rc == 2 and "cs1.npy" in err, "scan: GOT not the input's shape: exit 2", err)
rc, out, err = run("check", "--op", "scan", "--got", path("cs.npy"), save("xs64.npy", xs.astype(np.float64)))
ok(rc == 2 and "xs64.npy" in err, "scan: a binary64 input: exit 2 naming it", err)


def exact_sqrt_hi(vals):
    """RN64(sqrt(sum v^2)) from exact integers: S = N / 2^k, R = isqrt(N 4^s) with ~110 bits,
    a sticky half unit when R^2 < N 4^s; Fraction's float() rounds correctly."""
    S = sum((Fraction(float(v)) ** 2 for v in vals), Fraction(0))
    N, k = S.numerator, S.denominator.bit_length() - 1
    if k % 2:
        N, k = 2 * N, k + 1
    sh = max(0, (220 - N.bit_length()) // 2 + 1)
    R = math.isqrt(N << (2 * sh))
    exact = R * R == N << (2 * sh)
    return float(Fraction(2 * R + (0 if exact else 1), 2 ** (sh + k // 2 + 1)))


xn = np.array([2.0 ** 24, 5792, 84, 10, 3, 2], np.float32)  # sqrt = 2^24 + 1: a binary32 tie
for name, v in (("random", xs), ("tie 2^24 + 1", xn), ("near sqrt(FLT_MAX)", np.full(7, 1.5e19, np.float32))):
    got = np.float32(np.sqrt(np.sum(v.astype(np.float64) ** 2)))
    rc, j, err = check_json("--op", "nrm2", "--got", save("n2.npy", got), save("xn.npy", v))
    ok(j is not None and float.fromhex(j["worst"]["exact"]) == exact_sqrt_hi(v),
       f"nrm2 ({name}): the exact root's RN64 is Python's integer square root's", (j, err))
ok(j is not None and rc == 0 and j["ulp_max"] <= 0.5, "nrm2: a binary64-accumulated norm is within half an ulp", j)
rc, j, err = check_json("--op", "asum", "--got", save("as.npy", np.float32(np.abs(xs).sum())), pxs)
ok(j is not None and float.fromhex(j["worst"]["exact"]) == float(sum((abs(Fraction(float(v))) for v in xs), Fraction(0))),
   "asum: the exact sum of |x_i|", (j, err))
# ---- row operations: a softmax from NumPy, the naive and shifted forms -----------------
xs = (rng.standard_normal((6, 50)) * 4).astype(np.float32)
xs[0, 0] = 95  # one logit beyond binary32's exp range
m = xs.max(axis=-1, keepdims=True)
e = np.exp(xs - m)
good = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
with np.errstate(over="ignore", invalid="ignore"):
    en = np.exp(xs)
    naive = (en / en.sum(axis=-1, keepdims=True)).astype(np.float32)
rc, out, err = run("check", "--op", "softmax", "--axis", "-1", "--got", save("sm.npy", good),
                   save("lg.npy", xs), "--ulp-max", "64")
ok(rc == 0 and "result     ok" in out, "softmax, max-shifted in NumPy: within 64 ulp, exit 0", out + err)
rc, out, err = run("check", "--op", "softmax", "--axis", "-1", "--got", save("smn.npy", naive),
                   path("lg.npy"), "--ulp-max", "64")
ok(rc == 1 and "(row 0, column" in out, "softmax, unshifted: row 0 overflows, exit 1, row named", out + err)
rc, out, err = run("check", "--op", "softmax", "--axis", "0", "--got", path("sm.npy"), path("lg.npy"))
ok(rc == 2 and "last axis" in err, "softmax over axis 0: exit 2, only the last axis", err)
rc, out, err = run("check", "--op", "rmsnorm", "--got", path("sm.npy"), path("lg.npy"),
                   save("w7.npy", np.ones(7, np.float32)))
ok(rc == 2 and "w7.npy" in err and "weight" in err, "rmsnorm with a weight of the wrong length: exit 2", err)
# LayerNorm with its bias (torch.nn.LayerNorm(n)): X, W and B files, [w | b] to the descriptor
xl = (rng.standard_normal((5, 40)) * 3 + 2).astype(np.float32)
wl = (1 + rng.integers(-16, 17, 40) / 64).astype(np.float32)
bl = (rng.integers(-64, 65, 40) / 256).astype(np.float32)
x64 = xl.astype(np.float64)
mu = x64.mean(-1, keepdims=True)
zl = (x64 - mu) / np.sqrt(((x64 - mu) ** 2).mean(-1, keepdims=True) + np.float64(np.float32(1e-5)))
yl = (zl * wl + bl).astype(np.float32)  # binary64 throughout, rounded once: within an ulp or so
px, pw, pb = save("lnx.npy", xl), save("lnw.npy", wl), save("lnb.npy", bl)
rc, j, err = check_json("--op", "layernorm", "--got", save("lny.npy", yl), px, pw, pb, "--ulp-max", "2")
ok(j is not None and rc == 0 and j["outputs"] == 200 and j["in_fmt"] == ["f32", "f32", "f32"] and j["ulp_max"] <= 2,
   "layernorm with a bias: NumPy's binary64 layer rounded once is within 2 ulp, three inputs", (j, err))
rc, j, err = check_json("--op", "layernorm", "--got", save("lny0.npy", (zl * wl).astype(np.float32)), px, pw, pb,
                        "--ulp-max", "2")
ok(j is not None and rc == 1 and j["ulp_max"] > 1000, "layernorm: a result without the bias fails (exit 1)", (j, err))
# a row of equal values: x - mean = 0, every output is its bias exactly
xe = np.full((2, 40), 3, np.float32)
rc, j, err = check_json("--op", "layernorm", "--got", save("lnye.npy", np.tile(bl, (2, 1))), save("lnxe.npy", xe), pw, pb)
ok(j is not None and rc == 0 and j["ulp_max"] == 0 and float.fromhex(j["worst"]["exact"]) == float(bl[j["worst"]["index"] % 40]),
   "layernorm of equal values: the exact outputs are the biases, GOT = b is 0 ulp", (j, err))
rc, out, err = run("check", "--op", "layernorm", "--got", path("lny.npy"), px, pw)
ok(rc == 2 and "three input files" in err, "layernorm with X and W only: exit 2, three files wanted", err)
rc, out, err = run("check", "--op", "layernorm", "--got", path("lny.npy"), px, pw, save("b7.npy", bl[:7]))
ok(rc == 2 and "b7.npy" in err and "bias" in err, "layernorm with a bias of the wrong length: exit 2 naming it", err)

# ---- what check must never pass ---------------------------------------------------------------
from decimal import Decimal, ROUND_CEILING


def J(j, *keys):
    """j[k1][k2]...: None where a key is missing (an older check without it fails the point)."""
    for k in keys:
        if not isinstance(j, dict) or k not in j:
            return None
        j = j[k]
    return j


# an unknown operation: the message lists every operation check grades, attention included
rc, out, err = run("check", "--op", "attn", "--got", pg, px)
ok(rc == 2 and "'attn' is not sum, dot" in err and
   any(" attention" in l and "'attn' is not" in l for l in err.splitlines()),
   "an unknown --op: exit 2, the list names attention (its own path)", err)

# the sign of zero: [-0, -0] sums to -0 exactly (IEEE 754, any order); +0 is not that result
pz = save("negz.npy", np.array([-0.0, -0.0], np.float32))
rc, j, err = check_json("--op", "sum", "--got", save("gpz.npy", np.float32(0.0)), pz, "--ulp-max", "0")
ok(j is not None and rc == 1 and not J(j, "pass") and J(j, "wrong_sign_zeros") == 1 and J(j, "correctly_rounded") == 0
   and J(j, "worst", "got_bits") == "0x00000000" and J(j, "worst", "want_bits") == "0x80000000",
   "sum of [-0, -0] = +0: --ulp-max 0 fails it (a zero of the wrong sign), exit 1", (rc, j))
rc, j, err = check_json("--op", "sum", "--got", save("gnz.npy", np.float32(-0.0)), pz, "--ulp-max", "0")
ok(j is not None and rc == 0 and J(j, "correctly_rounded") == 1, "sum of [-0, -0] = -0 passes --ulp-max 0", (rc, j))
# --ulp-max 0.5 asks for round to nearest too (its sign of zero); just above 0.5 it does not
rc, j, err = check_json("--op", "sum", "--got", path("gpz.npy"), pz, "--ulp-max", "0.5")
ok(rc == 1 and J(j, "wrong_sign_zeros") == 1 and "wrong sign" in (J(j, "verdict") or ""),
   "sum of [-0, -0] = +0 fails --ulp-max 0.5: a zero of the wrong sign, exit 1", (rc, j))
rc, j, err = check_json("--op", "sum", "--got", path("gpz.npy"), pz, "--ulp-max", "0.50001")
ok(rc == 0, "... and passes --ulp-max 0.50001 (0 ulp in value; round to nearest not asked)", (rc, j))
rc, j, err = check_json("--op", "sum", "--got", path("gpz.npy"), pz, "--rel-max", "0")
ok(rc == 1, "a zero of the wrong sign fails --rel-max 0 too", (rc, j))
rc, out, err = run("check", "--op", "sum", "--got", path("gpz.npy"), pz, "--ulp-max", "0")
ok(rc == 1 and "want 0x80000000" in out and "wrong sign" in out, "the table names the wrong-signed zero", out)

# --ulp-max 0 fails every output that is not the correctly rounded one, bit for bit
p3 = save("x3.npy", np.array([1.0, 2.0], np.float32))  # exact 3: representable
cases = [("3 (exact)", np.float32(3), 0), ("next above 3", np.nextafter(np.float32(3), np.float32(9)), 1),
         ("next below 3", np.nextafter(np.float32(3), np.float32(0)), 1), ("NaN", np.float32("nan"), 1),
         ("+inf", np.float32("inf"), 1), ("-3", np.float32(-3), 1)]
for name, g, want_rc in cases:
    rc, j, err = check_json("--op", "sum", "--got", save("g3v.npy", g), p3, "--ulp-max", "0")
    ok(rc == want_rc, f"--ulp-max 0 on 1 + 2 = 3, got {name}: exit {want_rc}", (rc, j))
rc, j, err = check_json("--op", "sum", "--got", save("gnan.npy", np.array([0x7FC00001], np.uint32).view(np.float32).reshape(())), p3)
ok(J(j, "worst", "got_bits") == "0x7fc00001" and J(j, "ulp_max") is None,
   "a NaN GOT for a number: its stored bits (payload kept), an infinite error (null)", (rc, j))
pt = save("xt.npy", np.array([1.0, 2.0 ** -30], np.float32))  # exact 1 + 2^-30: no binary32 holds it
rc, j, err = check_json("--op", "sum", "--got", save("g1.npy", np.float32(1)), pt, "--ulp-max", "0")
ok(rc == 1 and J(j, "correctly_rounded") == 1 and J(j, "ulp_max") > 0,
   "--ulp-max 0 fails even RN(s) when s is not a binary32 number (ULP against the exact value)", (rc, j))
rc, j, err = check_json("--op", "sum", "--got", path("g1.npy"), pt, "--ulp-max", "0.5")
ok(rc == 0, "... and --ulp-max 0.5 passes it", (rc, j))
pn = save("xnan.npy", np.array([1.0, np.nan], np.float32))
for name, g, want_rc in (("1.0", np.float32(1), 1), ("NaN", np.float32("nan"), 0)):
    rc, j, err = check_json("--op", "sum", "--got", save("gn.npy", g), pn, "--ulp-max", "1000")
    ok(rc == want_rc, f"exact NaN, got {name}: exit {want_rc} under --ulp-max 1000", (rc, j))

# --correctly-rounded: bit for bit RN(s), whatever the ULP error
for name, g, xs, want_rc in (("RN(1 + 2^-30) = 1", np.float32(1), pt, 0),
                             ("next above 1", np.nextafter(np.float32(1), np.float32(2)), pt, 1),
                             ("+0 for -0", np.float32(0), pz, 1), ("-0 for -0", np.float32(-0.0), pz, 0)):
    rc, j, err = check_json("--op", "sum", "--got", save("gcr.npy", g), xs, "--correctly-rounded")
    ok(rc == want_rc, f"--correctly-rounded, got {name}: exit {want_rc}", (rc, j))
# --rel-max: a result 8 ulp off at 3 has relative error 8 * 2^-22 / 3
g8 = np.float32(3)
for _ in range(8):
    g8 = np.nextafter(g8, np.float32(9))
rel8 = 8 * 2.0 ** -22 / 3
for lim, want_rc in ((rel8 * 0.99, 1), (rel8 * 1.01, 0)):
    rc, j, err = check_json("--op", "sum", "--got", save("g8.npy", g8), p3, "--rel-max", repr(lim))
    ok(rc == want_rc, f"--rel-max {lim:.4g} on a relative error {rel8:.4g}: exit {want_rc}", (rc, j))
# --depth: 8 ulp of 100 = 6.1e-5 is within gamma_99 * 100 (5.9e-4) but not gamma_1 * 100 (6e-6)
g100 = np.float32(100)
for _ in range(8):
    g100 = np.nextafter(g100, np.float32(200))
for depth, want_rc in (("99", 0), ("1", 1)):
    rc, j, err = check_json("--op", "sum", "--got", save("g100.npy", g100), p1, "--bound", "tree", "--depth", depth)
    ok(rc == want_rc, f"--bound tree --depth {depth} on 100 ones 8 ulp off: exit {want_rc}", (rc, j))

# a vacuous bound (fp8 e4m3: K u >= 1 from K = 16) is reported as vacuous and passes nothing
x8 = (rng.standard_normal(50).astype(np.float32).view(np.uint32) >> 24).astype(np.uint8)
x8[(x8 & 0x7f) == 0x7f] = 0x38  # no NaN
px8 = save("x8.npy", x8)
rc, j, err = check_json("--op", "sum", "--dtype", "e4m3", "--got", save("g8w.npy", np.uint8(0x40)), px8, "--bound", "tree")
ok(j is not None and rc == 1 and J(j, "bound", "vacuous") is True and J(j, "bound", "ratio_max") is None
   and J(j, "worst", "ratio") is None and J(j, "tolerance") is None,
   "e4m3 sum, --bound tree: vacuous (null ratio, a flag), exit 1", (rc, j))
want8 = int(J(j, "worst", "want_bits"), 16) if j else 0
rc, j, err = check_json("--op", "sum", "--dtype", "e4m3", "--got", save("g8r.npy", np.uint8(want8)), px8, "--bound", "tree")
ok(rc == 1 and J(j, "correctly_rounded") == 1, "even the correctly rounded e4m3 sum does not pass a vacuous bound", (rc, j))
rc, j, err = check_json("--op", "sum", "--dtype", "e4m3", "--got", path("g8r.npy"), px8, "--ulp-max", "0.5")
ok(rc == 0, "... while --ulp-max 0.5 grades it (exit 0)", (rc, j))
rc, out, err = run("check", "--op", "sum", "--dtype", "e4m3", "--got", path("g8w.npy"), px8)
ok(rc == 0 and "vacuous" in out and "error/bound 0" not in out, "the table says vacuous, never a ratio of 0", out)

# the a-priori bound by hand: products 2^-160 underflow binary32 (qmin 2^-149); n = 3, K = D + 1 = 3
xu = np.full(3, 2.0 ** -80, np.float32)
rc, j, err = check_json("--op", "dot", "--got", save("gu.npy", np.float32(0)), save("xu.npy", xu), path("xu.npy"))
u = Fraction(1, 2 ** 24)
gam = 3 * u / (1 - 3 * u)
hand = gam * 3 * Fraction(1, 2 ** 160) + 3 * Fraction(1, 2 ** 150) * (1 + gam)
ok(j is not None and abs(Fraction(J(j, "worst", "bound") or 0) - hand) <= hand * Fraction(1, 10 ** 12),
   "dot bound = gamma_3 S + 3 (qmin/2)(1 + gamma_3): every product's underflow", (j and J(j, "worst"), float(hand)))
ok(j is not None and rc == 0 and J(j, "worst", "ratio") <= 1, "dot of underflowing products, got 0: within the bound", j)
# nrm2: the squares are products too: x = 2^-80 (x4) squares to 2^-160, 0 in binary32 arithmetic
rc, j, err = check_json("--op", "nrm2", "--got", save("gn0.npy", np.float32(0)), save("xn0.npy", np.full(4, 2.0 ** -80, np.float32)),
                        "--bound", "tree")
ok(j is not None and rc == 0 and J(j, "worst", "ratio") <= 1 and (J(j, "worst", "bound") or 0) >= float(2 * Fraction(1, 2 ** 75)),
   "nrm2 whose squares underflow (0 for 2^-79): within the bound, the squares' underflow counted", (rc, j))

# the printed rtol: rounded up to 4 significant digits, the smallest such decimal >= the true value
for args in (["--op", "dot", "--got", path("got.npy"), path("x.npy"), path("y.npy")], ["--op", "sum", "--got", path("g101.npy"), p1]):
    rc, j, err = check_json(*args)
    rc, out, err = run("check", *args)
    line = [l for l in out.splitlines() if l.startswith("tolerance")]
    got_r = line[0].split("rtol=")[1].split(",")[0] if line else "?"
    true_r = Decimal(J(j, "tolerance", "rtol"))
    want_r = true_r.scaleb(-true_r.adjusted()).quantize(Decimal("0.001"), rounding=ROUND_CEILING)
    ok(line and Decimal(got_r) == want_r.scaleb(true_r.adjusted()),
       f"rtol printed {got_r}: the true {true_r:.6e} rounded up to 4 digits", (line, J(j, "tolerance")))

# .npy edge shapes: a zero-length axis is an empty array; a 0-d array is one value, or refused
rc, j, err = check_json("--op", "sum", "--got", save("ge0.npy", np.zeros(0, np.float32)), save("xe0.npy", np.zeros((0, 5), np.float32)))
ok(j is not None and rc == 0 and J(j, "outputs") == 0 and J(j, "worst") is None and J(j, "ulp_max") is None,
   "a batch of 0 rows: 0 outputs, no worst element, no figures", (rc, j))
rc, j, err = check_json("--op", "sum", "--got", path("ge0.npy"), path("xe0.npy"), "--ulp-max", "1")
ok(rc == 1 and J(j, "verdict").startswith("FAIL: no outputs"), "... and a limit on nothing fails (nothing graded)", (rc, j))
rc, out, err = run("check", "--op", "sum", "--got", path("ge0.npy"), path("xe0.npy"))
ok(rc == 0 and "worst" not in out and "checked    0 outputs" in out, "the table of 0 outputs has no worst line", out)
rc, j, err = check_json("--op", "sum", "--got", path("ge0.npy"), save("xhuge0.npy", np.zeros((0, 2 ** 40), np.float32)))
ok(j is not None and rc == 0 and J(j, "outputs") == 0, "(0, 2^40): no outputs, and nothing allocated for rows of 2^40", (rc, j, err))
rc, j, err = check_json("--op", "sum", "--got", save("gz5.npy", np.zeros(5, np.float32)), save("x50.npy", np.zeros((5, 0), np.float32)),
                        "--ulp-max", "0")
ok(j is not None and rc == 0 and J(j, "outputs") == 5 and J(j, "correctly_rounded") == 5,
   "5 rows of 0 terms: 5 empty sums, each exactly +0", (rc, j))
rc, j, err = check_json("--op", "gemm", "--got", save("gk0.npy", np.zeros((2, 3), np.float32)), save("ak0.npy", np.zeros((2, 0), np.float32)),
                        save("bk0.npy", np.zeros((0, 3), np.float32)), "--ulp-max", "0")
ok(j is not None and rc == 0 and J(j, "outputs") == 6, "gemm with K = 0: 6 outputs, each an empty sum", (rc, j))
rc, out, err = run("check", "--op", "sum", "--got", save("g0d.npy", np.float32(1)), save("x0d.npy", np.float32(1)))
ok(rc == 2 and "x0d.npy" in err and "shape ()" in err, "a 0-d X for a sum: refused, naming it", err)
rc, j, err = check_json("--op", "sum", "--got", path("g0d.npy"), save("x1.npy", np.ones(1, np.float32)), "--ulp-max", "0")
ok(rc == 0 and J(j, "outputs") == 1, "a 0-d GOT is one value", (rc, j))

# .npy headers that lie about their length or their keys: exit 2, naming the file and what
def npy_bytes(header, data=b"", ver=1, hlen=None):
    h = header.encode()
    h += b" " * ((-(len(h) + 11)) % 64) + b"\n"
    n = len(h) if hlen is None else hlen
    pre = b"\x93NUMPY" + bytes([ver, 0]) + (n.to_bytes(2, "little") if ver == 1 else n.to_bytes(4, "little"))
    return pre + h + data


d4 = np.ones(4, np.float32).tobytes()
good = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }"
pgood = path("hgood.npy")
with open(pgood, "wb") as f:
    f.write(npy_bytes(good, d4))
rc, j, err = check_json("--op", "sum", "--got", save("g4.npy", np.float32(4)), pgood, "--ulp-max", "0")
ok(rc == 0, "a hand-written header is read", (rc, j, err))
hl = len(npy_bytes(good)) - 10
for name, data, what in (
        ("hshort.npy", npy_bytes(good, d4, hlen=30), "ends inside the dict"),
        ("hlong.npy", npy_bytes(good, d4, hlen=hl + 8), "length"),
        ("hdup.npy", npy_bytes("{'descr': '<f4', 'shape': (2,), 'fortran_order': False, 'shape': (4,), }", d4), "twice"),
        ("hunk.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1, }", d4), "unknown key"),
        ("hnoshape.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, }", d4), "no 'shape'"),
        ("hinstr.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'x': \"'shape': (4,)\"}", d4), "unknown key"),
        ("htuple.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4), }", d4), "not a tuple"),
        ("htrail.npy", npy_bytes(good, d4 + b"\0\0\0\0"), "bytes after the data"),
        ("hneg.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", d4), "shape")):
    bad_file(name, data, what)
# ---- the example -------------------------------------------------------------------------------
ex = os.path.join(SRC, "examples", "python_check", "check_dot.py")
r = subprocess.run([sys.executable, ex, UG, TMP], capture_output=True, text=True)
ok(r.returncode == 0 and "result     ok" in r.stdout and "FAIL" in r.stdout,
   "examples/python_check/check_dot.py runs: a good kernel passes, a bad one fails",
   r.stdout + r.stderr)

finish()
