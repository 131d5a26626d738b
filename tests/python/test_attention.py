"""ulpgate.check("attention", q, k, v, got=(o, lse), causal=, scale=): the grading of `ulpgate
check --op attention` (harness/check/check_attn.c, one library): the same figures from both on
the same .npy files, grouped-query heads, the lse optional, bfloat16 inputs, a class's bound."""
import json
import subprocess

import numpy as np
import pytest

import ulpgate

rng = np.random.default_rng(35)


def np_attention(q, k, v, causal, scale):
    """float64 attention of float32 arrays, PyTorch's layout and GQA, rounded by the caller."""
    H, Hkv = q.shape[-3], k.shape[-3]
    kk = np.repeat(k, H // Hkv, axis=-3).astype(np.float64)
    vv = np.repeat(v, H // Hkv, axis=-3).astype(np.float64)
    s = np.einsum("...ld,...sd->...ls", q.astype(np.float64), kk) * float(scale)
    L, S = q.shape[-2], k.shape[-2]
    if causal:
        i, j = np.arange(L)[:, None], np.arange(S)[None, :]
        s = np.where(j <= i + S - L, s, -np.inf)
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    l = e.sum(-1, keepdims=True)
    return ((e / l) @ vv).astype(np.float32), (m + np.log(l))[..., 0].astype(np.float32)


def qkv(B=2, H=4, Hkv=2, L=8, S=64, d=32, dv=16):
    return (rng.standard_normal((B, H, L, d)).astype(np.float32),
            rng.standard_normal((B, Hkv, S, d)).astype(np.float32),
            rng.standard_normal((B, Hkv, S, dv)).astype(np.float32))


def cli_json(cli, tmp_path, arrays, *opts):
    paths = []
    for name, a in arrays:
        paths.append(str(tmp_path / (name + ".npy")))
        np.save(paths[-1], a)
    args = [cli, "check", "--json", "--op", "attention", "--got", paths[3]] + paths[:3]
    if len(paths) > 4:
        args += ["--lse", paths[4]]
    p = subprocess.run(args + list(opts), capture_output=True, text=True)
    return p.returncode, [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")], \
        p.stderr


@pytest.mark.parametrize("causal,scale,with_lse", [(True, None, True), (False, 0.25, True),
                                                   (True, 1.0, False), (False, None, False)])
def test_python_equals_cli(cli, tmp_path, causal, scale, with_lse):
    q, k, v = qkv()
    o, lse = np_attention(q, k, v, causal, np.float32(scale or 1 / np.sqrt(32)))
    got = (o, lse) if with_lse else o
    r = ulpgate.check("attention", q, k, v, got=got, causal=causal, scale=scale, ulp_max=1,
                      bound="attn_naive")
    assert r.ok and r.outputs == 2 * 4 * 8 * 16 and r.bound.cls == "attn_naive", r.verdict
    assert (r.lse is not None) == with_lse
    opts = ["--ulp-max", "1", "--bound", "attn_naive"] + (["--causal"] if causal else []) + \
        (["--scale", repr(scale)] if scale else [])
    arrays = [("q", q), ("k", k), ("v", v), ("o", o)] + ([("lse", lse)] if with_lse else [])
    rc, js, err = cli_json(cli, tmp_path, arrays, *opts)
    assert rc == 0, err
    assert js[0] == json.loads(r.figures["json"])
    if with_lse:
        assert js[1] == json.loads(r.lse.figures["json"]) and r.lse.outputs == 2 * 4 * 8


def test_wrong_scale_or_mask_fails_and_lse_counts():
    q, k, v = qkv()
    o, lse = np_attention(q, k, v, True, np.float32(1 / np.sqrt(32)))
    assert not ulpgate.check("attention", q, k, v, got=o, ulp_max=1)  # graded without causal
    assert not ulpgate.check("attention", q, k, v, got=o, causal=True, scale=0.5, ulp_max=1)
    bad = lse.copy()
    bad[0, 1, 2] += 1
    r = ulpgate.check("attention", q, k, v, got=(o, bad), causal=True, ulp_max=1)
    assert not r.ok and r.lse is not None and not r.lse.ok and r.verdict.startswith("lse FAIL")


def test_bf16_inputs_and_refusals():
    q, k, v = qkv(B=1, H=2, Hkv=1, L=4, S=16, d=8, dv=8)
    bits = [(a.view(np.uint32) >> 16).astype(np.uint16) for a in (q, k, v)]
    vals = [(b.astype(np.uint32) << 16).view(np.float32) for b in bits]
    o, lse = np_attention(*vals, False, np.float32(1 / np.sqrt(8)))
    r = ulpgate.check("attention", *bits, got=(o, lse), dtype="bf16", ulp_max=1)
    assert r.ok and r.in_fmt == ["bf16", "bf16", "bf16"], r.verdict
    with pytest.raises(ValueError, match=r"got\[1\] \(lse\): shape \(1, 4, 2\).*\(1, 2, 4, 8\)"):
        ulpgate.check("attention", q, k, v, got=(o, np.ascontiguousarray(lse.transpose(0, 2, 1))))
    with pytest.raises(ValueError, match="causal=, scale=: attention's options"):
        ulpgate.check("sum", q[0, 0, 0], got=np.float32(0), causal=True)
    with pytest.raises(ValueError, match="not a bound class of op attention"):
        ulpgate.check("attention", q, k, v, got=o, bound="tree")
    nan = o.copy()
    nan[0, 0, 0, 0] = np.nan
    assert not ulpgate.check("attention", q, k, v, got=nan)
    empty = [np.zeros((0,) + a.shape[1:], np.float32) for a in (q, k, v, o)]
    assert not ulpgate.check("attention", *empty[:3], got=empty[3], ulp_max=1)


CLASSES = [c for c in next(o for o in ulpgate.ops() if o["name"] == "attention")["classes"]
           .split(", ") if c]


@pytest.mark.parametrize("cls", CLASSES)
def test_every_attention_class_python_equals_cli(cli, tmp_path, cls):
    """Each attention class's bound (the descriptor's bound_at) from both front ends: the same
    figures, ratio and verdict, whether the class holds for this output or not."""
    q, k, v = qkv(B=1, H=2, Hkv=1, L=4, S=32, d=16, dv=8)
    o, lse = np_attention(q, k, v, True, np.float32(1 / np.sqrt(16)))
    r = ulpgate.check("attention", q, k, v, got=(o, lse), causal=True, bound=cls)
    assert r.bound.cls == cls and r.lse.bound.cls == cls
    rc, js, err = cli_json(cli, tmp_path, [("q", q), ("k", k), ("v", v), ("o", o), ("lse", lse)],
                           "--causal", "--bound", cls)
    assert rc == (0 if r.ok else 1), err
    assert js == [json.loads(r.figures["json"]), json.loads(r.lse.figures["json"])]
