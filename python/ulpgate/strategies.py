"""Hypothesis strategies of ulpgate's inputs (Hypothesis optional: imported here only).

    from hypothesis import given
    from ulpgate.strategies import inputs

    @given(inputs("sum", n=(1, 4096)))
    def test_my_sum(args):
        (x,) = args
        ulpgate.assert_exact(my_sum(x), "sum", x, depth=...)

Arrays come from the harness itself (ulpgate._ulpgate.draw: harness/inputs/dist.h, the same
generators and streams as the C cases, GenSum/GenDot's ill-conditioned sums, sorted and
alternating orders, special values) and from its corpus of adversarial inputs
(cases/corpus: absorption, cancellation, ties, overflow of partial sums ...).  A failing
example shrinks: to fewer terms, the first distribution of the list, seed 0.
"""
from hypothesis import strategies as st

from . import _ulpgate

# The distributions the C cases draw from (cases/*.c), as draw()'s arguments:
# (kind, p1, p2, transforms).  The operations' own: GenSum for sums, GenDot for products.
DISTRIBUTIONS = [
    ("normal", 0, 1, {}),
    ("uniform", 0, 1, {}),
    ("uniform", -1, 1, {}),
    ("lognormal", 0, 1, {}),
    ("expuniform", -20, 20, {}),
    ("normal", 0, 1, {"order": "abs_asc"}),
    ("normal", 0, 1, {"order": "abs_desc"}),
    ("uniform", 0, 1, {"alternate": True}),
    ("normal", 0, 1, {"special_rate": 0.01, "specials": ["nan", "inf", "-inf", "zero",
                                                         "subnormal"]}),
    ("gensum", 1e8, 0, {}),
    ("gensum", 1e16, 0, {}),
    ("gendot", 1e8, 0, {}),
    ("gendot", 1e16, 0, {}),
]

_OPS = {o["name"]: o for o in _ulpgate.ops()}


def _op(op):
    drawable = [o for o in _OPS if _OPS[o]["layout"] != "heads"]
    if op not in drawable:
        raise ValueError("op %r: not one of %s (attention's inputs are its cases')"
                         % (op, ", ".join(drawable)))
    return _OPS[op]


def distributions(op):
    """The distributions that apply to op, as (kind, p1, p2, transforms) tuples: GenDot only
    for products (dot, gemm), GenSum for the rest."""
    o = _op(op)
    products = o["inputs"] == 2 and o["roles"] in ("y", "B")
    return [d for d in DISTRIBUTIONS
            if not (d[0] == "gendot" and not products) and not (d[0] == "gensum" and products)]


def _size(n):
    lo, hi = (n, n) if isinstance(n, int) else n
    return st.integers(min_value=lo, max_value=hi)


@st.composite
def drawn(draw, op, n=(1, 1000), m=(1, 16), k=(1, 64), batch=None, fmt="f32", dists=None):
    """op's inputs drawn from one of the harness's distributions (dists: the list to pick from,
    default distributions(op)); n (and a GEMM's m, k; its n is N): a size or a (lo, hi)
    range; batch: leading problems (a size or range; None: one problem, no batch axis); fmt:
    the inputs' format (f32, f64, f16, bf16 / e4m3 / e5m2 as bit patterns).  Shrinks to the
    smallest sizes, the first distribution, seed 0."""
    o = _op(op)
    choices = dists if dists is not None else distributions(op)
    if not choices:
        raise ValueError("no distribution applies to %s" % op)
    kind, p1, p2, tr = draw(st.sampled_from(choices))
    kw = dict(tr)
    kw["n"] = draw(_size(n))
    if o["layout"] == "matmul":
        kw["m"] = draw(_size(m))
        kw["k"] = draw(_size(k))
    if batch is not None:
        kw["batch"] = draw(_size(batch))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    return _ulpgate.draw(op, kind, p1, p2, fmt=fmt, seed=seed, **kw)


def corpus_files(op=None, fmt=None, dirs=()):
    """The corpus files (unit name, path) of op (None: every op) in format fmt (None: any):
    the harness's cases/corpus and the directories dirs (one folder may be given alone: a
    string is not read as a list of one-letter folders)."""
    if isinstance(dirs, str) or hasattr(dirs, "__fspath__"):
        dirs = [dirs]
    out = []
    for name, path in _ulpgate.corpus([str(d) for d in dirs]):
        info, _ = _ulpgate.corpus_load(path, name)
        if (op is None or info["op"] == op) and (fmt is None or info["fmt"] == fmt):
            out.append((name, path))
    return out


def corpus(op, fmt=None, dirs=()):
    """op's inputs read from a corpus file (harness/inputs/corpus.h: each one adversarial, its
    reason in its "# why:" line), in the file's format (or only fmt's files)."""
    files = corpus_files(op, fmt, dirs)
    if not files:
        raise ValueError("no corpus file of %s%s" % (op, " in " + fmt if fmt else ""))
    return st.sampled_from(files).map(lambda f: _ulpgate.corpus_load(f[1], f[0])[1])


def inputs(op, n=(1, 1000), m=(1, 16), k=(1, 64), batch=None, fmt="f32", dists=None,
           use_corpus=True):
    """op's inputs: drawn() from the harness's distributions, or (use_corpus, no batch) a file
    of its corpus in format fmt when it has one."""
    _op(op)  # an operation it cannot draw is refused here, not at the first example
    s = drawn(op, n=n, m=m, k=k, batch=batch, fmt=fmt, dists=dists)
    if use_corpus and batch is None and corpus_files(op, fmt):
        s = st.one_of(s, corpus(op, fmt))
    return s
