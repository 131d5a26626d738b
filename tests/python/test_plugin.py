"""The pytest plugin, the acceptance flow: in a pytest suite a wrong kernel fails
with the worst element in hex (and the rerun hint) and a correct one passes; --ulpgate-report
writes a results.json that `ulpgate baseline update` takes and `ulpgate compare` gates, and a
planted regression fails the gate."""
import json
import os
import subprocess

SUITE = '''
import numpy as np
import ulpgate

rng = np.random.default_rng(7)
x = rng.standard_normal((8, 4096)).astype(np.float32)
y = rng.standard_normal((8, 4096)).astype(np.float32)


def pairwise_dot(x, y):
    p = x * y                      # one rounding a product
    while p.shape[-1] > 1:         # a tree: depth ceil(log2 n)
        if p.shape[-1] % 2:
            p = np.concatenate([p, np.zeros(p.shape[:-1] + (1,), p.dtype)], axis=-1)
        p = p[..., 0::2] + p[..., 1::2]
    return p[..., 0]


def test_correct_kernel():
    ulpgate.assert_exact(pairwise_dot(x, y), "dot", x, y, depth=12)


def test_wrong_kernel():
    got = pairwise_dot(x[:, :-1], y[:, :-1])   # drops the last term
    ulpgate.assert_exact(got, "dot", x, y, depth=12)


def test_two_checks():
    ulpgate.check("sum", x, got=x.sum(axis=1, dtype=np.float32))
    ulpgate.check("sum", x[:, ::-1], got=x[:, ::-1].sum(axis=1, dtype=np.float32))
'''


def run_suite(pytester, plugin_args, report, suite=SUITE):
    pytester.makepyfile(test_kernels=suite)
    return pytester.runpytest_subprocess(*plugin_args, "--ulpgate-report", str(report), "-rf")


def cli_run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def test_wrong_kernel_fails_in_hex_and_report_gates(pytester, plugin_args, cli, tmp_path,
                                                    monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # the short summary's line in full
    base = tmp_path / "base"
    res = run_suite(pytester, plugin_args, base)
    res.assert_outcomes(passed=2, failed=1)
    out = res.stdout.str()
    # pytest's short summary: the verdict, the worst element's bits, the rerun hint
    summary = [l for l in out.splitlines() if l.startswith("FAILED test_kernels.py::test_wrong_kernel")]
    assert summary and "error / tree bound" in summary[0], out
    assert "dot output 3: got 0xbfa8d210 want 0xbfc3766e" in summary[0], out
    assert "rerun: pytest 'test_kernels.py::test_wrong_kernel'" in summary[0]
    # the failure's body: the CLI's own worst-element line
    assert "worst      output 3: got 0xbfa8d210 (-0x1.51a42p+0)" in out and "exact ~" in out
    assert "ulpgate: 4 checks written to" in out

    doc = json.load(open(base / "results.json"))
    assert doc["format"] == 5
    ids = [r[2] for r in doc["results"]]
    assert "test_kernels.py::test_correct_kernel dot@python data 4096" in ids
    assert "test_kernels.py::test_two_checks sum#2@python data 4096" in ids
    assert doc["summary"]["failed"] == 1 and doc["summary"]["passed"] == 3

    # a baseline from it; the same run compares clean
    (tmp_path / "bl").mkdir()
    p = cli_run(cli, "baseline", "update", "--from", str(base / "results.json"), "--dir",
                str(tmp_path / "bl"), "--reason", "initial baseline of the Python suite")
    assert p.returncode == 0, p.stderr + p.stdout
    key = cli_run(cli, "baseline", "key", "--from", str(base / "results.json")).stdout.strip()
    blpath = str(tmp_path / "bl" / key)
    same = tmp_path / "same"
    run_suite(pytester, plugin_args, same).assert_outcomes(passed=2, failed=1)
    p = cli_run(cli, "compare", blpath, str(same / "results.json"), "--fail-on-regression")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "0 regressed" in p.stdout

    # a planted regression: the "correct" kernel becomes a serial loop (depth n - 1)
    worse = SUITE.replace("ulpgate.assert_exact(pairwise_dot(x, y), \"dot\", x, y, depth=12)",
                          "ulpgate.assert_exact(np.array([np.float32(sum(a * b for a, b in "
                          "zip(r, s))) for r, s in zip(x, y)]), \"dot\", x, y)")
    assert worse != SUITE
    new = tmp_path / "new"
    run_suite(pytester, plugin_args, new, worse).assert_outcomes(passed=2, failed=1)
    p = cli_run(cli, "compare", blpath, str(new / "results.json"), "--fail-on-regression")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "REGRESSION test_kernels.py::test_correct_kernel dot@python" in p.stdout


def test_no_report_without_the_option(pytester, plugin_args):
    pytester.makepyfile(test_a="import ulpgate, numpy as np\n"
                               "def test_a():\n"
                               "    x = np.ones(4, np.float32)\n"
                               "    ulpgate.assert_exact(np.float32(4), 'sum', x)\n")
    res = pytester.runpytest_subprocess(*plugin_args)
    res.assert_outcomes(passed=1)
    assert not os.path.exists(os.path.join(str(pytester.path), "results.json"))


FIXTURE_SUITE = '''
import numpy as np
import pytest
import ulpgate

x = np.random.default_rng(3).standard_normal((2, 64)).astype(np.float32)


@pytest.fixture
def graded():
    ulpgate.check("sum", x, got=ulpgate.exact("sum", x).rounded, ulp_max=0.5, name="in_setup")
    yield
    ulpgate.check("sum", x, got=x.sum(axis=1) * 2, ulp_max=1, name="in_teardown")


def test_with_fixture(graded):
    ulpgate.check("sum", x, got=x.sum(axis=1), name="in_call")
'''


def test_checks_in_fixtures_are_rows(pytester, plugin_args, tmp_path):
    """A check in a fixture's setup or teardown is a row of its test, not a row lost (the
    teardown's fails, and the report says so)."""
    rep = tmp_path / "rep"
    res = run_suite(pytester, plugin_args, rep, FIXTURE_SUITE)
    res.assert_outcomes(passed=1)
    assert "ulpgate: 3 checks written" in res.stdout.str(), res.stdout.str()
    doc = json.load(open(rep / "results.json"))
    ids = sorted(r[2] for r in doc["results"])
    assert ids == ["test_kernels.py::test_with_fixture %s@python data 64" % n
                   for n in ("in_call", "in_setup", "in_teardown")], ids
    assert doc["summary"]["failed"] == 1 and doc["summary"]["passed"] == 2, doc["summary"]
