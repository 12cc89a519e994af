"""Items 6-10 and 12 of issue 17: the front door of the command line -- --version, shell
completion, help that names every sample bot and the exit codes, plain-English first lines,
results that name bots, replays that say where they went, a resumed tournament's summary,
and replay's --turn / --moves-only."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from spite_cli.common import EXIT_CODES_HELP
from tournaments.bot_specs import SAMPLE_BOTS

from .conftest import CRASHY, spite


def test_version() -> None:
    run = spite("--version")
    assert run.returncode == 0 and re.fullmatch(r"spite \d+\.\d+\.\d+\n", run.stdout)


def test_the_help_starts_with_the_three_things_users_do_most() -> None:
    lines = spite("--help").stdout.splitlines()
    top = "\n".join(lines[:14])
    assert "spite play greedy random" in top and "spite check-bot" in top and "spite tournament" in top


@pytest.mark.parametrize("command", ["play", "replay", "referee", "tournament", "leaderboard", "games",
                                     "check-bot", "doctor", "seed"])
def test_every_help_documents_the_exit_codes(command: str) -> None:
    run = spite(command, "--help")
    assert run.returncode == 0 and EXIT_CODES_HELP.splitlines()[1].strip() in run.stdout
    assert "a bot failed" in run.stdout and "platform failed" in run.stdout


def test_play_help_lists_every_sample_bot_and_replay_file_has_help() -> None:
    text = " ".join(spite("play", "--help").stdout.split())
    for bot in sorted(p.parent.name for p in SAMPLE_BOTS.glob("*/bot.toml")):
        assert bot in text
    assert "--no-replays" in text
    assert "a replay file" in spite("replay", "--help").stdout


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_shell_completion_scripts(shell: str) -> None:
    run = spite("--print-completion", shell)
    assert run.returncode == 0 and "check-bot" in run.stdout and "leaderboard" in run.stdout


def test_play_names_bots_says_where_replays_went_and_exits_0(tmp_path: Path) -> None:
    run = spite("play", "planner", "naive", "--seed", "3", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert re.search(r"(planner \(seat 0\)|naive \(seat 1\)|planner \(seat 0\).*naive \(seat 1\))", run.stdout)
    assert "replays: replays/ (1 file; spite replay FILE, or --no-replays); bot logs: replays/logs/" in run.stdout
    assert len(list((tmp_path / "replays").glob("*.jsonl.gz"))) == 1


def test_exit_codes_tell_a_bot_failure_from_bad_usage(tmp_path: Path) -> None:
    assert spite("play", str(CRASHY), "greedy", "--no-replays", cwd=tmp_path).returncode == 1
    assert spite("play", "greedy", "--seed", "-1", cwd=tmp_path).returncode == 2
    assert spite("play", "greedy", "random", "--no-replays", cwd=tmp_path).returncode == 0


def test_a_resumed_tournament_counts_only_what_it_played(league: Path) -> None:
    run = spite("tournament", "league.toml", "--db", "league.db", "--plain", "--resume", cwd=league)
    summary = run.stdout.strip().splitlines()[-1]
    assert "league (#1): 0 matches played in" in summary, summary
    assert "more from an earlier run" in summary


def test_replay_turn_and_moves_only(league: Path) -> None:
    replay = str(next((league / "replays").glob("*.jsonl.gz")))
    moves = spite("replay", replay, "--moves-only", cwd=league).stdout.splitlines()
    turn3 = [line for line in moves if " · turn 3 · " in line]
    assert turn3 and all(re.match(r"step \d+ · turn \d+ · \S+ \(seat \d\) plays ", line) for line in turn3)
    shown = spite("replay", replay, "--turn", "3", "--moves-only", cwd=league).stdout.splitlines()
    assert shown == turn3
    tables = spite("replay", replay, "--turn", "3", cwd=league).stdout
    assert tables.count("omniscient") == len(turn3)
    bad = spite("replay", replay, "--turn", "100000", cwd=league)
    assert bad.returncode == 2 and "this game's turns are 1.." in bad.stderr


def test_replay_debug_strings_are_whole_when_piped(league: Path) -> None:
    replay = str(next((league / "replays").glob("*.jsonl.gz")))
    out = spite("replay", replay, "--all", cwd=league, env={"COLUMNS": "40"}).stdout
    assert max(len(line) for line in out.splitlines()) > 40  # not cropped to a terminal's width
    json.dumps(out)
