"""Warm Python SDK bots on the stdio transport's protobuf frames in tournaments: the league
plays as in process, and the worker keeps the processes across matches (real workers, real
bot processes on real pipes, a real store)."""

from __future__ import annotations

import shutil
from pathlib import Path

from .conftest import LEAGUE, REPO, run, write_tournament
from .test_warm_league import WARM_BOT, _processes_per_match, in_process_outcomes, outcomes

FRAMES = 'transport = "stdio"\nstdio_format = "protobuf"\n'


def framed_copy(directory: Path, name: str) -> Path:
    """The sample bot ``name`` in a folder of its own, its manifest switched to protobuf frames."""
    folder = directory / name
    shutil.copytree(REPO / "sample_bots" / name, folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "bot.toml"
    lines = [line for line in manifest.read_text().splitlines() if not line.startswith(("transport", "stdio_format"))]
    manifest.write_text("\n".join(lines) + "\n" + FRAMES)
    return manifest


def test_a_warm_league_on_protobuf_frames_equals_the_in_process_run(tmp_path: Path) -> None:
    bots = [str(framed_copy(tmp_path, name)) for name in LEAGUE["bots"]]
    league = run(write_tournament(tmp_path, "frames", **{**LEAGUE, "bots": bots}), tmp_path / "frames.db")
    config = league.config
    assert config.reuse == "warm" and {b.stdio_format for b in config.bots.values()} == {"protobuf"}
    assert league.outcome.done == 6
    assert outcomes(league) == in_process_outcomes(league)


def test_the_worker_keeps_protobuf_stdio_bots_warm_across_jobs(tmp_path: Path) -> None:
    folder = tmp_path / "warm-bot"
    folder.mkdir()
    shutil.copy(WARM_BOT, folder / WARM_BOT.name)
    (folder / "bot.toml").write_text('name = "warm-bot"\nversion = "1"\ncommand = ["{python}", "warm_bot.py"]\n'
                                     + FRAMES)
    matches = _processes_per_match(folder / "bot.toml", tmp_path / "logs", "warm")
    assert all(len(p) == 2 for p in matches)
    assert len(set().union(*matches)) == 2, "the same two processes played all three matches"
