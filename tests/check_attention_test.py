#!/usr/bin/python3
"""check_attention_test.py ULPGATE SRCDIR - `ulpgate check --op attention` on .npy files made by
NumPy (TAP): a float64 NumPy attention rounded to binary32 passes, GQA and causal; the options'
refusals (two files, a scale that rounds to 0, K of another d, lse or a row output transposed, an
empty batch with a limit); NaN in O fails; a NaN and an inf in one column of V pass; a non-finite
result where the exact one is finite fails.  Shares check_npy.py with check_test.py."""

from check_npy import np, ok, save, run, check_json, finish  # noqa: F401

# ---- attention: a float64 NumPy attention rounded to binary32, GQA, causal --------
def np_attention(q, k, v, causal, scale):
    H, Hkv = q.shape[1], k.shape[1]
    kk = np.repeat(k, H // Hkv, axis=1).astype(np.float64)
    vv = np.repeat(v, H // Hkv, axis=1).astype(np.float64)
    s = np.einsum("bhld,bhsd->bhls", q.astype(np.float64), kk) * float(scale)
    L, S = q.shape[2], k.shape[2]
    if causal:
        i, j = np.arange(L)[:, None], np.arange(S)[None, :]
        s = np.where(j <= i + S - L, s, -np.inf)
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    l = e.sum(-1, keepdims=True)
    return (e / l) @ vv, (m + np.log(l))[..., 0]


ra = np.random.default_rng(35)
aq = ra.standard_normal((2, 4, 8, 32)).astype(np.float32)
ak = ra.standard_normal((2, 2, 64, 32)).astype(np.float32)
av = ra.standard_normal((2, 2, 64, 16)).astype(np.float32)
c32 = np.float32(1 / np.sqrt(32))
ao, al = np_attention(aq, ak, av, True, c32)
pq, pk, pv = save("aq.npy", aq), save("ak.npy", ak), save("av.npy", av)
po, pl = save("ao.npy", ao.astype(np.float32)), save("al.npy", al.astype(np.float32))
rc, out, err = run("check", "--op", "attention", "--got", po, pq, pk, pv, "--lse", pl, "--causal",
                   "--ulp-max", "1")
# a float64 evaluation rounded once to binary32 is within 1 ulp (its own error ~1e-15 relative)
ok(rc == 0 and out.count("result     ok") == 2 and "1024 outputs" in out,
   "attention, 2 x 4 heads on 2 kv heads, causal: NumPy's float64 result rounded is <= 1 ulp", out + err)
rc, out, err = run("check", "--op", "attention", "--got", po, pq, pk, pv, "--ulp-max", "1")
ok(rc == 1 and "FAIL" in out, "the causal result graded without --causal: exit 1", out + err)
bo, bl = np_attention(aq, ak, av, False, np.float32(0.25))
rc, out, err = run("check", "--op", "attention", "--got", save("ao2.npy", bo.astype(np.float32)),
                   pq, pk, pv, "--scale", "0.25", "--ulp-max", "1")
ok(rc == 0, "attention with --scale 0.25, not causal: <= 1 ulp", out + err)
rc, out, err = run("check", "--op", "attention", "--got", po, pq, pk, "--causal")
ok(rc == 2 and "Q K V" in err, "attention with two files: exit 2, three wanted", err)
# a scale that rounds to 0 in binary32 (0 asks for the default 1/sqrt(d)): refused, not swapped
rc, out, err = run("check", "--op", "attention", "--got", po, pq, pk, pv, "--scale", "1e-50", "--ulp-max", "1")
ok(rc == 2 and "--scale: 1e-50 rounds to 0 in binary32" in err,
   "attention --scale 1e-50: exit 2 (it would be graded under the default scale)", out + err)
rc, out, err = run("check", "--op", "attention", "--got", po, pq, save("ak3.npy", ak[:, :, :, :16]), pv)
ok(rc == 2 and "shapes do not fit" in err, "attention with K of another d: exit 2 naming the shapes", err)
# refused, not graded as a huge error: an lse or a softmax GOT transposed (the same count)
rc, out, err = run("check", "--op", "attention", "--got", po, pq, pk, pv, "--causal",
                   "--lse", save("alT.npy", np.ascontiguousarray(al.astype(np.float32).transpose(0, 2, 1))))
ok(rc == 2 and "(2, 8, 4)" in err and "(2, 4, 8, 32)" in err,
   "attention: an lse (B, L, H) for Q (B, H, L, d): exit 2 naming both shapes", err)
sx = ra.standard_normal((4, 64)).astype(np.float32)
rc, out, err = run("check", "--op", "softmax", "--got", save("smT.npy", np.zeros((64, 4), np.float32)),
                   save("sx.npy", sx))
ok(rc == 2 and "(64, 4)" in err and "(4, 64)" in err,
   "softmax: GOT (64, 4) for X (4, 64): exit 2 naming both shapes", err)
# nothing graded passes no limit: an attention batch of 0
e0 = save("a0.npy", np.zeros((0, 4, 8, 32), np.float32))
rc, out, err = run("check", "--op", "attention", "--got", save("ao0.npy", np.zeros((0, 4, 8, 16), np.float32)),
                   e0, save("ak0.npy", np.zeros((0, 2, 64, 32), np.float32)),
                   save("av0.npy", np.zeros((0, 2, 64, 16), np.float32)), "--ulp-max", "1")
ok(rc == 1 and "no outputs" in out, "attention with a batch of 0 and --ulp-max: exit 1", out + err)
# a NaN or an infinity where the exact value is finite fails, limit or not
nan_o = ao.astype(np.float32).copy()
nan_o[1, 2, 3, 4] = np.nan
rc, out, err = run("check", "--op", "attention", "--got", save("aonan.npy", nan_o), pq, pk, pv, "--causal")
ok(rc == 1 and "NaN or infinite" in out, "attention: a NaN in O, no limit: exit 1", out + err)
# a NaN (an infinity) in one column of V: NumPy's float64 result, as PyTorch's, has that column of
# the rows that see the key NaN (infinite) and nothing else; the reference's rule is the same
# (docs/operations-attention.md), so a correct output passes, lse included
vs = av.copy()
vs[1, 1, 5, 7] = np.nan
vs[0, 0, 9, 3] = np.inf
so, sl = np_attention(aq, ak, vs, True, c32)
rc, out, err = run("check", "--op", "attention", "--got", save("aos.npy", so.astype(np.float32)), pq, pk,
                   save("avs.npy", vs), "--lse", save("als.npy", sl.astype(np.float32)), "--causal",
                   "--ulp-max", "1")
ok(rc == 0 and out.count("result     ok") == 2 and np.isnan(so[1, 2:, :, 7]).all() and
   np.isinf(so[0, :2, :, 3]).all() and np.isfinite(so[1, 2:, :, 6]).all(),
   "attention: a NaN and an inf in one column of V each: NumPy's result (that column alone "
   "special) passes, lse too", out + err)
sv = ra.standard_normal(100).astype(np.float32)
for bad in (np.inf, np.nan):
    rc, j, err = check_json("--op", "sum", "--got", save("sbad.npy", np.array([bad], np.float32)),
                            save("sv.npy", sv))
    ok(rc == 1 and j is not None and j["nonfinite"] == 1 and not j["pass"],
       "sum: %r where the exact sum is finite, no limit: exit 1, nonfinite 1" % bad, err)
big = np.full(4, 3e38, np.float32)
rc, j, err = check_json("--op", "sum", "--got", save("sinf.npy", np.array([np.inf], np.float32)),
                        save("sbig.npy", big))
ok(rc == 0 and j is not None and j["nonfinite"] == 0,
   "sum: +inf where the exact sum rounds to +inf in binary32: not counted", err)
finish()
