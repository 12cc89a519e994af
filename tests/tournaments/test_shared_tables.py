"""One schema for ``[time_control]``, ``[rating]`` and ``policy``: a tournament file and a
competition file accept the same table and read the same values from it, or refuse it
alike, in one line naming the field; the time control's ranges are the referee's own
(:mod:`referee.core.limits`), and the table a time control writes reads back as itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.core import limits
from referee.core.deadlines import TimeControl
from spite_arena.config import CompetitionError, load_competition
from tournaments.config import TournamentFileError, load_tournament


def _both(tmp_path: Path, top: str, tables: str) -> tuple[Path, Path]:
    tournament = tmp_path / "league.toml"
    tournament.write_text(f'bots = ["greedy", "random"]\n{top}\n{tables}\n')
    competition = tmp_path / "ladder.toml"
    competition.write_text(f'house_bots = ["greedy", "random"]\n{top}\n{tables}\n')
    return tournament, competition


def _range_cases() -> list[tuple[str, int, bool]]:
    cases = []
    for key, allowed in TimeControl.RANGES.items():
        cases += [(key, allowed.low - 1, False), (key, allowed.low, True), (key, allowed.high, True),
                  (key, allowed.high + 1, False)]
    return cases


@pytest.mark.parametrize("key,value,ok", _range_cases())
def test_each_time_control_range_is_the_referees_in_both_files(tmp_path: Path, key: str, value: int,
                                                                ok: bool) -> None:
    tournament, competition = _both(tmp_path, "", f"[time_control]\n{key} = {value}")
    if ok:
        league, ladder = load_tournament(tournament), load_competition(competition)
        assert getattr(league.time_control, key) == getattr(ladder.time_control, key) == value
        assert league.time_control == ladder.time_control
        return
    for path, error in ((tournament, TournamentFileError), (competition, CompetitionError)):
        with pytest.raises(error) as caught:
            (load_tournament if error is TournamentFileError else load_competition)(path)
        message = str(caught.value)
        assert "\n" not in message and f"'time_control.{key}'" in message and str(path) in message, message
        with pytest.raises(limits.LimitError):  # and the referee refuses it too
            TimeControl(**{key: value})


@pytest.mark.parametrize("tables,field", [
    ("[time_control]\ndecision_ms = true", "time_control.decision_ms"),
    ("[time_control]\nbank_ms = \"10000\"", "time_control.bank_ms"),
    ("[time_control]\nconnect_ms = 1.5", "time_control.connect_ms"),
    ("[time_control]\nthink_ms = 5", "time_control"),
    ("time_control = 5", "time_control"),
    ("[rating]\nsigma = 0", "rating.sigma"),
    ("[rating]\nbeta = -1", "rating.beta"),
    ("[rating]\ntau = -0.1", "rating.tau"),
    ("[rating]\ndraw_probability = 1.0", "rating.draw_probability"),
    ("[rating]\nmu = \"high\"", "rating.mu"),
    ("[rating]\nmu = nan", "rating.mu"),
    ("[rating]\nskill = 3", "rating"),
    ("policy = \"lenient\"", "policy"),
])
def test_a_bad_table_is_refused_alike(tmp_path: Path, tables: str, field: str) -> None:
    top, table = (tables, "") if tables.startswith(("policy", "time_control =")) else ("", tables)
    tournament, competition = _both(tmp_path, top, table)
    with pytest.raises(TournamentFileError) as league:
        load_tournament(tournament)
    with pytest.raises(CompetitionError) as ladder:
        load_competition(competition)
    for message in (str(league.value), str(ladder.value)):
        assert "\n" not in message and f"'{field}'" in message, message
    # the same sentence after the file's name
    assert str(league.value).split(": ", 1)[1] == str(ladder.value).split(": ", 1)[1]


@pytest.mark.parametrize("top,tables", [
    ("", "[time_control]\nbank_ms = 0"),              # a competition refused it once
    ("", "[time_control]\nbank_ms = 3600000"),        # and banks over 10 minutes
    ("", "[time_control]\ndecision_ms = 250\nconnect_ms = 4000"),
    ("", "[rating]\ntau = 0.0\ndraw_probability = 0.0"),
    ("", "[rating]\nmu = 30\nsigma = 5\nbeta = 2.5"),
    ("policy = \"forfeit\"", ""),
])
def test_a_good_table_reads_the_same_in_both(tmp_path: Path, top: str, tables: str) -> None:
    tournament, competition = _both(tmp_path, top, tables)
    league, ladder = load_tournament(tournament), load_competition(competition)
    assert (league.time_control, league.rating, league.policy) == (ladder.time_control, ladder.rating,
                                                                    ladder.policy)


def test_a_time_control_reads_back_from_its_table() -> None:
    control = TimeControl(decision_ms=250, bank_ms=0, connect_ms=4000)
    assert TimeControl.from_table(json.loads(json.dumps(control.to_dict()))) == control
    assert TimeControl.from_table({}) == TimeControl()
    assert set(control.to_dict()) == set(TimeControl.RANGES) == {"decision_ms", "bank_ms", "connect_ms"}


@pytest.mark.parametrize("contents,words", [
    (None, "no such"), (b"name = \n", "not valid TOML"), (b"\xff\xfe name = 'x'\n", "not valid TOML"),
    ("directory", "cannot read"),
])
def test_the_three_files_are_read_by_one_helper_with_one_line_errors(tmp_path: Path, contents: bytes | str | None,
                                                                      words: str) -> None:
    from referee.processes.manifest import ManifestError, load_manifest

    path = tmp_path / "file.toml"
    if contents == "directory":
        path.mkdir()
        (path / "bot.toml").mkdir()  # load_manifest looks inside a directory for its bot.toml
    elif isinstance(contents, bytes):
        path.write_bytes(contents)
    for load, error in ((load_tournament, TournamentFileError), (load_competition, CompetitionError),
                        (load_manifest, ManifestError)):
        with pytest.raises(error) as caught:
            load(path)
        message = str(caught.value)
        assert words in message and "\n" not in message and "Traceback" not in message, message
