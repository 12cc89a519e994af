"""Values shared by the SDK tests."""

from __future__ import annotations

from spite_sdk import RuleSet


def rule_set(**overrides: object) -> RuleSet:
    """The standard rule set, with ``overrides``."""
    options: dict[str, object] = dict(
        name="standard", version=1, players=2, partners=False, deck="spite", decks=2, jokers_per_deck=2,
        kings_wild=True, stock_size=26, hand_size=5, centre_piles=4, discard_piles=4, open_stock=1,
        no_block=False, completed_piles="shuffle", draw_pile_exhausted="play-on", discard_aces=False,
        scoring="win", match_points=0, turn_cap=2000)
    options.update(overrides)
    return RuleSet(**options)  # type: ignore[arg-type]
