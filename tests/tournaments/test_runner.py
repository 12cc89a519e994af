"""Real tournaments: real bot processes, real workers, a real store; and the leaderboard on top."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spite_cli.main import main
from tournaments.backends import LocalWorker, TournamentError
from tournaments.config import load_tournament
from tournaments.ratings import Ratings, placings, separated
from tournaments.runner import build_bots, open_tournament
from tournaments.store import Store

from .conftest import LEAGUE, Run, run, run_loaded, write_hostile_manifest, write_tournament


def spite(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line, in a subprocess."""
    return subprocess.run([sys.executable, "-m", "spite_cli.main", *args], capture_output=True, text=True, cwd=cwd)


def leaderboard(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """``spite leaderboard ARGS`` in this process (quicker than a subprocess per format)."""
    capsys.readouterr()
    code = main(["leaderboard", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


# -- the league (one uninterrupted run, shared) -----------------------------------------------


def test_the_league_plays_every_scheduled_match_once(league: Run) -> None:
    assert league.outcome.done == 6 and league.outcome.void == 0
    with Store(league.db, readonly=True) as store:
        tid = league.outcome.tournament_id
        matches = store.matches(tid)
        assert [m.status for m in matches] == ["done"] * 6
        finished = store.finished(tid)
        assert len(finished) == 6 and all(len(m.games) == 1 and len(m.seats) == 2 for m in finished)
        pairs = {frozenset(m.entrants) for m in finished}
        assert pairs == {frozenset(p) for p in (("greedy", "random"), ("greedy", "naive"), ("random", "naive"))}
        for m in finished:  # the game's deal is the match seed's game 0
            assert m.games[0].seed != m.seed and m.seats[0].bot == m.bots[0]
        assert store.tournament(tid).status == "finished"
        assert {o for o, *_ in store.rating_history(tid)} == set(range(6))
    assert league.output.count("\n[") + league.output.startswith("[") == 6, league.output
    assert "[6/6]" in league.output


def test_stored_ratings_equal_a_recomputation_from_the_raw_results(league: Run) -> None:
    with Store(league.db, readonly=True) as store:
        tid = league.outcome.tournament_id
        ratings = Ratings(league.config.rating, ["greedy", "random", "naive"])
        for match in store.finished(tid):
            ratings.update(placings(match.entrants, match.points))
        latest = store.latest_ratings(tid)
    assert latest == {name: (r.mu, r.sigma) for name, r in ratings.leaderboard()}


def test_leaderboard_formats(league: Run, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(leaderboard(capsys, "--db", str(league.db), "--format", "json"))
    board = data["leaderboard"]
    assert [row["rank"] for row in board] == [1, 2, 3]
    assert [row["conservative"] for row in board] == sorted((row["conservative"] for row in board), reverse=True)
    for row in board:
        assert row["matches"] == 4 and row["wins"] + row["draws"] + row["losses"] == 4
        assert 0 <= row["win_rate_low"] <= row["win_rate"] <= row["win_rate_high"] <= 1
        assert row["decision_ms_p50"] > 0 and row["decision_ms_p99"] >= row["decision_ms_p50"]
        assert row["timeouts"] == row["crashes"] == row["illegal_moves"] == 0
    h2h = data["head_to_head"]
    for a in h2h:
        for b, cell in h2h[a].items():
            assert cell["played"] == 2 and cell["score"] + h2h[b][a]["score"] == 2
    assert data["tournament"]["matches"]["done"] == 6 and data["ratings"]["recomputed"] is False

    rows = list(csv.DictReader(io.StringIO(leaderboard(capsys, "--db", str(league.db), "--format", "csv"))))
    assert [r["name"] for r in rows] == [row["name"] for row in board]
    assert {"mu", "sigma", "conservative", "wins", "draws", "losses", "win_rate_low", "decision_ms_p99"} <= set(rows[0])

    markdown = leaderboard(capsys, "--db", str(league.db), "--format", "markdown")
    assert "| # | bot | mu |" in markdown and "Head to head" in markdown and "| greedy |" in markdown

    table = spite("leaderboard", "--db", str(league.db))
    assert table.returncode == 0 and "head to head" in table.stdout and "win rate (95% CI)" in table.stdout


def test_leaderboard_recomputes_with_other_parameters(league: Run, capsys: pytest.CaptureFixture[str]) -> None:
    stored = json.loads(leaderboard(capsys, "--db", str(league.db), "--format", "json"))
    same = json.loads(leaderboard(capsys, "--db", str(league.db), "--format", "json", "--recompute"))
    other = json.loads(leaderboard(capsys, "--db", str(league.db), "--format", "json", "--mu", "1000",
                                   "--sigma", "100", "--draw-probability", "0.1"))
    assert [(r["name"], r["mu"]) for r in stored["leaderboard"]] == [(r["name"], r["mu"]) for r in same["leaderboard"]]
    assert other["ratings"]["mu"] == 1000 and other["ratings"]["recomputed"] is True
    assert all(r["mu"] > 500 for r in other["leaderboard"])


def test_leaderboard_errors(tmp_path: Path) -> None:
    missing = spite("leaderboard", "--db", str(tmp_path / "none.db"))
    assert missing.returncode == 2 and "no results store" in missing.stderr


# -- starting ---------------------------------------------------------------------------------


def test_a_failing_build_stops_before_any_game(tmp_path: Path) -> None:
    manifest = write_hostile_manifest(tmp_path, "good", name="needs-build", build="exit 3")
    path = write_tournament(tmp_path, "broken", bots=["greedy", str(manifest)])
    done = spite("tournament", str(path), "--db", str(tmp_path / "x.db"), "--plain")
    assert done.returncode == 2
    assert "'needs-build'" in done.stderr and "'build'" in done.stderr, done.stderr
    assert not (tmp_path / "x.db").exists(), "nothing is journaled before the bots are built"


def test_a_bad_manifest_fails_before_any_game(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "bad"\ncommand = ["{python}", "bot.py"]\ntransport = "pigeon"\n')
    done = spite("tournament", str(write_tournament(tmp_path, "t", bots=["greedy", "bad"])), "--db",
                 str(tmp_path / "x.db"))
    assert done.returncode == 2 and "'bad'" in done.stderr and "'transport'" in done.stderr, done.stderr
    assert not (tmp_path / "x.db").exists()


def test_resume_refuses_a_changed_tournament_or_bot(tmp_path: Path) -> None:
    manifest = write_hostile_manifest(tmp_path, "good")
    path = write_tournament(tmp_path, "r", bots=["greedy", str(manifest)], rounds=1)
    config = load_tournament(path)
    with Store(tmp_path / "r.db") as store:
        first = open_tournament(store, config, build_bots(config), resume=False)
        assert open_tournament(store, config, build_bots(config), resume=False) == first + 1, "a new one"
        assert open_tournament(store, config, build_bots(config), resume=first) == first, "--resume-id"
        assert open_tournament(store, config, build_bots(config), resume=True) == first + 1, "the latest"
        with pytest.raises(TournamentError, match="no tournament #99"):
            open_tournament(store, config, build_bots(config), resume=99)
        (tmp_path / "v2").mkdir()
        changed = load_tournament(write_tournament(tmp_path / "v2", "r", bots=["greedy", str(manifest)], rounds=2))
        with pytest.raises(TournamentError, match="rounds changed"):
            open_tournament(store, changed, build_bots(changed), resume=True)
        manifest.write_text(manifest.read_text().replace('version = "1"', 'version = "2"'))
        edited = load_tournament(path)
        with pytest.raises(TournamentError, match="hostile-good"):
            open_tournament(store, edited, build_bots(edited), resume=True)


def test_a_worker_is_pinned_to_its_core(tmp_path: Path) -> None:
    async def check() -> str:
        core = max(os.sched_getaffinity(0))
        worker = LocalWorker(core, tmp_path)
        await worker.start()
        assert worker.process is not None
        status = ""  # the worker pins itself first thing: wait until /proc shows it
        for _ in range(200):
            status = Path(f"/proc/{worker.process.pid}/status").read_text()
            if f"Cpus_allowed_list:\t{core}\n" in status:
                break
            await asyncio.sleep(0.05)
        await worker.stop()
        return status

    status = asyncio.run(check())
    assert f"Cpus_allowed_list:\t{max(os.sched_getaffinity(0))}\n" in status


# -- bad behaviour, failures, teams, stop rules -----------------------------------------------


def test_a_crashing_bot_is_counted_and_called_out(tmp_path: Path) -> None:
    manifest = write_hostile_manifest(tmp_path, "crash-mid")
    path = write_tournament(tmp_path, "crashy", bots=["greedy", str(manifest)], rounds=1, parallel=2,
                            policy="forfeit")
    result = run(path, tmp_path / "c.db", plain=False)  # the live view, rendered into a string
    assert "failing bots" in result.output and "hostile-crash-mid" in result.output, result.output
    assert [name for name, _ in result.outcome.failing] == ["hostile-crash-mid"]
    board = {row.name: row for row in result.outcome.board}
    assert board["hostile-crash-mid"].crashes == 2 and board["hostile-crash-mid"].losses == 2
    assert board["greedy"].wins == 2
    with Store(tmp_path / "c.db", readonly=True) as store:
        endings = {g.ending for m in store.finished(result.outcome.tournament_id) for g in m.games}
    assert endings == {"crash"}


def test_a_match_the_worker_cannot_play_is_retried_then_void(tmp_path: Path) -> None:
    manifest = write_hostile_manifest(tmp_path, "good")
    path = write_tournament(tmp_path, "flaky", bots=["greedy", str(manifest)], rounds=1, parallel=1)
    config = load_tournament(path)
    saved = manifest.read_text()
    manifest.unlink()  # loaded by the runner, gone when the worker looks for it
    result = run_loaded(config, tmp_path / "f.db")
    assert result.outcome.void == 2 and result.outcome.done == 0, result.output
    assert result.output.count("playing it again") == 4 and result.output.count("VOID") == 2
    with Store(tmp_path / "f.db", readonly=True) as store:
        rows = store.matches(result.outcome.tournament_id)
        assert {m.status for m in rows} == {"void"} and all(m.attempts == 3 for m in rows)
        assert "no such manifest" in (rows[0].error or "")
        incidents = store.incidents(result.outcome.tournament_id)
    # every failed try is on record, with its reason: two retries then the void, per match
    assert [i.kind for i in incidents if i.match_id == rows[0].id] == ["retried", "retried", "void"]
    assert all(i.platform_fault and "no such manifest" in i.detail for i in incidents)
    manifest.write_text(saved)
    with Store(tmp_path / "f.db") as store:  # the bot differs from the one the tournament started with
        with pytest.raises(TournamentError, match="hostile-good"):
            open_tournament(store, config, build_bots(config), resume=True)


def test_partners_rate_teams(tmp_path: Path) -> None:
    path = write_tournament(tmp_path, "pairs", rules="partners", bots=["greedy", "naive"], rounds=1, parallel=2)
    result = run(path, tmp_path / "p.db")
    assert result.outcome.done == 2
    with Store(tmp_path / "p.db", readonly=True) as store:
        tid = result.outcome.tournament_id
        finished = store.finished(tid)
        assert all(len(m.seats) == 4 for m in finished)
        assert {m.entrants for m in finished} == {("greedy", "naive", "greedy", "naive"),
                                                  ("naive", "greedy", "naive", "greedy")}
        assert set(store.latest_ratings(tid)) == {"greedy", "naive"}
    board = {row.name: row for row in result.outcome.board}
    assert board["greedy"].members == ("greedy", "greedy") and board["greedy"].matches == 2


def _ratings_after_each_round(db: Path, tournament_id: int, config_path: Path) -> list[list[tuple[str, object]]]:
    config = load_tournament(config_path)
    with Store(db, readonly=True) as store:
        finished = store.finished(tournament_id)
    ratings = Ratings(config.rating, [e.name for e in config.entrants])
    boards = []
    for number in range(max(m.round for m in finished) + 1):
        for match in (m for m in finished if m.round == number):
            ratings.update(placings(match.entrants, match.points))
        boards.append(ratings.leaderboard())
    return boards


def test_until_separated_stops_at_the_cap(tmp_path: Path) -> None:
    path = write_tournament(tmp_path, "sep", bots=["greedy", "naive"], rounds=1, parallel=2,
                            stop={"rule": "separated", "confidence": 0.999, "max_rounds": 2})
    result = run(path, tmp_path / "s.db")
    assert result.outcome.rounds == 2 and result.outcome.done == 4
    boards = _ratings_after_each_round(tmp_path / "s.db", result.outcome.tournament_id, path)
    assert not any(separated(board, 0.999) for board in boards)


def test_until_separated_stops_once_every_adjacent_pair_is_apart(tmp_path: Path) -> None:
    path = write_tournament(tmp_path, "sep2", bots=["greedy", "random"], rounds=1, parallel=2, seed=3,
                            rating={"draw_probability": 0.05},
                            stop={"rule": "separated", "confidence": 0.8, "max_rounds": 6})
    result = run(path, tmp_path / "s2.db")
    boards = _ratings_after_each_round(tmp_path / "s2.db", result.outcome.tournament_id, path)
    assert len(boards) == result.outcome.rounds
    assert not any(separated(board, 0.8) for board in boards[:-1]), "it went on only while not separated"
    assert result.outcome.rounds < 6 and separated(boards[-1], 0.8), "this league separates before the cap"
    assert "separated after" in result.output


def test_league_matches_are_reproducible_from_the_schedule(league: Run) -> None:
    from tournaments.runner import scheduler_for

    expected = scheduler_for(league.config).rounds(LEAGUE["rounds"])
    with Store(league.db, readonly=True) as store:
        rows = store.matches(league.outcome.tournament_id)
    assert [(m.round, m.unit, m.rotation, m.bots, m.seed, m.bot_seed) for m in rows] == \
        [(m.round, m.unit, m.rotation, m.bots, m.seed, m.bot_seed) for m in expected]


def test_a_match_to_points_plays_several_games_up_to_the_cap(tmp_path: Path) -> None:
    path = write_tournament(tmp_path, "classic", rules="classic-20", bots=["greedy", "naive"], rounds=1, parallel=2,
                            match_games=2)
    result = run(path, tmp_path / "m.db")
    with Store(tmp_path / "m.db", readonly=True) as store:
        finished = store.finished(result.outcome.tournament_id)
    assert len(finished) == 2
    for match in finished:
        assert 1 <= len(match.games) <= 2
        assert len(match.games) == 2 or max(match.points) >= 50, "a match ends at 50 points or at the cap"
        assert list(match.points) == [sum(g.scores[s] for g in match.games) for s in range(2)]
    board = {row.name: row for row in result.outcome.board}
    assert sum(row.games for row in board.values()) == 2 * sum(len(m.games) for m in finished)
    assert sum(row.points for row in board.values()) == sum(sum(m.points) for m in finished)
