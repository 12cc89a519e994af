"""The compact session (``Hello.compact``) against the full one, through a real referee on a
Unix socket with SDK bots on both sides: the same games, the same decisions, the same events
reaching each bot exactly once, and what the compact session leaves out really left out."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.transports.server import start_referee, unix_address
from spite_engine import Event, Move, Observation, parse_rules
from spite_sdk import Bot
from spite_sdk.policies import greedy_move
from spite_sdk.types import ActionResult, Outcome


class Recorder(Bot):
    """Greedy, noting everything its hooks see."""

    name = "recorder"

    def __init__(self, compact: bool) -> None:
        self.compact = compact  # type: ignore[misc]  # the class default, per instance here
        self.events: list[Event] = []
        self.legal: list[tuple[Move, ...]] = []
        self.results: list[ActionResult] = []
        self.outcomes: list[Outcome] = []

    def decide(self, observation: Observation) -> Move:
        self.legal.append(observation.legal_moves)
        return greedy_move(observation)

    def on_events(self, events: tuple[Event, ...]) -> None:
        self.events.extend(events)

    def on_result(self, result: ActionResult) -> None:
        self.results.append(result)

    def on_game_over(self, game_number: int, outcome: Outcome) -> None:
        self.outcomes.append(outcome)


async def play(tmp_path: Path, rules: str, compact: tuple[bool, ...]) -> tuple[list[Recorder], Any]:
    referee = await start_referee(unix_address(tmp_path))
    try:
        spec = parse_rules(rules)
        match = referee.arena.create(MatchConfig(spec, ["a"] * spec.players, TimeControl(5000, 10_000, 20_000),
                                                 games=2, seed=11, policy=Policy.FORFEIT))
        bots = [Recorder(c) for c in compact]
        await asyncio.gather(*(bot.play(referee.address, seat.token) for bot, seat in zip(bots, match.seats)))
        await match.finished.wait()
        return bots, match
    finally:
        await referee.stop(grace=0.2)


@pytest.mark.parametrize("rules", ["standard", "skip-bo+3p", "partners"])
def test_compact_and_full_sessions_see_the_same_games(tmp_path: Path, rules: str) -> None:
    players = parse_rules(rules).players
    (tmp_path / "full").mkdir()
    (tmp_path / "compact").mkdir()
    (tmp_path / "mixed").mkdir()
    full, full_match = asyncio.run(play(tmp_path / "full", rules, (False,) * players))
    compact, compact_match = asyncio.run(play(tmp_path / "compact", rules, (True,) * players))
    mixed, _ = asyncio.run(play(tmp_path / "mixed", rules, tuple(i % 2 == 0 for i in range(players))))
    assert [r.outcome for r in full_match.results] == [r.outcome for r in compact_match.results]
    for seat in range(players):
        assert compact[seat].legal == full[seat].legal == mixed[seat].legal
        # every event of both games, once each, in order, whichever the session
        assert compact[seat].events == full[seat].events == mixed[seat].events
        assert compact[seat].outcomes == full[seat].outcomes
        assert len(full[seat].events) > len(full[seat].legal)
    # the full session answers every action; the compact one only a fault or a cut plan
    assert all(len(f.results) == len(f.legal) for f in full)
    assert all(c.results == [] for c in compact)
    assert all(b.playing_compact for b in compact) and not any(b.playing_compact for b in full)


def test_events_reach_a_compact_seat_only_in_its_decisions_and_at_the_end(tmp_path: Path) -> None:
    """On the wire: a compact seat's stream holds no EventBatch before a game's last decision."""
    import grpc

    from spite.v1 import referee_pb2 as rpb
    from spite.v1 import referee_pb2_grpc

    async def main() -> list[str]:
        referee = await start_referee(unix_address(tmp_path))
        try:
            spec = parse_rules("standard")
            match = referee.arena.create(MatchConfig(spec, ["a", "b"], TimeControl(5000, 10_000, 20_000), seed=3,
                                                     policy=Policy.FORFEIT))
            other = asyncio.create_task(Recorder(False).play(referee.address, match.seats[1].token))
            kinds: list[str] = []
            async with grpc.aio.insecure_channel(referee.address) as channel:
                call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
                await call.write(rpb.BotMessage(hello=rpb.Hello(token=match.seats[0].token, protocol_version=1,
                                                                compact=True)))
                async for message in call:
                    kind = message.WhichOneof("body")
                    kinds.append(kind)
                    if kind == "game_start":
                        assert message.game_start.compact
                    if kind == "decision":
                        decision = message.decision
                        assert not decision.observation.legal_moves and decision.packed_legal_moves
                        await call.write(rpb.BotMessage(action=rpb.Action(
                            decision_id=decision.decision_id, move_index=len(decision.packed_legal_moves) - 1)))
                    elif kind == "match_over":
                        await call.done_writing()
            await other
            return kinds
        finally:
            await referee.stop(grace=0.2)

    kinds = asyncio.run(main())
    assert kinds[:2] == ["welcome", "game_start"]
    last_decision = max(i for i, k in enumerate(kinds) if k == "decision")
    assert "events" not in kinds[:last_decision] and "result" not in kinds
    assert kinds[last_decision + 1:] in (["events", "game_over", "match_over"], ["game_over", "match_over"])
