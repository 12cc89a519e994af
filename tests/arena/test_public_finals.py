"""The finals on the ladder's public site: nothing of them while they are played; once
they are finished (their committed seed can then be revealed) their leaderboard, games and
replays are public, on the same pages as the ladder's games, with no debug string."""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

from starlette.testclient import TestClient

from spite_arena.config import load_competition
from spite_arena.store import ArenaStore
from spite_arena.web import create_app
from tests.tournaments.conftest import run, write_tournament
from tests.web.conftest import add_debug_strings

from .test_public_pages import Host


def test_the_finals_are_public_once_finished_and_never_show_a_debug_string(tmp_path: Path) -> None:
    file = tmp_path / "c.toml"
    file.write_text('name = "finals-public"\n')
    data = tmp_path / "data"
    host = Host(load_competition(file), data, ArenaStore(data))
    client = TestClient(create_app(host))
    assert "not over yet" in client.get("/finals").text
    assert client.get("/api/finals").status_code == 404

    played = run(write_tournament(tmp_path, "finals", bots=["greedy", "naive"], rounds=1,
                                  replay_dir=str(tmp_path / "r")),
                 data / "finals.db")
    assert played.outcome.done > 0, played.output
    with sqlite3.connect(data / "finals.db") as db:
        replays = [Path(r) for (r,) in db.execute("SELECT replay FROM games WHERE replay IS NOT NULL")]
        for replay in replays:
            add_debug_strings(replay)
        assert "dbg-seat" in gzip.open(replays[0], "rt").read()
        db.execute("UPDATE tournaments SET status = 'running'")
    assert "not over yet" in client.get("/finals").text  # in play: nothing of them
    assert client.get("/api/finals").status_code == 404
    with sqlite3.connect(data / "finals.db") as db:
        db.execute("UPDATE tournaments SET status = 'finished'")

    page = client.get("/finals").text
    assert "greedy" in page and "naive" in page and 'id="finals"' in page
    answer = client.get("/api/finals").json()
    assert {r["name"] for r in answer["leaderboard"]} == {"greedy", "naive"}
    watch = [g["url"] for g in answer["games"] if g["url"]]
    assert watch and f'href="{watch[0]}"' in page
    shown = client.get(watch[0])
    assert shown.status_code == 200 and 'id="replay-data"' in shown.text and "dbg-seat" not in shown.text
    view = client.get("/api" + watch[0]).json()
    assert view["frames"] and all("debug" not in m for m in view["moves"])
    assert "dbg-seat" not in client.get("/api" + watch[0] + "?as_seat=0").text
    assert client.get("/finals/replays/999/0").status_code == 404
