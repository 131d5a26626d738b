"""The Python package's tests (pytest): run by `meson test -C build python` in a tree configured
with -Dpython=enabled (PYTHONPATH=build/python), and by CI against the package installed in a
virtual environment (.ci/run).  ULPGATE_EXE names the CLI for the tests that compare with it
(default: the installed package's own, ulpgate/bin/ulpgate)."""
import os
import shutil

import pytest

try:
    from importlib.metadata import entry_points
except ImportError:  # pragma: no cover
    entry_points = None

pytest_plugins = ["pytester"]


def plugin_installed():
    """Whether pytest loads ulpgate's plugin by itself (the package installed: entry point)."""
    if entry_points is None:
        return False
    eps = entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    return any(e.name == "ulpgate" for e in group)


def cli_path():
    exe = os.environ.get("ULPGATE_EXE")
    if exe:
        return exe
    import ulpgate._cli
    if os.access(ulpgate._cli.path(), os.X_OK):
        return ulpgate._cli.path()
    return shutil.which("ulpgate")


@pytest.fixture
def cli():
    exe = cli_path()
    if not exe:
        pytest.skip("no ulpgate CLI (set ULPGATE_EXE, or install the package)")
    return exe


@pytest.fixture
def plugin_args():
    """What an inner pytest run needs to load the plugin: nothing once installed."""
    return [] if plugin_installed() else ["-p", "ulpgate.pytest_plugin"]
