"""Tournament files: what they hold, and errors that name the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.match import Policy
from tournaments.config import MATCH_POINTS_GAME_CAP, TournamentFileError, load_tournament
from tournaments.ratings import DEFAULT_DRAW_PROBABILITY

from .conftest import REPO, write_hostile_manifest, write_tournament


def test_the_demo_league_loads() -> None:
    config = load_tournament(REPO / "leagues" / "demo.toml")
    assert config.name == "demo"
    assert [e.name for e in config.entrants] == ["tactician", "planner", "sampler", "greedy", "random", "naive"]
    assert config.rules.name == "standard"
    assert config.parallel == 2
    assert config.stop.rule == "games"


def test_every_field(tmp_path: Path) -> None:
    manifest = write_hostile_manifest(tmp_path, "good")
    path = write_tournament(
        tmp_path, "full", rules="standard", bots=["greedy", str(manifest.relative_to(tmp_path))], seed=2**64 - 1,
        rounds=3, parallel=3, policy="forfeit", match_games=2, replay_dir="replays", log_dir="logs",
        time_control={"decision_ms": 500, "bank_ms": 0, "connect_ms": 9000},
        rating={"mu": 30, "sigma": 5.0, "beta": 2.5, "tau": 0.1, "draw_probability": 0.2},
        stop={"rule": "separated", "confidence": 0.9, "max_rounds": 7}, reuse="warm", max_matches=7)
    config = load_tournament(path)
    assert config.reuse == "warm" and config.max_matches == 7
    assert [e.name for e in config.entrants] == ["greedy", "hostile-good"]
    assert config.bots["hostile-good"].path == manifest.resolve()
    assert config.seed == 2**64 - 1 and config.rounds == 3 and config.parallel == 3
    assert config.policy is Policy.FORFEIT and config.match_games == 2
    assert config.time_control.decision_ms == 500 and config.time_control.bank_ms == 0
    assert config.rating.mu == 30 and config.rating.draw_probability == 0.2
    assert (config.stop.rule, config.stop.confidence, config.stop.max_rounds) == ("separated", 0.9, 7)
    assert config.replay_dir == Path("replays")


def test_defaults(tmp_path: Path) -> None:
    config = load_tournament(write_tournament(tmp_path, "plain", bots=["greedy", "naive"]))
    assert config.rounds == 1 and config.match_games == 1 and config.policy is Policy.SUBSTITUTE
    assert config.rating.draw_probability == DEFAULT_DRAW_PROBABILITY
    assert config.parallel >= 1
    assert config.reuse == "warm" and config.max_matches == 50
    assert load_tournament(write_tournament(tmp_path, "cold", bots=["greedy", "naive"], reuse="never")).reuse == "never"


def test_match_points_rules_get_a_game_cap(tmp_path: Path) -> None:
    config = load_tournament(write_tournament(tmp_path, "classic", rules="classic-20", bots=["greedy", "naive"]))
    assert config.rules.match_points == 50
    assert config.match_games == MATCH_POINTS_GAME_CAP


def test_partners_teams(tmp_path: Path) -> None:
    manifest = write_hostile_manifest(tmp_path, "good")
    config = load_tournament(write_tournament(tmp_path, "teams", rules="partners",
                                              bots=["greedy", ["naive", str(manifest)]]))
    assert [(e.name, e.members) for e in config.entrants] == [("greedy", ("greedy", "greedy")),
                                                              ("naive+hostile-good", ("naive", "hostile-good"))]


@pytest.mark.parametrize("fields,field,words", [
    ({"rounds": 0}, "rounds", "at least 1"),
    ({"rounds": "many"}, "rounds", "integer"),
    ({"seed": -1}, "seed", "0.."),
    ({"parallel": 0}, "parallel", "at least 1"),
    ({"policy": "lenient"}, "policy", "forfeit"),
    ({"rules": "standard+nonsense"}, "rules", "nonsense"),
    ({"rules": 7}, "rules", "spec"),
    ({"bots": []}, "bots", "non-empty"),
    ({"bots": ["greedy"]}, "bots", "at least 2"),
    ({"bots": ["greedy", "random", "naive"], "rules": "4p"}, "bots", "at least 4"),
    ({"bots": ["greedy", "no-such-bot"]}, "bots[1]", "no-such-bot"),
    ({"bots": ["greedy", "greedy"]}, "bots[1]", "listed twice"),
    ({"bots": ["greedy", ["random", "naive"]]}, "bots[1]", "partners"),
    ({"time_control": {"decision_ms": 0}}, "time_control.decision_ms", "at least 1"),
    ({"time_control": {"think_ms": 5}}, "time_control", "think_ms"),
    ({"rating": {"sigma": -1}}, "rating.sigma", "positive"),
    ({"rating": {"draw_probability": 1.0}}, "rating.draw_probability", "[0, 1)"),
    ({"rating": {"mu": "high"}}, "rating.mu", "number"),
    ({"stop": {"rule": "forever"}}, "stop.rule", "separated"),
    ({"stop": {"confidence": 1.5}}, "stop.confidence", "between"),
    ({"stop": {"rule": "separated", "max_rounds": 2}, "rounds": 3}, "stop.max_rounds", "at least 'rounds'"),
    ({"replay_dir": 3}, "replay_dir", "directory"),
    ({"reuse": "sometimes"}, "reuse", '"warm" or "never"'),
    ({"reuse": True}, "reuse", '"warm" or "never"'),
    ({"max_matches": 0}, "max_matches", "at least 1"),
    ({"max_matches": "lots"}, "max_matches", "integer"),
    ({"reuse": "never", "max_matches": 5}, "max_matches", "only with reuse"),
])
def test_errors_name_the_file_and_the_field(tmp_path: Path, fields: dict[str, object], field: str, words: str) -> None:
    path = write_tournament(tmp_path, "bad", **fields)
    with pytest.raises(TournamentFileError) as caught:
        load_tournament(path)
    message = str(caught.value)
    assert str(path) in message and f"'{field}'" in message and words in message, message


def test_unknown_fields_and_bad_toml(tmp_path: Path) -> None:
    path = write_tournament(tmp_path, "typo", roundz=3)
    with pytest.raises(TournamentFileError, match="roundz"):
        load_tournament(path)
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    with pytest.raises(TournamentFileError, match="not valid TOML"):
        load_tournament(broken)
    with pytest.raises(TournamentFileError, match="no such tournament file"):
        load_tournament(tmp_path / "missing.toml")


def test_a_bad_manifest_names_the_bot_and_the_field(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "broken"\ncommand = ["./no-such-program"]\n')
    path = write_tournament(tmp_path, "badbot", bots=["greedy", "broken/bot.toml"])
    with pytest.raises(TournamentFileError) as caught:
        load_tournament(path)
    message = str(caught.value)
    assert "bots[1]" in message and "'broken'" in message and "'command'" in message, message


def test_bot_paths_are_relative_to_the_tournament_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_hostile_manifest(tmp_path / "bots", "good")
    (tmp_path / "leagues").mkdir()
    path = write_tournament(tmp_path / "leagues", "rel", bots=["greedy", "../bots/hostile-good"])
    monkeypatch.chdir("/")
    assert load_tournament(path).bots["hostile-good"].path == (tmp_path / "bots" / "hostile-good" / "bot.toml")
