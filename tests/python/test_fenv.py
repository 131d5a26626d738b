"""The caller's floating-point environment cannot change a grade: every call of the extension
computes under the known state (round to nearest, no FTZ/DAZ) and gives the caller's state back
(python/ulpgate/_ext/module.c).  The environment is set from Python through the extension's test
hook _set_fenv, as a -ffast-math library loaded earlier or a conftest would set it."""
import platform

import numpy as np
import pytest

import ulpgate
from ulpgate import _ulpgate

X86 = platform.machine() in ("x86_64", "AMD64", "i686", "i386")
MODES = ["nearest", "upward", "downward", "towardzero"]
ENVS = [(m, f) for m in MODES for f in ((False, False), (True, True), (True, False),
                                        (False, True))] if X86 else [(m, (False, False))
                                                                     for m in MODES]


@pytest.fixture
def known_after():
    yield
    _ulpgate._set_fenv()  # whatever a test failed with, the next one starts from the known state


def _cases():
    """Inputs whose exact values or figures depend on the environment when computed under it:
    sums of subnormals (FTZ/DAZ flush them), softmax and logsumexp rows (exp under a directed
    rounding), tiny RMSNorm/LayerNorm rows; the outputs graded are fixed here, before any
    environment is changed (NumPy computes under the caller's)."""
    rng = np.random.default_rng(46)
    sub = (rng.standard_normal(1000) * 1e-39).astype(np.float32)
    x = rng.standard_normal((3, 333)).astype(np.float32)
    sm = (rng.standard_normal((2, 4096)) * 30).astype(np.float32)
    tiny = (rng.standard_normal((2, 333)) * 1e-20).astype(np.float32)
    w = np.ones(333, np.float32)
    cases = [("sum", (sub,), np.float32(sub.sum())), ("dot", (x, x), (x * x).sum(1)),
             ("softmax", (sm,), None), ("logsumexp", (sm,), None),
             ("rmsnorm", (tiny, w), None), ("layernorm", (tiny, w, w), None)]
    return [(op, a, g if g is not None else ulpgate.exact(op, *a).rounded * np.float32(1.0001))
            for op, a, g in cases]


def _figures(cases):
    out = []
    for op, args, got in cases:
        e = ulpgate.exact(op, *args)
        r = ulpgate.check(op, *args, got=got)
        out.append((op, e.hi.tobytes(), e.lo.tobytes(), e.rounded.tobytes(), r.figures["json"]))
    return out


@pytest.mark.parametrize("mode,flush", ENVS, ids=["%s-ftz%d-daz%d" % (m, f[0], f[1])
                                                   for m, f in ENVS])
def test_environment_changes_no_grade(mode, flush, known_after):
    cases = _cases()
    want = _figures(cases)
    _ulpgate._set_fenv(mode, ftz=flush[0], daz=flush[1])
    before = _ulpgate._fenv()
    got = _figures(cases)
    after = _ulpgate._fenv()
    _ulpgate._set_fenv()
    assert before[0] == mode
    assert after == before, "a call did not give the caller's environment back"
    for w, g in zip(want, got):
        assert w == g, "%s: exact values or figures changed under %s ftz=%d daz=%d" % (
            w[0], mode, flush[0], flush[1])


@pytest.mark.skipif(not X86, reason="the x87 control word is x86's")
def test_x87_control_word_restored(known_after):
    """Single precision in the x87 word (0x007f), as a plugin built for it leaves it: restored
    after every call, and the figures as under the default word."""
    cases = _cases()
    want = _figures(cases)
    _ulpgate._set_fenv("nearest", x87_cw=0x007F)
    before = _ulpgate._fenv()
    got = _figures(cases)
    after = _ulpgate._fenv()
    _ulpgate._set_fenv()
    assert before[2] == 0x007F and after == before
    assert want == got


def test_every_entry_point_restores(known_after):
    """draw, describe, corpus and Report compute too: each leaves the caller's state."""
    if not X86:
        pytest.skip("FTZ/DAZ are x86's")
    known = _ulpgate.draw("sum", "normal", p1=0, p2=1e-38, n=64)
    _ulpgate._set_fenv("upward", ftz=True, daz=True)
    before = _ulpgate._fenv()
    arrays = _ulpgate.draw("sum", "normal", p1=0, p2=1e-38, n=64)
    _ulpgate.describe(np.zeros(3, np.float32))
    _ulpgate.corpus(())
    assert _ulpgate._fenv() == before
    _ulpgate._set_fenv()
    assert [a.tobytes() for a in arrays] == [a.tobytes() for a in known]


@pytest.mark.skipif(not X86, reason="the x87 unit's pending exceptions are x86's")
def test_unmasked_exception_not_left_pending():
    """A caller that unmasked the inexact exception (feenableexcept(FE_INEXACT)) with its flags
    clear gets them back clear: the call's own flags (the fast attention reference sums in long
    double, on the x87 unit) are not the caller's.  Left raised under the caller's unmasked
    control word, they trapped at the caller's next x87 instruction (SIGFPE: here the
    fedisableexcept after the call).  In a child process: the failure is a signal."""
    import subprocess
    import sys
    code = r'''
import ctypes, numpy as np, ulpgate
libm = ctypes.CDLL("libm.so.6")
rng = np.random.default_rng(1)
q, k, v = (rng.standard_normal((8, 64)).astype(np.float32) for _ in range(3))
s = (q.astype(np.float64) @ k.T.astype(np.float64)) / 8.0
p = np.exp(s - s.max(1, keepdims=True))
o = ((p / p.sum(1, keepdims=True)) @ v.astype(np.float64)).astype(np.float32)  # binary64, rounded
libm.feclearexcept(0x3d)
libm.feenableexcept(0x20)  # FE_INEXACT
r = ulpgate.check("attention", q, k, v, got=o)
libm.fedisableexcept(0x20)  # an x87 fldcw: traps if an unmasked flag is pending
print("ok", r.ok)
'''
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "ok True", (p.returncode, p.stdout, p.stderr)
