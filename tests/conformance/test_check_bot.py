"""`spite check-bot`: a good bot passes every check; a broken one fails the right check,
says what to fix, and the command exits non-zero. Real referee, real bot processes."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from referee.processes.manifest import BotManifest
from tournaments.bot_specs import resolve_bot
from tournaments.checkbot import check_bot

BOTS = Path(__file__).resolve().parents[1] / "bots"


def by_name(checks):  # type: ignore[no-untyped-def]
    return {c.name: c for c in checks}


@pytest.mark.parametrize("transport", ["stdio", "grpc"])
def test_the_python_greedy_sample_bot_passes_every_check(transport: str) -> None:
    """As shipped (the referee's pipes, protobuf frames: stdout is checked too) and dialling gRPC."""
    greedy = resolve_bot("greedy")
    assert (greedy.transport, greedy.stdio_format) == ("stdio", "protobuf")
    if transport == "grpc":
        greedy = dataclasses.replace(greedy, transport="grpc", stdio_format="json")
    checks = by_name(check_bot(greedy, games=2))
    assert set(checks) == {"build", "handshake", "legal moves", "time limits", "rejection", "several games",
                           "presets", "clean exit"} | ({"stdout"} if transport == "stdio" else set())
    assert all(c.passed for c in checks.values()), [c.line() for c in checks.values()]


def test_a_stdio_bot_writing_stray_output_fails_with_the_fix() -> None:
    bot = BotManifest(name="stdio-garbage", command=(sys.executable, str(BOTS / "stdio_bot.py"), "garbage"),
                      workdir=BOTS, transport="stdio")
    checks = by_name(check_bot(bot, games=2))
    assert not checks["stdout"].passed and "write logs to stderr" in checks["stdout"].line()
    assert checks["handshake"].passed and checks["clean exit"].passed


def test_the_command_exits_non_zero_naming_the_failed_check() -> None:
    command = f"{sys.executable} {BOTS / 'hostile_bot.py'} bad-move"
    run = subprocess.run([sys.executable, "-m", "spite_cli.main", "check-bot", command, "--games", "2"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAIL  legal moves" in run.stdout and "illegal move" in run.stdout
    assert "PASS  handshake" in run.stdout
