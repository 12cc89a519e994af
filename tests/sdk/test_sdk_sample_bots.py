"""The sample bots play whole games through the SDK, as real processes started the way
their bot.toml says, against a small engine-driven referee; random and naive make the
same choices as the same class run in process with the same seed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from _sdk_engine_referee import BOT_SEAT, GAMES, RULES, EngineReferee
from _sdk_referee import PYTHON, run_bot

from spite_engine import GameState, observe
from spite_engine import Move as EngineMove
from spite_sdk import policies

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"


def load_bot_module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"sample_bot_{name}", SAMPLE_BOTS / name / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def replay_in_process(name: str, bot_seed: str, games: list[list[EngineMove]]) -> list[list[EngineMove]]:
    """What the sample bot's class chooses in process, on engine observations, for the
    same games (the opponent's moves are deterministic)."""
    module = load_bot_module(name)
    bot = getattr(module, f"{name.capitalize()}Bot")()
    monkey = pytest.MonkeyPatch()
    monkey.setenv("SPITE_BOT_SEED", bot_seed)
    chosen: list[list[EngineMove]] = []
    for game in range(len(games)):
        state = GameState.new(RULES, seed=100 + game, first_seat=game % 2)
        bot.game_number = game  # what run() sets when a GameStart arrives
        bot.on_game_start(game, observe(state, BOT_SEAT))
        moves: list[EngineMove] = []
        chosen.append(moves)
        while state.outcome is None:
            view = observe(state, state.to_move)
            move = bot.decide(view) if state.to_move == BOT_SEAT else policies.greedy_move(view)
            if state.to_move == BOT_SEAT:
                moves.append(move)
            state.apply(move)
    monkey.undo()
    return chosen


@pytest.mark.parametrize("name", ["random", "greedy", "naive"])
def test_sample_bot_plays_whole_games_and_reproduces_in_process(name: str) -> None:
    directory = SAMPLE_BOTS / name
    manifest = tomllib.loads((directory / "bot.toml").read_text())
    assert manifest["name"] == name and manifest["language"] == "python"
    assert (manifest["transport"], manifest["stdio_format"]) == ("stdio", "protobuf")  # the referee's pipes
    command = [PYTHON if part == "{python}" else part for part in manifest["command"]]
    referee = EngineReferee()
    run = run_bot(command, referee, cwd=directory, env={"SPITE_TOKEN": "t", "SPITE_BOT_SEED": "5"})
    assert run.returncode == 0, run.stderr
    assert run.session.hello is not None and run.session.hello.name == name
    assert run.session.hello.version == manifest["version"]
    assert len(referee.outcomes) == GAMES and all(referee.bot_moves)
    assert referee.bot_moves == replay_in_process(name, "5", referee.bot_moves)


@pytest.mark.parametrize(("name", "setting", "text", "says"), [
    ("searcher", "SPITE_SEARCHER_ROLLOUTS", "many",
     "SPITE_SEARCHER_ROLLOUTS must be a whole number from 1 to 1,000,000, got 'many'"),
    ("searcher", "SPITE_SEARCHER_MS", "-5", "SPITE_SEARCHER_MS must be a number from 1 to 600,000, got '-5'"),
    ("searcher", "SPITE_SEARCHER_VALUE", "0.5", "SPITE_SEARCHER_VALUE must be a whole number from 0 to 1, got '0.5'"),
    ("sampler", "SPITE_SAMPLER_MS", "nan", "SPITE_SAMPLER_MS must be a number from 1 to 600,000, got 'nan'"),
    ("sampler", "SPITE_SAMPLER_BASE", "oracle", "SPITE_SAMPLER_BASE must be one of planner, tactician, got 'oracle'"),
])
def test_a_bad_setting_is_one_line_and_exit_status_2(name: str, setting: str, text: str, says: str) -> None:
    """A sample bot's own settings are read from its environment when it starts: a value out of
    range stops it before it connects, with one line naming the range, not a traceback."""
    run = subprocess.run([PYTHON, "bot.py"], cwd=SAMPLE_BOTS / name, capture_output=True, text=True, timeout=120,
                         env={**_environ(), setting: text})
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().splitlines() == [f"{name}: {says}"]


def _environ() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith("SPITE_")}
