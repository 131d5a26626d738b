"""A bfloat16 softmax emulated with ml_dtypes (docs/python.md): the inputs and outputs are
bfloat16 arrays (ml_dtypes.bfloat16, read by their dtype's name), the arithmetic binary32,
one rounding to bfloat16 at the end.  Skipped, saying so, where ml_dtypes is not installed."""
import numpy as np
import pytest

import ulpgate

ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes not installed (pip install "
                                "ml_dtypes): the bf16 softmax example needs its bfloat16 dtype")


def softmax_bf16(x):
    """Softmax over the last axis of bfloat16 x: binary32 inside, rounded to bfloat16."""
    f = x.astype(np.float32)
    e = np.exp(f - f.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(ml_dtypes.bfloat16)


def test_softmax_bf16_within_one_ulp():
    x = np.random.default_rng(1).standard_normal((8, 512)).astype(ml_dtypes.bfloat16)
    got = softmax_bf16(x)
    # binary32 arithmetic errs by a few binary32 ulps (2^-16 of a bfloat16 ulp each); the final
    # rounding adds half an ulp: 1 ulp of bfloat16 is a bound with room, not a measurement
    r = ulpgate.assert_exact(got, "softmax", x, ulp_max=1)
    assert r.in_fmt == ["bf16"] and r.out_fmt == "bf16"
