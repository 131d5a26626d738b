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


OOM_ATTENTION = textwrap.dedent("""
    import resource
    import numpy as np
    import ulpgate
    r = np.random.default_rng(1)
    q = r.standard_normal((1, 1, 256, 64)).astype(np.float32)
    k = r.standard_normal((1, 1, 1 << 15, 64)).astype(np.float32)
    got = np.zeros((1, 1, 256, 64), np.float32)
    vm = [int(l.split()[1]) << 10 for l in open("/proc/self/status") if l.startswith("VmSize:")][0]
    room = vm + (40 << 20)  # the records fit; the reference's arrays (~50 MiB) do not
    resource.setrlimit(resource.RLIMIT_AS, (room, room))
    try:
        ulpgate.check("attention", q, k, k, got=got, ulp_max=1)
        print("graded")
    except MemoryError as e:
        print("MemoryError:", e)
    print("still here")
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS: Linux")
def test_attention_memory_refused_raises_memory_error():
    """Attention whose records fit but whose reference's scratch (S = 32768 keys: ~50 MiB of
    arrays) does not: MemoryError before the reference starts, and the interpreter goes on."""
    p = subprocess.run([sys.executable, "-c", OOM_ATTENTION], capture_output=True, text=True,
                       env=dict(os.environ), timeout=300)
    assert p.returncode == 0 and "MemoryError: out of memory" in p.stdout and \
        "still here" in p.stdout, p.stdout + p.stderr


def test_attention_scale_refused_in_python_words():
    """A scale no binary32 holds: refused, naming the argument as Python spells it."""
    q = np.ones((1, 2, 4), np.float32)
    for scale in (float("inf"), 1e39):
        with pytest.raises(ValueError) as e:
            ulpgate.check("attention", q, q, q, got=np.zeros((1, 2, 4), np.float32), scale=scale)
        assert "scale=" in str(e.value) or "scale:" in str(e.value)
        assert "--scale" not in str(e.value), str(e.value)
    # 0 asks for the default 1/sqrt(d): a scale that rounds to 0 is refused, never swapped for it
    with pytest.raises(ValueError, match="rounds to 0 in binary32"):
        ulpgate.check("attention", q, q, q, got=np.zeros((1, 2, 4), np.float32), scale=1e-50)


EVERY_ALLOCATION = textwrap.dedent("""
    import numpy as np
    import ulpgate
    from ulpgate import _ulpgate
    r = np.random.default_rng(3)
    q = r.standard_normal((1, 3, 8, 16)).astype(np.float32)
    k = r.standard_normal((1, 3, 40, 16)).astype(np.float32)
    v = r.standard_normal((1, 3, 40, 8)).astype(np.float32)
    x = r.standard_normal((4, 300)).astype(np.float32)
    calls = {
        "attention": lambda o: ulpgate.check("attention", q, k, v,
                                             got=np.zeros((1, 3, 8, 8), np.float32), oracle=o),
        "sum": lambda o: ulpgate.check("sum", x, got=np.zeros(4, np.float32), oracle=o),
        "softmax": lambda o: ulpgate.check("softmax", x, got=np.zeros_like(x), oracle=o),
        "gemm": lambda o: ulpgate.check("gemm", x[:, :30], x[:, :30].T.copy(),
                                        got=np.zeros((4, 4), np.float32), oracle=o),
    }
    figures = lambda res: (res.ulp_max, repr(res.worst), res.verdict)
    for name, f in calls.items():
        for o in ("fast", "mpfr"):
            want, refused, by_oracle = figures(f(o)), 0, 0
            # every one of the first 300 allocations, then every 25% more (MPFR's numbers are
            # allocations too: tens of thousands a call), until the call gets through
            n = 1
            while True:
                _ulpgate._fail_alloc(n)
                try:
                    got = f(o)
                except MemoryError as e:
                    assert str(e).startswith("out of memory"), e
                    refused += 1
                    by_oracle += "the oracle of" in str(e)
                    assert figures(f(o)) == want, (name, o, n)
                    n = n + 1 if n < 300 else n + n // 4
                    continue
                finally:
                    _ulpgate._fail_alloc(0)
                assert figures(got) == want, (name, o, n)
                break
            print(name, o, refused, by_oracle, n)
""")


@pytest.mark.skipif(not hasattr(ulpgate._ulpgate, "_fail_alloc"), reason="no test hook")
def test_every_allocation_refused_raises_memory_error():
    """Each allocation of the library in a call refused in turn (the oracle's, MPFR's numbers,
    its worker threads', the result's text; ulpgate._ulpgate._fail_alloc): MemoryError every time, the interpreter goes on and the next
    call's figures are the same (an allocator that exits would end the process with status 2;
    state left behind by the jump would change the figures)."""
    p = subprocess.run([sys.executable, "-c", EVERY_ALLOCATION], capture_output=True, text=True,
                       env=dict(os.environ), timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    counts = {tuple(l.split()[:2]): [int(c) for c in l.split()[2:]] for l in p.stdout.splitlines()}
    # the refusals inside the oracle answered by the grading's own traps, which free what they
    # hold (the message names the oracle), not by the extension's net
    assert len(counts) == 8 and all(c[0] > 0 for c in counts.values()), p.stdout
    assert all(counts[(op, o)][1] > 0 for op in ("attention", "softmax") for o in ("fast", "mpfr"))
    assert counts[("attention", "fast")][0] > 20, p.stdout  # the workers' allocations among them
    # MPFR's own numbers (GMP's allocations) refused too, each a MemoryError: tens of thousands
    # a call, where the oracle's other allocations are a few dozen
    assert all(counts[(op, "mpfr")][2] > 1000 for op in ("attention", "softmax")), p.stdout


def test_exact_of_attention_refused_without_contradiction():
    """exact() has no attention records; its refusal must not list attention among the
    operations it says attention is not."""
    q = np.ones((1, 1, 2, 4), np.float32)
    with pytest.raises(ValueError) as e:
        ulpgate.exact("attention", q, q, q)
    assert "is not" not in str(e.value) and "attention" in str(e.value), str(e.value)


def test_one_byte_elements_named_as_they_are():
    """int8 elements are bit patterns only under dtype=; the refusal names int8, not uint8."""
    for dt in (np.int8, np.uint8):
        with pytest.raises(TypeError) as e:
            ulpgate.check("sum", np.zeros(4, dt), got=np.float32(0))
        assert "input 1: %s elements" % np.dtype(dt).name in str(e.value), str(e.value)
