"""``parallel``: one range for the tournament file and ``--parallel``, and never more
workers than matches to play (issue 31.11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tournaments.config import MAX_PARALLEL, TournamentFileError, load_tournament
from tournaments.runner import journal_rounds, matches_at_once, open_tournament, scheduler_for
from tournaments.store import Store


def write(tmp_path: Path, parallel: int, extra: str = "") -> Path:
    file = tmp_path / "t.toml"
    file.write_text(f'bots = ["greedy", "random"]\nrounds = 1\nparallel = {parallel}\n{extra}')
    return file


def test_a_files_parallel_has_the_flags_range(tmp_path: Path) -> None:
    with pytest.raises(TournamentFileError, match=r"field 'parallel'.*at most 1024.*100000"):
        load_tournament(write(tmp_path, 100_000))
    assert load_tournament(write(tmp_path, MAX_PARALLEL)).parallel == MAX_PARALLEL == 1024


@pytest.mark.parametrize("stop, least", [("", 2), ('[stop]\nrule = "separated"\nmax_rounds = 5\n', 2)])
def test_no_more_workers_than_matches(tmp_path: Path, stop: str, least: int) -> None:
    config = load_tournament(write(tmp_path, 12, stop))
    with Store(tmp_path / "t.db") as store:
        tid = open_tournament(store, config, {name: "" for name in config.bots}, False)
        journal_rounds(store, tid, config, scheduler_for(config))
        assert len(store.matches(tid)) == 2  # one pairing, a duplicate deal: two matches
        assert matches_at_once(store, tid, config) == least
