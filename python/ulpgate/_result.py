"""The Result of ulpgate.check: the figures of `ulpgate check --json`, computed by the C library
(ulpgate._ulpgate.check) and only held here."""


class Bound:
    """The a-priori bound applied: cls ("tree", or the class named: "bf16_out", ...), depth,
    gamma (tree's; None: vacuous, or a class's), vacuous (it bounds nothing), vacuous_outputs,
    ratio_max, the largest error / bound over every output (above 1: the bound is broken; None
    when vacuous or no outputs), and a class's acc_fmt, op_fmt and block_model."""

    __slots__ = ("cls", "depth", "gamma", "ratio_max", "vacuous", "vacuous_outputs", "acc_fmt",
                 "op_fmt", "block_model")

    def __init__(self, d):
        self.cls = d["class"]
        self.acc_fmt = d.get("acc_fmt")       # a class's (not tree's): its accumulator,
        self.op_fmt = d.get("op_fmt")         # its operands' format,
        self.block_model = d.get("block_model")  # the tensor-core model ("envelope")
        self.depth = d["depth"]
        self.gamma = d["gamma"]
        self.ratio_max = d["ratio_max"]
        self.vacuous = bool(d.get("vacuous", self.gamma is None))
        self.vacuous_outputs = d.get("vacuous_outputs", 0)

    def __repr__(self):
        return "Bound(%s, depth=%s, gamma=%r, ratio_max=%r)" % (
            self.cls, self.depth, self.gamma, self.ratio_max)


class Worst:
    """The output of the largest ULP error: index (C order over got), got / want / exact as
    hex-floats, got_bits / want_bits (the stored encodings), ulp, rel, ratio."""

    __slots__ = ("index", "got", "want", "exact", "got_bits", "want_bits", "ulp", "rel", "ratio",
                 "row", "column")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d.get(k))

    def __repr__(self):
        return "Worst(index=%s, got=%s (%s), want=%s (%s), exact~%s, ulp=%r)" % (
            self.index, self.got_bits, self.got, self.want_bits, self.want, self.exact, self.ulp)


class Result:
    """What ulpgate.check measured: every figure of `ulpgate check --json` (docs/check.md).

    op, batch, outputs, n, m, gemm_n, k, in_fmt (list), out_fmt, oracle, ulp_max, ulp_mean,
    rel_max (None: infinite), specials, correctly_rounded, wrong_sign_zeros, nonfinite (NaN or
    infinite outputs where the exact value is finite: a failure, limit or not), bound (Bound; None
    for a row operation, which has none), worst (Worst, None for no outputs), rtol / atol (the
    tolerance for torch.testing.assert_close that the bound justifies; None without one), ok and verdict ("ok" or the FAIL line), text (the CLI's
    table), failure (the CLI's worst-element lines) and host_copies (the arguments copied from a
    device to the host to be graded).  str(result) is the CLI's table."""

    def __init__(self, d):
        self._d = d
        for k in ("op", "batch", "outputs", "n", "m", "gemm_n", "k", "in_fmt", "out_fmt",
                  "oracle", "ulp_max", "ulp_mean", "rel_max", "specials", "correctly_rounded",
                  "wrong_sign_zeros", "nonfinite",
                  "verdict", "text", "failure"):
            setattr(self, k, d.get(k))
        self.bound = Bound(d["bound"]) if d.get("bound") else None
        self.worst = Worst(d["worst"]) if d.get("worst") else None
        tol = d.get("tolerance")
        self.rtol = tol["rtol"] if tol else None
        self.atol = tol["atol"] if tol else None
        self.ok = bool(d["pass"])
        # the arguments that were on a GPU (or another device) and were copied to the host by
        # the extension to be graded, "got (device type 2)"; [] when every one was on the host
        self.host_copies = list(d.get("host_copies") or [])
        # attention: the lse's figures beside O's (None when no lse was given); ok is both
        self.lse = Result(d["lse"]) if d.get("lse") else None
        if self.lse is not None and not self.lse.ok:
            self.ok = False
            self.verdict = ("lse " + self.lse.verdict if self.verdict == "ok"
                            else "%s; lse %s" % (self.verdict, self.lse.verdict))

    @property
    def figures(self):
        """The figures as one dict (the JSON's keys; what the pytest plugin's rows record)."""
        return dict(self._d)

    @property
    def ratio_max(self):
        return self.bound.ratio_max if self.bound else None

    def __bool__(self):
        return self.ok

    def __str__(self):
        return self.text

    def __repr__(self):
        return "<ulpgate.Result %s: %d outputs, ulp_max %r, %s>" % (
            self.op, self.outputs, self.ulp_max, self.verdict)
