"""How the suite is shared between pytest-xdist's workers (``make test`` runs ``pytest -n``;
pyproject.toml's addopts hold ``--dist loadfile``; README, "Testing").

A test file runs whole on one worker: its module-scoped fixtures (a browser, a CA, a built
SDK) are made once, and Playwright's event loop never meets another module's asyncio.run.
The files that build sample bots inside the repository (``npm ci`` empties ``node_modules``
while another test may be running the bot; ``cargo``, ``go build`` and ``mvn`` write next
to the sources) are one unit of work, so they run one after another on one worker.

xdist's own ``--dist loadgroup`` would say this with ``xdist_group`` marks, but pytest-xdist
3.8 groups by rewriting ``Node._nodeid``, which pytest 9.2 no longer reads: the marks are
silently ignored. The scheduler below needs only test ids.

Longest first: each run records the seconds each unit of work took (setup, call and teardown
of its tests, in pytest's cache, ``.pytest_cache``) and prints the slowest; the next run hands
out the units that took longest first, so no worker is left with a long file at the end while
the other waits (units never timed go first, in xdist's order: most tests first).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

import referee  # noqa: F401  # first, before any test module imports grpc: see referee/__init__.py

BUILDS = ("tests/languages/", "tests/arena/test_remote_go.py", "tests/arena/test_remote_languages.py")
"""Test files (ids from the repository root) that build sample bots in sample_bots/."""


SECONDS_KEY = "spite/unit-seconds"
"""pytest's cache key of the seconds each unit of work took when it last ran."""
SLOWEST_SHOWN = 12


def unit_of(nodeid: str) -> str:
    """A test's unit of work: its file, or one unit for all the BUILDS files."""
    path = nodeid.split("::", 1)[0]
    return "sample-bot-builds" if path.startswith(BUILDS) else path


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, with the BUILDS files as one unit of work, the longest first."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    cache = getattr(config, "cache", None)  # None with -p no:cacheprovider
    timed: dict[str, float] = cache.get(SECONDS_KEY, {}) if cache is not None else {}

    class FilesWithBuildsTogether(LoadFileScheduling):  # type: ignore[misc]
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            if not self.ordered:  # the queue is whole before its first unit is handed out
                self.ordered = True
                units = list(self.workqueue.items())
                units.sort(key=lambda unit: (unit[0] in timed, -timed.get(unit[0], 0.0)))  # stable: xdist's order
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return FilesWithBuildsTogether(config, log)


class UnitSeconds:
    """Sums each unit's test time (in the process that reports: xdist's controller, or the
    only one) and keeps it in pytest's cache for the next run's order."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        unit = unit_of(report.nodeid)
        self.seconds[unit] = self.seconds.get(unit, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        cache = getattr(session.config, "cache", None)
        if cache is not None and self.seconds:
            cache.set(SECONDS_KEY, {**cache.get(SECONDS_KEY, {}), **{u: round(s, 2) for u, s in self.seconds.items()}})

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if len(self.seconds) < SLOWEST_SHOWN:
            return  # a few files: --durations says more
        slowest = sorted(self.seconds.items(), key=lambda unit: -unit[1])[:SLOWEST_SHOWN]
        terminalreporter.write_sep("-", f"the {SLOWEST_SHOWN} slowest units of work (test seconds, of "
                                        f"{sum(self.seconds.values()):.0f} in all)")
        for unit, seconds in slowest:
            terminalreporter.write_line(f"{seconds:8.1f} s  {unit}")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # xdist's workers report to the controller
        config.pluginmanager.register(UnitSeconds(), "spite-unit-seconds")


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """An empty directory with a short path, for the TMPDIR of a ``spite`` command: the referee
    puts its Unix socket under TMPDIR, and a socket's path has at most 107 bytes, which
    pytest's ``tmp_path`` on an xdist worker (``.../pytest-N/popen-gw1/test_name0/``) can pass."""
    path = Path(tempfile.mkdtemp(prefix="spite-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
