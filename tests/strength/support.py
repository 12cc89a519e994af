"""Shared helpers of the strength tests: the sampler module and games played in process,
every move of every plan checked by the engine."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from typing import Any, Callable

from spite_engine import EventKind, GameState, Outcome, RuleSet, observe
from spite_sdk import policies
from spite_sdk.planning import plan_turn
from spite_sdk.rivals import h13_move, skipbo_naive_move
from spite_sdk.tactics import tactician_plan

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"

Agent = Callable[[Any, random.Random], list[Any]]


def load_module(path: Path, module_name: str) -> Any:
    """The script at ``path`` as a module (sample bots and benchmarks are scripts, not packages)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_sample_bot(name: str, file: str = "bot.py") -> Any:
    """``sample_bots/<name>/<file>`` as a module."""
    return load_module(SAMPLE_BOTS / name / file, f"strength_sample_bot_{name}_{Path(file).stem}".replace("-", "_"))


def load_bench(script: str) -> Any:
    """``bench/<script>.py`` as a module (a fresh one each time)."""
    return load_module(SAMPLE_BOTS.parent / "bench" / f"{script}.py", f"strength_bench_{script}")


def agent(name: str, samples: int = 2) -> Agent:
    """An in-process bot returning plans; the sampler with a fixed sample count."""
    if name == "planner":
        return lambda view, rng: plan_turn(view)
    if name in ("sampler", "sampler-t"):
        base = "tactician" if name == "sampler-t" else "planner"
        sampler = load_sample_bot("sampler").Sampler(budget_ms=None, samples=samples, base=base)
        return lambda view, rng: sampler.decide(view, rng)
    if name == "tactician":
        return lambda view, rng: tactician_plan(view)
    if name == "greedy":
        return lambda view, rng: [policies.greedy_move(view)]
    if name == "skipbo-naive":
        return lambda view, rng: [skipbo_naive_move(view, rng)]
    if name == "h13-like":
        return lambda view, rng: [h13_move(view, rng)]
    if name == "naive":
        return lambda view, rng: [policies.naive_move(view, rng)]
    if name == "random":
        return lambda view, rng: [policies.random_move(view, rng)]
    raise ValueError(f"no in-process agent named {name!r}")


def play_checked(rules: RuleSet, seed: int, agents: list[Agent],
                 rngs: list[random.Random] | None = None) -> tuple[Outcome, int, int]:
    """Play one game, each plan as the referee plays it, every move through ``apply_checked``
    (an illegal one raises). Returns the outcome, the decisions and the plan moves played.
    ``rngs``: each seat's generator (default ``random.Random(f"{seed}:{seat}")``)."""
    state = GameState.new(rules, seed)
    if rngs is None:
        rngs = [random.Random(f"{seed}:{seat}") for seat in range(rules.players)]
    decisions = moves_played = 0
    while state.outcome is None:
        seat = state.to_move
        view = observe(state, seat)
        plan = agents[seat](view, rngs[seat])
        assert plan and plan[0] in view.legal_moves
        decisions += 1
        stock = rules.stock_of(seat)
        for move in plan:
            start = len(state.log)
            state.apply_checked(move, seat)
            moves_played += 1
            if state.outcome is not None or state.to_move != seat or any(
                    (e.kind == EventKind.DRAW and e.seat == seat) or (e.kind == EventKind.REVEAL and e.pile == stock)
                    for e in state.log[start + 1:]):
                break
    return state.outcome, decisions, moves_played
