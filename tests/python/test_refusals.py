"""What ulpgate.check refuses or fails rather than grade: a Result's truth is its verdict, a NaN
or an infinity where the exact value is finite fails with no limit, a GOT of the wrong shape
(a transposed one) is refused naming both shapes, nothing graded passes no limit, and memory
refused raises MemoryError instead of ending the interpreter."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ulpgate

rng = np.random.default_rng(46)


def test_result_truth_is_its_verdict():
    x = rng.standard_normal(100).astype(np.float32)
    good = ulpgate.check("sum", x, got=ulpgate.exact("sum", x).rounded, ulp_max=0.5)
    bad = ulpgate.check("sum", x, got=np.float32(1e6), ulp_max=0.5)
    assert good and good.ok
    assert not bad and not bad.ok
    with pytest.raises(AssertionError):
        assert ulpgate.check("sum", x, got=np.float32(1e6), ulp_max=0.5)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_where_exact_is_finite_fails_without_limit(bad):
    x = rng.standard_normal((3, 50)).astype(np.float32)
    got = ulpgate.exact("sum", x).rounded.copy()
    got[1] = bad
    r = ulpgate.check("sum", x, got=got)
    assert not r.ok and r.nonfinite == 1 and "NaN or infinite" in r.verdict
    sm = rng.standard_normal((2, 16)).astype(np.float32)
    g = ulpgate.exact("softmax", sm).rounded.copy()
    g[0, 3] = bad
    r = ulpgate.check("softmax", sm, got=g)
    assert not bool(r) and r.nonfinite == 1


def test_infinity_where_exact_rounds_to_it_is_no_failure():
    x = np.full(4, 3e38, np.float32)
    r = ulpgate.check("sum", x, got=np.float32(np.inf))
    assert r.ok and r.nonfinite == 0 and r.correctly_rounded == 1


def test_transposed_got_refused_naming_both_shapes():
    x = rng.standard_normal((4, 64)).astype(np.float32)
    with pytest.raises(ValueError) as e:
        ulpgate.check("softmax", x, got=np.zeros((64, 4), np.float32))
    assert "(64, 4)" in str(e.value) and "(4, 64)" in str(e.value)
    with pytest.raises(ValueError) as e:
        ulpgate.check("logsumexp", x, got=np.zeros(3, np.float32))
    assert "(3,)" in str(e.value) and "(4, 64)" in str(e.value)


def test_empty_input_with_a_limit_fails():
    x = np.zeros((0, 8), np.float32)
    r = ulpgate.check("sum", x, got=np.zeros(0, np.float32), ulp_max=1)
    assert not r and "no outputs" in r.verdict


OOM = textwrap.dedent("""
    import resource, sys
    import numpy as np
    resource.setrlimit(resource.RLIMIT_AS, (900 << 20, 900 << 20))
    import ulpgate
    x = np.zeros((1, 1 << 24), np.uint16)
    try:
        ulpgate.check("softmax", x, got=np.zeros((1, 1 << 24), np.float32), dtype="bf16",
                      ulp_max=1)
        print("graded")
    except MemoryError as e:
        print("MemoryError:", e)
    print("still here")
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS: Linux")
def test_memory_refused_raises_memory_error():
    """A row whose oracle scratch (~1 GiB) is more than the address space allowed: MemoryError,
    and the interpreter goes on (an allocator that exits would end it with status 2)."""
    p = subprocess.run([sys.executable, "-c", OOM], capture_output=True, text=True,
                       env=dict(os.environ), timeout=300)
    assert p.returncode == 0 and "MemoryError: out of memory" in p.stdout and \
        "still here" in p.stdout, p.stdout + p.stderr
