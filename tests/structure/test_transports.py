"""The referee's two transports are adapters over one session (issue 29): neither
``referee/server.py`` (gRPC) nor ``referee/stdio.py`` (a launched bot's pipes) imports the
other, and ``referee/session.py``, which both carry, imports neither. Read with ``ast``
from the source (nothing is imported), so the import that breaks it is named with its line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REFEREE = Path(__file__).resolve().parents[2] / "referee"
TRANSPORTS = {"referee.server", "referee.stdio"}


def referee_imports(source: str, module: str) -> list[tuple[int, str]]:
    """(line, module) for every ``referee`` module that ``source`` (the text of ``module``, a
    top-level module of the referee package) imports, in any spelling: ``import referee.x``,
    ``from referee.x import y``, ``from referee import x``, ``from .x import y``, ``from . import x``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, module)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("referee")]
        elif isinstance(node, ast.ImportFrom):
            base = "referee" if node.level else (node.module or "")
            if node.level and node.module:
                base = f"referee.{node.module}"
            if base != "referee" and not base.startswith("referee."):
                continue
            found.append((node.lineno, base))
            if base == "referee":  # from referee import server / from . import server
                found += [(node.lineno, f"referee.{alias.name}") for alias in node.names]
    return found


def test_the_reader_sees_every_spelling_of_an_import() -> None:
    source = ("import referee.server\nfrom referee.stdio import serve_stdio_seat\nfrom referee import server\n"
              "from .stdio import decode\nfrom . import server, warm\nfrom spite_engine import Ending\n")
    names = [name for _, name in referee_imports(source, "referee.example")]
    assert names == ["referee.server", "referee.stdio", "referee", "referee.server", "referee.stdio", "referee",
                     "referee.server", "referee.warm"]


@pytest.mark.parametrize("module", ["server", "stdio", "session"])
def test_no_transport_imports_another(module: str) -> None:
    own = f"referee.{module}"
    wrong = [f"referee/{module}.py:{line} imports {name}"
             for line, name in referee_imports((REFEREE / f"{module}.py").read_text(), own)
             if name in TRANSPORTS and name != own]
    assert not wrong, "the transports sit side by side on referee/session.py:\n" + "\n".join(wrong)


def test_the_referee_knows_nothing_of_the_checkout() -> None:
    """Where this tree keeps its sample bots is known above the referee (tournaments/bot_specs.py)."""
    wrong = [f"{path.relative_to(REFEREE.parent)}:{number}" for path in sorted(REFEREE.rglob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if "sample_bots" in line or "SAMPLE_BOTS" in line or "REPO_ROOT" in line]
    assert not wrong, "the referee names the checkout's sample bots:\n" + "\n".join(wrong)
