"""Live spectating: a running match, from the referee's Spectate stream, as it happens.

The referee sends spectators the public view only (``observe_public`` at each game's start,
then ``visible_events(state, None)``: no hand, no drawn card, no shuffled order).
:class:`PublicTable` keeps the table from exactly that and nothing else -- it has no way to
hold a hand -- and :func:`spectate` turns the stream into the viewer's frames, which
``/api/live/{match}`` sends to the browser as server-sent events.
``tests/web/test_live.py`` checks that the table it keeps equals the engine's public view
after every move of random games of every rule set.
"""

from __future__ import annotations

from typing import Any, AsyncGenerator

from spite_engine import Ending, Event, EventKind, MoveKind, RuleSet, Source
from spite_wire import event_from_proto, rules_from_proto
from spite.v1 import game_pb2
from spite.v1 import referee_pb2 as rpb

from .replay_view import viewer_rules

_ADMIN_METADATA = "spite-admin-token"


class PublicTable:
    """The public table of one game, from its public start and its public events."""

    def __init__(self, rules: RuleSet, start: dict[str, Any]) -> None:
        self.rules = rules
        self.turn: int = start["turn"]
        self.to_move: int = start["to_move"]
        self.hand_sizes: list[int] = list(start["hand_sizes"])
        self.stocks = [{"count": s["count"], "visible": list(s["visible"])} for s in start["stocks"]]
        self.discards = [[list(p) for p in piles] for piles in start["discards"]]
        self.centre = [list(p) for p in start["centre"]]
        self.draw_pile: int = start["draw_pile"]
        self.set_aside: int = start["set_aside"]

    def apply(self, event: Event) -> None:
        """One public event (a DRAW's or SHUFFLE's cards, if any, are never read)."""
        kind, seat = event.kind, event.seat
        if kind == EventKind.TURN:
            self.turn, self.to_move = event.count, seat
        elif kind == EventKind.MOVE and event.move is not None:
            move = event.move
            if move.kind == MoveKind.PLAY:
                if move.source == Source.HAND:
                    self.hand_sizes[seat] -= 1
                elif move.source == Source.STOCK:
                    stock = self.stocks[self.rules.stock_of(seat)]
                    stock["count"] -= 1
                    stock["visible"] = stock["visible"][1:]  # the REVEAL that follows says what shows now
                else:
                    self.discards[seat][move.index].pop()
                self.centre[move.target].append(move.card)
            elif move.kind == MoveKind.DISCARD:
                self.hand_sizes[seat] -= 1
                self.discards[seat][move.target].append(move.card)
        elif kind == EventKind.REVEAL:
            self.stocks[event.pile] = {"count": event.count, "visible": list(event.cards)}
        elif kind == EventKind.DRAW:
            self.hand_sizes[seat] += event.count
            self.draw_pile -= event.count
        elif kind == EventKind.PILE_COMPLETED:
            completed = len(self.centre[event.pile])
            self.centre[event.pile] = []
            if self.rules.completed_piles != "shuffle":
                self.set_aside += completed
        elif kind == EventKind.SHUFFLE:
            # After a completed pile ("shuffle" rule sets) or a recycle of the set-aside pile.
            self.draw_pile = event.count
            if self.rules.completed_piles != "shuffle":
                self.set_aside = 0

    def frame(self) -> dict[str, Any]:
        """The viewer's frame: the same shape as a replay's, every hand hidden."""
        return {"turn": self.turn, "to_move": self.to_move, "hand_sizes": list(self.hand_sizes),
                "stocks": [{"count": s["count"], "visible": list(s["visible"])} for s in self.stocks],
                "discards": [[list(p) for p in piles] for piles in self.discards],
                "centre": [list(p) for p in self.centre], "draw_pile": self.draw_pile,
                "set_aside": self.set_aside, "hands": [None] * self.rules.players}


def start_from_pb(view: Any) -> dict[str, Any]:
    """A spectator's GameStart observation as a frame's public fields (its hand is never read)."""
    return {"turn": view.turn, "to_move": view.to_move, "hand_sizes": list(view.hand_sizes),
            "stocks": [{"count": s.count, "visible": list(s.visible)} for s in view.stocks],
            "discards": [[list(p.cards) for p in seat.piles] for seat in view.discard_piles],
            "centre": [list(p.cards) for p in view.centre_piles],
            "draw_pile": view.draw_pile_count, "set_aside": view.set_aside_count}


async def spectate(address: str, admin_token: str, match_id: str) -> AsyncGenerator[dict[str, Any], None]:
    """The match's public stream as the viewer's messages: ``match`` (rules, seats), then per
    game ``game_start`` (a frame), ``step`` (each move: the move and the frame after it),
    ``game_over`` (the outcome), and ``match_over``. Raises ``grpc.aio.AioRpcError``."""
    import grpc

    from spite.v1 import referee_pb2_grpc

    metadata = ((_ADMIN_METADATA, admin_token),)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        status = await stub.GetMatch(rpb.GetMatchRequest(match_id=match_id), metadata=metadata, timeout=10)
        rules = rules_from_proto(status.rules)
        yield {"type": "match", "match_id": match_id, "rules": viewer_rules(rules),
               "seats": [s.name or f"seat {s.seat}" for s in status.seats] or
                        [f"seat {i}" for i in range(rules.players)]}
        table: PublicTable | None = None
        async for message in stub.Spectate(rpb.SpectateRequest(match_id=match_id), metadata=metadata):
            body = message.WhichOneof("body")
            if body == "game_start":
                table = PublicTable(rules, start_from_pb(message.game_start.observation))
                yield {"type": "game_start", "game_number": message.game_start.game_number,
                       "first_seat": message.game_start.first_seat, "frame": table.frame()}
            elif body == "events" and table is not None:
                for wire in message.events.events:
                    event = event_from_proto(wire)
                    table.apply(event)
                    if event.kind == EventKind.MOVE and event.move is not None:
                        yield {"type": "step", "move": {"seat": event.seat, "move": str(event.move),
                                                        "turn": table.turn}, "frame": table.frame()}
                yield {"type": "frame", "frame": table.frame()}
            elif body == "game_over":
                outcome = message.game_over.outcome
                ending = Ending(game_pb2.Ending.Name(outcome.ending).removeprefix("ENDING_").lower().replace("_", "-"))
                yield {"type": "game_over", "game_number": message.game_over.game_number,
                       "outcome": {"ending": ending.value, "by_rules": ending.by_rules, "winners": list(outcome.winners),
                                   "scores": list(outcome.scores), "reason": outcome.reason}}
            elif body == "match_over":
                yield {"type": "match_over", "reason": message.match_over.reason,
                       "points": list(message.match_over.points)}
