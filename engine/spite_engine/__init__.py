"""The rules of Spite and Malice and its family, as a pure library.

No I/O, clocks, sockets or global randomness: a game is a function of its rule set,
its seed and its moves. ``docs/rules.md`` is the statement of the rules this package
implements.

>>> from spite_engine import GameState, parse_rules, observe
>>> state = GameState.new(parse_rules("standard"), seed=7)
>>> view = observe(state, state.to_move)
>>> len(view.hand), view.my_stock.count
(5, 26)
>>> state.apply(view.legal_moves[-1])

``COMPILED`` says whether the hot modules run compiled (``spite_engine.compiled``).
"""

from . import compiled as _compiled

BUILD = _compiled.ENGINE
COMPILED: bool = BUILD.load()
"""True when the engine's hot modules are the Cython build of their current sources."""

from .cards import ACE, JACK, JOKER, KING, QUEEN, Card, card_name, parse_card
from .moves import (
    PASS_MOVE,
    IllegalMoveError,
    LegalMoves,
    MalformedMoveError,
    Move,
    MoveError,
    MoveKind,
    Source,
    make_move,
)
from .observation import LazyObservation, Observation, StockView, observe, observe_lazy, observe_public, visible_events
from .outcome import Ending, Event, EventKind, Outcome
from .record import GameRecord, ReplayMismatch, replay
from .rng import keyed_shuffle
from .ruleset import PRESETS, RULES_VERSION, RulesError, RuleSet, parse_rules, preset
from .state import GameState

__all__ = [
    "ACE", "JACK", "JOKER", "KING", "QUEEN", "Card", "card_name", "parse_card",
    "IllegalMoveError", "LegalMoves", "MalformedMoveError", "Move", "MoveError", "MoveKind", "PASS_MOVE", "Source",
    "make_move",
    "LazyObservation", "Observation", "StockView", "observe", "observe_lazy", "observe_public", "visible_events",
    "Ending", "Event", "EventKind", "Outcome",
    "GameRecord", "ReplayMismatch", "replay",
    "keyed_shuffle",
    "PRESETS", "RULES_VERSION", "RuleSet", "RulesError", "parse_rules", "preset",
    "GameState",
    "COMPILED",
]
