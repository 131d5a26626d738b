"""The pytest plugin of ulpgate (entry point pytest11, on once the package is installed).

    pytest --ulpgate-report DIR

writes DIR/results.json (the format `ulpgate run --report` writes, by the same C writer): one
row per ulpgate.check / assert_exact made by a test, the case named by the test's node id, the
kernel by the check's name= (default: the operation), so that

    ulpgate baseline update --from DIR/results.json --dir BASELINES
    ulpgate compare BASELINES DIR/results.json

gate a Python suite as they gate the C suite.  A failed assert_exact names the worst element in
hex and the test to rerun in pytest's own failure output and short summary.
"""
import os
import sys

import pytest

import ulpgate


def pytest_addoption(parser):
    group = parser.getgroup("ulpgate", "ulpgate (exact error of floating-point kernels)")
    group.addoption("--ulpgate-report", metavar="DIR", default=None,
                    help="write DIR/results.json: a row per ulpgate check, for `ulpgate "
                         "compare` and `ulpgate baseline`")


class _Session:
    """The rows of one pytest session, in the C library's results list."""

    def __init__(self, directory):
        self.dir = os.path.abspath(directory)
        self.report = ulpgate._ulpgate.Report(self.dir)
        self.labels = {}
        self.test = None

    def record(self, result, passed, name):
        # one row per check: a name used twice in a test gets "#2", "#3" ...
        key = (self.test, name)
        self.labels[key] = self.labels.get(key, 0) + 1
        label = name if self.labels[key] == 1 else "%s#%d" % (name, self.labels[key])
        self.report.add(self.test or "python", label, result.figures, passed,
                        "" if passed else result.verdict)


def pytest_configure(config):
    d = config.getoption("ulpgate_report")
    config._ulpgate = _Session(d) if d else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    s = item.config._ulpgate
    ulpgate._current_test = item.nodeid
    if s is not None:
        s.test = item.nodeid
        ulpgate._recorder = s.record
    try:
        yield
    finally:
        ulpgate._current_test = None
        ulpgate._recorder = None
        if s is not None:
            s.test = None


def pytest_sessionfinish(session):
    s = getattr(session.config, "_ulpgate", None)
    if s is None:
        return
    cmd = " ".join(["pytest"] + sys.argv[1:])
    path = s.report.write(cmd)
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None:
        tr.write_line("ulpgate: %d checks written to %s" % (s.report.rows, path))
