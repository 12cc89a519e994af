"""The stdio transport: same session, deadlines and faults as gRPC, over JSON lines."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import Policy
from referee.core.status import FaultKind
from referee.processes.manifest import BotManifest, load_manifest
from referee.transports.stdio import decode, encode
from spite.v1 import referee_pb2 as rpb
from spite_engine import Ending

from .conftest import BOTS, good, run_match

REPO = Path(__file__).resolve().parents[2]


def stdio(mode: str) -> BotManifest:
    return BotManifest(name=f"stdio-{mode}", command=(sys.executable, str(BOTS / "stdio_bot.py"), mode),
                       workdir=BOTS, transport="stdio")


def test_json_lines_round_trip_in_canonical_form() -> None:
    message = rpb.RefereeMessage(decision=rpb.DecisionRequest(decision_id=7, deadline_ms=1000))
    line = encode(message)
    assert line.endswith(b"\n") and b"\n" not in line[:-1]
    assert b'"decisionId":"7"' in line  # canonical JSON: 64-bit integers are strings
    answer = decode(b'{"action": {"decisionId": 7, "moveIndex": 3}}')
    assert answer.action.decision_id == 7 and answer.action.move_index == 3
    with pytest.raises(ValueError, match="not a BotMessage"):
        decode(b'{"actoin": {}}')


@pytest.mark.parametrize("rules", ["standard", "skip-bo+4p", "partners"])
def test_stdio_and_grpc_bots_play_together(rules: str, tmp_path: Path) -> None:
    players = 4 if rules != "standard" else 2
    bots = [stdio("good") if seat % 2 == 0 else good() for seat in range(players)]
    result = run_match(bots, rules=rules, games=2)
    assert all(g.outcome.ending.by_rules for g in result.match.results)
    assert all(s.report.status == "done" for s in result.match.seats)


def test_perl_sample_bot_plays_through_stdio() -> None:
    result = run_match([load_manifest(REPO / "sample_bots" / "perl-greedy"), good()], games=2,
                       time_control=TimeControl(decision_ms=2000, bank_ms=5000, connect_ms=8000))
    assert all(g.outcome.ending.by_rules for g in result.match.results)
    assert result.match.seats[0].report.faults == []


@pytest.mark.parametrize("mode, ending, words, kind", [
    ("garbage", Ending.MALFORMED, "unreadable line on stdout", FaultKind.MALFORMED),
    ("oversized", Ending.MALFORMED, "a line over 64 KiB", FaultKind.MALFORMED),
    ("silent", Ending.TIMEOUT, "no answer", FaultKind.TIMEOUT),
    ("wrong-token", Ending.CRASH, "exited with code 1", FaultKind.CRASH),
    ("stray-before-hello", Ending.CRASH, "exited with code 1", FaultKind.CRASH),
])
def test_stdio_faults_are_handled_like_grpc(mode: str, ending: Ending, words: str, kind: FaultKind,
                                            tmp_path: Path) -> None:
    result = run_match([stdio(mode), good()], policy=Policy.FORFEIT, log_dir=tmp_path)
    outcome = result.match.results[0].outcome
    assert outcome.ending is ending and words in outcome.reason, outcome
    assert outcome.winners == (1,)
    # the report names the fault's kind, so nothing downstream reads it from the words
    faults = result.match.seats[0].report.faults
    assert [f.kind for f in faults] == [kind] and words in faults[0].reason, faults
    assert result.match.report().seats[0].faults == tuple(faults)


def test_refusal_names_the_grpc_status(tmp_path: Path) -> None:
    result = run_match([stdio("wrong-token"), good()], log_dir=tmp_path)
    log = Path(result.logs[0]).read_text()
    assert "refused: UNAUTHENTICATED" in log
