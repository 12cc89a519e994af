"""bench/expert.py, expert iteration: what the searcher keeps of a search, and the fit."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from types import ModuleType

import pytest

from spite_engine import observe
from spite_sdk.apprentice import FEATURES, candidates
from spite_sdk.search import Searcher

from ..rules.support import position
from .support import load_bench
from .test_searcher import mid_game_decision


@pytest.fixture(scope="module")
def expert() -> ModuleType:
    module: ModuleType = load_bench("expert")
    return module


def test_the_searcher_keeps_what_its_last_search_found() -> None:
    """``Searcher.last``: the candidates, the tactician's first in front, and per candidate
    one difference to the first per sample (the first's own all 0); None when not searched."""
    state, view = mid_game_decision()
    searcher = Searcher(rollouts=24)
    searcher.decide(view, random.Random(1))  # type: ignore[arg-type]
    assert searcher.last is not None
    found, diffs = searcher.last
    assert found == candidates(view)[0]  # type: ignore[arg-type]
    assert len(diffs) == len(found) >= 2 and set(diffs[0]) == {0.0}
    assert {len(d) for d in diffs} == {24 // len(found)}
    only = position("standard", hands=["3 3 3 3 3", "4 4 4 4 4"], stocks=["9 9 A", "9 9 9"],
                    centre=["", "", "", ""], discards=[["", "", "", ""], ["", "", "", ""]])
    searcher.decide(observe(only, 0), random.Random(1))  # the stock's Ace: played without a search
    assert searcher.last is None


def test_the_fit_recovers_a_linear_model(expert: ModuleType, tmp_path: Path) -> None:
    """Targets made from known weights (two features) are fitted back to them."""
    rng = random.Random(4)
    k = len(FEATURES)
    true = [0.0] * k
    true[1], true[3] = 2.0, -1.0
    with open(tmp_path / "targets.jsonl", "w") as out:
        for _ in range(300):
            rows = [[float(rng.randint(-2, 2)) for _ in range(k)] for _ in range(3)]
            out.write(json.dumps({"x": rows, "d": [sum(w * x for w, x in zip(true, r)) for r in rows],
                                  "n": [20, 20, 20]}) + "\n")
    expert.fit(argparse.Namespace(targets=str(tmp_path / "targets.jsonl"), ridge=0.0,
                                  out=str(tmp_path / "model.json")))
    fitted = json.loads((tmp_path / "model.json").read_text())["weights"]
    assert fitted == pytest.approx(true, abs=1e-6)


@pytest.mark.parametrize("on_apprentice", [False, True])
def test_collect_writes_one_line_per_searched_decision(expert: ModuleType, on_apprentice: bool) -> None:
    """Two games of the searcher against the tactician (or of the searcher on an apprentice
    that puts another plan first): every record has a row of features per candidate but the
    tactician's first, with the search's mean difference to it and the sample count."""
    weights = [100.0] + [0.0] * (len(FEATURES) - 1) if on_apprentice else None
    records = expert.collect_deals(("skip-bo+short-20", [0], 9, 12, weights))
    assert records
    for record in records:
        assert len(record["x"]) == len(record["d"]) == len(record["n"]) >= 1
        assert all(len(row) == len(FEATURES) and row[0] == 1.0 for row in record["x"])


def test_collect_on_an_apprentice_of_no_weights_records_what_the_plain_searcher_does(expert: ModuleType) -> None:
    """An apprentice that changes nothing (all weights 0: the tactician's order and plays)
    gives the same records as the searcher alone: the apprentice's path rebases nothing."""
    plain = expert.collect_deals(("skip-bo+short-20", [1], 9, 12, None))
    on_zero = expert.collect_deals(("skip-bo+short-20", [1], 9, 12, [0.0] * len(FEATURES)))
    assert plain and on_zero == plain


@pytest.mark.parametrize("args, says", [
    (["duel", "--model", "missing.json"], "missing.json is not a model `expert.py fit` wrote"),
    (["fit", "missing.jsonl", "--out", "model.json"], "missing.jsonl is not what `expert.py collect` writes"),
    (["collect", "--games", "0", "--out", "targets.jsonl"], "--games: must be a whole number from 2 to 1,000,000"),
    (["collect", "--rules", "bogus", "--out", "targets.jsonl"], "unknown preset 'bogus'"),
    (["collect", "--out", "no/such/folder/targets.jsonl"], "--out: no folder"),
    (["fit", "targets.jsonl", "--ridge", "nan", "--out", "model.json"], "--ridge: must be a number from 0 to 1"),
])
def test_a_bad_argument_is_one_line(args: list[str], says: str, tmp_path: Path) -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[2] / "bench" / "expert.py"
    done = subprocess.run([sys.executable, str(script), *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode in (1, 2) and says in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
