"""The referee's encoder and the SDK's decoder memos hold a bounded number of bytes, whatever the
number of games (issue 24, item 17: over a day of ladder games ``spite serve`` and its workers
grew as memos of 20,000 and 65,536 entries filled, about 40 MB a process once full).

Each memo is emptied when it holds its limit of entries; what these tests pin is that the
limit, times what an entry really holds after real games, is a sane number of bytes. The
engine keeps no such memo since issue 27 (its centre fits are kept in each state). An
entry's bytes are measured, not assumed: its key, its value and what they own (cards tuples,
events, views), not the shared constants (moves, enum members, small ints) they point to."""

from __future__ import annotations

import random
import sys
from enum import Enum
from typing import Any, Iterable

from spite_engine import GameState, Move, observe, preset
from spite_engine import state as engine_state
from spite_wire import decoding, encoding

ENCODER_BUDGET = 6 * 2**20
"""What the encoder's memos and ``_LAST`` may hold together when every one is full."""
DECODER_BUDGET = 6 * 2**20
"""What the SDK's decoder memos may hold together when every one is full (one per bot process:
a remote bot rose to 64 MB as they filled at 20,000 entries each)."""


def owned_bytes(roots: Iterable[Any]) -> int:
    """The bytes of ``roots`` and of the tuples, ints, bytes and dicts they hold, each object
    once; moves, enum members and interned small ints are shared constants, not counted."""
    seen: set[int] = set()
    total = 0
    stack = list(roots)
    while stack:
        value = stack.pop()
        if id(value) in seen or value is None or isinstance(value, (Move, Enum, bool)):
            continue
        if type(value) is int and -5 <= value <= 256:
            continue
        seen.add(id(value))
        total += sys.getsizeof(value)
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, (tuple, list, frozenset, set)):
            stack.extend(value)
    return total


def play(games: int, seed: int = 24, decode: bool = False) -> None:
    """``games`` games of seeded random moves, every decision encoded as the referee sends it
    (and, with ``decode``, decoded as the Python SDK reads it)."""
    rng = random.Random(seed)
    rules = preset("standard")
    decision = 0
    for game in range(1, games + 1):
        state = GameState.new(rules, rng.randrange(1 << 62))
        bank = [30_000] * rules.players
        while not state.is_over and state.turn < 2000:
            seat = state.to_move
            decision += 1
            bank[seat] = max(0, bank[seat] - rng.randrange(0, 40))
            sent = encoding.decision_message(decision, game, observe(state, seat), 1000, bank[seat])
            if decode:
                decoding.decision_from_bytes(sent, rules)
            state.apply(rng.choice(state.legal_moves()))


def memos() -> dict[str, dict[Any, Any]]:
    found: dict[str, dict[Any, Any]] = {name: value for name, value in vars(encoding).items()
                                        if isinstance(value, encoding._Memo)}
    found.update({f"_EVENT_FIELDS[{key}]": memo for key, memo in encoding._EVENT_FIELDS.items()})
    return found


def full_bytes(memo: dict[Any, Any], limit: int) -> float:
    """What ``memo`` would hold with ``limit`` entries like those it holds now: its entries'
    keys and values, and a dict's table of ``limit`` entries."""
    if not memo:
        return 0.0
    entries = owned_bytes([*memo.keys(), *memo.values()])
    return entries / len(memo) * limit + sys.getsizeof(dict.fromkeys(range(limit)))


def test_the_encoder_memos_hold_a_few_megabytes_at_most_once_full() -> None:
    for memo in [*memos().values(), encoding._LAST]:
        memo.clear()
    play(60)
    held = {name: full_bytes(memo, encoding._Memo.LIMIT) for name, memo in memos().items()}
    held["_LAST"] = full_bytes(encoding._LAST, encoding._LAST_LIMIT)
    assert all(len(memo) <= encoding._Memo.LIMIT for memo in memos().values())
    assert len(encoding._LAST) <= encoding._LAST_LIMIT
    assert sum(held.values()) <= ENCODER_BUDGET, {name: round(b / 2**20, 2) for name, b in held.items()}


def test_the_engine_keeps_no_memo_that_grows_with_games() -> None:
    """The centre fits live in each state (``apply`` keeps them up to date) and the discard
    moves are computed at each decision, so after many games the engine's state module holds
    one memo only, of the discard piles' targets: an entry per pattern of started piles."""
    play(60, seed=3)
    held = {name for name, value in vars(engine_state).items() if isinstance(value, dict) and not name.startswith("__")}
    assert held == {"_DISCARD_TARGETS"}
    assert len(engine_state._DISCARD_TARGETS) <= 2 ** 9


def test_the_sdk_decoder_memos_hold_a_few_megabytes_at_most_once_full() -> None:
    found = {name: value for name, value in vars(decoding).items() if isinstance(value, decoding._Memo)}
    assert found
    for memo in found.values():
        memo.clear()
    play(60, seed=5, decode=True)
    held = {name: full_bytes(memo, decoding._Memo.LIMIT) for name, memo in found.items()}
    assert all(len(memo) <= decoding._Memo.LIMIT for memo in found.values())
    assert sum(held.values()) <= DECODER_BUDGET, {name: round(b / 2**20, 2) for name, b in held.items()}
