"""What every language's SDK test shares: the toolchain rule, the greedy parity positions,
and the match through the real referee with its assertions.

Toolchain rule: where a tool is missing the tests are skipped with the reason, except
under CI (``CI=true``), where a missing toolchain is a failure.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import shutil
import subprocess
import sys
from os import environ
from pathlib import Path
from typing import Iterator, NamedTuple, NoReturn

import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.local import LocalMatch, play_local_match
from referee.processes.manifest import BotManifest
from spite.v1 import referee_pb2 as rpb
from spite_engine import GameState, observe, parse_rules
from spite_sdk import policies
from spite_wire import observation_to_proto, rules_to_proto
from spite_wire.encoding import varint

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "bots" / "hostile_bot.py"

# Rule sets the greedy comparison draws positions from, and how many games of each.
CASE_RULES = ("standard", "skip-bo+4p", "partners", "open-stock", "no-block", "kings-only", "classic-20", "3p")
CASE_GAMES = 3
MATCHES = [("standard", 2, 2), ("skip-bo+4p", 4, 1)]
"""(rules, seats, games) each language's greedy bot plays through the referee."""


def unavailable(reason: str) -> NoReturn:
    """A toolchain is missing: skip with the reason, or fail under CI (CI=true)."""
    if environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must have it")
    pytest.skip(reason)


def require(program: str, what: str) -> str:
    """The path of ``program``, or :func:`unavailable` saying what is missing."""
    path = shutil.which(program)
    if path is None:
        unavailable(f"{what} ({program}) is not on PATH")
    return path


class Position(NamedTuple):
    spec: str
    rules: bytes
    """The wire RuleSet, serialized."""
    observation: bytes
    """The wire Observation of the seat to move, serialized."""
    choice: str
    """The Python greedy_move's choice, in notation."""
    move_index: int
    """Its index in the observation's legal moves."""


def greedy_positions() -> Iterator[Position]:
    """Positions from engine games, grouped by rule set, with the Python greedy_move's choice;
    greedy moves are mixed with random ones so that odd positions come up too."""
    for spec in CASE_RULES:
        rules = parse_rules(spec)
        wire_rules = rules_to_proto(rules).SerializeToString()
        for seed in range(CASE_GAMES):
            rng = random.Random(f"{spec}:{seed}")
            state = GameState.new(rules, seed)
            for _ in range(400):
                if state.outcome is not None:
                    break
                view = observe(state, state.to_move)
                choice = policies.greedy_move(view)
                yield Position(spec, wire_rules, observation_to_proto(view).SerializeToString(), str(choice),
                               view.legal_moves.index(choice))
                state.apply(choice if rng.random() < 0.7 else rng.choice(view.legal_moves))


def hostile_good() -> BotManifest:
    """A raw-protocol Python bot that plays legal moves: the opponent in these matches."""
    return BotManifest(name="hostile-good", command=(sys.executable, str(HOSTILE), "good"), workdir=HOSTILE.parent)


def play_cleanly(bot: BotManifest, rules: str, seats: int, games: int, log_dir: Path,
                 opponent: BotManifest | None = None) -> LocalMatch:
    """``bot`` in the even seats, ``opponent`` (default ``hostile_good``) in the odd ones,
    forfeit on any fault (so a bad action cannot hide behind a substituted move); asserts every
    game ended by the rules, no seat faulted, every process exited 0 and the bot introduced
    itself by its manifest."""
    other = opponent or hostile_good()
    bots = [bot if seat % 2 == 0 else other for seat in range(seats)]
    config = MatchConfig(parse_rules(rules), [b.name for b in bots], TimeControl(), games, seed=5,
                         policy=Policy.FORFEIT)
    local = asyncio.run(play_local_match(bots, config, log_dir=log_dir))
    logs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}" for p in local.logs if p and p.exists())
    match = local.match
    assert match.state_name == "finished", logs
    assert len(match.results) == games
    for result in match.results:
        assert result.outcome.ending.by_rules, f"game {result.game_number}: {result.outcome.reason}\n{logs}"
    for seat in match.seats:
        report = seat.report
        assert (report.status, report.timeouts, report.illegal_moves, report.malformed, report.crashes) == \
            ("done", 0, 0, 0, 0), f"seat {seat.index}: {report.faults}\n{logs}"
        assert report.decisions > 0
    assert [e.returncode for e in local.exits] == [0] * seats, logs
    assert (match.seats[0].report.name, match.seats[0].report.version) == (bot.name, bot.version)
    return local


# -- protobuf frames on the referee's pipes (stdio_format = "protobuf") -------------------------

TRANSPORTS = {"grpc": ("grpc", "json"), "frames": ("stdio", "protobuf")}
"""The two ways an SDK plays: on gRPC, and on protobuf frames on the referee's pipes
(the manifest's ``transport`` and ``stdio_format``)."""


def on_transport(bot: BotManifest, transport: str) -> BotManifest:
    """``bot`` with its manifest saying ``transport`` (a key of :data:`TRANSPORTS`)."""
    on, stdio_format = TRANSPORTS[transport]
    return dataclasses.replace(bot, transport=on, stdio_format=stdio_format)


HOSTILE_FRAMES = [
    (varint(2**40), "a frame of 1099511627776 bytes, over 64 KiB"),
    (varint(65537) + b"\x00" * 10, "a frame of 65537 bytes, over 64 KiB"),
    (b"\x80" * 10 + b"\x01", "a frame length over 10 bytes"),
    (b"\xff" * 9, "a frame length cut short"),
    (varint(100) + b"\x08" * 10, "a frame cut short by the end of the stream (10 of 100 bytes)"),
    (varint(4) + b"\xff" * 4, "a frame of 4 bytes is not a RefereeMessage"),
]
"""The referee's side gone wrong, as a bot reads it on its stdin (tests/referee/test_stdio_frames.py
has the same streams from the bot's side): the bytes, and the words of the one line the bot
stops with, after ``NAME: the referee's frames are unreadable: ``."""


def framed(message: rpb.RefereeMessage) -> bytes:
    """``message`` as one frame: its size as a varint, then its bytes."""
    body: bytes = message.SerializeToString()
    return varint(len(body)) + body


def run_on_pipes(bot: BotManifest, data: bytes, stdio: str = "protobuf") -> subprocess.CompletedProcess[bytes]:
    """The bot's command started as the referee starts a stdio bot (``SPITE_STDIO``, no address
    or token), ``data`` on its stdin."""
    env = {k: v for k, v in environ.items() if not k.startswith("SPITE_")}
    return subprocess.run(list(bot.command), cwd=bot.workdir, input=data, capture_output=True,
                          env={**env, "SPITE_STDIO": stdio}, timeout=60)


def assert_refusal_reported(bot: BotManifest, name: str) -> None:
    """On the pipes the bot says Hello without a token, and a Refusal frame stops it (exit 1)
    with one line saying what the refusal means."""
    refusal = rpb.RefereeMessage(refusal=rpb.Refusal(code="UNAUTHENTICATED", message="unknown or expired seat token"))
    done = run_on_pipes(bot, framed(refusal))
    assert done.returncode == 1, done
    size, body = done.stdout[0], done.stdout[1:]
    assert size == len(body), done.stdout
    hello = rpb.BotMessage.FromString(body).hello
    assert (hello.name, hello.token) == (name, "")
    assert done.stderr.decode().strip().splitlines() == [
        f"{name}: the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE) "
        "(UNAUTHENTICATED: unknown or expired seat token)"]


def assert_hostile_frames_stop_it(bot: BotManifest, name: str, data: bytes, words: str) -> None:
    """``data`` on its stdin stops the bot (exit 1) with one line giving the reason."""
    done = run_on_pipes(bot, data)
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1 and words in lines[0], (done.returncode, lines)
    assert lines[0].startswith(f"{name}: the referee's frames are unreadable: "), lines


def assert_json_lines_refused(bot: BotManifest) -> None:
    """``SPITE_STDIO=json``: the SDK says in one line that it speaks frames only (exit 2)."""
    done = run_on_pipes(bot, b'{"welcome": {}}\n', stdio="json")
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and 'stdio_format = "protobuf"' in lines[0], (done, lines)
