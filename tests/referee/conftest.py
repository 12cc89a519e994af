"""Shared helpers for the referee tests: real referees on port 0 / Unix sockets, real bot processes."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Sequence

import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.local import LocalMatch, play_local_match
from referee.processes.manifest import BotManifest
from spite_engine import parse_rules

from ..load import calibrated_ms

BOTS = Path(__file__).resolve().parent.parent / "bots"

# Short limits so misbehaviour is seen quickly; connect stays generous for slow process starts.
# Scaled by how slow this machine is when the tests start (tests/load.py), and the referee
# gives back to a bot the time the machine kept it off the CPU (docs/rules.md): a test meant
# to end by a memory kill, an output cap or the rules does not end by a timeout instead.
FAST = TimeControl(decision_ms=calibrated_ms(400), bank_ms=calibrated_ms(300), connect_ms=calibrated_ms(8000))


NOT_GIVEN = ("was not given its time", "the referee ran")
"""What a void match says when the machine (or the referee) did not give a bot its time."""


def judged_or_void(match: Any) -> bool:
    """True if ``match`` finished; else it must be void because a bot was not given its time
    (on a machine so busy that ``GIVEN_CAP`` windows did not give it one: never a loss the
    bot did not earn, docs/rules.md), and False is returned."""
    if match.state_name == "finished":
        return True
    assert match.state_name == "void" and any(words in match.void_reason for words in NOT_GIVEN), \
        (match.state_name, match.void_reason)
    return False


def hostile(mode: str) -> BotManifest:
    return BotManifest(name=f"hostile-{mode}", command=(sys.executable, str(BOTS / "hostile_bot.py"), mode),
                       workdir=BOTS)


def good() -> BotManifest:
    return hostile("good")


def run_match(bots: Sequence[BotManifest], *, rules: str = "standard", games: int = 1, seed: int = 1,
              policy: Policy = Policy.FORFEIT, time_control: TimeControl = FAST, log_dir: Path | None = None,
              **kwargs: Any) -> LocalMatch:
    config = MatchConfig(parse_rules(rules), [b.name for b in bots], time_control, games, seed, policy, **kwargs)
    return asyncio.run(play_local_match(bots, config, log_dir=log_dir))


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    return tmp_path / "logs"
