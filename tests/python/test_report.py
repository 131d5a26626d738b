"""The pytest report goes through `run --report`'s folder code (python/ulpgate/_ext/report.c):
a folder of another tool's files is refused and left alone, one session writes into a folder at
a time, a session cut short is marked interrupted and one killed leaves the folder marked in
progress (no gate reads either as a whole run), two checks with one row id are an error naming
both, a rerun into the same folder keeps the ids, a test skipped now regresses at the gate, and
pytest-xdist's workers' rows reach the one report."""
import json
import os
import subprocess

import pytest

import ulpgate

SUITE = '''
import os
import numpy as np
import pytest
import ulpgate

x = np.random.default_rng(7).standard_normal((4, 256)).astype(np.float32)


def test_a():
    ulpgate.check("sum", x, got=x.sum(axis=1, dtype=np.float32))


@pytest.mark.skipif(os.environ.get("UG_SKIP_B") == "1", reason="skipped on purpose")
def test_b():
    ulpgate.check("dot", x, x, got=(x * x).sum(axis=1, dtype=np.float32), name="dot b")


@pytest.mark.parametrize("p", ["u v", "w"])
def test_c(p):
    ulpgate.check("sum", x[:, ::-1], got=x[:, ::-1].sum(axis=1, dtype=np.float32))
'''


def run_suite(pytester, plugin_args, report, suite=SUITE, *more):
    pytester.makepyfile(test_k=suite)
    return pytester.runpytest_subprocess(*plugin_args, "--ulpgate-report", str(report), *more)


def ids(report):
    return sorted(r[2] for r in json.load(open(os.path.join(str(report), "results.json")))["results"])


def cli_run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def test_foreign_folder_refused_and_left_alone(pytester, plugin_args, tmp_path):
    d = tmp_path / "theirs"
    d.mkdir()
    (d / "results.json").write_text('{"not": "ulpgate"}')
    res = run_suite(pytester, plugin_args, d)
    assert res.ret != 0
    assert "ulpgate report" in res.stderr.str() + res.stdout.str()
    assert (d / "results.json").read_text() == '{"not": "ulpgate"}'


def test_one_session_at_a_time(pytester, plugin_args, tmp_path):
    d = tmp_path / "r"
    held = ulpgate._ulpgate.Report(str(d))  # this process holds the folder's lock
    res = run_suite(pytester, plugin_args, d)
    out = res.stderr.str() + res.stdout.str()
    assert res.ret != 0 and "one run per report folder" in out, out
    del held


def test_interrupted_session_marked(pytester, plugin_args, tmp_path, cli):
    d = tmp_path / "r"
    cut = SUITE.replace('def test_b():\n', 'def test_b():\n    raise KeyboardInterrupt\n')
    res = run_suite(pytester, plugin_args, d, cut)
    assert "marked interrupted" in res.stdout.str()
    meta = json.load(open(d / "results.json"))["meta"]
    assert meta["interrupted"] is True and "interrupted" in meta["stop_reason"]
    p = cli_run(cli, "compare", str(d / "results.json"), str(d / "results.json"),
                "--fail-on-regression")
    assert p.returncode != 0 and "NEW was interrupted" in p.stdout + p.stderr, p.stdout


def test_killed_session_leaves_folder_marked(pytester, plugin_args, tmp_path, cli):
    d = tmp_path / "r"
    killed = SUITE.replace('def test_b():\n', 'def test_b():\n    import signal\n'
                           '    os.kill(os.getpid(), signal.SIGKILL)\n')
    run_suite(pytester, plugin_args, d).assert_outcomes(passed=4)  # an earlier, whole report
    run_suite(pytester, plugin_args, d, killed)
    assert (d / ".ulpgate-in-progress").exists()
    p = cli_run(cli, "compare", str(d / "results.json"), str(d / "results.json"))
    assert p.returncode != 0 and "in progress" in p.stdout + p.stderr


def test_row_id_collision_names_both(pytester, plugin_args, tmp_path):
    d = tmp_path / "r"
    twin = SUITE + '''

def test_twins():
    ulpgate.check("sum", x, got=x.sum(axis=1, dtype=np.float32), name="s t")
    ulpgate.check("sum", x, got=x.sum(axis=1, dtype=np.float32), name="s_t")
'''
    res = run_suite(pytester, plugin_args, d, twin)
    res.assert_outcomes(passed=4, failed=1)
    out = res.stdout.str()
    assert "check 's_t' of test_k.py::test_twins has the row id" in out, out
    assert "of check 's t' of test_k.py::test_twins" in out, out
    assert len(set(ids(d))) == len(ids(d))


def test_rerun_into_same_folder_keeps_ids(pytester, plugin_args, tmp_path):
    d = tmp_path / "r"
    run_suite(pytester, plugin_args, d).assert_outcomes(passed=4)
    first = ids(d)
    run_suite(pytester, plugin_args, d).assert_outcomes(passed=4)
    assert ids(d) == first and len(first) == 4


def test_skipped_now_regresses_at_the_gate(pytester, plugin_args, tmp_path, cli, monkeypatch):
    base, new = tmp_path / "base", tmp_path / "new"
    run_suite(pytester, plugin_args, base).assert_outcomes(passed=4)
    (tmp_path / "bl").mkdir()
    p = cli_run(cli, "baseline", "update", "--from", str(base / "results.json"), "--dir",
                str(tmp_path / "bl"), "--reason", "python suite")
    assert p.returncode == 0, p.stdout + p.stderr
    key = cli_run(cli, "baseline", "key", "--from", str(base / "results.json")).stdout.strip()
    monkeypatch.setenv("UG_SKIP_B", "1")
    run_suite(pytester, plugin_args, new).assert_outcomes(passed=3, skipped=1)
    p = cli_run(cli, "compare", str(tmp_path / "bl" / key), str(new / "results.json"),
                "--fail-on-regression")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "test_k.py::test_b" in p.stdout, p.stdout


def test_xdist_workers_rows_reach_one_report(pytester, plugin_args, tmp_path):
    pytest.importorskip("xdist", reason="pytest-xdist missing (Debian: python3-pytest-xdist)")
    d, alone = tmp_path / "r", tmp_path / "alone"
    run_suite(pytester, plugin_args, alone).assert_outcomes(passed=4)
    res = run_suite(pytester, plugin_args, d, SUITE, "-n", "2", "-p", "xdist")
    res.assert_outcomes(passed=4)
    assert "ulpgate: 4 checks written" in res.stdout.str(), res.stdout.str()
    assert ids(d) == ids(alone)
