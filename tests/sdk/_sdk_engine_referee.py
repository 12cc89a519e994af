"""A small engine-driven referee for the SDK tests: the bot under test on seat 0,
greedy in process on seat 1, real games of the standard rules."""

from __future__ import annotations

import _sdk_engine_wire as wire
from _sdk_referee import Session

from spite.v1 import referee_pb2
from spite_engine import GameState, observe, parse_rules
from spite_engine import Move as EngineMove
from spite_sdk import convert, policies

RULES = parse_rules("standard")
GAMES = 2
BOT_SEAT = 0


class EngineReferee:
    """Plays GAMES games of RULES: the bot on seat 0, greedy in process on seat 1."""

    def __init__(self) -> None:
        self.bot_moves: list[list[EngineMove]] = []
        self.outcomes: list[str] = []

    async def __call__(self, session: Session) -> None:
        assert session.hello is not None
        await session.send(welcome=referee_pb2.Welcome(
            seat=BOT_SEAT, rules=wire.rules(RULES), games=GAMES, match_id="engine", protocol_version=1,
            time_control=referee_pb2.TimeControl(decision_ms=1000, bank_ms=10_000, connect_ms=10_000),
            seat_names=[session.hello.name, "greedy"], policy=referee_pb2.POLICY_FORFEIT))
        decision_id = 0
        for game in range(GAMES):
            state = GameState.new(RULES, seed=100 + game, first_seat=game % 2)
            moves: list[EngineMove] = []
            self.bot_moves.append(moves)
            opening = wire.observation(observe(state, BOT_SEAT))
            del opening.legal_moves[:]
            await session.send(game_start=referee_pb2.GameStart(game_number=game, first_seat=state.to_move,
                                                                observation=opening))
            while state.outcome is None:
                view = observe(state, state.to_move)
                if state.to_move != BOT_SEAT:
                    state.apply(policies.greedy_move(view))
                    continue
                decision_id += 1
                await session.send(decision=referee_pb2.DecisionRequest(
                    decision_id=decision_id, game_number=game, observation=wire.observation(view),
                    deadline_ms=1000, bank_ms=10_000))
                action = await session.action()
                assert action.decision_id == decision_id
                choice = action.WhichOneof("choice")
                assert choice in ("move", "move_index"), choice
                move = (view.legal_moves[action.move_index] if choice == "move_index"
                        else EngineMove(*convert.move_from_proto(action.move)))
                state.apply_checked(move, BOT_SEAT)
                moves.append(move)
                await session.send(result=referee_pb2.ActionResult(decision_id=decision_id,
                                                                   applied=[wire.move(move)]))
            assert state.outcome is not None
            self.outcomes.append(state.outcome.reason)
            await session.send(game_over=referee_pb2.GameOver(game_number=game, outcome=wire.outcome(state.outcome)))
        await session.send(match_over=referee_pb2.MatchOver(reason="done"))
        assert await session.receive() is None
