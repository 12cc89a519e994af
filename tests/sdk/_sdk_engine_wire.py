"""Engine values -> wire messages, for the SDK tests only.

The referee has its own conversion; this one is written again from the proto's
comments so that the SDK is checked against the contract, not against the referee.
"""

from __future__ import annotations

import spite_engine as engine
from spite.v1 import game_pb2


def move(m: engine.Move) -> game_pb2.Move:
    if m.kind == engine.MoveKind.PASS:
        return game_pb2.Move(kind=game_pb2.MOVE_KIND_PASS)
    return game_pb2.Move(kind=int(m.kind) + 1, source=int(m.source) + 1, source_index=m.index,
                         card=m.card, target=m.target)


def rules(r: engine.RuleSet) -> game_pb2.RuleSet:
    return game_pb2.RuleSet(
        name=r.name, version=r.version, players=r.players, partners=r.partners, deck=r.deck, decks=r.decks,
        jokers_per_deck=r.jokers_per_deck, kings_wild=r.kings_wild, stock_size=r.stock_size,
        hand_size=r.hand_size, centre_piles=r.centre_piles, discard_piles=r.discard_piles,
        open_stock=r.open_stock, no_block=r.no_block, completed_piles=r.completed_piles,
        draw_pile_exhausted=r.draw_pile_exhausted, discard_aces=r.discard_aces, scoring=r.scoring,
        match_points=r.match_points, turn_cap=r.turn_cap, wild_ranks=sorted(r.wild_ranks))


def event(e: engine.Event) -> game_pb2.Event:
    message = game_pb2.Event(kind=int(e.kind) + 1, seat=e.seat, cards=e.cards, count=e.count, pile=e.pile)
    if e.move is not None:
        message.move.CopyFrom(move(e.move))
    return message


_ENDINGS = {ending: number for number, ending in enumerate(engine.Ending, start=1)}


def outcome(o: engine.Outcome) -> game_pb2.Outcome:
    return game_pb2.Outcome(ending=_ENDINGS[o.ending], winners=o.winners, scores=o.scores, reason=o.reason,
                            offender=-1 if o.offender is None else o.offender)


def observation(o: engine.Observation) -> game_pb2.Observation:
    return game_pb2.Observation(
        seat=o.seat, turn=o.turn, to_move=o.to_move, hand=o.hand, hand_sizes=o.hand_sizes,
        stocks=[game_pb2.StockView(count=s.count, visible=s.visible) for s in o.stocks],
        discard_piles=[game_pb2.SeatPiles(piles=[game_pb2.Pile(cards=p) for p in seat]) for seat in o.discard_piles],
        centre_piles=[game_pb2.Pile(cards=p) for p in o.centre_piles],
        draw_pile_count=o.draw_pile_count, set_aside_count=o.set_aside_count,
        events=[event(e) for e in o.events], legal_moves=[move(m) for m in o.legal_moves])
