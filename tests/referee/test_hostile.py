"""Hostile bots, one per behaviour, as real processes against a real referee.

For each: the right ending and reason are recorded, the other seat gets the win
(forfeit policy) or the game goes on (substitute policy), the bot is told what it
did wrong, and no bot process survives the match.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from referee.local import play_local_match
from referee.match import MatchConfig, Policy
from spite_engine import Ending, parse_rules
from referee.server import start_referee

from .conftest import FAST, good, hostile, run_match
from .test_sandbox import survivors


def only_game(result):  # type: ignore[no-untyped-def]
    assert len(result.match.results) == 1
    return result.match.results[0].outcome


def log_text(result, seat: int) -> str:  # type: ignore[no-untyped-def]
    path = result.logs[seat]
    return Path(path).read_text() if path else ""


@pytest.mark.parametrize("mode, ending, words", [
    ("garbage", Ending.MALFORMED, "no move_index, move or plan"),
    ("bad-move", Ending.ILLEGAL_MOVE, "illegal move"),
    ("future-decision", Ending.MALFORMED, "does not exist yet"),
    ("hello-again", Ending.MALFORMED, "expected an Action"),
    ("flood", Ending.MALFORMED, "flooding"),
    ("loop-forever", Ending.TIMEOUT, "no answer"),
    ("crash-mid", Ending.CRASH, "exited with code 7"),
    ("disconnect-mid", Ending.DISCONNECT, "closed its stream"),
    ("exit-early", Ending.CRASH, "before connecting"),
    ("wrong-token", Ending.CRASH, "before connecting"),
])
def test_forfeit_policy_records_the_fault_and_the_other_seat_wins(mode: str, ending: Ending, words: str,
                                                                  logs: Path) -> None:
    result = run_match([hostile(mode), good()], log_dir=logs)
    outcome = only_game(result)
    assert outcome.ending is ending, outcome
    assert words in outcome.reason, outcome.reason
    assert outcome.offender == 0 and outcome.winners == (1,)
    report = result.match.seats[0].report
    assert report.status in ("invalid", "timeout", "error")
    assert result.match.seats[1].report.status == "done"
    assert result.match.state_name == "finished"
    for info in result.exits:
        assert info.returncode is not None  # every process was reaped (the group was killed)


def test_wrong_token_is_told_unauthenticated(logs: Path) -> None:
    result = run_match([hostile("wrong-token"), good()], log_dir=logs)
    assert "UNAUTHENTICATED" in log_text(result, 0)


def test_second_connection_for_a_seat_is_refused_and_the_first_plays_on(logs: Path) -> None:
    result = run_match([hostile("double-connect"), good()], log_dir=logs)
    assert "ALREADY_EXISTS" in log_text(result, 0)
    assert only_game(result).ending.by_rules


def test_the_offender_is_told_why(logs: Path) -> None:
    result = run_match([hostile("bad-move"), good()], log_dir=logs)
    text = log_text(result, 0)
    assert "referee says: illegal move: H:Q>C0: there is no Q in your hand" in text
    assert "game over: seat 0 forfeits" in log_text(result, 1)  # the other bot is told too


def test_substitute_policy_plays_a_fallback_and_counts_strikes(logs: Path) -> None:
    result = run_match([hostile("bad-move"), good()], policy=Policy.SUBSTITUTE, log_dir=logs)
    outcome = only_game(result)
    assert outcome.ending.by_rules, outcome  # one strike: the game went on to a normal end
    report = result.match.seats[0].report
    assert report.illegal_moves == 1 and report.status == "done"
    assert "strike 1 of 3" in log_text(result, 0)


def test_late_answer_is_dropped_never_applied(logs: Path) -> None:
    result = run_match([hostile("sleep-once"), good()], policy=Policy.SUBSTITUTE, log_dir=logs)
    report = result.match.seats[0].report
    assert report.timeouts == 1
    assert report.illegal_moves == 0 and report.malformed == 0  # the late answer was not judged
    assert "is closed; the action was dropped" in log_text(result, 0)
    assert only_game(result).ending.by_rules


def test_answers_to_old_decisions_are_dropped_without_penalty(logs: Path) -> None:
    result = run_match([hostile("old-decision"), good()], log_dir=logs)
    assert only_game(result).ending.by_rules
    report = result.match.seats[0].report
    assert report.timeouts == report.illegal_moves == report.malformed == 0


def test_oversized_message_ends_the_seat_not_the_referee(logs: Path) -> None:
    result = run_match([hostile("oversized"), good()], log_dir=logs)
    outcome = only_game(result)
    assert outcome.ending is Ending.CRASH and outcome.offender == 0
    assert "RESOURCE_EXHAUSTED" in log_text(result, 0)  # the bot was told why


def test_time_bank_absorbs_small_overruns() -> None:
    """A bot slower than the per-decision limit but within its bank is not faulted."""
    # good bots answer in a few ms; with decision_ms=1 nearly every answer overruns a little
    from referee.match import TimeControl
    result = run_match([good(), good()], time_control=TimeControl(decision_ms=1, bank_ms=60_000, connect_ms=8000))
    reports = [s.report for s in result.match.seats]
    assert all(r.timeouts == 0 for r in reports)
    assert only_game(result).ending.by_rules


def test_referee_keeps_serving_other_matches_while_one_is_hostile(tmp_path: Path) -> None:
    async def main() -> tuple[object, object]:
        referee = await start_referee("127.0.0.1:0")
        try:
            rules = parse_rules("standard")
            calm = MatchConfig(rules, ["a", "b"], FAST, 2, 5, Policy.FORFEIT)
            rough = MatchConfig(rules, ["x", "y"], FAST, 2, 6, Policy.FORFEIT)
            return await asyncio.gather(
                play_local_match([good(), good()], calm, referee=referee),
                play_local_match([hostile("crash-mid"), good()], rough, referee=referee))
        finally:
            await referee.stop()

    calm, rough = asyncio.run(main())
    assert all(g.outcome.ending.by_rules for g in calm.match.results)  # type: ignore[attr-defined]
    assert [g.outcome.ending for g in rough.match.results] == [Ending.CRASH, Ending.CRASH]  # type: ignore[attr-defined]


def test_no_bot_process_survives_a_match(tmp_path: Path) -> None:
    """A bot that leaves a child behind (in a session of its own, so outside the bot's process
    group): everything the bot started dies with the match."""
    marker = f"--marker=leftover-{uuid.uuid4().hex}"
    script = tmp_path / "spawner.py"
    bot = tmp_path / "hostile_bot.py"  # next to the spawner: under bubblewrap only its directory is readable
    bot.write_text((Path(__file__).parent.parent / "bots" / "hostile_bot.py").read_text())
    script.write_text(
        "import os, subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {marker!r}], start_new_session=True)\n"
        f"os.execv(sys.executable, [sys.executable, {str(bot)!r}, 'good', {marker!r}])\n")
    from referee.manifest import BotManifest
    import sys as _sys
    spawner = BotManifest(name="spawner", command=(_sys.executable, str(script)), workdir=tmp_path)
    result = run_match([spawner, good()])
    assert only_game(result).ending.by_rules
    assert survivors(marker) == []


def test_bots_run_under_resource_limits(logs: Path) -> None:
    """No core dumps, files capped at 64 MiB, 1024 open files: a bot writing a 100 MiB file
    is stopped by the kernel (SIGXFSZ, or EFBIG where the runtime ignores that signal, as
    CPython does) and loses the game."""
    result = run_match([hostile("limits"), good()], log_dir=logs)
    text = log_text(result, 0)
    assert "RLIMIT_CORE=0" in text and f"RLIMIT_FSIZE={64 * 1024 * 1024}" in text and "RLIMIT_NOFILE=1024" in text
    result = run_match([hostile("big-file"), good()], log_dir=logs)
    outcome = only_game(result)
    assert outcome.ending is Ending.CRASH and outcome.offender == 0, outcome
    assert "File too large" in log_text(result, 0)


# -- a manifest cannot reach out of its folder (both modes: checked before any process starts) --

@pytest.mark.parametrize("field, line", [
    ("workdir", 'workdir = "../.."'),
    ("workdir", 'workdir = "/"'),
    ("command", 'command = ["{python}", "../../seed.secret"]'),
    ("command", 'command = ["{python}", "/etc/hostname"]'),
    ("command", 'command = ["{python}", "bot.py", "--key=../seed.secret"]'),
    ("command", 'command = ["./link/bot"]'),
])
def test_a_manifest_that_reaches_out_of_its_folder_is_refused_naming_the_field(tmp_path: Path, field: str,
                                                                               line: str) -> None:
    """The attack: ``workdir = "../.."`` let a bot read the tournament's ``seed.secret`` under
    bubblewrap (its workdir is bound into its view), ``workdir = "/"`` voided its matches."""
    from referee.manifest import ManifestError, load_manifest

    (tmp_path / "seed.secret").write_text("s3cret")
    folder = tmp_path / "entrant" / "bot"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "link").symlink_to(tmp_path)  # a symlink out of the folder is followed, then refused
    (tmp_path / "bot").write_text("#!/bin/sh\n")
    (tmp_path / "bot").chmod(0o755)
    text = 'name = "sneaky"\n' + ("" if line.startswith("command") else 'command = ["{python}", "bot.py"]\n') + line
    (folder / "bot.toml").write_text(text + "\n")
    with pytest.raises(ManifestError, match=f"field '{field}'.*leads out of the bot's folder"):
        load_manifest(folder / "bot.toml")


def test_a_manifest_inside_its_folder_still_loads(tmp_path: Path) -> None:
    from referee.manifest import load_manifest

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bot.py").write_text("")
    (tmp_path / "bot.toml").write_text('name = "fine"\nworkdir = "src"\ncommand = ["{python}", "{dir}/src/bot.py", '
                                       '"--data=./x"]\n')
    assert load_manifest(tmp_path / "bot.toml").workdir == (tmp_path / "src").resolve()
