"""How the suite is shared between pytest-xdist's workers (``make test`` runs ``pytest -n``,
and pyproject.toml's addopts hold ``--dist loadgroup``; README, "Testing").

A test file runs whole on one worker: its module-scoped fixtures (a browser, a CA, a built
SDK) are then made once, and its tests keep their order. Tests that build sample bots inside
the repository (``npm ci`` empties ``node_modules``, ``cargo``, ``go build`` and ``mvn`` write
next to the sources) share one group, ``sample-bot-builds``, so no two of them run at once.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
