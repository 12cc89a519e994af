"""Item 1 and 2 of issue 17: a crashing bot's traceback is shown by `spite play`, in the
tournament's failing-bots panel and by `spite check-bot`, and its whole log is kept where
the result names it. Real bot processes, the real command."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .conftest import CRASHY, spite


def test_play_shows_the_traceback_of_a_bot_that_raises_and_exits_1(tmp_path: Path) -> None:
    run = spite("play", str(CRASHY), "greedy", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "crashy (seat 0) crashed: ValueError: crashy gives up at decision 20 (crashy.py line" in run.stdout
    assert 'raise ValueError(f"crashy gives up' in run.stdout  # the log's last lines, with the source line
    log = re.search(r"last lines of crashy \(seat 0\)'s log \((.+?)\):", run.stdout)
    assert log and (tmp_path / log.group(1)).is_file()
    assert "Traceback" in (tmp_path / log.group(1)).read_text()  # the whole (capped) log is kept
    assert "bot logs: replays/logs/" in run.stdout


def test_play_shows_a_syntax_error_and_where(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import sys\n\ndef decide(x)\n    return 1\n")
    run = spite("play", "broken.py", "greedy", "--no-replays", cwd=tmp_path)
    assert run.returncode == 1
    assert "SyntaxError: expected ':' (broken.py line 3)" in run.stdout
    assert "no replays written" in run.stdout and not (tmp_path / "replays").exists()


def test_play_json_carries_the_log_tail(tmp_path: Path) -> None:
    run = spite("play", str(CRASHY), "greedy", "--json", cwd=tmp_path)
    summary = json.loads(run.stdout)
    crashy = summary["seats"][0]
    assert crashy["crash"].startswith("ValueError: crashy gives up at decision 20")
    assert any("ValueError: crashy gives up at decision 20" in line for line in crashy["log_tail"]), crashy["log_tail"]
    assert Path(tmp_path / crashy["log"]).is_file()
    assert run.returncode == 1


def test_check_bot_on_a_crashing_bot_is_one_fail_and_says_what_it_could_not_run(tmp_path: Path) -> None:
    run = spite("check-bot", str(CRASHY), cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    fails = [line for line in lines if line.startswith("FAIL")]
    assert len(fails) == 1 and fails[0].startswith("FAIL  crash ")
    assert "ValueError: crashy gives up at decision 20 (crashy.py line" in fails[0]
    assert "PASS  handshake" in run.stdout
    for name in ("legal moves", "time limits", "rejection", "several games", "presets", "clean exit"):
        assert f"SKIP  {name:<14} not run: the bot crashed" in run.stdout
    assert "keep the stream open" not in run.stdout and "rules.players" not in run.stdout
    assert "SPITE_ADDRESS and SPITE_TOKEN from the environment" not in run.stdout
    assert "timeout(s)" not in run.stdout
    assert "2 passed, 1 failed, 6 not run" in run.stdout


def test_check_bot_json_on_a_bot_with_a_syntax_error(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def decide(x)\n    return 1\n")
    run = spite("check-bot", "broken.py", "--json", cwd=tmp_path)
    assert run.returncode == 1
    report = json.loads(run.stdout)
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["crash"]["status"] == "FAIL" and "SyntaxError" in by_name["crash"]["detail"]
    assert by_name["handshake"]["status"] == "SKIP"
    assert report["failed"] == 1 and not report["ok"]
    assert Path(by_name["crash"]["detail"].rsplit("whole log: ", 1)[1]).is_file()


def test_the_tournament_failing_bots_panel_shows_the_crash_and_its_log(league: Path) -> None:
    run = spite("tournament", "league.toml", "--db", "panel.db", "--plain", cwd=league)
    assert run.returncode == 1
    assert "crashed: ValueError: crashy gives up at decision 20 (crashy.py line" in run.stdout
    log = re.search(r"log: (\S+\.log)", run.stdout)
    assert log and Path(log.group(1)).is_file()


def test_check_bot_on_a_bot_that_never_connects_fails_the_handshake_only(tmp_path: Path) -> None:
    (tmp_path / "idle.py").write_text('print("hello, I forgot to play")\n')
    run = spite("check-bot", "idle.py", cwd=tmp_path)
    assert run.returncode == 1
    fails = [line for line in run.stdout.splitlines() if line.startswith("FAIL")]
    assert fails == [line for line in fails if line.startswith("FAIL  handshake ")] and len(fails) == 1
    assert "exited with status 0 before connecting" in fails[0] and "| hello, I forgot to play" in run.stdout
    assert "1 passed, 1 failed, 6 not run" in run.stdout
