"""Tournament files use the referee's ranges (referee/core/limits.py, issue 12 item 5): a count out
of range is a TournamentFileError naming the field, never a bare ValueError later."""

from __future__ import annotations

from pathlib import Path

import pytest

from tournaments.config import TournamentFileError, load_tournament


@pytest.mark.parametrize("extra, field", [
    ("rounds = 1000000000000", "rounds"),
    ("match_games = 5000000000", "match_games"),
    ("[time_control]\nconnect_ms = 0", "time_control.connect_ms"),
    ("[time_control]\ndecision_ms = 999999999", "time_control.decision_ms"),
    ("[stop]\nrule = \"separated\"\nmax_rounds = 99999999", "stop.max_rounds"),
])
def test_out_of_range_counts_are_refused_with_the_field(tmp_path: Path, extra: str, field: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(f'name = "t"\nrules = "standard"\nbots = ["greedy", "random"]\n{extra}\n')
    with pytest.raises(TournamentFileError) as caught:
        load_tournament(path)
    assert field in str(caught.value) and "\n" not in str(caught.value)
