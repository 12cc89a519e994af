"""Spite Arena's Python SDK: write a bot as one method, observation in, move out.

A whole bot (``mybot.py``)::

    from spite_sdk import Bot, Move, Observation, Source, policies


    class MyBot(Bot):
        name = "mybot"
        version = "0.1.0"

        def decide(self, observation: Observation) -> Move:
            # Stock cards first: emptying the stock wins the game.
            for move in observation.legal_moves:
                if move.source == Source.STOCK:
                    return move
            return policies.greedy_move(observation)


    if __name__ == "__main__":
        MyBot().run()   # address and token come from SPITE_ADDRESS and SPITE_TOKEN

Play it against a sample bot with ``spite play ./mybot.py greedy``. ``decide`` may
also return a plan (a list of moves), an index into ``observation.legal_moves``, or a
:class:`Decision` carrying a debug string; see :class:`Bot`.

The values (:class:`Observation`, :class:`Move`, :class:`RuleSet`, ...) are immutable and
share the rules engine's names and numbering, so the functions in :mod:`spite_sdk.policies`
run on both.
"""

from pathlib import Path

from spite_engine.compiled import Build

BUILD = Build(__name__, Path(__file__).resolve().parent, ("policies", "planning", "tactics"))
"""What simulations run at every decision (the reference policies, and the tactician's turn
search that plays the searcher's rollouts), compiled with the engine (``spite_engine.compiled``;
``make setup``)."""
COMPILED: bool = BUILD.load()

from . import policies
from .bot import PROTOCOL_VERSION, Bot, ConfigError, RefereeError
from .connection import env_number
from .convert import ConversionError
from .types import (
    ACE,
    JACK,
    JOKER,
    KING,
    PASS_MOVE,
    QUEEN,
    ActionResult,
    Card,
    Decision,
    DecisionContext,
    Ending,
    Event,
    EventKind,
    Fault,
    MatchResult,
    Move,
    MoveKind,
    Observation,
    Outcome,
    Policy,
    RuleSet,
    Source,
    StockView,
    TimeControl,
    Welcome,
    card_name,
    parse_card,
)

__version__ = "0.1.0"

__all__ = [
    "Bot", "Decision", "DecisionContext", "RefereeError", "ConfigError", "ConversionError", "PROTOCOL_VERSION",
    "env_number",
    "Observation", "Move", "MoveKind", "Source", "PASS_MOVE", "RuleSet", "StockView",
    "Event", "EventKind", "Outcome", "Ending",
    "Welcome", "TimeControl", "Policy", "ActionResult", "Fault", "MatchResult",
    "Card", "JOKER", "ACE", "JACK", "QUEEN", "KING", "card_name", "parse_card",
    "policies",
]
