"""One referee process holds many matches at once: 200 two-seat matches, 400 streams from a
separate client process, every seat connecting at the same moment, and none lost. (The
1,000-match figure is a benchmark: bench/referee_load.py; this is the correctness check.)"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.core.status import MatchState, SeatStatus
from referee.transports.server import start_referee
from spite_engine import parse_rules

from ..load import calibrated_ms

MATCHES = 200

CLIENT = r'''
import asyncio, json, sys
import grpc
from spite.v1 import referee_pb2 as rpb, referee_pb2_grpc

async def seat(stub, token, compact):
    call = stub.Play(metadata=(("spite-token", token),))
    await call.write(rpb.BotMessage(hello=rpb.Hello(name="light", version="1", protocol_version=1, compact=compact)))
    decisions = 0
    async for message in call:
        kind = message.WhichOneof("body")
        if kind == "decision":
            decision = message.decision
            codes = list(decision.packed_legal_moves) if compact else [m.kind for m in decision.observation.legal_moves]
            plays = [i for i, c in enumerate(codes) if c & 15 == 1]  # the first play, else the last move
            decisions += 1
            await call.write(rpb.BotMessage(action=rpb.Action(decision_id=message.decision.decision_id,
                                                              move_index=plays[0] if plays else len(codes) - 1)))
        elif kind == "match_over":
            await call.done_writing()
    return decisions

async def main():
    address, tokens = sys.argv[1], json.loads(sys.stdin.read())
    channels = [grpc.aio.insecure_channel(address) for _ in range(4)]
    stubs = [referee_pb2_grpc.RefereeStub(c) for c in channels]
    counts = await asyncio.gather(*(seat(stubs[i % 4], t, i % 3 != 0) for i, t in enumerate(tokens)))
    print(sum(counts))

asyncio.run(main())
'''


def test_two_hundred_matches_at_once_on_one_referee(tmp_path: Path) -> None:
    async def main() -> tuple[list[object], int]:
        referee = await start_referee("127.0.0.1:0")
        try:
            rules = parse_rules("short-13")
            # connect_ms is the hello allowance too: 400 streams opening at once are not no-shows
            # (scaled by the machine's measured slowdown: these bots are not processes of the referee's,
            # so it cannot see what the machine gave them)
            time_control = TimeControl(decision_ms=calibrated_ms(10_000), bank_ms=calibrated_ms(30_000),
                                       connect_ms=calibrated_ms(60_000))
            matches = [referee.arena.create(MatchConfig(rules, ["a", "b"], time_control, games=1, seed=n,
                                                        policy=Policy.FORFEIT)) for n in range(MATCHES)]
            tokens = [seat.token for match in matches for seat in match.seats]
            client = await asyncio.create_subprocess_exec(
                sys.executable, "-c", CLIENT, referee.address, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            out, _ = await client.communicate(json.dumps(tokens).encode())
            assert client.returncode == 0
            # not a speed check: only so a hung referee fails the test (the client has finished)
            await asyncio.wait_for(asyncio.gather(*(m.finished.wait() for m in matches)), 600)
            return list(matches), int(out)
        finally:
            await referee.stop(grace=0.5)

    matches, decisions = asyncio.run(main())
    states = [m.state_name for m in matches]  # type: ignore[attr-defined]
    assert states == [MatchState.FINISHED] * MATCHES, [(m.state_name, m.void_reason) for m in matches  # type: ignore[attr-defined]
                                                       if m.state_name != MatchState.FINISHED]
    for match in matches:
        for seat in match.seats:  # type: ignore[attr-defined]
            report = seat.report
            assert report.status is SeatStatus.DONE, (report.status, report.faults)
            assert report.timeouts == report.illegal_moves == report.malformed == report.crashes == 0
        assert match.results[0].outcome.ending.by_rules  # type: ignore[attr-defined]
    assert decisions == sum(s.report.decisions for m in matches for s in m.seats) > 20 * MATCHES  # type: ignore[attr-defined]
