"""Every bound class of an operation, by name, in ulpgate.check(bound=) and `ulpgate check
--bound`: the same figures from both on the same files (one library), the class's parameters
(accumulator, operand format) passed through, and each class's accumulation term a bound needs
(a kernel whose accumulation error alone is large passes its class and would not without it)."""
import json
import subprocess

import numpy as np
import pytest

import ulpgate

rng = np.random.default_rng(43)
OPS = {o["name"]: o for o in ulpgate.ops()}


def classes(op):
    return [c for c in OPS[op]["classes"].split(", ") if c]


def data(op, cls):
    """(inputs, got, dtype, extra kwargs) for op graded under cls: the formats the class is of
    (bf16_out: a bfloat16 GOT; f16_acc: binary16 data; f64_*: binary64), GOT the exact result
    rounded (what a kernel of the class may return)."""
    fmt = {"f16_acc": np.float16, "f64_tree": np.float64, "f64_kahan": np.float64}.get(cls,
                                                                                      np.float32)
    n = 48
    x = rng.standard_normal((3, n)).astype(fmt)
    ins = {"sum": (x,), "asum": (x,), "nrm2": (x,), "scan": (x,), "dot": (x, x[::-1].copy()),
           "gemm": (x, x.T.copy()), "softmax": (x,), "logsumexp": (x,),
           "rmsnorm": (x, np.full(n, 1.5, fmt)),
           "layernorm": (x, np.full(n, 1.5, fmt), np.full(n, 0.25, fmt))}[op]
    out = {np.float16: "f16", np.float64: "f64"}.get(fmt, "bf16" if cls == "bf16_out" else "f32")
    got = ulpgate.exact(op, *ins, fmt=out).rounded
    return ins, got, "bf16" if out == "bf16" else None


CASES = [(op, c) for op in ["sum", "asum", "nrm2", "scan", "dot", "gemm", "softmax", "logsumexp",
                            "rmsnorm", "layernorm"] for c in classes(op)]


def test_every_operation_lists_its_classes():
    assert "bf16_out" in classes("gemm") and "block_fma" in classes("gemm")
    assert classes("softmax") == ["softmax_naive", "softmax_shifted", "softmax_online"]
    assert "tree" not in classes("rmsnorm") and classes("sum")[0] == "tree"


@pytest.mark.parametrize("op,cls", CASES, ids=["%s-%s" % c for c in CASES])
def test_cli_and_python_agree_on_every_class(op, cls, tmp_path, cli):
    ins, got, dtype = data(op, cls)
    r = ulpgate.check(op, *ins, got=got, bound=cls, dtype=dtype)
    assert r.bound.cls == cls and r.ok, r.verdict
    assert r.bound.ratio_max is not None and 0 <= r.bound.ratio_max <= 1
    paths = []
    for i, a in enumerate(ins):
        paths.append(str(tmp_path / ("in%d.npy" % i)))
        np.save(paths[-1], a)
    np.save(str(tmp_path / "got.npy"), got)
    args = [cli, "check", "--json", "--op", op, "--bound", cls, "--got",
            str(tmp_path / "got.npy")] + paths + (["--dtype", dtype] if dtype else [])
    p = subprocess.run(args, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert json.loads(p.stdout) == json.loads(r.figures["json"])


def test_class_parameters_reach_the_bound(tmp_path, cli):
    """block_fma's operand format and accumulator: bfloat16 operands round (r = 2^-7 S) where
    binary32 ones do not; a binary16 accumulator's c is larger than binary32's."""
    a = rng.standard_normal((8, 64)).astype(np.float32)
    b = rng.standard_normal((64, 8)).astype(np.float32)
    got = ulpgate.exact("gemm", a, b).rounded
    f32 = ulpgate.check("gemm", a, b, got=got, bound="block_fma")
    bf = ulpgate.check("gemm", a, b, got=got, bound="block_fma", op_fmt="bf16")
    h = ulpgate.check("gemm", a, b, got=got, bound="block_fma", acc="f16", op_fmt="f16")
    assert f32.bound.op_fmt == "f32" and bf.bound.op_fmt == "bf16" and h.bound.acc_fmt == "f16"
    assert f32.bound.block_model == "envelope"
    assert bf.rtol > 4 * f32.rtol and h.rtol > f32.rtol
    with pytest.raises(ValueError, match="op_fmt='bf17'"):
        ulpgate.check("gemm", a, b, got=got, bound="block_fma", op_fmt="bf17")


def test_wrong_class_or_format_refused():
    x = rng.standard_normal((2, 16)).astype(np.float32)
    with pytest.raises(ValueError, match="not a bound class of op sum.*bf16_out"):
        ulpgate.check("sum", x, got=x.sum(1), bound="softmax_online")
    with pytest.raises(ValueError, match="the class's output is bf16"):
        ulpgate.check("sum", x, got=x.sum(1), bound="bf16_out")
    with pytest.raises(ValueError, match="not a bound class of op softmax .its classes: "
                                         "softmax_naive"):
        ulpgate.check("softmax", x, got=x, bound="tree")
    with pytest.raises(ValueError, match="acc, op_fmt, tc_model: the parameters of a bound class"):
        ulpgate.check("sum", x, got=x.sum(1), acc="f64")


def _cancelling(n=1000):
    """2^25, n ones, -2^25: a binary32 accumulator in this order loses every one (the exact sum
    is n, the accumulated 0): an error of n that only the accumulation term of a bound covers."""
    return np.array([2.0**25] + [1.0] * n + [-2.0**25], np.float32)


def test_bf16_out_needs_its_accumulation_term():
    x = _cancelling()
    acc = np.float32(0)
    for v in x:
        acc = np.float32(acc + v)
    assert acc == 0
    got = np.array(int(np.float32(acc).view(np.uint32)) >> 16, np.uint16)  # bf16(0)
    r = ulpgate.check("sum", x, got=got, dtype="bf16", bound="bf16_out")
    assert r.ok and 0.1 < r.bound.ratio_max <= 1, r.verdict


def test_block_fma_needs_its_accumulation_term():
    x = _cancelling()
    # binary32 operands (no operand rounding: r = 0), so the accumulation is the whole bound
    r = ulpgate.check("dot", x, np.ones_like(x), got=np.float32(0), bound="block_fma")
    assert r.ok and 0 < r.bound.ratio_max <= 1, r.verdict
    r = ulpgate.check("dot", x, np.ones_like(x), got=np.float32(0), bound="block_fma_promoted")
    assert r.ok and 0 < r.bound.ratio_max <= 1, r.verdict


def test_tensor_core_model_by_gpu(tmp_path, cli):
    """block_fma under a GPU's published model (tc_model=): tighter than the envelope, named in
    the result, the same from the CLI, and for this check only (the envelope again after)."""
    a = rng.standard_normal((8, 256)).astype(np.float32)
    b = rng.standard_normal((256, 8)).astype(np.float32)
    got = (a @ b).astype(np.float32)
    env = ulpgate.check("gemm", a, b, got=got, bound="block_fma", op_fmt="bf16")
    h100 = ulpgate.check("gemm", a, b, got=got, bound="block_fma", op_fmt="bf16",
                         tc_model="H100")
    assert "H100" in h100.bound.block_model and env.bound.block_model == "envelope"
    assert h100.bound.ratio_max > env.bound.ratio_max and h100.rtol < env.rtol
    again = ulpgate.check("gemm", a, b, got=got, bound="block_fma", op_fmt="bf16")
    assert again.figures["json"] == env.figures["json"]
    for i, x in enumerate((a, b, got)):
        np.save(str(tmp_path / ("%d.npy" % i)), x)
    p = subprocess.run([cli, "check", "--json", "--op", "gemm", "--bound", "block_fma",
                        "--op-fmt", "bf16", "--tc-model", "H100", "--got", str(tmp_path / "2.npy"),
                        str(tmp_path / "0.npy"), str(tmp_path / "1.npy")],
                       capture_output=True, text=True)
    assert p.returncode == 0 and json.loads(p.stdout) == json.loads(h100.figures["json"]), p.stderr
    with pytest.raises(ValueError, match="tc_model: 'Z9' names no GPU .*H100"):
        ulpgate.check("gemm", a, b, got=got, bound="block_fma", tc_model="Z9")
