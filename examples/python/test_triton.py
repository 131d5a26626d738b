"""A Triton kernel graded exactly (docs/python.md): a blocked sum on the GPU, its output moved
to the host and checked against the exact sum with the tree bound of its shape.  Skipped,
saying so, without Triton, PyTorch or a CUDA device."""
import pytest

import ulpgate

torch = pytest.importorskip("torch", reason="PyTorch not installed: the Triton example needs it")
triton = pytest.importorskip("triton", reason="Triton not installed: the Triton example needs it")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device: the Triton example runs on a GPU", allow_module_level=True)
import triton.language as tl  # noqa: E402

BLOCK = 1024


@triton.jit
def block_sums(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + pid, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))


def triton_sum(x):
    blocks = triton.cdiv(x.numel(), BLOCK)
    part = torch.empty(blocks, device=x.device, dtype=torch.float32)
    block_sums[(blocks,)](x, part, x.numel(), BLOCK=BLOCK)
    return part.sum()  # then the partial sums (PyTorch's reduction)


def test_triton_sum():
    x = torch.randn(1 << 20, device="cuda", generator=torch.Generator("cuda").manual_seed(0))
    got = triton_sum(x)
    # depth: tl.sum reduces a block as a tree (log2 BLOCK), then the block sums are added by an
    # order we do not know: bound it as a serial loop of them (blocks - 1)
    blocks = x.numel() // BLOCK
    ulpgate.assert_exact(got.cpu(), "sum", x.cpu(), depth=10 + blocks - 1)
