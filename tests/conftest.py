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
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

BUILDS = ("tests/languages/", "tests/arena/test_remote_go.py", "tests/arena/test_remote_languages.py")
"""Test files (ids from the repository root) that build sample bots in sample_bots/."""


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, with the BUILDS files as one unit of work."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FilesWithBuildsTogether(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "sample-bot-builds" if path.startswith(BUILDS) else path

    return FilesWithBuildsTogether(config, log)


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
