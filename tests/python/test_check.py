"""ulpgate.check / assert_exact / exact on NumPy arrays: the figures, the formats and objects
read, the errors, and the CLI's own figures on the same data (docs/python.md)."""
import json
import math
import subprocess

import numpy as np
import pytest

import ulpgate
from ulpgate import _ulpgate

rng = np.random.default_rng(36)


def dots(B=4, n=1000):
    x = rng.standard_normal((B, n)).astype(np.float32)
    y = rng.standard_normal((B, n)).astype(np.float32)
    return x, y, np.einsum("ij,ij->i", x, y)


# --- the figures -------------------------------------------------------------------------------

def test_check_dot_figures():
    x, y, got = dots()
    r = ulpgate.check("dot", x, y, got=got)
    assert r.op == "dot" and r.batch == 4 and r.outputs == 4 and r.n == 1000
    assert r.in_fmt == ["f32", "f32"] and r.out_fmt == "f32" and r.oracle == "fast"
    assert r.ok and r.verdict == "ok" and bool(r)
    assert 0 < r.ulp_max < 1000 and r.ulp_mean <= r.ulp_max
    assert r.bound.cls == "tree" and r.bound.depth == 999 and 0 < r.ratio_max < 1
    assert r.worst.got_bits.startswith("0x") and len(r.worst.got_bits) == 10
    assert r.rtol > 0 and r.atol > 0
    assert str(r).splitlines()[0].startswith("check      dot: 4 outputs")


def test_exact_result_is_correctly_rounded():
    x, y, _ = dots()
    e = ulpgate.exact("dot", x, y)
    r = ulpgate.check("dot", x, y, got=e.rounded, ulp_max=0.5)
    assert r.ok and r.correctly_rounded == 4 and r.ulp_max <= 0.5
    assert e.hi.dtype == np.float64 and e.lo.shape == (4,)
    # hi + lo is the exact dot: the products of binary32 values are exact in binary64 and
    # math.fsum adds them correctly rounded
    for i in range(4):
        s = math.fsum(float(a) * float(b) for a, b in zip(x[i], y[i]))
        assert e.hi[i] == s


def test_exact_f64_sum_hi_lo():
    x = np.array([1e16, 1.0, -1e16, 2.0**-60], dtype=np.float64)
    e = ulpgate.exact("sum", x, fmt="f64")
    assert e.hi == 1.0 and e.lo == 2.0**-60 and e.rounded.dtype == np.float64


def test_exact_formats():
    x = np.array([1.0, 2.0**-8, 2.0**-9], dtype=np.float32)
    assert ulpgate.exact("sum", x, fmt="f32").rounded == np.float32(1 + 2.0**-8 + 2.0**-9)
    assert ulpgate.exact("sum", x, fmt="bf16").rounded.dtype == np.uint16  # bit patterns
    # bfloat16's ulp at 1 is 2^-7: 1 + 3/4 ulp rounds up, 1 + 1/2 ulp ties to even (down)
    assert ulpgate.exact("sum", x, fmt="bf16").rounded == 0x3f81
    assert ulpgate.exact("sum", x[:2], fmt="bf16").rounded == 0x3f80


def test_gemm_batch_and_shapes():
    a = rng.standard_normal((2, 3, 5)).astype(np.float32)
    b = rng.standard_normal((2, 5, 4)).astype(np.float32)
    e = ulpgate.exact("gemm", a, b)
    assert e.rounded.shape == (2, 3, 4)
    r = ulpgate.check("gemm", a, b, got=a @ b)
    assert r.outputs == 24 and r.batch == 2 and r.k == 5 and r.m == 3 and r.gemm_n == 4


def test_every_operation():
    x = rng.standard_normal((3, 64)).astype(np.float32)
    w = np.ones(64, np.float32)
    bias = np.zeros(64, np.float32)
    args = {"sum": (x,), "asum": (x,), "nrm2": (x,), "scan": (x,), "exscan": (x,),
            "dot": (x, x), "gemm": (x, x.T.copy()), "softmax": (x,), "logsumexp": (x,),
            "rmsnorm": (x, w), "layernorm": (x, w, bias)}
    for op in (o["name"] for o in ulpgate.ops()):
        if op not in args:
            continue
        e = ulpgate.exact(op, *args[op])
        r = ulpgate.check(op, *args[op], got=e.rounded, ulp_max=0.5)
        assert r.ok and r.correctly_rounded == r.outputs, (op, r.verdict)


# --- assert_exact -------------------------------------------------------------------------------

def test_assert_exact_wrong_kernel_names_worst_in_hex():
    x, y, got = dots()
    bad = got.copy()
    bad[2] += 1  # a wrong kernel
    with pytest.raises(AssertionError) as ei:
        ulpgate.assert_exact(bad, "dot", x, y)
    msg = str(ei.value)
    assert msg.startswith("dot output 2: got 0x") and "error / tree bound" in msg
    assert "worst      output 2: got 0x" in msg and "want 0x" in msg


def test_assert_exact_correct_kernel_passes():
    x, y, got = dots()
    r = ulpgate.assert_exact(got, "dot", x, y)  # the tree bound at depth n - 1
    assert r.ok


def test_assert_exact_limits():
    x, y, got = dots()
    with pytest.raises(AssertionError, match="ulp > --ulp-max 1"):
        ulpgate.assert_exact(got, "dot", x, y, ulp_max=1)
    with pytest.raises(AssertionError, match="relative error"):
        ulpgate.assert_exact(got, "dot", x, y, rel_max=1e-12)
    ulpgate.assert_exact(got, "dot", x, y, ulp_max=1e6, rel_max=1)


def test_row_operation_needs_a_limit():
    x = rng.standard_normal((2, 16)).astype(np.float32)
    with pytest.raises(ValueError, match="not a bound class of op softmax .its classes: "
                                         "softmax_naive, softmax_shifted, softmax_online"):
        ulpgate.assert_exact(x, "softmax", x)
    ulpgate.assert_exact(ulpgate.exact("softmax", x).rounded, "softmax", x,
                         bound="softmax_shifted")


# --- formats and objects ------------------------------------------------------------------------

def test_bf16_bits_need_dtype():
    x = np.array([0x3f80, 0x4000], dtype=np.uint16)  # bf16 1, 2
    got = np.array(0x4040, dtype=np.uint16)  # bf16 3
    with pytest.raises(TypeError, match="dtype='bf16'"):
        ulpgate.check("sum", x, got=got)
    r = ulpgate.check("sum", x, got=got, dtype="bf16")
    assert r.in_fmt == ["bf16"] and r.out_fmt == "bf16" and r.ulp_max == 0


def test_fp8_bits():
    x = np.array([0x38, 0x38], dtype=np.uint8)  # e4m3 1, 1
    r = ulpgate.check("sum", x, got=np.array([0x40], np.uint8), dtype="e4m3")  # 2
    assert r.ok and r.ulp_max == 0 and r.out_fmt == "e4m3"


def test_fp6_fp4_bits_and_names():
    """OCP MX's FP6/FP4 elements as uint8 codes (dtype=) and by ml_dtypes' names."""
    x = np.array([0x2, 0x2, 0x3], dtype=np.uint8)  # e2m1 1, 1, 1.5: sum 3.5, a tie of 3 and 4
    r = ulpgate.check("sum", x, got=np.array([0x6], np.uint8), dtype="e2m1")  # 4: the even one
    assert r.in_fmt == ["e2m1"] and r.out_fmt == "e2m1" and r.ulp_max == 0.25  # ulp of 4: 2
    assert r.figures["correctly_rounded"] == 1
    r = ulpgate.check("sum", x, got=np.array([0x5], np.uint8), dtype="e2m1")  # 3: the odd one
    assert r.figures["correctly_rounded"] == 0
    e3m2 = np.array([0x0c, 0x0c], dtype=np.uint8)  # e3m2 1, 1 (bias 3: 0 011 00)
    r = ulpgate.check("sum", e3m2, got=np.array([0x10], np.uint8), dtype="e3m2")  # 2
    assert r.ok and r.ulp_max == 0 and r.in_fmt == ["e3m2"]
    with pytest.raises(ValueError, match="'e2m3' or 'e2m1'"):
        ulpgate.check("sum", x, got=np.array([0x6], np.uint8), dtype="f16")
    # a byte with bits above the format's width (two packed FP4 codes, a byte of something
    # else) is no code of it: refused naming the array and the element, never decoded to NaN
    # and graded "ok" with an inf ULP error
    with pytest.raises(ValueError, match=r"input 1: element 0 holds 0xf2, not a code of e2m1"):
        ulpgate.check("sum", np.array([0xf2, 0x2], np.uint8), got=np.array([0x4], np.uint8),
                      dtype="e2m1")
    with pytest.raises(ValueError, match=r"got: element 0 holds 0x40, not a code of e3m2"):
        ulpgate.check("sum", e3m2, got=np.array([0x40], np.uint8), dtype="e3m2")

    class Named:  # an ml_dtypes array of float4_e2m1fn: one code a byte behind it
        dtype = "float4_e2m1fn"

        def view(self, name):
            assert name == "uint8"
            return x

    r = ulpgate.check("sum", Named(), got=np.array([0x6], np.uint8), dtype="e2m1")
    assert r.in_fmt == ["e2m1"] and r.figures["correctly_rounded"] == 1


def test_f16_and_mixed_formats():
    x = rng.standard_normal(100).astype(np.float16)
    r = ulpgate.check("sum", x, got=np.float32(x.astype(np.float32).sum()))
    assert r.in_fmt == ["f16"] and r.out_fmt == "f32"


def test_strided_input_is_gathered_and_contiguous_read_in_place():
    x = rng.standard_normal((4, 200)).astype(np.float32)
    assert _ulpgate.describe(x) == ("f32", (4, 200), False)
    assert _ulpgate.describe(x[:, ::2]) == ("f32", (4, 100), True)
    r1 = ulpgate.check("sum", x[:, ::2], got=x[:, ::2].sum(axis=1))
    r2 = ulpgate.check("sum", np.ascontiguousarray(x[:, ::2]), got=x[:, ::2].sum(axis=1))
    assert r1.figures["json"] == r2.figures["json"]


def test_objects_array_and_dlpack():
    x = rng.standard_normal(50).astype(np.float32)

    class ArrayOnly:
        def __array__(self, dtype=None):
            return x

    class DLPackOnly:
        def __dlpack__(self, stream=None):
            return x.__dlpack__()

        def __dlpack_device__(self):
            return x.__dlpack_device__()

    got = np.float32(x.sum())
    want = ulpgate.check("sum", x, got=got).figures["json"]
    assert ulpgate.check("sum", ArrayOnly(), got=got).figures["json"] == want
    if hasattr(x, "__dlpack__"):
        assert ulpgate.check("sum", DLPackOnly(), got=got).figures["json"] == want
    import array
    assert ulpgate.check("sum", array.array("f", x.tolist()), got=got).figures["json"] == want


def test_bad_arguments_name_the_argument():
    x, y, got = dots()
    with pytest.raises(TypeError, match="input 1: a list is not an array"):
        ulpgate.check("sum", [1.0, 2.0], got=got)
    with pytest.raises(TypeError, match="got: dtype int32 is not float64"):
        ulpgate.check("sum", x, got=np.zeros(4, np.int32))
    with pytest.raises(ValueError, match="big-endian"):
        ulpgate.check("sum", x.astype(">f4"), got=got)
    with pytest.raises(ValueError, match="got: shape"):
        ulpgate.check("dot", x, y, got=got[:3])
    with pytest.raises(ValueError, match="is not sum, dot"):
        ulpgate.check("conv", x, got=got)
    with pytest.raises(ValueError, match="takes 2 input arrays"):
        ulpgate.check("dot", x, got=got)
    with pytest.raises(TypeError, match="unknown option"):
        ulpgate.check("dot", x, y, got=got, epsilon=1)
    with pytest.raises(ValueError, match="takes no eps"):
        ulpgate.check("dot", x, y, got=got, eps=1e-5)
    with pytest.raises(ValueError, match="ulp_max=-1"):
        ulpgate.check("dot", x, y, got=got, ulp_max=-1)


# --- the CLI on the same data ----------------------------------------------------------------

CASES = [
    ("dot", lambda: dots()[:2], lambda x, y: np.einsum("ij,ij->i", x, y), ["--bound", "tree"]),
    ("sum", lambda: (rng.standard_normal((3, 500)).astype(np.float16),),
     lambda x: x.astype(np.float32).sum(axis=1), ["--depth", "9"]),
    ("gemm", lambda: (rng.standard_normal((6, 7)), rng.standard_normal((7, 5))),
     lambda a, b: a @ b, ["--ulp-max", "0.5"]),
    ("softmax", lambda: (rng.standard_normal((2, 33)).astype(np.float32),),
     lambda x: (np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)).astype(np.float32),
     ["--ulp-max", "8"]),
    ("layernorm", lambda: (rng.standard_normal((2, 33)).astype(np.float32),
                           np.full(33, 1.5, np.float32), np.full(33, 0.25, np.float32)),
     lambda x, w, b: ((x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
                      * w + b).astype(np.float32), ["--rel-max", "1e-6"]),
]


@pytest.mark.parametrize("op,make,kernel,opts", CASES, ids=[c[0] for c in CASES])
def test_cli_and_python_agree(tmp_path, cli, op, make, kernel, opts):
    inputs = make()
    got = kernel(*inputs)
    files = []
    for i, a in enumerate(inputs):
        files.append(str(tmp_path / ("in%d.npy" % i)))
        np.save(files[-1], a)
    np.save(tmp_path / "got.npy", got)
    p = subprocess.run([cli, "check", "--op", op, "--json", "--got", str(tmp_path / "got.npy")]
                       + opts + files, capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    kw = {}
    names = {"--bound": "bound", "--depth": "depth", "--ulp-max": "ulp_max",
             "--rel-max": "rel_max"}
    for k, v in zip(opts[::2], opts[1::2]):
        kw[names[k]] = v if k == "--bound" else float(v)
    r = ulpgate.check(op, *inputs, got=got, **kw)
    assert json.loads(p.stdout) == json.loads(r.figures["json"])
    assert p.stdout == r.figures["json"]  # the same text, digit for digit
    assert (p.returncode == 0) == r.ok
    table = subprocess.run([cli, "check", "--op", op, "--got", str(tmp_path / "got.npy")]
                           + opts + files, capture_output=True, text=True)
    assert table.stdout == r.text


def test_dtype_named_bfloat16_is_read_as_bits():
    """An array whose dtype is named bfloat16 (ml_dtypes) is read through .view('uint16'):
    a stand-in with that dtype name and NumPy bits behind it."""
    bits = np.array([0x3f80, 0x4000, 0x4040], dtype=np.uint16)  # 1, 2, 3

    class Named:
        dtype = "bfloat16"

        def view(self, name):
            assert name == "uint16"
            return bits

    got = np.array(0x40c0, dtype=np.uint16)  # 6
    r = ulpgate.check("sum", Named(), got=got, dtype="bf16")
    assert r.in_fmt == ["bf16"] and r.ulp_max == 0
    with pytest.raises(TypeError, match="its dtype is bf16, but dtype=e4m3"):
        ulpgate.check("sum", Named(), got=got, dtype="e4m3")


def test_mpfr_oracle_same_figures_and_fast_again():
    x, y, got = dots(2, 300)
    fast = ulpgate.check("dot", x, y, got=got).figures
    mpfr = ulpgate.check("dot", x, y, got=got, oracle="mpfr").figures
    assert mpfr["oracle"] == "mpfr" and fast["oracle"] == "fast"
    for k in ("ulp_max", "ulp_mean", "rel_max", "correctly_rounded"):
        assert fast[k] == mpfr[k], k
    for k in ("index", "got", "want", "exact", "got_bits", "want_bits", "ulp", "rel"):
        assert fast["worst"][k] == mpfr["worst"][k], k
    # the bound's S = sum |terms| is each oracle's upper bound within 2^-40 (oracle.h: sum_abs),
    # not an exact value: the ratios and the tolerance agree to that, not to the bit
    assert fast["worst"]["ratio"] == pytest.approx(mpfr["worst"]["ratio"], rel=2**-39)
    assert fast["tolerance"]["atol"] == pytest.approx(mpfr["tolerance"]["atol"], rel=2**-39)
    assert ulpgate.check("dot", x, y, got=got).figures["json"] == fast["json"]


def test_correctly_rounded_limit_and_no_bound_for_rows():
    x, y, _ = dots()
    e = ulpgate.exact("dot", x, y)
    assert ulpgate.check("dot", x, y, got=e.rounded, correctly_rounded=True).ok
    bad = e.rounded.copy()
    bad[1] = np.nextafter(bad[1], np.float32(np.inf))  # one ulp off: within any tree bound
    assert ulpgate.check("dot", x, y, got=bad).ok
    with pytest.raises(AssertionError, match="^dot output 1: got 0x"):
        ulpgate.assert_exact(bad, "dot", x, y, correctly_rounded=True)
    r = ulpgate.check("softmax", x, got=x)
    assert r.bound is None and r.ratio_max is None and r.rtol is None


def test_argument_errors_name_the_argument():
    """A limit or option of the wrong type, or an op name with a NUL byte, is refused naming the
    argument (not "must be real number, not str", not "embedded null character")."""
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match=r"^ulp_max: a number, not '1'$"):
        ulpgate.check("sum", x, got=np.float32(4), ulp_max="1")
    with pytest.raises(TypeError, match=r"^depth: a number, not '3'$"):
        ulpgate.check("sum", x, got=np.float32(4), depth="3")
    with pytest.raises(ValueError, match=r"^op: 'su\\x00m' holds a NUL byte"):
        ulpgate.check("su\0m", x, got=np.float32(4))
    assert ulpgate.check("sum", x, got=np.float32(4), ulp_max=np.float32(0), depth=np.int64(3)).ok
    with pytest.raises(ValueError, match=r"^ulp_max: 1000000000000000000000\d* is beyond binary64's range$"):
        ulpgate.check("sum", x, got=np.float32(4), ulp_max=10 ** 400)
    with pytest.raises(TypeError, match=r"^bound: a class's name \(a str\) or None, not 1$"):
        ulpgate.check("sum", x, got=np.float32(4), bound=1)
    with pytest.raises(TypeError, match=r"^axis: an int or None, not 'x'$"):
        ulpgate.check("sum", x, got=np.float32(4), axis="x")

    class NotACapsule:  # a __dlpack__ that returns something else
        def __dlpack__(self, **kw):
            return 5

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(TypeError, match=r"^input 1: its __dlpack__\(\) returned int, not an "):
        ulpgate.check("sum", NotACapsule(), got=np.float32(4))
