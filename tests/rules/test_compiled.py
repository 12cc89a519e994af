"""The compiled engine (``spite_engine.compiled``, built by ``engine/compile.py``: the engine's hot
modules, the SDK's reference policies and the tactician's search) is the Python engine, faster:
the same games, and never a build older than its sources.

The rest of the suite runs on whichever build the package loads (the compiled one, after
``make setup``); these tests run the Python sources beside it in a subprocess
(``SPITE_ENGINE=python``) and compare everything the engine does in whole games.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spite_engine
import spite_sdk
from spite_engine import compiled

from .engine_digest import game_digest
from .golden import REGEN_COMMAND
from .support import SPECS

ROOT = Path(__file__).resolve().parents[2]


def python_env() -> dict[str, str]:
    return {**os.environ, compiled.ENVIRONMENT: "python"}


def test_the_compiled_engine_runs_where_it_was_built() -> None:
    """`make setup` builds it (engine/compile.py); a suite that silently ran the Python engine
    would test only one of the two builds."""
    if os.environ.get(compiled.ENVIRONMENT) == "python":
        assert not spite_engine.COMPILED and not spite_sdk.COMPILED
        return
    for package in (spite_engine, spite_sdk):
        assert package.COMPILED, (
            f"{package.__name__} runs from its Python sources: `.venv/bin/python engine/compile.py spite_engine "
            "spite_sdk` builds the compiled modules (and says why it cannot)")
    extensions = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    assert spite_engine.state.__file__.endswith(extensions)
    assert spite_sdk.policies.__file__ is not None and spite_sdk.policies.__file__.endswith(extensions)


@pytest.fixture(scope="module")
def python_engine() -> Iterator[subprocess.Popen[str]]:
    """``tests.rules.engine_digest`` on the Python sources, reading cases on stdin."""
    process = subprocess.Popen([sys.executable, "-m", "tests.rules.engine_digest"], cwd=ROOT, env=python_env(),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert json.loads(process.stdout.readline()) == {"compiled": False}
    yield process
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=60) == 0


def python_digest(process: subprocess.Popen[str], case: dict[str, object]) -> str:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(case) + "\n")
    process.stdin.flush()
    return process.stdout.readline().strip()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=st.sampled_from(SPECS), seed=st.integers(0, 2**64 - 1),
       policies=st.text(alphabet="GRT", min_size=1, max_size=4), every=st.integers(2, 15))
def test_both_builds_play_identical_games(python_engine: subprocess.Popen[str], spec: str, seed: int,
                                          policies: str, every: int) -> None:
    """Any rule set, deal and mix of greedy, random and tactician seats: every legal-move list, every
    seat's observation, lazy observations held across moves, a clone and a determinized world
    played on, the log and the outcome are the same in both builds."""
    case = {"spec": spec, "seed": seed, "policies": policies, "every": every}
    assert game_digest(case) == python_digest(python_engine, case)


def test_the_python_sources_pass_the_golden_files() -> None:
    """The perft counts and playthroughs (the rules' executable statement) with the Python
    sources, as the rest of the suite checks them with the compiled build."""
    done = subprocess.run([sys.executable, "-m", "tests.rules.golden"], cwd=ROOT, env=python_env(),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{done.stdout}{done.stderr}\nregenerate only after a rule change: {REGEN_COMMAND}"


def _loads(package_parent: Path, env: dict[str, str]) -> dict[str, object]:
    # The compiled observation module cimports GameState: no module attribute of that name there.
    code = ("import json, spite_engine, spite_engine.state as s, spite_engine.observation as o; "
            "print(json.dumps({'compiled': spite_engine.COMPILED, 'state': s.__file__, "
            "'same': getattr(o, 'GameState', s.GameState) is s.GameState}))")
    done = subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONPATH": str(package_parent)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_a_build_older_than_its_sources_is_never_run(tmp_path: Path) -> None:
    """An edited source wins over the extension built from the old one (the import system
    would otherwise load the extension); so does ``SPITE_ENGINE=python``."""
    if not spite_engine.COMPILED:
        pytest.fail("no current build to copy: `.venv/bin/python engine/compile.py`")
    package = tmp_path / "spite_engine"
    shutil.copytree(compiled.ENGINE.directory, package, ignore=shutil.ignore_patterns("__pycache__"))
    env = {key: value for key, value in os.environ.items() if key != compiled.ENVIRONMENT}

    current = _loads(tmp_path, env)
    assert current["compiled"] is True and not str(current["state"]).endswith(".py")

    assert _loads(tmp_path, python_env()) == {"compiled": False, "state": str(package / "state.py"), "same": True}

    with (package / "state.py").open("a") as source:
        source.write("\n# edited after the build\n")
    assert _loads(tmp_path, env) == {"compiled": False, "state": str(package / "state.py"), "same": True}
