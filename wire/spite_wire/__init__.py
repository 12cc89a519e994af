"""Translation between the engine's values and the ``spite.v1`` wire messages.

Everything a seat receives is built here from the engine's ``observe()`` /
``visible_events()`` output and nothing else: these functions take the already
filtered values, never the game state.
"""

from __future__ import annotations

from typing import Iterable

from spite.v1 import game_pb2 as pb

from spite_engine import (Ending, Event, MalformedMoveError, Move, Observation, Outcome, RuleSet, make_move)

PROTOCOL_VERSION = 1

_ENDINGS = {ending: getattr(pb, "ENDING_" + ending.name) for ending in Ending}


def rules_to_pb(rules: RuleSet) -> pb.RuleSet:
    return pb.RuleSet(
        name=rules.name, version=rules.version, players=rules.players, partners=rules.partners,
        deck=rules.deck, decks=rules.decks, jokers_per_deck=rules.jokers_per_deck, kings_wild=rules.kings_wild,
        stock_size=rules.stock_size, hand_size=rules.hand_size, centre_piles=rules.centre_piles,
        discard_piles=rules.discard_piles, open_stock=rules.open_stock, no_block=rules.no_block,
        completed_piles=rules.completed_piles, draw_pile_exhausted=rules.draw_pile_exhausted,
        discard_aces=rules.discard_aces, scoring=rules.scoring, match_points=rules.match_points,
        turn_cap=rules.turn_cap, wild_ranks=sorted(rules.wild_ranks))


def move_to_pb(move: Move) -> pb.Move:
    if move.kind == 2:
        return pb.Move(kind=pb.MOVE_KIND_PASS)
    return pb.Move(kind=move.kind + 1, source=move.source + 1, source_index=move.index,
                   card=move.card, target=move.target)


def move_from_pb(message: pb.Move) -> Move:
    """The engine move a wire move names; :class:`MalformedMoveError` if it names none."""
    kind = message.kind - 1
    if kind < 0:
        raise MalformedMoveError("move.kind is unset (MOVE_KIND_UNSPECIFIED)")
    if kind == 2:
        return make_move(2, 0, 0, 0, 0)
    if message.source == 0:
        raise MalformedMoveError("move.source is unset (SOURCE_UNSPECIFIED)")
    return make_move(kind, message.source - 1, message.source_index, message.card, message.target)


def outcome_to_pb(outcome: Outcome) -> pb.Outcome:
    return pb.Outcome(ending=_ENDINGS[outcome.ending], winners=outcome.winners, scores=outcome.scores,
                      reason=outcome.reason, offender=-1 if outcome.offender is None else outcome.offender)


def event_to_pb(event: Event) -> pb.Event:
    message = pb.Event(kind=event.kind + 1, seat=event.seat, cards=event.cards, count=event.count, pile=event.pile)
    if event.move is not None:
        message.move.CopyFrom(move_to_pb(event.move))
    return message


def events_to_pb(events: Iterable[Event]) -> list[pb.Event]:
    return [event_to_pb(e) for e in events]


def observation_to_pb(view: Observation) -> pb.Observation:
    """The wire form of an observation; the observation already holds only what its seat may see."""
    return pb.Observation(
        seat=view.seat, turn=view.turn, to_move=view.to_move, hand=view.hand, hand_sizes=view.hand_sizes,
        stocks=[pb.StockView(count=s.count, visible=s.visible) for s in view.stocks],
        discard_piles=[pb.SeatPiles(piles=[pb.Pile(cards=p) for p in piles]) for piles in view.discard_piles],
        centre_piles=[pb.Pile(cards=p) for p in view.centre_piles],
        draw_pile_count=view.draw_pile_count, set_aside_count=view.set_aside_count,
        events=events_to_pb(view.events), legal_moves=[move_to_pb(m) for m in view.legal_moves])
