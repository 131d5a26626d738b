"""ulpgate.strategies: the harness's distributions and corpus as Hypothesis strategies; a
property of a NumPy kernel in three lines, and a failing example that shrinks."""
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="Hypothesis not installed "
                                 "(Debian: python3-hypothesis)")
from hypothesis import find, given, settings  # noqa: E402

import ulpgate  # noqa: E402
from ulpgate import _ulpgate  # noqa: E402
from ulpgate.strategies import corpus, corpus_files, distributions, drawn, inputs  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None, database=None)


def pairwise_sum(x):
    """float32 pairwise summation: depth ceil(log2 n)."""
    while x.shape[-1] > 1:
        if x.shape[-1] % 2:
            x = np.concatenate([x, np.zeros(x.shape[:-1] + (1,), x.dtype)], axis=-1)
        x = x[..., 0::2] + x[..., 1::2]
    return x[..., 0]


def depth(n):
    return int(np.ceil(np.log2(n))) if n > 1 else 0


@SETTINGS
@given(inputs("sum", n=(1, 2048), use_corpus=False))
def test_pairwise_sum_meets_its_tree_bound(args):
    (x,) = args
    with np.errstate(all="ignore"):
        ulpgate.assert_exact(pairwise_sum(x), "sum", x, depth=depth(x.shape[-1]))


@SETTINGS
@given(inputs("dot", n=(1, 512), batch=(1, 4), use_corpus=False))
def test_batched_dot_in_float64_meets_the_tree_bound(args):
    x, y = args
    assert x.shape == y.shape and x.ndim == 2
    with np.errstate(all="ignore"):
        got = np.einsum("ij,ij->i", x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    # not "within half an ulp": GenDot(1e16) cancels past binary64 (Hypothesis found
    # x = [9.3e7, -0.39, -0.54, -2.0e8], y = [3.3e8, 0.58, 1.5e8, 1.5e8]: 1.1e6 ulp), but a
    # wider accumulator rounded once meets binary32's tree bound (docs/check.md)
    ulpgate.assert_exact(got, "dot", x, y)


def test_a_failing_example_shrinks():
    def drops_last_term(args):
        (x,) = args
        return not ulpgate.check("sum", x, got=pairwise_sum(x[:-1]) if x.size > 1
                                 else np.float32(0), ulp_max=0).ok
    x, = find(drawn("sum", n=(1, 1000)), drops_last_term,
              settings=settings(database=None, max_examples=200))
    assert x.shape[0] <= 2  # from up to 1000 terms to the smallest that still fails


def test_distributions_and_formats():
    assert ("gendot", 1e8, 0, {}) in distributions("dot")
    assert all(d[0] != "gendot" for d in distributions("sum"))
    bits, = _ulpgate.draw("sum", "normal", 0, 1, n=64, fmt="bf16", seed=1)
    assert bits.dtype == np.uint16
    assert ulpgate.check("sum", bits, got=np.float32(0), dtype="bf16").in_fmt == ["bf16"]
    a, = _ulpgate.draw("sum", "gensum", 1e8, 0, n=256, seed=3)
    b, = _ulpgate.draw("sum", "gensum", 1e8, 0, n=256, seed=3)
    assert (a == b).all()  # reproducible from (seed, label, trial)
    with pytest.raises(ValueError, match="distribution 'cauchy'"):
        _ulpgate.draw("sum", "cauchy", n=4)


def test_gemm_and_layer_shapes():
    a, b = _ulpgate.draw("gemm", "normal", 0, 1, m=3, n=4, k=5)
    assert a.shape == (3, 5) and b.shape == (5, 4)
    x, w, bias = _ulpgate.draw("layernorm", "normal", 0, 1, n=16, batch=2)
    assert x.shape == (2, 16) and w.shape == (16,) and bias.shape == (16,)


def test_corpus_files_load_and_grade():
    files = corpus_files()
    assert any(n == "corpus/absorb_1e8_thousand_ones" for n, _ in files)
    for name, path in files:
        info, arrays = _ulpgate.corpus_load(path, name)
        e = ulpgate.exact(info["op"], *arrays)
        assert ulpgate.check(info["op"], *arrays, got=e.rounded, ulp_max=0.5).ok, name


def test_corpus_files_one_folder_as_a_string(tmp_path):
    """dirs="FOLDER" (or a Path) is that folder, not the one-letter folders of its name."""
    src = next(p for n, p in corpus_files() if n == "corpus/absorb_1e8_thousand_ones")
    (tmp_path / "mine_absorb.txt").write_bytes(open(src, "rb").read())
    for dirs in (str(tmp_path), tmp_path, [str(tmp_path)]):
        assert "corpus/mine_absorb" in [n for n, _ in corpus_files(dirs=dirs)], dirs


@SETTINGS
@given(corpus("dot"))
def test_corpus_strategy(args):
    x, y = args
    assert x.shape == y.shape


def test_attention_refused_not_drawn_past_its_buffers():
    """draw and the strategies take operations of one or two inputs: attention (three, heads)
    is refused at once, not drawn into two-slot buffers."""
    with pytest.raises(ValueError, match="draw: op 'attention' is not drawn here"):
        ulpgate._ulpgate.draw("attention", "normal", n=8)
    with pytest.raises(ValueError, match="op 'attention': not one of"):
        inputs("attention", n=(1, 8))
