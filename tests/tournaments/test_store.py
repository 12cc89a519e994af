"""The results store on a real SQLite file: WAL, the journal, one transaction per match, recovery."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
from pathlib import Path

import pytest

from referee.core.reports import SeatFault
from referee.core.status import FaultKind
from spite_engine import Ending, parse_rules
from tournaments.jobs import JobResult
from tournaments.schedule import Entrant, Scheduler
from tournaments.store import Store, StoreError

ENTRANTS = [Entrant("a", ("a",)), Entrant("b", ("b",)), Entrant("c", ("c",))]


def new_store(tmp_path: Path) -> tuple[Store, int]:
    store = Store(tmp_path / "spite.db")
    tid = store.create_tournament("t", "t.toml", {"rating": {}}, 2**64 - 1,
                                  [(e.name, "1", "f" * 64, e.name) for e in ENTRANTS], ENTRANTS)
    matches = Scheduler(ENTRANTS, parse_rules("standard"), 2**64 - 1, random.Random(1)).rounds(1)
    store.journal(tid, matches, max_games=1)
    return store, tid


def result(points: list[int], ending: str = "stock-emptied") -> JobResult:
    winners = [s for s, p in enumerate(points) if p == max(points) and max(points) > 0]
    seats = [{"seat": s, "name": f"bot{s}", "version": "1", "status": "done", "timeouts": s, "illegal_moves": 0,
              "malformed": 0, "crashes": 0, "decisions": 10, "decision_us_p50": 900, "decision_us_p99": 2000,
              "faults": [{"kind": "timeout", "reason": "game 0 decision 3: no answer"}] if s else []}
             for s in range(2)]
    games = [{"game_number": 0, "seed": 2**64 - 2, "first_seat": 1, "moves": 40, "turns": 12, "replay": None,
              "outcome": {"ending": ending, "winners": winners, "scores": points, "reason": "why", "offender": None}}]
    return JobResult.from_dict({"ok": True, "summary": {"points": points, "seats": seats, "games": games},
                                "elapsed_s": 0.5, "worker": "test", "histograms": [{"80": 10}, {"81": 10}]})


def test_the_file_is_wal_with_the_schema(tmp_path: Path) -> None:
    store, tid = new_store(tmp_path)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"tournaments", "bots", "entrants", "matches", "games", "seat_results", "ratings"} <= tables
    assert store.tournament(tid).master_seed == 2**64 - 1
    assert store.tournament("t").id == tid and store.tournament() .id == tid
    assert [b["name"] for b in store.bots(tid)] == ["a", "b", "c"]
    assert store.entrants(tid) == ENTRANTS


def test_the_journal_holds_the_whole_schedule_pending(tmp_path: Path) -> None:
    store, tid = new_store(tmp_path)
    matches = store.matches(tid)
    assert [m.ordinal for m in matches] == list(range(6))
    assert {m.status for m in matches} == {"pending"}
    assert all(m.seed >= 0 for m in matches)


def test_a_match_is_recorded_with_its_results_in_one_transaction_and_only_once(tmp_path: Path) -> None:
    store, tid = new_store(tmp_path)
    match = store.matches(tid)[0]
    store.mark_running(match.id, "w")
    store.record(match, result([1, 0]), [(0, "a", 26.0, 7.0)])
    done = store.finished(tid)
    assert len(done) == 1 and done[0].points == (1, 0) and done[0].games[0].seed == 2**64 - 2
    assert done[0].games[0].ending is Ending.STOCK_EMPTIED  # typed, as the referee reported it
    assert done[0].seats[1].decision_histogram == {81: 10}
    with pytest.raises(StoreError, match="already finished"):
        store.record(match, result([1, 0]))
    assert store.db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
    assert list(store.rating_history(tid)) == [(0, "a", 26.0, 7.0)]


def test_each_fault_is_kept_with_its_kind(tmp_path: Path) -> None:
    store, tid = new_store(tmp_path)
    store.record(store.matches(tid)[0], result([1, 0]))
    store.close()
    with Store(tmp_path / "spite.db", readonly=True) as reader:
        [done] = reader.finished(tid)
        assert [s.faults for s in done.seats] == [(), (SeatFault(FaultKind.TIMEOUT, "game 0 decision 3: no answer"),)]


def test_a_store_from_before_fault_kinds_is_upgraded_keeping_every_reason(tmp_path: Path) -> None:
    """A schema 2 store held each fault as its words alone: opened by this spite, each is kept,
    of unknown kind, and the store says schema 3 (an older spite then refuses it, never
    misreads it)."""
    store, tid = new_store(tmp_path)
    store.record(store.matches(tid)[0], result([1, 0]))
    with store.transaction():
        store.db.execute("UPDATE seat_results SET faults = ? WHERE seat = 1", (json.dumps(["game 0: it was late"]),))
        store.db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    store.close()
    with pytest.raises(StoreError, match="schema 2"):  # a reader does not write: it asks for the upgrade
        Store(tmp_path / "spite.db", readonly=True)
    Store(tmp_path / "spite.db").close()  # the writer upgrades
    with Store(tmp_path / "spite.db", readonly=True) as reader:
        [done] = reader.finished(tid)
        assert done.seats[1].faults == (SeatFault(FaultKind.UNKNOWN, "game 0: it was late"),)
        assert reader.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "3"


def test_a_failed_write_leaves_the_match_unfinished(tmp_path: Path) -> None:
    store, tid = new_store(tmp_path)
    match = store.matches(tid)[0]
    store.mark_running(match.id, "w")
    good = result([1, 0])
    assert good.summary is not None
    # a seat the match does not have: fails half-way through the inserts (after the games)
    seats = (good.summary.seats[0], dataclasses.replace(good.summary.seats[1], seat=5))
    broken = dataclasses.replace(good, summary=dataclasses.replace(good.summary, seats=seats))
    with pytest.raises(IndexError):
        store.record(match, broken)
    assert store.matches(tid)[0].status == "running"
    assert store.db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    store.record(match, result([1, 0]))
    assert store.matches(tid)[0].status == "done"


def test_recover_after_a_crash(tmp_path: Path) -> None:
    store, tid = new_store(tmp_path)
    first, second, third = store.matches(tid)[:3]
    for m in (first, second, third):
        store.mark_running(m.id, "w")
    store.record(first, result([0, 1]), [(0, "a", 1.0, 1.0)])
    store.mark_void(second, "the worker died", [(1, "a", 2.0, 1.0)])
    store.close()
    reopened = Store(tmp_path / "spite.db")  # after kill -9: third was left running
    assert reopened.recover(tid) == 2
    statuses = [m.status for m in reopened.matches(tid)]
    assert statuses == ["done"] + ["pending"] * 5
    assert list(reopened.rating_history(tid)) == [(0, "a", 1.0, 1.0)], "ratings after the first reset one go"
    assert reopened.recover(tid) == 0


def test_readers_see_the_store_while_the_writer_has_it_open(tmp_path: Path) -> None:
    store, tid = new_store(tmp_path)
    reader = Store(tmp_path / "spite.db", readonly=True)
    match = store.matches(tid)[0]
    store.mark_running(match.id, "w")
    store.record(match, result([0, 0], "stalemate"))
    assert reader.counts(tid)["done"] == 1
    assert reader.finished(tid)[0].games[0].by_rules
    with pytest.raises(StoreError, match="readonly"):  # SQLite's errors reach callers as StoreError now
        reader.db.execute("DELETE FROM matches")


def test_missing_or_foreign_files(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no results store"):
        Store(tmp_path / "none.db", readonly=True)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE x (y)").connection.commit()
    with pytest.raises(StoreError):
        Store(other, readonly=True)


def test_seeds_round_trip_as_text(tmp_path: Path) -> None:
    store, tid = new_store(tmp_path)
    raw = store.db.execute("SELECT seed FROM matches LIMIT 1").fetchone()[0]
    assert isinstance(raw, str) and int(raw) == store.matches(tid)[0].seed
    assert json.loads(store.db.execute("SELECT config FROM tournaments").fetchone()[0]) == {"rating": {}}
