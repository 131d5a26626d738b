"""The pytest plugin of ulpgate (entry point pytest11, on once the package is installed).

    pytest --ulpgate-report DIR

writes DIR/results.json (the format `ulpgate run --report` writes, by the same C writer): one
row per ulpgate.check / assert_exact made by a test, the case named by the test's node id, the
kernel by the check's name= (default: the operation), so that

    ulpgate baseline update --from DIR/results.json --dir BASELINES
    ulpgate compare BASELINES DIR/results.json

gate a Python suite as they gate the C suite.  A failed assert_exact names the worst element in
hex and the test to rerun in pytest's own failure output and short summary.

DIR is prepared as `run --report` prepares its folder (ownership, one writer at a time, the
in-progress mark: python/ulpgate/_ext/report.c); a session cut short writes its rows marked
interrupted.  Under pytest-xdist the workers send their rows to the controller, which writes
the one report.
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


def _worker(config):
    return hasattr(config, "workerinput")  # an xdist worker: its controller writes the report


class _Session:
    """The rows of one pytest session: in the C library's results list (the controller, or a
    session without xdist), or kept as plain data for the controller (an xdist worker)."""

    def __init__(self, directory, worker, command):
        self.dir = os.path.abspath(directory)
        self.worker = worker
        self.report = None if worker else ulpgate._ulpgate.Report(self.dir, command)
        self.kept = []   # a worker's ("row", args) and ("unit", args), in order
        self.labels = {}
        self.test = None
        self.rows = 0

    def _do(self, what, *args):
        if self.worker:
            self.kept.append((what, list(args)))
        elif what == "row":
            self.report.add(*args)
        else:
            self.report.unit(*args)
        self.rows += what == "row"

    def record(self, result, passed, name):
        # one row per check: a name used twice in a test gets "#2", "#3" ...
        key = (self.test, name)
        self.labels[key] = self.labels.get(key, 0) + 1
        label = name if self.labels[key] == 1 else "%s#%d" % (name, self.labels[key])
        self._do("row", self.test or "python", label, result.figures, bool(passed),
                 "" if passed else result.verdict)

    def unit(self, nodeid, seconds):
        self._do("unit", nodeid, float(seconds))

    def replay(self, kept):
        """A worker's rows and units, added here (the controller)."""
        for what, args in kept:
            self._do(what, *args)


def _case(item):
    """The row's case: the test's node id with its file relative to the directory pytest was run
    from.  Not the node id as pytest prints it: that is relative to the rootdir, which pytest
    works out from the command line's paths before this plugin's options are known, so that an
    existing report folder given as `--ulpgate-report DIR` (a separate argument) moves the
    rootdir up to a common ancestor and every id would change on a rerun into the folder."""
    node = item.nodeid
    file_part, sep, rest = node.partition("::")
    try:
        rel = os.path.relpath(str(item.path), str(item.config.invocation_params.dir))
    except (AttributeError, ValueError):
        return node
    if rel.startswith(os.pardir):
        return node
    return rel.replace(os.sep, "/") + sep + rest


def pytest_configure(config):
    d = config.getoption("ulpgate_report")
    cmd = " ".join(["pytest"] + sys.argv[1:])
    try:
        config._ulpgate = _Session(d, _worker(config), cmd) if d else None
    except OSError as e:  # the folder refused (another tool's files, another session in it)
        raise pytest.UsageError("--ulpgate-report: %s" % e) from None


def _recording(item):
    """The test's checks are recorded while its fixtures are set up and torn down too: a check
    in a fixture is one of the test's rows, not a row lost."""
    s = item.config._ulpgate
    ulpgate._current_test = item.nodeid
    if s is not None:
        s.test = _case(item)
        ulpgate._recorder = s.record
    try:
        yield
    finally:
        ulpgate._current_test = None
        ulpgate._recorder = None
        if s is not None:
            s.test = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _recording(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _recording(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from _recording(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Every test that ran or was skipped is a unit of the report (its checks' rows, or none):
    its case rides on the report (user_properties), which xdist carries to the controller."""
    outcome = yield
    rep = outcome.get_result()
    if item.config._ulpgate is not None and (rep.when == "call" or
                                             (rep.when == "setup" and rep.skipped)):
        rep.user_properties.append(("ulpgate_case", _case(item)))


def pytest_runtest_logreport(report):
    """The controller (or a session without xdist) records the units: it sees every worker's
    reports, so a worker does not."""
    s = getattr(_config, "_ulpgate", None) if _config else None
    if s is None or s.worker:
        return
    for k, v in getattr(report, "user_properties", ()):
        if k == "ulpgate_case":
            s.unit(v, getattr(report, "duration", 0.0))


_config = None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    global _config
    _config = session.config


def pytest_testnodedown(node, error):
    """xdist's controller: a worker is done; its rows join the report."""
    s = getattr(node.config, "_ulpgate", None)
    out = getattr(node, "workeroutput", None) or {}
    if s is not None and "ulpgate" in out:
        s.replay(out["ulpgate"])


def pytest_sessionfinish(session, exitstatus):
    s = getattr(session.config, "_ulpgate", None)
    if s is None:
        return
    if s.worker:
        session.config.workeroutput["ulpgate"] = s.kept
        return
    cmd = " ".join(["pytest"] + sys.argv[1:])
    stop = None
    if exitstatus == pytest.ExitCode.INTERRUPTED or session.shouldstop or session.shouldfail:
        stop = "pytest session interrupted (%s)" % (session.shouldstop or session.shouldfail
                                                    or "KeyboardInterrupt")
    path = s.report.write(cmd, stop)
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None:
        tr.write_line("ulpgate: %d checks written to %s%s" % (s.rows, path,
                                                          ", marked interrupted" if stop else ""))
