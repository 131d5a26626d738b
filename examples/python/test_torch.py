"""PyTorch CPU tensors graded exactly (docs/python.md): tensors go in as they are (DLPack, no
copy), bfloat16 included.  Skipped, saying so, where PyTorch is not installed."""
import pytest

import ulpgate

torch = pytest.importorskip("torch", reason="PyTorch not installed: the PyTorch example "
                            "needs it (pip install torch)")


def test_torch_sum_float32():
    x = torch.randn(64, 4096, generator=torch.Generator().manual_seed(0))
    got = x.sum(dim=1)
    r = ulpgate.assert_exact(got, "sum", x)  # the tree bound at depth n - 1: any order passes
    print(r)


def test_torch_bf16_matmul():
    g = torch.Generator().manual_seed(1)
    a = torch.randn(32, 256, generator=g).to(torch.bfloat16)
    b = torch.randn(256, 16, generator=g).to(torch.bfloat16)
    c = a @ b  # bfloat16 out; PyTorch accumulates in binary32 and rounds once
    # the class of that arithmetic: binary32 accumulation (any order: depth K - 1) rounded once
    # to bfloat16.  The tree bound with bfloat16's u is vacuous at K = 256 (K u >= 1); on a GPU
    # (cuBLAS on tensor cores) the class is "block_fma".
    r = ulpgate.assert_exact(c, "gemm", a, b, bound="bf16_out")
    assert r.in_fmt == ["bf16", "bf16"] and r.out_fmt == "bf16"
    assert r.bound.cls == "bf16_out" and r.bound.ratio_max <= 1
