"""A digest of everything the engine does in one game, to compare two builds of it.

``game_digest(case)`` plays one game and hashes, at every decision: the legal moves, every
seat's observation (eager), the lazy observation of the seat to move (some of them held
across ``apply``, which must complete them as they were), the move chosen (and the
tactician's whole plan); now and then a clone played on, and a determinized world
(``GameState.blank`` and piles replaced directly) played out; and at the end the whole log and
the outcome. The compiled engine and the Python sources must give the same digest for every
case (``tests/rules/test_compiled.py``).

Run as ``python -m tests.rules.engine_digest``: one JSON case a line on stdin, one digest a line
on stdout (the test runs it with ``SPITE_ENGINE=python``, beside the compiled build).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from typing import Any

import spite_engine
from spite_engine import GameState, Move, observe, observe_lazy, parse_rules
from spite_engine.determinize import determinize
from spite_sdk.policies import greedy_move
from spite_sdk.tactics import tactician_plan

Case = dict[str, Any]
"""``{"spec": str, "seed": int, "policies": "GRT..." (a letter a seat: Greedy, Random, or the
Tactician's plan, its first move),
"every": int}``: hold every ``every``-th lazy observation; the eighth time, also play a clone
on and a determinized world out from there."""


def _play(state: GameState, policies: str, rng: random.Random, every: int, out: Any, depth: int) -> None:
    held: list[tuple[Any, Any]] = []
    decisions = 0
    while state.outcome is None and decisions < 3000:
        seat = state.to_move
        moves = state.legal_moves()
        out.update(repr(moves).encode())
        for other in range(state.rules.players):
            out.update(repr(observe(state, other)).encode())
        lazy = observe_lazy(state, seat)
        letter = policies[seat % len(policies)]
        if letter == "T":
            plan = tactician_plan(lazy)
            out.update(repr(plan).encode())
            move: Move = plan[0]
        else:
            move = greedy_move(lazy) if letter == "G" else rng.choice(moves)
        decisions += 1
        if decisions % every == 0:
            held.append((lazy, observe(state, seat)))  # kept across apply: must not change
            if depth == 0 and decisions == every * 8:
                _play(state.clone(), policies, random.Random(decisions), every, out, depth + 1)
                world = determinize(observe(state, seat), state.rules, random.Random(decisions), seed=decisions)
                _play(world, "G", random.Random(decisions), every, out, depth + 1)
        del lazy
        out.update(repr(move).encode())
        state.apply(move)
    for lazy, eager in held:
        out.update(b"held " + repr(lazy == eager).encode() + repr(tuple(lazy)).encode())
    out.update(repr(state.log).encode())
    out.update(repr(state.outcome).encode())


def game_digest(case: Case) -> str:
    rules = parse_rules(case["spec"])
    out = hashlib.sha256()
    state = GameState.new(rules, case["seed"])
    _play(state, case["policies"], random.Random(case["seed"]), case["every"], out, 0)
    return out.hexdigest()


def main() -> int:
    print(json.dumps({"compiled": spite_engine.COMPILED}), flush=True)
    for line in sys.stdin:
        print(game_digest(json.loads(line)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
