"""The finals' frozen copies (issue 31.6): renamed by parsing their manifest, whatever strings
it holds, and ``spite arena finals`` with a relative ``--data`` (the default included)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from spite_arena.config import load_competition
from spite_arena.finals import prepare_finals
from spite_arena.store import ArenaStore
from tournaments.config import load_tournament

REPO = Path(__file__).resolve().parents[2]
TRICK = '"""\nname = "trick"\n"""'


def sneaky_bot(folder: Path) -> Path:
    """Greedy, named like the greedy house bot's finalist, with a ``name =`` line in a multi-line
    argument before its real name (the old rename rewrote the first ``name =`` line of the text)."""
    shutil.copytree(REPO / "sample_bots" / "greedy", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "bot.toml").write_text(f'language = "python"\ncommand = ["{{python}}", "bot.py", {TRICK}]\n'
                                     f'name = "house-greedy-v1"\nversion = "1.0"\ntransport = "stdio"\n'
                                     f'stdio_format = "protobuf"\n[env]\nSPITE_NOTE = "a \\"quoted\\" \\\\ note\\t"\n')
    return folder / "bot.toml"


def test_a_frozen_manifest_is_renamed_by_parsing_it(tmp_path: Path) -> None:
    spec = sneaky_bot(tmp_path / "sneaky")
    file = tmp_path / "c.toml"
    file.write_text(f'house_bots = ["greedy", "{spec}"]\n[finals]\ntop = 2\nrounds = 1\n')
    competition = load_competition(file)
    with ArenaStore(tmp_path / "data") as store:
        store.ensure_house_bot("greedy", "1.0.0", "greedy", competition.rating)
        store.ensure_house_bot("house-greedy-v1", "1.0", str(spec), competition.rating)
        plan = prepare_finals(store, competition, tmp_path / "data")
    tournament = load_tournament(plan.file)  # the old rename: "two different bots are named 'house-greedy-v1'"
    assert sorted(tournament.bots) == ["house-greedy-v1", "house-house-greedy-v1-v1"]
    assert tournament.untrusted
    frozen = tomllib.loads((plan.file.parent / "bots" / "house-house-greedy-v1-v1" / "bot.toml").read_text())
    original = tomllib.loads(spec.read_text())
    assert frozen == {**original, "name": "house-house-greedy-v1-v1"}
    assert frozen["command"][2] == 'name = "trick"\n' and frozen["env"]["SPITE_NOTE"] == 'a "quoted" \\ note\t'


@pytest.mark.slow
def test_the_finals_play_with_a_relative_data_directory(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('name = "rel"\nhouse_bots = ["greedy", "naive"]\nparallel = 1\n'
                                     '[finals]\ntop = 2\nrounds = 1\n')
    with ArenaStore(tmp_path / "arena-data") as store:
        for name in ("greedy", "naive"):
            store.ensure_house_bot(name, "1.0.0", name, load_competition(tmp_path / "c.toml").rating)
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    for data in ([], ["--data", "arena-data"]):  # the default ./arena-data, and the same spelled out
        done = subprocess.run([sys.executable, "-m", "spite_cli.main", "arena", "finals", "c.toml", *data],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "master seed" in done.stdout and "seed commitment (publish it now): sha256:" in done.stdout
    files = sorted((tmp_path / "arena-data" / "finals").glob("*/finals.toml"))
    assert files and all(str(tmp_path) in f.read_text() for f in files)
