"""Published Skip-Bo strategies, re-implemented from their descriptions as sparring partners.

The strongest Skip-Bo heuristics published with results are meesvandongen/skipbot's
(``research/heuristic_research.md`` there). Two of them are the yardstick for the sample
bots (docs/bots.md), re-implemented here from what they are described to do, not from
their code, and in this engine's vocabulary:

:func:`skipbo_naive_move` (skipbot's baseline, ``heuristic14``)
    Play whenever any play is legal: the stock card first, then a discard-pile top, then a
    hand card; discard only when nothing can be played, always onto the first discard pile.
    skipbot keeps a hand in the order it was drawn and takes the first card that qualifies,
    so "the first hand card" is, as far as ranks go, a card drawn at random: here it is a
    uniformly random card of the hand (each copy counted), from the bot's seeded ``rng``.

:func:`h13_move` (skipbot's best, ``heuristic13``, "combo architect")
    One move per decision, the first rule that applies:

    1. *Stock path.* If the stock card plays, play it (a wild onto the highest pile). Else,
       for every centre pile, the run of ranks that would bring it up to the stock card's
       rank, each taken from an unused discard top of that rank, else a hand card of that
       rank, else a wild discard top, else a wild from the hand; the shortest complete run
       wins and its first card is played.
    2. *Empty the hand.* If every hand card can be played this turn (discard tops may be
       played in between, each top once: the card beneath is not counted on), play the first
       card of such a sequence; the refill comes at once and the turn goes on.
    3. *High cards.* Else play the highest natural card of rank 6 or more above the stock
       card's rank, unless it would advance one of exactly two centre piles that need the
       same rank (a pair of equal needs is kept: it keeps options open).
    4. *Discard.* Else discard: onto a pile whose top is the same card (strongly preferred),
       else onto the shallowest pile; wilds are not protected. Ties go to the card drawn
       earliest, which here is a random order of the hand (as for the naive bot).
    5. With no discard possible (an empty hand, nothing to draw): a play that does not make
       the next seat's natural stock card playable, else pass.

Both read only fields that the engine's and the SDK's observations share, like
:mod:`spite_sdk.policies`, so they run in process and as ``sample_bots/skipbo-naive`` and
``sample_bots/h13-like``. They apply to any rule set, but are Skip-Bo strategies: in the
Spite and Malice presets a pile completes at Queen as well, and Kings are wild.
"""

from __future__ import annotations

import random
from typing import Sequence

from spite_engine import Move, Observation

PLAY, DISCARD, PASS = 0, 1, 2
HAND, STOCK, DISCARD_PILE = 0, 1, 2
TOP_RANK = 12
"""The rank that completes a centre pile (Queen; Skip-Bo's 12)."""
HIGH_CARD = 6
"""Rule 3 plays natural cards of this rank or more only."""


def skipbo_naive_move(observation: Observation, rng: random.Random) -> Move:
    """skipbot's naive baseline (see the module docstring)."""
    moves: Sequence[Move] = observation.legal_moves
    for source in (STOCK, DISCARD_PILE):
        for move in moves:
            if move.kind == PLAY and move.source == source:
                return move
    hand_plays = [m for m in moves if m.kind == PLAY and m.source == HAND]
    if hand_plays:
        playable = {m.card for m in hand_plays}
        card = rng.choice([c for c in observation.hand if c in playable])
        return next(m for m in hand_plays if m.card == card)
    discards = [m for m in moves if m.kind == DISCARD]
    if discards:
        card = rng.choice([c for c in observation.hand if any(m.card == c for m in discards)])
        return min((m for m in discards if m.card == card), key=lambda m: m.target)
    return moves[0]


def _play(moves: Sequence[Move], source: int, index: int, card: int, pile: int,
          heights: Sequence[int]) -> Move | None:
    """The legal play of ``card`` from ``source`` onto ``pile``, or onto a pile of the same
    height (the engine lists one empty pile of several: they are interchangeable)."""
    fallback = None
    for move in moves:
        if move.kind == PLAY and move.source == source and move.card == card and (
                source != DISCARD_PILE or move.index == index):
            if move.target == pile:
                return move
            if fallback is None and heights[move.target] == heights[pile]:
                fallback = move
    return fallback


def _next_need(need: int) -> int:
    return 1 if need >= TOP_RANK else need + 1


def _stock_path(observation: Observation, moves: Sequence[Move], wild: frozenset[int], order: list[int],
                heights: list[int]) -> Move | None:
    """Rule 1: the stock card, or the first card of the shortest run that frees it."""
    seat = observation.seat
    stock = observation.stocks[observation.rules.stock_of(seat)]
    if not stock.visible:
        return None
    top = stock.visible[0]
    needs = [h + 1 for h in heights]
    if top in wild:
        best = max(range(len(needs)), key=lambda i: (needs[i], -i))
        return _play(moves, STOCK, 0, top, best, heights)
    for pile, need in enumerate(needs):
        if need == top:
            return _play(moves, STOCK, 0, top, pile, heights)
    tops = [p[-1] if p else None for p in observation.discard_piles[seat]]
    hand = observation.hand
    best_run: list[tuple[int, int, int]] | None = None
    best_pile = -1
    for pile, need in enumerate(needs):
        required: list[int] = []
        value = need
        while value != top and len(required) <= TOP_RANK:
            required.append(value)
            value = _next_need(value)
        used_tops: set[int] = set()
        used_hand: set[int] = set()
        run: list[tuple[int, int, int]] = []  # (source, index, card)
        for value in required:
            pick = next(((DISCARD_PILE, d, value) for d, c in enumerate(tops)
                         if c == value and d not in used_tops), None)
            if pick is None:
                pick = next(((HAND, h, value) for h in order if hand[h] == value and h not in used_hand), None)
            if pick is None:
                pick = next(((DISCARD_PILE, d, c) for d, c in enumerate(tops)
                             if c is not None and c in wild and d not in used_tops), None)
            if pick is None:
                pick = next(((HAND, h, hand[h]) for h in order if hand[h] in wild and h not in used_hand), None)
            if pick is None:
                break
            (used_tops if pick[0] == DISCARD_PILE else used_hand).add(pick[1])
            run.append(pick)
        else:
            if run and (best_run is None or len(run) < len(best_run)):
                best_run, best_pile = run, pile
    if best_run is None:
        return None
    source, index, card = best_run[0]
    return _play(moves, source, index if source == DISCARD_PILE else 0, card, best_pile, heights)


def _empty_hand(observation: Observation, moves: Sequence[Move], wild: frozenset[int], order: list[int],
                heights: list[int]) -> Move | None:
    """Rule 2: the first play of a sequence that plays every hand card (discard tops may help)."""
    hand = observation.hand
    if not hand:
        return None
    tops = [p[-1] if p else None for p in observation.discard_piles[observation.seat]]
    failed: set[tuple[tuple[int, ...], int, int]] = set()
    path: list[tuple[int, int, int, int]] = []  # (source, index, card, pile)
    full = (1 << len(hand)) - 1

    def fits(card: int, need: int) -> bool:
        return card in wild or card == need

    def search(needs: list[int], used_hand: int, used_tops: int) -> bool:
        if used_hand == full:
            return True
        key = (tuple(needs), used_hand, used_tops)
        if key in failed:
            return False
        for h in order:
            if used_hand >> h & 1:
                continue
            for pile, need in enumerate(needs):
                if fits(hand[h], need):
                    needs[pile] = _next_need(need)
                    path.append((HAND, 0, hand[h], pile))
                    if search(needs, used_hand | 1 << h, used_tops):
                        return True
                    path.pop()
                    needs[pile] = need
        for d, card in enumerate(tops):
            if card is None or used_tops >> d & 1:
                continue
            for pile, need in enumerate(needs):
                if fits(card, need):
                    needs[pile] = _next_need(need)
                    path.append((DISCARD_PILE, d, card, pile))
                    if search(needs, used_hand, used_tops | 1 << d):
                        return True
                    path.pop()
                    needs[pile] = need
        failed.add(key)
        return False

    if not search([h + 1 for h in heights], 0, 0):
        return None
    source, index, card, pile = path[0]
    return _play(moves, source, index, card, pile, heights)


def h13_move(observation: Observation, rng: random.Random) -> Move:
    """skipbot's ``heuristic13`` strategy (see the module docstring)."""
    moves: Sequence[Move] = observation.legal_moves
    wild = frozenset(observation.rules.wild_ranks)
    heights = [len(p) for p in observation.centre_piles]
    order = list(range(len(observation.hand)))
    rng.shuffle(order)  # the hand's draw order, which skipbot's tie-breaks follow
    for rule in (_stock_path, _empty_hand):
        move = rule(observation, moves, wild, order, heights)
        if move is not None:
            return move
    seat = observation.seat
    stock = observation.stocks[observation.rules.stock_of(seat)]
    stock_rank = stock.visible[0] if stock.visible and stock.visible[0] not in wild else 1
    needs = [h + 1 for h in heights]
    source_rank = {HAND: 0, STOCK: 1, DISCARD_PILE: 2}
    best: Move | None = None
    best_key: tuple[int, int] | None = None
    for move in moves:
        if move.kind != PLAY or move.card in wild:
            continue
        if move.card < HIGH_CARD or move.card <= stock_rank:
            continue
        if needs.count(needs[move.target]) == 2:
            continue  # keep a pair of piles that need the same rank
        key = (move.card, -source_rank[move.source])
        if best_key is None or key > best_key:
            best, best_key = move, key
    if best is not None:
        return best
    discards = [m for m in moves if m.kind == DISCARD]
    if discards:
        piles = observation.discard_piles[seat]
        position: dict[int, int] = {}
        for rank_in_order, h in enumerate(order):
            position.setdefault(observation.hand[h], rank_in_order)

        def score(move: Move) -> int:
            pile = piles[move.target]
            card: int = move.card
            same = 600 if pile and pile[-1] == card else 0
            return same - 20 * len(pile) - 10 * position[card]

        return max(discards, key=score)
    following = (seat + 1) % observation.rules.players
    their = observation.stocks[observation.rules.stock_of(following)]
    threat = their.visible[0] if their.visible and their.visible[0] not in wild else None
    for move in moves:
        if move.kind == PLAY:
            played = needs[move.target]
            if threat is None or _next_need(played) != threat:
                return move
    return next((m for m in moves if m.kind == PASS), moves[0])
