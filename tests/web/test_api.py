"""The app's answers, page and JSON alike, through Starlette's test client: every bad input
is a clean 4xx, the JSON has what the pages show, and replays come only from the store."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from spite_cli.main import main
from spite_web.app import create_app
from tournaments.queries import Queries

from .conftest import League, debug_string


@pytest.fixture(scope="module")
def client(league: League) -> TestClient:
    return TestClient(create_app(league.db), raise_server_exceptions=True)


@pytest.mark.parametrize("url", ["/", "/tournaments/1", "/tournaments/1/bots/greedy", "/games",
                                 "/games?bot=greedy&result=lost&ending=stalemate&rules=standard&tournament=1",
                                 "/latest", "/api/tournaments", "/api/tournaments/1", "/api/tournaments/1/leaderboard",
                                 "/api/tournaments/1/ratings", "/api/tournaments/1/bots/naive", "/api/games?bot=random",
                                 "/static/site.css", "/static/viewer.js"])
def test_pages_answer(client: TestClient, url: str) -> None:
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("url, status, words", [
    ("/tournaments/7", 404, "tournament 7"),
    ("/tournaments/x", 404, "Not Found"),
    ("/tournaments/1/bots/nobody", 404, "no bot 'nobody'"),
    ("/api/tournaments/1/bots/nobody", 404, "no bot 'nobody'"),
    ("/games?result=won", 400, "result needs bot"),
    ("/api/games?ending=checkmate", 400, "ending must be one of"),
    ("/api/games?limit=-5", 400, "limit must be 1..1000"),
    ("/api/games?tournament=abc", 400, "tournament must be a whole number"),
    ("/api/games?tournament=99", 404, "tournament 99"),
    ("/api/games?path=/etc/passwd", 400, "unknown filter 'path'"),
    ("/replays/999/0", 404, "no game 0 of match 999"),
    ("/api/replays/1/99", 404, "no game 99 of match 1"),
    ("/api/replays/1/0?as_seat=2", 400, "as_seat must be 0..1"),
    ("/api/replays/1/0?as_seat=-1", 400, "as_seat must be a seat number"),
    ("/api/replays/1/0?as_seat=..%2F..", 400, "as_seat must be a seat number"),
    ("/replays/..%2F..%2Fetc%2Fpasswd/0", 404, "Not Found"),
    ("/static/..%2F..%2Ftournaments%2Fstore.py", 404, "Not Found"),
    ("/tournaments/1/bots/greedy/logs/1/9", 404, "no log"),
    ("/api/nothing", 404, "Not Found"),
])
def test_bad_input_is_a_clean_4xx(client: TestClient, url: str, status: int, words: str) -> None:
    answer = client.get(url)
    assert answer.status_code == status, answer.text[:300]
    assert words in html.unescape(answer.text)
    assert "Traceback" not in answer.text
    if url.startswith("/api/"):
        assert answer.json()["status"] == status


def test_a_missing_replay_file_is_404_and_a_corrupt_one_too(league: League, client: TestClient) -> None:
    with Queries.open(league.db) as q:
        games = [g for g in q.games().games if (g.match_id, g.game_number) != league.debug_replay]
        gone, broken = (q.replay(g.match_id, g.game_number) for g in games[:2])
    saved = gone.path.read_bytes()
    gone.path.unlink()
    broken_bytes = broken.path.read_bytes()
    broken.path.write_bytes(broken_bytes[: len(broken_bytes) // 2])
    try:
        answer = client.get(f"/api/replays/{gone.match_id}/{gone.game_number}")
        assert answer.status_code == 404 and "is gone" in answer.json()["error"]
        answer = client.get(f"/replays/{broken.match_id}/{broken.game_number}")
        assert answer.status_code == 404 and "not readable" in answer.text
        assert str(broken.path.parent) not in answer.text  # no server paths in answers
    finally:
        gone.path.write_bytes(saved)
        broken.path.write_bytes(broken_bytes)


def test_the_leaderboard_json_is_the_clis(league: League, client: TestClient) -> None:
    data = client.get("/api/tournaments/1/leaderboard").json()
    with Queries.open(league.db) as q:
        board = q.leaderboard(1)
    assert data["leaderboard"] == board.board() and data["title"] == board.meta["title"]
    page = client.get("/tournaments/1").text
    for row in board.rows:
        assert f">{row.name}</a>" in page and f"{row.conservative:.2f}" in page


def test_the_bot_json_has_what_its_page_shows(client: TestClient) -> None:
    data = client.get("/api/tournaments/1/bots/greedy").json()
    assert data["name"] == "greedy" and len(data["ratings"]) == 4 and len(data["recent_games"]) == 4
    assert {o["name"] for o in data["opponents"]} == {"random", "naive"}
    log = client.get(data["logs"][0]["url"])
    assert log.status_code == 200 and log.headers["content-type"].startswith("text/plain")
    page = client.get("/tournaments/1/bots/greedy").text
    assert 'class="chart rating-chart"' in page and 'data-points="4"' in page


def test_as_seat_answers_hold_only_that_seats_hand_and_debug_strings(league: League, client: TestClient) -> None:
    match_id, game = league.debug_replay
    full = client.get(f"/api/replays/{match_id}/{game}").json()
    assert all(all(h is not None for h in f["hands"]) for f in full["frames"])
    assert all(m["debug"] == debug_string(m["seat"], i) for i, m in enumerate(full["moves"]))
    for seat in (0, 1):
        answer = client.get(f"/api/replays/{match_id}/{game}?as_seat={seat}")
        data = answer.json()
        assert data["view"] == seat
        other = 1 - seat
        assert all(f["hands"][other] is None and f["hands"][seat] is not None for f in data["frames"])
        assert f"dbg-seat{other}-" not in answer.text
        assert all(("debug" in m) == (m["seat"] == seat) for m in data["moves"])
        page = client.get(f"/replays/{match_id}/{game}?as_seat={seat}").text
        assert f"dbg-seat{other}-" not in page and f"dbg-seat{seat}-" in page


def test_the_web_never_writes(league: League, client: TestClient) -> None:
    before = league.db.read_bytes()
    for url in ("/", "/tournaments/1", "/tournaments/1/bots/naive", "/games", "/api/games"):
        client.get(url)
    assert client.post("/api/games").status_code == 405
    assert league.db.read_bytes() == before


def test_the_replay_page_embeds_its_data_safely(league: League, client: TestClient) -> None:
    match_id, game = league.debug_replay
    page = client.get(f"/replays/{match_id}/{game}").text
    start = page.index('id="replay-data">') + len('id="replay-data">')
    data = json.loads(page[start:page.index("</script>", start)])
    assert data["match_id"] is not None and len(data["frames"]) == len(data["moves"]) + 1


def test_spite_web_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["web", "--db", str(tmp_path / "none.db")]) == 2
    assert "no results store" in capsys.readouterr().err
    assert main(["web", "--listen", "nonsense"]) == 2
    assert "--listen wants host:port" in capsys.readouterr().err
    assert main(["web", "--referee", "127.0.0.1:1"]) == 2
    assert "--admin-token-file" in capsys.readouterr().err
    assert main(["web", "--referee", "127.0.0.1:1", "--admin-token-file", str(tmp_path / "missing")]) == 2
    assert "cannot read the admin token" in capsys.readouterr().err


def test_spite_replay_html_refuses_a_bad_seat_and_a_bad_file(league: League, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    replay = next(league.replays.iterdir())
    assert main(["replay", str(replay), "--html", str(tmp_path / "x.html"), "--as-seat", "5"]) == 2
    assert "--as-seat must be 0..1" in capsys.readouterr().err and not (tmp_path / "x.html").exists()
    (tmp_path / "junk.jsonl.gz").write_bytes(b"junk")
    assert main(["replay", str(tmp_path / "junk.jsonl.gz"), "--html", str(tmp_path / "y.html")]) == 2
    assert "not a readable replay" in capsys.readouterr().err


def test_spite_replay_as_seat_prints_only_that_seats_debug_strings(league: League,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The rule the viewer shares with the terminal replay: as seat K, only K's debug strings."""
    with Queries.open(league.db) as q:
        path = q.replay(*league.debug_replay).path
    assert main(["replay", str(path), "--as-seat", "1"]) == 0
    out = capsys.readouterr().out
    assert "dbg-seat1-" in out and "dbg-seat0-" not in out


def test_input_echoed_in_a_page_is_escaped(client: TestClient) -> None:
    answer = client.get("/tournaments/1/bots/%3Cscript%3Ealert(1)")
    assert answer.status_code == 404 and "<script>alert" not in answer.text and "&lt;script&gt;alert" in answer.text
    answer = client.get("/games?bot=%3Cimg%20src%3Dx%3E")
    assert answer.status_code == 200 and "<img src=x>" not in answer.text


def test_the_spite_web_command_serves_the_store(league: League) -> None:
    """The README's `spite web --db ... --listen ...`, as a real process."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "spite_cli.main", "web", "--db", str(league.db),
                                "--listen", f"127.0.0.1:{port}"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tournaments/1/leaderboard",
                                            timeout=5) as answer:
                    data = json.loads(answer.read())
                break
            except OSError:
                output = process.stdout.read() if process.stdout and process.poll() is not None else ""
                assert process.poll() is None and time.monotonic() < deadline, output
                time.sleep(0.2)
        assert {row["name"] for row in data["leaderboard"]} == {"greedy", "random", "naive"}
    finally:
        process.terminate()
        process.wait(10)
