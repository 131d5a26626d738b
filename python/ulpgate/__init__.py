"""ulpgate from Python: grade a kernel's outputs against the exact results (docs/python.md).

    import ulpgate
    r = ulpgate.check("dot", x, y, got=out)           # -> Result: the figures of `ulpgate check`
    ulpgate.assert_exact(out, "dot", x, y, ulp_max=4)  # AssertionError with the worst element
    e = ulpgate.exact("sum", x, fmt="f32")             # correctly rounded, and (hi, lo) exactly

Everything numerical is the C library's (ulpgate._ulpgate: the operation table, the oracle, the
formats, the bounds, `ulpgate check`'s grading); this package only passes arguments through.
Inputs: NumPy arrays, PyTorch CPU tensors, anything with the buffer protocol, __dlpack__ or
__array__; float64 / float32 / float16, bfloat16 and fp8 by dtype name (ml_dtypes, PyTorch)
or as uint16 / uint8 bit patterns with dtype="bf16" / "e4m3" / "e5m2" / "e3m2" / "e2m3" / "e2m1".
"""
from . import _ulpgate
from ._result import Bound, Result, Worst

__all__ = ["check", "assert_exact", "assert_close", "exact", "ops", "Result", "Bound", "Worst",
           "Exact", "version"]
version = _ulpgate.version

# The pytest plugin's hook (pytest_plugin.py): called with (result, passed, label) for every
# check made while a test runs, to write its row; None outside a test.
_recorder = None
# The running test's node id (pytest_plugin.py), for the rerun hint of a failed assertion.
_current_test = None


def ops():
    """The operations check knows, as dicts (name, doc, inputs, layout, out, sum)."""
    return _ulpgate.ops()


def _grade(op, inputs, got, axis, bound, ulp_max, rel_max, correctly_rounded, opts):
    if not isinstance(op, str):
        raise TypeError("op: an operation's name (%s), not %r"
                        % (", ".join(o["name"] for o in _ulpgate.ops()), op))
    unknown = set(opts) - {"depth", "dtype", "oracle", "eps", "acc", "op_fmt", "tc_model",
                           "causal", "scale"}
    if unknown:
        raise TypeError("unknown option(s) %s (op options: depth, dtype, oracle, eps, acc, "
                        "op_fmt, tc_model; attention: causal, scale)" % ", ".join(sorted(unknown)))
    if "\0" in op:
        raise ValueError("op: %r holds a NUL byte: not an operation's name" % op)
    for name, value in (("ulp_max", ulp_max), ("rel_max", rel_max), ("depth", opts.get("depth")),
                        ("eps", opts.get("eps")), ("scale", opts.get("scale"))):
        if value is not None and (isinstance(value, (str, bytes, bool)) or
                                  not hasattr(value, "__float__")):
            raise TypeError("%s: a number, not %r" % (name, value))
        if value is not None:
            try:
                float(value)
            except OverflowError:
                raise ValueError("%s: %r is beyond binary64's range" % (name, value)) from None
    if bound is not None and not isinstance(bound, str):
        raise TypeError("bound: a class's name (a str) or None, not %r" % (bound,))
    if axis is not None and (isinstance(axis, bool) or not hasattr(axis, "__index__")):
        raise TypeError("axis: an int or None, not %r" % (axis,))
    return Result(_ulpgate.check(op, tuple(inputs), got, axis=axis, bound=bound,
                                 ulp_max=ulp_max, rel_max=rel_max,
                                 correctly_rounded=correctly_rounded, **opts))


def _record(result, passed, name):
    if _recorder is not None:
        _recorder(result, passed, name)


def check(op, *inputs, got, axis=None, bound=None, ulp_max=None, rel_max=None,
          correctly_rounded=False, name=None, **op_options):
    """Grade got, a kernel's outputs of op on inputs, against the exact results: the figures of
    `ulpgate check` (docs/check.md) as a Result.  Limits (ulp_max, rel_max, bound=) set
    result.ok / verdict, never raise: assert_exact raises; correctly_rounded=True: every output
    bit for bit the exact result rounded to nearest.  bound: "tree" or a bound class of the
    operation (ulpgate.ops()[i]["classes"]: "bf16_out", "block_fma", "softmax_online", ...,
    docs/check.md), graded by the code that grades a kernel of that class.  op_options:
    depth= (the bound's depth: n - 1 by default), acc= and op_fmt= (a class's accumulator and
    operand formats: "f32", "f16", "bf16", ...), dtype= ("bf16", "e4m3", "e5m2": what uint16 /
    uint8 arrays hold), oracle= ("fast", "mpfr": both exact), eps= (rmsnorm, layernorm: the
    descriptor's 1e-5, the only one computed).  axis: a row operation's axis (the last).
    Attention: check("attention", q, k, v, got=o or got=(o, lse), causal=False, scale=None,
    bound="attn_fa2_bf16", ...): q (L, d), k (S, d), v (S, dv) with leading (H) or (B, H) axes,
    k and v of H_kv heads (grouped-query); result.lse the lse's Result (None without one), and
    result.ok both verdicts.
    name: the row's label in a --ulpgate-report (default: op)."""
    r = _grade(op, inputs, got, axis, bound, ulp_max, rel_max, correctly_rounded, op_options)
    _record(r, r.ok, name or op)
    return r


def assert_exact(got, op, *inputs, ulp_max=None, rel_max=None, bound=None,
                 correctly_rounded=False, axis=None, name=None, **op_options):
    """Raise AssertionError, with the worst element's lines as `ulpgate check` prints them, when
    got breaks a limit: ulp_max (ULP of got's format), rel_max, or bound="tree" (the a-priori
    tree bound at depth=, n - 1 by default), correctly_rounded=True.  With no limit, the bound
    of the class named by bound is asserted (default "tree", for the operations that are sums:
    sum, dot, gemm, scan, exscan, nrm2, asum); a row operation (softmax, logsumexp, rmsnorm,
    layernorm) has no tree bound: name its kernel's class (bound="softmax_online", ...) or a
    limit.  Returns the Result when it holds."""
    if ulp_max is None and rel_max is None and bound is None and not correctly_rounded:
        bound = "tree"
    r = _grade(op, inputs, got, axis, bound, ulp_max, rel_max, correctly_rounded, op_options)
    _record(r, r.ok, name or op)
    if not r.ok:
        # the first line is what pytest's short summary shows: the worst element first
        why = r.verdict[6:] if r.verdict.startswith("FAIL: ") else r.verdict
        if r.worst is not None:
            msg = "%s output %d: got %s want %s: %s" % (op, r.worst.index, r.worst.got_bits,
                                                       r.worst.want_bits, why)
        else:
            msg = "%s: %s" % (op, why)
        if _current_test:
            msg += "; rerun: pytest '%s'" % _current_test
        raise AssertionError(msg + "\n" + r.failure)
    return r


# torch.testing.assert_close's default (rtol, atol) by the outputs' dtype (its documentation's
# table); fp8 has none there.
TORCH_DEFAULTS = {"f16": (1e-3, 1e-5), "bf16": (1.6e-2, 1e-5), "f32": (1.3e-6, 1e-5),
                  "f64": (1e-7, 1e-7)}


def assert_close(actual, op, *inputs, bound=None, name=None, **op_options):
    """A drop-in for torch.testing.assert_close(actual, expected) that needs no expected and
    no tolerance: asserts the proven bound of the class named by bound (default "tree"; a row
    operation or attention names its kernel's class: "softmax_online", "attn_fa2_bf16", ...)
    on these inputs, and prints the rtol / atol that bound justifies beside the defaults
    assert_close would have used for actual's dtype, so what a default tolerance lets through
    (or wrongly fails) shows.  Raises AssertionError as assert_exact does; returns the Result
    (result.tolerance_line the line printed)."""
    r = assert_exact(actual, op, *inputs, bound=bound or "tree", name=name, **op_options)
    d = TORCH_DEFAULTS.get(r.out_fmt)
    cls = r.bound.cls if r.bound else bound
    if r.rtol is None or r.rtol != r.rtol or r.rtol == float("inf"):
        line = "ulpgate %s (%s bound): no tolerance derived (the bound is vacuous here)" % (op,
                                                                                          cls)
    else:
        line = "ulpgate %s (%s bound): rtol=%.4g, atol=%.4g proven on these inputs" % (
            op, cls, r.rtol, r.atol)
    if d:
        line += "; torch.testing.assert_close's defaults for %s: rtol=%.4g, atol=%.4g" % (
            r.out_fmt, d[0], d[1])
        if r.rtol is not None and r.rtol != float("inf"):
            rl, al = d[0] > r.rtol, d[1] > r.atol
            if rl and al:
                line += " (looser in both: they accept errors the bound rules out)"
            elif not rl and not al:
                line += " (tighter in both: a correct kernel may fail them)"
            else:
                line += " (looser in %s, tighter in %s)" % (("rtol", "atol") if rl
                                                            else ("atol", "rtol"))
    print(line)
    r.tolerance_line = line
    return r


class Exact(tuple):
    """exact()'s answer: (rounded, hi, lo).  rounded: the exact results rounded to nearest in
    the format asked for (bfloat16 / fp8 as uint16 / uint8 bit patterns); hi, lo: float64 arrays
    with hi + lo the exact result to about 2^-106 relative (hi = RN64(exact), lo = RN64(exact -
    hi)), the oracle's record."""

    __slots__ = ()

    def __new__(cls, t):
        return tuple.__new__(cls, t)

    rounded = property(lambda self: self[0])
    hi = property(lambda self: self[1])
    lo = property(lambda self: self[2])


def exact(op, *inputs, fmt="f32", axis=None, **op_options):
    """The exact results of op on inputs, from the oracle: Exact(rounded, hi, lo), arrays of
    the outputs' shape (as check's got).  fmt: the format to round to ("f64", "f32", "f16",
    "bf16", "e4m3", "e5m2").  op_options: dtype=, oracle=, eps=."""
    unknown = set(op_options) - {"dtype", "oracle", "eps"}
    if unknown:
        raise TypeError("unknown option(s) %s (exact takes dtype, oracle, eps)"
                        % ", ".join(sorted(unknown)))
    return Exact(_ulpgate.exact(op, tuple(inputs), fmt=fmt, axis=axis, **op_options))
