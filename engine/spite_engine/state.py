"""The game state: the authoritative, hidden-information state of one game.

``GameState.new(rules, seed)`` deals; ``legal_moves()`` lists what the seat to move
may do, in a deterministic order; ``apply(move)`` plays a move without checking it
(for search and trusted callers); ``apply_checked(move, seat)`` is the one path for
untrusted input and raises :class:`IllegalMoveError` with the reason. Chance (the
deal, draws, shuffles, stock cards turning up) happens inside ``apply`` and is
recorded in ``log`` as events, so a (rule set, seed, moves) triple replays exactly.

Piles are lists with the top card last. A centre pile's rank is its length: a
wild played on it takes rank ``len(pile) + 1``.

``observe`` keeps the stocks' and the discard piles' public views in the state between
decisions (they change on few moves); ``apply`` drops them when it changes those piles.
The centre fits (per rank, the centre piles a card of that rank may go on) are kept too:
``apply`` updates them on each centre play, so no decision computes them. Code that sets up
a position may replace any pile list or attribute directly (``state.stocks[1] = [...]``, ``state.discards = ...``,
``state.centre = [...]``): that is noticed. Editing a stock or discard pile list in place
(``append``, ``pop``) after observing the state is not, nor replacing or editing one centre
pile in place (``state.centre[0] = ...``): replace the outer list instead.
"""

from __future__ import annotations

import sys
from typing import Any, Iterable, Sequence

from .cards import ACE, KING, Card, card_name
from .moves import (
    DISCARDS_FROM_HAND,
    PASS_MOVE,
    PLAYS_FROM_DISCARD,
    PLAYS_FROM_HAND,
    PLAYS_FROM_STOCK,
    IllegalMoveError,
    Move,
    MoveKind,
    Source,
)
from .outcome import Ending, Event, EventKind, Outcome
from .rng import check_seed, derive, keyed_shuffle
from .ruleset import RuleSet

_PLAY, _DISCARD = MoveKind.PLAY, MoveKind.DISCARD
_HAND, _STOCK = Source.HAND, Source.STOCK
_MOVE, _TURN, _DRAW, _REVEAL = EventKind.MOVE, EventKind.TURN, EventKind.DRAW, EventKind.REVEAL
# Hot paths build events as (kind, seat, move, cards, count, pile) through tuple.__new__: a
# NamedTuple's own __new__ is a Python function, and apply() logs an event every decision.
_new = tuple.__new__
_getrefcount = getattr(sys, "getrefcount", None)
"""CPython's reference count; on an interpreter without it every observation is completed."""


def _unheld_count() -> int:
    """What ``_getrefcount`` reports, in ``apply``'s loop over the observations, for one that
    nobody else holds: the list's reference, the loop variable's and, interpreted, the
    argument's (the compiled build passes it without one). Measured in the same loop shape
    when the module is loaded, so both builds complete exactly the observations still held."""
    observed = [object()]
    for view in observed:
        return _getrefcount(view) if _getrefcount is not None else 0
    return 0


_UNHELD = _unheld_count()


def centre_fits(heights: tuple[int, ...], wild: frozenset[Card]) -> tuple[int, ...]:
    """For each rank, the bit mask of the centre piles (of these heights) a card of that rank
    may go on: a natural card on the piles that need its rank (an Ace on the first empty
    pile only: empty piles are interchangeable); a wild on every started pile and the
    first empty one."""
    fits = [0] * max(KING + 1, max(heights, default=0) + 2)
    every = 0
    empty_seen = False
    for index, height in enumerate(heights):
        if not height:
            if empty_seen:
                continue
            empty_seen = True
        fits[height + 1] |= 1 << index
        every |= 1 << index
    for card in wild:
        fits[card] = every
    return tuple(fits)


def discard_targets(started: tuple[bool, ...]) -> int:
    """Bit mask of the discard piles a card may go on, given which piles are started: every
    started pile and the first empty one (empty piles are interchangeable)."""
    mask = 0
    empty_seen = False
    for index, is_started in enumerate(started):
        if not is_started:
            if empty_seen:
                continue
            empty_seen = True
        mask |= 1 << index
    return mask


_DISCARD_TARGETS: dict[tuple[bool, ...], int] = {}
"""Memo of :func:`discard_targets` (a few hundred entries at most)."""

_BIT = tuple(1 << index for index in range(16))
"""The bit of pile ``index`` in a mask of piles."""
_ALL_PILES = tuple((1 << count) - 1 for count in range(17))
"""The mask of every pile, by the count of piles."""


class GameState:
    """One game in progress. Mutable; ``clone()`` for search."""

    __slots__ = ("rules", "seed", "draw_pile", "stocks", "hands", "discards", "centre", "set_aside",
                 "to_move", "turn", "outcome", "log", "cursors", "shuffles", "stuck_turns", "turn_stuck",
                 "first_seat",
                 "_wild", "_stock_of", "_max_rank", "_stock_views", "_discard_views", "_observed",
                 "_fits_now", "_empty_centre", "_centre_seen")

    rules: RuleSet
    seed: int
    draw_pile: list[Card]
    stocks: list[list[Card]]
    hands: list[list[Card]]
    discards: list[list[list[Card]]]
    centre: list[list[Card]]
    set_aside: list[Card]
    to_move: int
    turn: int
    outcome: Outcome | None
    log: list[Event]
    cursors: list[int]
    shuffles: int
    stuck_turns: int
    """Consecutive turns that count toward a stalemate (see ``_start_turn``)."""
    turn_stuck: bool
    """This turn began, after the refill, with no play possible and either nothing to draw or
    no legal discard: the seat cannot change the table until another seat plays."""
    first_seat: int
    _wild: frozenset[Card]
    _stock_of: tuple[int, ...]
    _max_rank: int
    _fits_now: list[int]
    """:func:`centre_fits` of the centre piles, when ``centre`` is ``_centre_seen``: ``apply``
    updates it on every centre play and completed pile; a replaced ``centre`` list is re-read."""
    _empty_centre: int
    """The mask of the empty centre piles, kept with ``_fits_now``."""
    _centre_seen: list[list[Card]] | None
    _stock_views: tuple[Any, ...] | None
    """``observe``'s public view of the stocks and what it was built from (see
    ``observation._stock_views``); None when a move has changed them."""
    _discard_views: tuple[Any, ...] | None
    """The same for the discard piles."""
    _observed: list[Any]
    """The observations (``observation.LazyObservation``) built since the last move, whose
    fields not yet read are still to be read from this state: ``apply`` completes those that
    are still referenced before it changes anything."""

    @classmethod
    def new(cls, rules: RuleSet, seed: int, first_seat: int | None = None) -> "GameState":
        """Shuffle and deal a new game. ``first_seat`` defaults to a cut derived from ``seed``."""
        check_seed(seed)
        if first_seat is None:
            first_seat = derive(seed, "first-seat") % rules.players
        elif not 0 <= first_seat < rules.players:
            raise ValueError(f"first_seat must be 0..{rules.players - 1}, got {first_seat}")
        state = cls._bare(rules, seed)
        deck = list(rules.deck_cards())
        keyed_shuffle(deck, seed, 0)
        state.shuffles = 1
        state.log.append(Event(EventKind.SHUFFLE, cards=tuple(deck), count=len(deck)))
        state.stocks = []
        for _ in range(rules.stocks):
            state.stocks.append(deck[-rules.stock_size:])
            del deck[-rules.stock_size:]
        state.hands = []
        for _ in range(rules.players):
            state.hands.append(deck[-rules.hand_size:][::-1])
            del deck[-rules.hand_size:]
        state.draw_pile = deck
        state.discards = [[[] for _ in range(rules.discard_piles)] for _ in range(rules.players)]
        state.centre = [[] for _ in range(rules.centre_piles)]
        state.set_aside = []
        state._stock_views = state._discard_views = None
        state._observed = []
        state.outcome = None
        state.cursors = [0] * rules.players
        state.stuck_turns = 0
        state.first_seat = first_seat
        state.log.append(Event(EventKind.DEAL, seat=first_seat))
        for index in range(rules.stocks):
            state._reveal(index)
        for seat in range(rules.players):
            state.log.append(Event(EventKind.DRAW, seat=seat, cards=tuple(state.hands[seat]),
                                   count=len(state.hands[seat])))
        state.turn = 0
        state.to_move = first_seat
        state._start_turn()
        return state

    @classmethod
    def _bare(cls, rules: RuleSet, seed: int) -> "GameState":
        """A state holding only the rule set, the seed and what is derived from them, for
        :meth:`new` and :meth:`blank` to fill."""
        state = cls.__new__(cls)
        state.rules, state.seed = rules, seed
        state._wild = rules.wild_ranks
        state._stock_of = tuple(rules.stock_of(s) for s in range(rules.players))
        state._max_rank = rules.max_rank
        state._centre_seen = None
        state._fits_now, state._empty_centre = [], 0
        state.log = []
        return state

    @classmethod
    def blank(cls, rules: RuleSet, seed: int, first_seat: int) -> "GameState":
        """A state with no cards anywhere, ``first_seat`` to move at turn 0, for code that sets
        a position up pile by pile (``determinize``): no deal, so it costs no shuffle. Its
        future shuffles are keyed by ``seed`` from shuffle number 1, as after a deal."""
        check_seed(seed)
        state = cls._bare(rules, seed)
        state.shuffles = 1
        state.draw_pile, state.set_aside = [], []
        state.stocks = [[] for _ in range(rules.stocks)]
        state.hands = [[] for _ in range(rules.players)]
        state.discards = [[[] for _ in range(rules.discard_piles)] for _ in range(rules.players)]
        state.centre = [[] for _ in range(rules.centre_piles)]
        state._stock_views = state._discard_views = None
        state._observed = []
        state.outcome = None
        state.cursors = [0] * rules.players
        state.stuck_turns = 0
        state.turn_stuck = False
        state.first_seat = state.to_move = first_seat
        state.turn = 0
        return state

    def clone(self) -> "GameState":
        """An independent copy (the log is shared structurally: events are immutable)."""
        other = GameState.__new__(GameState)
        other.rules, other.seed = self.rules, self.seed
        other._wild, other._stock_of, other._max_rank = self._wild, self._stock_of, self._max_rank
        other.draw_pile = self.draw_pile[:]
        other.stocks = [s[:] for s in self.stocks]
        other.hands = [h[:] for h in self.hands]
        other.discards = [[p[:] for p in seat] for seat in self.discards]
        other.centre = [p[:] for p in self.centre]
        if self.centre is self._centre_seen:
            other._centre_seen, other._fits_now = other.centre, self._fits_now[:]
            other._empty_centre = self._empty_centre
        else:
            other._centre_seen, other._fits_now, other._empty_centre = None, [], 0
        other.set_aside = self.set_aside[:]
        other.to_move, other.turn, other.outcome = self.to_move, self.turn, self.outcome
        other.log = self.log[:]
        other.cursors = self.cursors[:]
        other.shuffles, other.stuck_turns, other.first_seat = self.shuffles, self.stuck_turns, self.first_seat
        other.turn_stuck = self.turn_stuck
        other._stock_views = other._discard_views = None
        other._observed = []
        return other

    # -- queries ---------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def stock_of(self, seat: int) -> list[Card]:
        """The stock ``seat`` plays from (its team's with partners)."""
        return self.stocks[self._stock_of[seat]]

    def _fits(self) -> list[int]:
        """:func:`centre_fits` of the centre piles now: per rank, the mask of piles it may go on.
        Computed afresh if ``centre`` was replaced since it was last read; else kept by ``apply``."""
        if self.centre is not self._centre_seen:
            heights = tuple([len(pile) for pile in self.centre])
            self._fits_now = list(centre_fits(heights, self._wild))
            self._empty_centre = sum(_BIT[index] for index, height in enumerate(heights) if not height)
            self._centre_seen = self.centre
        return self._fits_now

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move, in a fixed order: plays from the stock, from
        the hand (by rank), from the discard piles (by pile); then discards (by rank, by pile);
        then pass, which is legal only when no discard is."""
        if self.outcome is not None:
            return []
        seat = self.to_move
        fits = self._fits_now if self.centre is self._centre_seen else self._fits()
        stock = self.stocks[self._stock_of[seat]]
        if stock:
            top = stock[-1]  # compiled, a C int: fits[top] is then a C index into the list
            moves: list[Move] = list(PLAYS_FROM_STOCK[top][fits[top]])
        else:
            moves = []
        # One pass over the hand, by rank: its plays, and which ranks may be discarded (no
        # memo: a memo keyed by the hand's ranks and the started piles was as dear to key as
        # this is to compute, and it overflowed its cap in a few hundred games).
        rules = self.rules
        no_block = rules.no_block
        keep_aces = not rules.discard_aces
        wild = self._wild
        discardable: list[Card] = []
        previous = -1
        for card in sorted(self.hands[seat]):
            if card == previous:
                continue
            previous = card
            mask = fits[card]
            if mask:
                moves.extend(PLAYS_FROM_HAND[card][mask])
                if no_block and card not in wild:
                    continue
            if card == ACE and keep_aces:
                continue
            discardable.append(card)
        started = 0
        for index, pile in enumerate(self.discards[seat]):
            if pile:
                started |= _BIT[index]
                top = pile[-1]
                if mask := fits[top]:
                    moves.extend(PLAYS_FROM_DISCARD[index][top][mask])
        if not discardable:
            moves.append(PASS_MOVE)
            return moves
        # Every started discard pile and the first empty one (empty piles are interchangeable).
        empty = _ALL_PILES[len(self.discards[seat])] & ~started
        targets = started | (empty & -empty)
        for card in discardable:
            moves.extend(DISCARDS_FROM_HAND[card][targets])
        return moves

    def _discardable(self, cards: list[Card], fits: Sequence[int]) -> list[Card]:
        """The ``cards`` that may be discarded: no Aces (unless the rule set allows them) and,
        with ``no-block``, no natural card that a centre pile needs now."""
        rules = self.rules
        if rules.no_block:
            wild = self._wild
            return [c for c in cards if (c != ACE or rules.discard_aces) and (c in wild or not fits[c])]
        if rules.discard_aces or ACE not in cards:
            return cards
        return [c for c in cards if c != ACE]

    def _discard_targets(self, seat: int) -> int:
        """:func:`discard_targets` of ``seat``'s discard piles."""
        started = tuple(map(bool, self.discards[seat]))
        mask = _DISCARD_TARGETS.get(started)
        if mask is None:
            mask = _DISCARD_TARGETS[started] = discard_targets(started)
        return mask

    def has_play(self) -> bool:
        """Whether the seat to move can play any card onto a centre pile."""
        return self._has_play(self._fits())

    def _has_play(self, fits: Sequence[int]) -> bool:
        seat = self.to_move
        stock = self.stocks[self._stock_of[seat]]
        if stock and fits[stock[-1]]:
            return True
        for card in self.hands[seat]:
            if fits[card]:
                return True
        for pile in self.discards[seat]:
            if pile and fits[pile[-1]]:
                return True
        return False

    def _has_discard(self) -> bool:
        """Whether the seat to move has a legal discard (else its only way to end the turn is pass)."""
        hand = self.hands[self.to_move]
        return bool(hand and self._discardable(hand, self._fits()))

    # -- applying moves ---------------------------------------------------------------------

    def apply(self, move: Move) -> None:
        """Play ``move`` for the seat to move. Unchecked: the move must be in ``legal_moves()``."""
        observed = self._observed
        if observed:
            # Inline, as in _release_observations (_UNHELD: the references that are not a holder's).
            for view in observed:
                if _getrefcount is None or _getrefcount(view) > _UNHELD:
                    view.freeze()
            observed.clear()
            del view
        seat = self.to_move
        self.cursors[seat] = len(self.log)
        self.log.append(_new(Event, (_MOVE, seat, move, (), 0, -1)))
        kind, source, index, card, target = move  # one unpacking: cheaper than five attribute reads
        if kind == _PLAY:
            hand = self.hands[seat]
            if source == _HAND:
                hand.remove(card)
            elif source == _STOCK:
                stock_index = self._stock_of[seat]
                self.stocks[stock_index].pop()
                self._stock_views = None
            else:
                self.discards[seat][index].pop()
                self._discard_views = None
            centre = self.centre
            pile = centre[target]
            pile.append(card)
            if centre is self._centre_seen:
                # The kept fits: the pile now needs the next rank (none once completed).
                height = len(pile)
                fits = self._fits_now
                bit = _BIT[target]
                if height == 1:
                    self._started_centre_pile(bit)
                else:
                    fits[height] &= ~bit
                if height < self._max_rank:
                    fits[height + 1] |= bit
            if source == _STOCK:
                if not self.stocks[stock_index]:
                    self._finish_stock_emptied(seat)
                    return
                self._reveal(stock_index)
            if len(pile) == self._max_rank:
                self._complete_pile(target)
            # Decisions 3 and 4: an empty hand is refilled at once whenever there is something
            # to draw -- when a play empties it, and when a completed pile brings cards to an
            # empty draw pile while the hand is already empty.
            if not hand and (source == _HAND or self.draw_pile or self.set_aside):
                self._refill(seat)
        elif kind == _DISCARD:
            self.hands[seat].remove(card)
            self.discards[seat][target].append(card)
            self._discard_views = None
            self._end_turn()
        else:
            self._end_turn()

    def apply_checked(self, move: Move, seat: int | None = None) -> None:
        """Play an untrusted move, raising :class:`IllegalMoveError` (with the reason) if the
        game is over, ``seat`` is not the seat to move, or the rules forbid it now."""
        if self.outcome is not None:
            raise IllegalMoveError("the game is over")
        if seat is not None and seat != self.to_move:
            raise IllegalMoveError(f"it is seat {self.to_move}'s turn, not seat {seat}'s")
        if move not in self.legal_moves():
            raise IllegalMoveError(self.why_illegal(move))
        self.apply(move)

    def why_illegal(self, move: Move) -> str:
        """A sentence saying why ``move`` is not legal now (for bots and logs)."""
        if self.outcome is not None:
            return "the game is over"
        seat = self.to_move
        rules = self.rules
        name = card_name(move.card)
        if move.kind == MoveKind.PASS:
            return "pass is legal only when no discard is"
        if move.kind == MoveKind.DISCARD:
            if move.card not in self.hands[seat]:
                return f"{move}: there is no {name} in your hand"
            if move.target >= rules.discard_piles:
                return f"{move}: there are only {rules.discard_piles} discard piles (D0..D{rules.discard_piles - 1})"
            if move.card == ACE and not rules.discard_aces:
                return f"{move}: Aces may never be discarded"
            if not self._discard_targets(seat) >> move.target & 1:
                return f"{move}: start a new discard pile in the first empty one"
            if rules.no_block:
                return f"{move}: no-block: a {name} can be played on a centre pile now, so it may not be discarded"
            return f"{move}: not legal now"
        if move.target >= rules.centre_piles:
            return f"{move}: there are only {rules.centre_piles} centre piles (C0..C{rules.centre_piles - 1})"
        if move.source == Source.HAND and move.card not in self.hands[seat]:
            return f"{move}: there is no {name} in your hand"
        if move.source == Source.STOCK:
            stock = self.stock_of(seat)
            if not stock or stock[-1] != move.card:
                top = card_name(stock[-1]) if stock else "nothing"
                return f"{move}: your stock top is {top}, not {name}"
        if move.source == Source.DISCARD_PILE:
            if move.index >= rules.discard_piles:
                return f"{move}: there are only {rules.discard_piles} discard piles"
            pile = self.discards[seat][move.index]
            if not pile or pile[-1] != move.card:
                top = card_name(pile[-1]) if pile else "empty"
                return f"{move}: discard pile {move.index} shows {top}, not {name}"
        centre = self.centre[move.target]
        if not centre and not all(self.centre[:move.target]):
            return f"{move}: start a new centre pile in the first empty one"
        need = len(centre) + 1
        return f"{move}: centre pile {move.target} needs {card_name(need)} (or a wild), not {name}"

    def news_for(self, seat: int, since: int) -> bool:
        """Whether the events logged from index ``since`` on end a plan of ``seat``'s moves: the
        game ended, the turn passed, or ``seat`` saw something new (cards it drew, its stock's
        next card). A plan is played up to that point (docs/protocol.md, "Plans")."""
        if self.outcome is not None or self.to_move != seat:
            return True
        stock = self.rules.stock_of(seat)
        return any((e.kind == EventKind.DRAW and e.seat == seat) or (e.kind == EventKind.REVEAL and e.pile == stock)
                   for e in self.log[since + 1:])

    def forfeit(self, seat: int, ending: Ending, reason: str) -> Outcome:
        """End the game by the referee: ``seat`` (and its partner) lose, every other seat wins."""
        if ending.by_rules:
            raise ValueError(f"{ending} is an ending by the rules, not a forfeit")
        team = self.rules.team_of(seat)
        winners = tuple(s for s in range(self.rules.players) if self.rules.team_of(s) != team)
        outcome = Outcome(ending, winners, self._scores(winners), reason, offender=seat)
        self._finish(outcome)
        return outcome

    # -- internals --------------------------------------------------------------------------

    def _release_observations(self) -> None:
        """Before the state changes: complete every observation of it that someone still
        holds, so it keeps showing this moment. One that nobody holds (the usual case: a
        policy read it and let go) is dropped unread: its remaining fields are never built.
        Observations are tuples, which take no weak references, so the reference count
        tells (the references counted in ``_UNHELD`` are not a holder's)."""
        observed = self._observed
        self._observed = []
        for view in observed:
            if _getrefcount is None or _getrefcount(view) > _UNHELD:
                view.freeze()

    def _started_centre_pile(self, bit: int) -> None:
        """The kept fits after the empty centre pile ``bit`` got its first card: an Ace now
        starts the next empty pile, and a wild goes on this one too."""
        empty = self._empty_centre & ~bit
        self._empty_centre = empty
        self._set_empty_fits(empty)

    def _emptied_centre_pile(self, bit: int) -> None:
        """The kept fits after the centre pile ``bit`` was completed and set aside."""
        empty = self._empty_centre | bit
        self._empty_centre = empty
        self._set_empty_fits(empty)

    def _set_empty_fits(self, empty: int) -> None:
        # As centre_fits: an Ace (a natural one: wild ranks are 0 and 13) goes on the first
        # empty pile only, a wild on every started pile and the first empty one.
        fits = self._fits_now
        first = empty & -empty
        fits[ACE] = first
        every = (_ALL_PILES[len(self.centre)] & ~empty) | first
        for card in self._wild:
            fits[card] = every

    def _reveal(self, stock_index: int) -> None:
        stock = self.stocks[stock_index]
        visible = tuple(stock[-1:-1 - self.rules.open_stock:-1])
        self.log.append(_new(Event, (_REVEAL, -1, None, visible, len(stock), stock_index)))

    def _complete_pile(self, index: int) -> None:
        pile = self.centre[index]
        self.centre[index] = []
        if self.centre is self._centre_seen:
            self._emptied_centre_pile(_BIT[index])
        self.log.append(Event(EventKind.PILE_COMPLETED, cards=tuple(pile), pile=index))
        if self.rules.completed_piles == "shuffle":
            self.draw_pile.extend(pile)
            self._shuffle_draw_pile()
        else:
            self.set_aside.extend(pile)

    def _shuffle_draw_pile(self) -> None:
        keyed_shuffle(self.draw_pile, self.seed, self.shuffles)
        self.shuffles += 1
        self.log.append(Event(EventKind.SHUFFLE, cards=tuple(self.draw_pile), count=len(self.draw_pile)))

    def _refill(self, seat: int) -> int:
        """Draw up to the hand size; recycle set-aside piles when the draw pile runs out.
        Returns how many cards were drawn."""
        hand = self.hands[seat]
        need = self.rules.hand_size - len(hand)
        if need <= 0:
            return 0
        draw_pile = self.draw_pile
        if need <= len(draw_pile):
            # The usual case (the draw pile holds enough): the loop below in one step.
            drawn = draw_pile[-need:][::-1]
            del draw_pile[-need:]
            hand += drawn
            self.log.append(_new(Event, (_DRAW, seat, None, tuple(drawn), need, -1)))
            return need
        total = need
        drawn = []
        while need:
            if not draw_pile:
                if not self.set_aside:
                    break
                self.draw_pile = draw_pile = self.set_aside
                self.set_aside = []
                hand.extend(drawn)
                self._log_draw(seat, drawn)
                drawn = []
                self._shuffle_draw_pile()
            take = min(need, len(draw_pile))
            got = draw_pile[-take:][::-1]
            del draw_pile[-take:]
            drawn.extend(got)
            need -= take
        hand.extend(drawn)
        self._log_draw(seat, drawn)
        if need and self.rules.draw_pile_exhausted == "draw-game":
            self._finish(Outcome(Ending.DRAW_PILE_EXHAUSTED, (), self._scores(()),
                                 f"the draw pile ran out when seat {seat} had to draw: the game is a draw"))
        return total - need

    def _log_draw(self, seat: int, drawn: list[Card]) -> None:
        if drawn:
            self.log.append(_new(Event, (_DRAW, seat, None, tuple(drawn), len(drawn), -1)))

    def _end_turn(self) -> None:
        # Stalemate (docs/rules.md, decision 6): only turns that began with no play possible
        # and nothing that could change that (nothing to draw, or no legal discard) count. A
        # full round of them is a position in which no seat can ever play again, whatever the
        # seats choose; a seat that merely passes while it could play never brings it about.
        if self.turn_stuck:
            self.stuck_turns += 1
            if self.stuck_turns >= self.rules.players:
                self._finish_unfinished(Ending.STALEMATE,
                                        "for a full round no seat could play, and none ever can again")
                return
        else:
            self.stuck_turns = 0
        self.to_move = (self.to_move + 1) % self.rules.players
        self._start_turn()

    def _start_turn(self) -> None:
        if self.turn >= self.rules.turn_cap:
            self._finish_unfinished(Ending.TURN_CAP, f"the turn cap of {self.rules.turn_cap} turns was reached")
            return
        self.turn += 1
        seat = self.to_move
        self.log.append(_new(Event, (_TURN, seat, None, (), self.turn, -1)))
        self._refill(seat)
        if self.outcome is not None:
            self.turn_stuck = False
            return
        fits = self._fits_now if self.centre is self._centre_seen else self._fits()
        hand = self.hands[seat]
        self.turn_stuck = not self._has_play(fits) and (
            (not self.draw_pile and not self.set_aside) or not (hand and self._discardable(hand, fits)))

    def _finish_unfinished(self, ending: Ending, why: str) -> None:
        """Settle a game that stopped with no stock emptied (decision 6): by adjudication, the
        seat or team with the fewest cards left in its stock wins and equal stocks draw; with
        ``unfinished = "draw"``, always a draw."""
        rules = self.rules
        if rules.unfinished == "draw":
            self._finish(Outcome(ending, (), self._scores(()), f"{why}: the game is a draw"))
            return
        left = [len(stock) for stock in self.stocks]
        fewest = min(left)
        leaders = [index for index, count in enumerate(left) if count == fewest]
        counts = ", ".join(map(str, left))
        if len(leaders) > 1:
            self._finish(Outcome(ending, (), self._scores(()),
                                 f"{why}; adjudicated on the cards left in the stocks ({counts}): "
                                 "the fewest are shared, so the game is a draw"))
            return
        stock = leaders[0]
        winners = tuple(s for s in range(rules.players) if rules.stock_of(s) == stock)
        who = f"team {stock} (seats {winners[0]} and {winners[1]})" if rules.partners else f"seat {stock}"
        self._finish(Outcome(ending, winners, self._scores(winners, margin=True),
                             f"{why}; adjudicated on the cards left in the stocks ({counts}): "
                             f"{who} has the fewest and wins"))

    def _finish_stock_emptied(self, seat: int) -> None:
        team = self.rules.team_of(seat)
        winners = tuple(s for s in range(self.rules.players) if self.rules.team_of(s) == team)
        who = f"team {team} (seats {winners[0]} and {winners[1]})" if self.rules.partners else f"seat {seat}"
        self._finish(Outcome(Ending.STOCK_EMPTIED, winners, self._scores(winners),
                             f"{who} emptied its stock"))

    def _scores(self, winners: Iterable[int], margin: bool = False) -> tuple[int, ...]:
        """Points per seat. Under ``stock-left`` a winner scores the cards left in the losers'
        stocks; with ``margin`` (an adjudicated win) less its own, per losing stock."""
        winners = tuple(winners)
        rules = self.rules
        if not winners:
            return (0,) * rules.players
        if rules.scoring == "win":
            points = 1
        else:
            winning_stocks = {rules.stock_of(s) for s in winners}
            own = min(len(self.stocks[i]) for i in winning_stocks) if margin else 0
            points = sum(len(stock) - own for i, stock in enumerate(self.stocks) if i not in winning_stocks)
        return tuple(points if s in winners else 0 for s in range(rules.players))

    def _finish(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self.log.append(Event(EventKind.GAME_OVER, seat=outcome.winners[0] if outcome.winners else -1))
