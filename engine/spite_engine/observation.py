"""What one seat may see: ``observe(state, seat)`` builds a new value from it, and nothing else.

Default-deny: every field below is copied from a part of the state that the table in
``docs/rules.md`` (Observations) marks as visible to the seat, and the observation
keeps no reference to the state.

============================  ===========================================
field                         visible to
============================  ===========================================
hand (sorted by rank)         the owning seat only
hand sizes                    everyone
stock counts, top card(s)     everyone (top three with ``open-stock``)
stock cards below the tops    nobody
discard piles, whole          everyone (each card was placed face up)
centre piles, whole           everyone
draw pile: count              everyone; its order: nobody
set-aside pile: count         everyone
events since last decision    redacted: a DRAW's cards only to the drawer,
                              a SHUFFLE's order to nobody
legal moves                   the seat to move only
============================  ===========================================
"""

from __future__ import annotations

from itertools import chain
from typing import NamedTuple

from .cards import Card
from .moves import LegalMoves, Move
from .outcome import Event, EventKind, Outcome
from .ruleset import RuleSet
from .state import GameState


class StockView(NamedTuple):
    count: int  # type: ignore[assignment]  # a wire field name; shadows tuple.count on purpose
    """Cards left in the stock."""
    visible: tuple[Card, ...]
    """Face-up cards, top first (one, or up to three with ``open-stock``). Only the top is playable."""

    @property
    def top(self) -> Card | None:
        return self.visible[0] if self.visible else None


class Observation(NamedTuple):
    """One seat's view of a game at one moment (immutable)."""

    rules: RuleSet
    seat: int
    """The observing seat."""
    turn: int
    """Turn number, from 1."""
    to_move: int
    """The seat whose decision it is."""
    hand: tuple[Card, ...]
    """The observer's hand, sorted by rank."""
    hand_sizes: tuple[int, ...]
    """Cards in each seat's hand."""
    stocks: tuple[StockView, ...]
    """Each stock (per seat, or per team with partners); see ``my_stock``."""
    discard_piles: tuple[tuple[tuple[Card, ...], ...], ...]
    """Per seat, per discard pile, the cards bottom to top."""
    centre_piles: tuple[tuple[Card, ...], ...]
    """Per centre pile, the cards bottom to top; a pile's rank is its length."""
    draw_pile_count: int
    set_aside_count: int
    """Cards of completed piles waiting to be recycled (``set-aside`` rule sets)."""
    events: tuple[Event, ...]
    """What happened since this seat's previous decision (its own last move included), redacted."""
    legal_moves: tuple[Move, ...]
    """The observer's legal moves when it is to move, else empty; from ``observe``, a
    :class:`LegalMoves` (the engine's order)."""
    outcome: Outcome | None = None
    """The game's result once it is over (the referee sends it in GameOver instead)."""

    @property
    def my_stock(self) -> StockView:
        """The stock this seat plays from."""
        return self.stocks[self.rules.stock_of(self.seat)]

    @property
    def centre_needs(self) -> tuple[int, ...]:
        """The rank each centre pile needs next (1 for an empty pile)."""
        return tuple(len(p) + 1 for p in self.centre_piles)

    @property
    def my_discard_piles(self) -> tuple[tuple[Card, ...], ...]:
        return self.discard_piles[self.seat]


_SHUFFLE, _DRAW = EventKind.SHUFFLE, EventKind.DRAW
# A NamedTuple's __new__ is a Python function; tuple.__new__ builds the same value without
# that call, which matters here: observe() runs for every decision.
_new = tuple.__new__


def visible_events(state: GameState, seat: int | None, start: int = 0) -> list[Event]:
    """The log from index ``start`` as ``seat`` may see it (``None``: the public view):
    a DRAW's cards only for the drawer, a SHUFFLE's order for nobody."""
    events = state.log[start:]
    # A loop over the slice, not a list comprehension: cheaper for the few events (about
    # four) that observe() asks for at every decision.
    for index, e in enumerate(events):
        if e.cards and (e.kind == _SHUFFLE or (e.kind == _DRAW and e.seat != seat)):
            events[index] = _new(Event, (e.kind, e.seat, e.move, (), e.count, e.pile))
    return events


def observe(state: GameState, seat: int) -> Observation:
    """Build ``seat``'s observation of ``state``: only what the table above lets it see."""
    rules = state.rules
    if not 0 <= seat < rules.players:
        raise ValueError(f"seat must be 0..{rules.players - 1}, got {seat}")
    return _build(state, seat)


def observe_public(state: GameState) -> Observation:
    """What a spectator may see: the public fields, ``seat`` -1, no hand, no events, no moves."""
    return _build(state, None)


def _build(state: GameState, seat: int | None) -> Observation:
    rules = state.rules
    last = -1 - rules.open_stock
    to_move = state.to_move
    # The stocks' and the discard piles' views change only on some moves (a stock play, a
    # discard, a play from a discard pile): they are kept in the state between decisions,
    # with the pile lists they were built from. ``apply`` drops them when it changes those
    # piles; a pile list replaced directly (as tests and ``determinize`` build positions)
    # is caught here. A pile edited in place from outside the engine is not: see GameState.
    piles = tuple(state.stocks)
    cached = state._stock_views
    if cached is None or cached[0] != piles:
        stock_views = tuple([_new(StockView, (len(s), tuple(s[-1:last:-1]))) for s in piles])
        state._stock_views = cached = (piles, stock_views)
    stock_views = cached[1]
    piles = tuple(chain.from_iterable(state.discards))
    cached = state._discard_views
    if cached is None or cached[0] != piles:
        discard_views = tuple([tuple(map(tuple, seat_piles)) for seat_piles in state.discards])
        state._discard_views = cached = (piles, discard_views)
    discard_views = cached[1]
    return _new(Observation, (
        rules,
        -1 if seat is None else seat,
        state.turn,
        to_move,
        () if seat is None else tuple(sorted(state.hands[seat])),
        tuple(map(len, state.hands)),
        stock_views,
        discard_views,
        tuple(map(tuple, state.centre)),
        len(state.draw_pile),
        len(state.set_aside),
        () if seat is None else tuple(visible_events(state, seat, state.cursors[seat])),
        _new(LegalMoves, state.legal_moves()) if seat == to_move and state.outcome is None else (),
        state.outcome,
    ))
