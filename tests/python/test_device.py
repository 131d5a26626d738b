"""Arrays on a device are copied to the host inside the extension, by their producer, and the
Result says which (python/ulpgate/_ext/arrays.c).  On this CPU machine the devices are stand-ins:
objects that say they are on a CUDA device (__dlpack_device__ or __cuda_array_interface__) and
copy themselves to the host the ways PyTorch, CuPy and Numba do; the real thing, a CUDA tensor
graded like its host copy, runs where PyTorch sees a GPU and skips elsewhere, saying so."""
import numpy as np
import pytest

import ulpgate

rng = np.random.default_rng(46)
CUDA = 2  # DLPack's kDLCUDA


class DLPackDevice:
    """The array API's way (PyTorch 2.4+, CuPy 13+): __dlpack__(dl_device=(CPU, 0), copy=True)."""

    def __init__(self, a):
        self.host = np.ascontiguousarray(a)
        self.calls = []

    def __dlpack_device__(self):
        return (CUDA, 0)

    def __dlpack__(self, stream=None, dl_device=None, copy=None):
        self.calls.append((dl_device, copy))
        if dl_device != (1, 0) or copy is not True:
            raise BufferError("on the GPU: ask for a host copy")
        return self.host.copy().__dlpack__()


class CpuMethod:
    """PyTorch before the cross-device __dlpack__: only .cpu() gives the host."""

    def __init__(self, a):
        self.host = np.ascontiguousarray(a)

    def __dlpack_device__(self):
        return (CUDA, 0)

    def __dlpack__(self, stream=None):
        raise BufferError("on the GPU")

    def cpu(self):
        return self.host.copy()


class CudaArrayInterface:
    """Numba's device arrays: __cuda_array_interface__ and .copy_to_host()."""

    __cuda_array_interface__ = {"shape": (), "typestr": "<f4", "data": (0, False), "version": 3}

    def __init__(self, a):
        self.host = np.ascontiguousarray(a)

    def copy_to_host(self):
        return self.host.copy()


class Stuck:
    """A device array that cannot copy itself: refused, naming the argument."""

    def __dlpack_device__(self):
        return (CUDA, 0)


@pytest.mark.parametrize("wrap", [DLPackDevice, CpuMethod, CudaArrayInterface])
def test_device_array_graded_as_its_host_copy(wrap):
    x = rng.standard_normal((4, 100)).astype(np.float32)
    y = rng.standard_normal((4, 100)).astype(np.float32)
    got = np.einsum("ij,ij->i", x, y)
    want = ulpgate.check("dot", x, y, got=got)
    r = ulpgate.check("dot", wrap(x), y, got=wrap(got))
    assert r.figures["json"] == want.figures["json"]
    assert want.host_copies == []
    assert r.host_copies == ["got (device type 2)", "input 1 (device type 2)"]


def test_cross_device_dlpack_asked_for_a_host_copy():
    x = DLPackDevice(rng.standard_normal(16).astype(np.float32))
    ulpgate.check("sum", x, got=np.float32(0))
    assert x.calls == [((1, 0), True)]


def test_device_array_that_cannot_copy_refused():
    with pytest.raises(ValueError, match="got: an array on device type 2 .*copy it first"):
        ulpgate.check("sum", np.zeros(3, np.float32), got=Stuck())


def test_attention_device_arrays_reported():
    q = rng.standard_normal((1, 2, 4, 8)).astype(np.float32)
    k = rng.standard_normal((1, 1, 8, 8)).astype(np.float32)
    v = rng.standard_normal((1, 1, 8, 8)).astype(np.float32)
    o = ulpgate.check("attention", q, k, v, got=np.zeros((1, 2, 4, 8), np.float32))
    r = ulpgate.check("attention", CpuMethod(q), k, v, got=np.zeros((1, 2, 4, 8), np.float32))
    assert r.figures["json"] == o.figures["json"] and r.host_copies == ["q (device type 2)"]


def test_cuda_tensor_same_result_as_its_host_copy():
    torch = pytest.importorskip("torch", reason="PyTorch not installed: no CUDA tensor to grade")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: the CUDA tensor test runs on a GPU machine")
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(64, 256, device="cuda", generator=g).to(torch.bfloat16)
    b = torch.randn(256, 32, device="cuda", generator=g).to(torch.bfloat16)
    c = a @ b
    on_gpu = ulpgate.check("gemm", a, b, got=c, bound="block_fma")
    on_host = ulpgate.check("gemm", a.cpu(), b.cpu(), got=c.cpu(), bound="block_fma")
    assert on_gpu.figures["json"] == on_host.figures["json"]
    assert len(on_gpu.host_copies) == 3 and on_host.host_copies == []
    assert on_gpu.ok and on_gpu.bound.ratio_max <= 1, on_gpu.verdict
