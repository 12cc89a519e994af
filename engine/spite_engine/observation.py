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

from typing import Any, Callable, Iterable, Iterator, NamedTuple

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


def observe_lazy(state: GameState, seat: int) -> Observation:
    """``observe`` for simulations: a :class:`LazyObservation`, equal to ``observe(state,
    seat)``, whose costly fields are built on first read (a greedy policy reads four of
    fourteen, so a simulated decision costs a fifth less).

    Until the state's next ``apply`` it reads them from the state; ``apply`` first builds
    every field of any lazy observation still referenced, so the value stays what the seat
    saw at this moment. That costs more than ``observe`` would have, so it pays only in
    loops that let go of the observation before the move is applied
    (``state.apply(policy(observe_lazy(state, seat)))``); the referee, which encodes every
    field anyway, uses ``observe``. Set a position up *before* observing it: a pile replaced
    directly between ``observe_lazy`` and reading a field is read as it is then.
    """
    rules = state.rules
    if not 0 <= seat < rules.players:
        raise ValueError(f"seat must be 0..{rules.players - 1}, got {seat}")
    to_move = state.to_move
    view = _new(LazyObservation, (
        rules, seat, state.turn, to_move, None, None, None, None, None,
        len(state.draw_pile), len(state.set_aside), None,
        LegalMoves(state.legal_moves()) if seat == to_move and state.outcome is None else (),
        state.outcome,
    ))
    view.__dict__["_state"] = state
    state._observed.append(view)
    return view


def observe_public(state: GameState) -> Observation:
    """What a spectator may see: the public fields, ``seat`` -1, no hand, no events, no moves."""
    return _build(state, None)


def _stock_views(state: GameState) -> tuple[StockView, ...]:
    # The stocks' and the discard piles' views change only on some moves (a stock play, a
    # discard, a play from a discard pile): they are kept in the state between decisions,
    # with the pile lists they were built from. ``apply`` drops them when it changes those
    # piles; a pile list replaced directly (as tests and ``determinize`` build positions)
    # is caught here. A pile edited in place from outside the engine is not: see GameState.
    piles = tuple(state.stocks)
    cached = state._stock_views
    if cached is None or cached[0] != piles:
        last = -1 - state.rules.open_stock
        stock_views = tuple([_new(StockView, (len(s), tuple(s[-1:last:-1]))) for s in piles])
        state._stock_views = cached = (piles, stock_views)
    return cached[1]  # type: ignore[no-any-return]


def _discard_views(state: GameState) -> tuple[tuple[tuple[Card, ...], ...], ...]:
    # Comprehensions, not chain() and map(tuple, ...): compiled, tuple() of a list is one C
    # call, where map calls the tuple type for every pile (a rebuild cost three times as much).
    piles = tuple([pile for seat_piles in state.discards for pile in seat_piles])
    cached = state._discard_views
    if cached is None or cached[0] != piles:
        discard_views = tuple([tuple([tuple(pile) for pile in seat_piles]) for seat_piles in state.discards])
        state._discard_views = cached = (piles, discard_views)
    return cached[1]  # type: ignore[no-any-return]


def _build(state: GameState, seat: int | None) -> Observation:
    """The observation with every field built now (``observe``, ``observe_public``)."""
    to_move = state.to_move
    return _new(Observation, (
        state.rules,
        -1 if seat is None else seat,
        state.turn,
        to_move,
        () if seat is None else tuple(sorted(state.hands[seat])),
        tuple(map(len, state.hands)),
        _stock_views(state),
        _discard_views(state),
        tuple(map(tuple, state.centre)),
        len(state.draw_pile),
        len(state.set_aside),
        () if seat is None else tuple(visible_events(state, seat, state.cursors[seat])),
        LegalMoves(state.legal_moves()) if seat == to_move and state.outcome is None else (),
        state.outcome,
    ))


class _LazyField:
    """One field of a :class:`LazyObservation`: built from the state on first read and kept
    in the instance (a non-data descriptor: the instance's dict wins from then on)."""

    __slots__ = ("name", "build")

    def __init__(self, name: str, build: Callable[[GameState, int], Any]) -> None:
        self.name = name
        self.build = build

    def __get__(self, view: Any, owner: Any) -> Any:
        if view is None:
            return self
        fields = view.__dict__
        value = fields[self.name] = self.build(fields["_state"], view.seat)
        return value


def _hand(state: GameState, seat: int) -> tuple[Card, ...]:
    return tuple(sorted(state.hands[seat]))


def _hand_sizes(state: GameState, seat: int) -> tuple[int, ...]:
    return tuple(map(len, state.hands))


def _stocks(state: GameState, seat: int) -> tuple[StockView, ...]:
    return _stock_views(state)


def _discards(state: GameState, seat: int) -> tuple[tuple[tuple[Card, ...], ...], ...]:
    return _discard_views(state)


def _centre(state: GameState, seat: int) -> tuple[tuple[Card, ...], ...]:
    return tuple(map(tuple, state.centre))


def _events(state: GameState, seat: int) -> tuple[Event, ...]:
    return tuple(visible_events(state, seat, state.cursors[seat]))


_BUILDERS: tuple[tuple[str, Callable[[GameState, int], Any]], ...] = (
    ("hand", _hand), ("hand_sizes", _hand_sizes), ("stocks", _stocks), ("discard_piles", _discards),
    ("centre_piles", _centre), ("events", _events))
"""The lazy fields of a LazyObservation and how each is built from the state."""


def _make_observation(values: tuple[Any, ...]) -> Observation:
    """A plain :class:`Observation` of these values (what a LazyObservation pickles to)."""
    return _new(Observation, values)


class LazyObservation(Observation):
    """What ``observe_lazy`` returns: an :class:`Observation` whose costly fields (hand, hand
    sizes, stocks, discard and centre piles, events) are built when first read.

    It is an ``Observation`` in every way a bot uses one: its fields by name, by index and
    by unpacking, ``==`` and ``hash`` (equal to the eager value of the same position),
    ``_replace``, ``_asdict``, pickling and copying (both give a plain Observation). It holds
    the state it was built from only until the state changes (``GameState.apply`` builds the
    remaining fields first if the value is still referenced); nothing of the state is read
    through it but the fields of the table above."""

    hand = _LazyField("hand", _hand)
    hand_sizes = _LazyField("hand_sizes", _hand_sizes)
    stocks = _LazyField("stocks", _stocks)
    discard_piles = _LazyField("discard_piles", _discards)
    centre_piles = _LazyField("centre_piles", _centre)
    events = _LazyField("events", _events)

    def values(self) -> tuple[Any, ...]:
        """Every field, in the NamedTuple's order."""
        return (self.rules, self.seat, self.turn, self.to_move, self.hand, self.hand_sizes, self.stocks,
                self.discard_piles, self.centre_piles, self.draw_pile_count, self.set_aside_count, self.events,
                self.legal_moves, self.outcome)

    def freeze(self) -> None:
        """Build every field not read yet and let go of the state (``GameState.apply`` calls it
        before it changes the state, when the observation is still referenced)."""
        fields = self.__dict__
        state = fields.pop("_state", None)
        if state is None or len(fields) == len(_BUILDERS):
            return
        seat = self.seat
        for name, build in _BUILDERS:
            if name not in fields:
                fields[name] = build(state, seat)

    @classmethod
    def _make(cls, iterable: Iterable[Any]) -> Observation:  # type: ignore[override]
        return _new(Observation, tuple(iterable))

    def __iter__(self) -> Iterator[Any]:
        return iter(self.values())

    def __getitem__(self, index: Any) -> Any:
        return self.values()[index]

    def __contains__(self, item: object) -> bool:
        return item in self.values()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyObservation):
            other = other.values()
        return self.values() == other if isinstance(other, tuple) else NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        return repr(_make_observation(self.values()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make_observation, (self.values(),))

    def __getnewargs__(self) -> tuple[Any, ...]:
        return self.values()
