"""ulpgate.assert_close: torch.testing.assert_close's drop-in that derives the tolerance from the
proven bound on the inputs and prints it beside assert_close's defaults for the dtype."""
import numpy as np
import pytest

import ulpgate

rng = np.random.default_rng(43)


def test_prints_derived_beside_defaults(capsys):
    x = rng.standard_normal((4, 1000)).astype(np.float32)
    y = rng.standard_normal((4, 1000)).astype(np.float32)
    r = ulpgate.assert_close(np.einsum("ij,ij->i", x, y), "dot", x, y)
    out = capsys.readouterr().out
    assert out.strip() == r.tolerance_line
    assert "rtol=%.4g, atol=%.4g proven" % (r.rtol, r.atol) in out
    assert "defaults for f32: rtol=1.3e-06, atol=1e-05 (tighter in both: a correct kernel may fail" \
        " them)" in out


def test_bf16_class_and_defaults(capsys):
    """A bfloat16 sum accumulated in binary32 (the bf16_out class): the default 0.016 printed
    beside what the class proves."""
    x = rng.standard_normal((8, 512)).astype(np.float32)
    acc = x.sum(axis=1, dtype=np.float32)
    got = ((acc.view(np.uint32) + 0x7FFF + ((acc.view(np.uint32) >> 16) & 1)) >> 16).astype(
        np.uint16)  # rounded to nearest bfloat16
    r = ulpgate.assert_close(got, "sum", x, bound="bf16_out", dtype="bf16")
    out = capsys.readouterr().out
    assert "sum (bf16_out bound)" in out and "defaults for bf16: rtol=0.016, atol=1e-05" in out
    assert r.bound.cls == "bf16_out"


def test_wrong_kernel_raises():
    x = rng.standard_normal((2, 300)).astype(np.float32)
    with pytest.raises(AssertionError, match="error / tree bound"):
        ulpgate.assert_close(x[:, :-1].sum(axis=1), "sum", x)
