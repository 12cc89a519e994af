"""The referee's layout is its layers: ``core`` (a match, with no transport and no process in it)
-> ``processes`` (manifests, builds, the launcher, over ``sandbox``) -> ``transports`` (gRPC and
stdio over one session) -> ``local`` and ``pool`` on top. Imports point down only, and no
transport imports another: ``server`` and ``stdio`` share ``session`` and ``warm``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REFEREE = Path(__file__).resolve().parents[2] / "referee"
ALLOWED = {  # a folder of referee/ -> the folders its modules may import
    "core": {"core"},
    "sandbox": {"sandbox"},
    "processes": {"core", "sandbox", "processes"},
    "transports": {"core", "sandbox", "processes", "transports"},
    "top": {"core", "sandbox", "processes", "transports", "top"},
}
SHARED_TRANSPORT = {"referee.transports.session", "referee.transports.warm"}


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) >= 2 and parts[1] in ALLOWED else "top"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(REFEREE.rglob("*.py")):
        parts = path.relative_to(REFEREE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(module: str, path: Path) -> set[str]:
    """The referee modules ``module`` imports, at the top or inside a function."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    modules = _modules()
    folders = {"referee", *(f"referee.{f}" for f in ALLOWED if f not in ("top", "sandbox"))}  # docstrings only
    return {name for name in found if name in modules and name not in folders}


def test_the_referee_folder_holds_its_layers_and_the_two_entry_points() -> None:
    files = {p.name for p in REFEREE.iterdir() if p.suffix == ".py"}
    folders = {p.name for p in REFEREE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert files == {"__init__.py", "local.py", "pool.py"}
    assert folders == {"core", "processes", "transports", "sandbox"}


@pytest.mark.parametrize("module", sorted(_modules()))
def test_imports_point_down_the_layers(module: str) -> None:
    path = _modules()[module]
    mine = _folder(module)
    for target in _imports(module, path):
        assert _folder(target) in ALLOWED[mine], f"{module} ({mine}) imports {target} ({_folder(target)})"
        if mine == "transports" and _folder(target) == "transports" and target != module:
            assert module in SHARED_TRANSPORT or target in SHARED_TRANSPORT, \
                f"the transport {module} imports the transport {target}: share referee.transports.session"


def test_the_referee_knows_nothing_of_the_checkout() -> None:
    """Where this tree keeps its sample bots is known above the referee (tournaments/bot_specs.py)."""
    wrong = [f"{path.relative_to(REFEREE.parent)}:{number}" for path in sorted(REFEREE.rglob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if "sample_bots" in line or "SAMPLE_BOTS" in line or "REPO_ROOT" in line]
    assert not wrong, "the referee names the checkout's sample bots:\n" + "\n".join(wrong)
