"""The ladder's public numbers and lists, over a real arena store: W/D/L and win rate on the
board (in the league's order), a remote bot's presence, head-to-head, rating history, the
games list's filters and paging, and a one-line 400 for every filter it does not take."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from spite_arena.config import load_competition
from spite_arena.store import ArenaStore
from spite_arena.web import create_app
from tournaments.ratings import RatingParams

from .test_public_pages import Host


def _ladder(tmp_path: Path, first: str, second: str) -> tuple[Path, ArenaStore, RatingParams, int, int]:
    """A competition file and a store with two house bots: (file, store, params, first, second)."""
    file = tmp_path / "c.toml"
    file.write_text('name = "pages"\n')
    store = ArenaStore(tmp_path / "data")
    params = RatingParams()
    return (file, store, params, store.ensure_house_bot(first, "1", first, params),
            store.ensure_house_bot(second, "1", second, params))


def test_the_board_games_and_bot_pages_count_what_the_store_holds(tmp_path: Path) -> None:
    file, store, params, one, two = _ladder(tmp_path, "greedy", "naive")
    entrant = store.add_entrant("zoe")
    remote = store.remote_version(store.entrant("zoe").id, "far", "1", params)  # type: ignore[union-attr]
    assert entrant
    results = [(one, two, [0], "stock-emptied"), (two, one, [1], "stalemate"), (one, two, [], "turn-cap"),
               (one, remote, [1], "timeout"), (remote, one, [0], "crash")]
    for number, (a, b, winners, ending) in enumerate(results):
        gid = store.add_game((a, b), 100 + number, 100 + number)
        store.take_game(gid, "t")
        store.finish_game(gid, ending=ending, reason="r", winners=winners, scores=[0, 0], faults=[[], []],
                          replay=None, logs=[None, None], params=params)
    host = Host(load_competition(file), tmp_path / "data", store, joined=[{"version_id": remote}])
    client = TestClient(create_app(host), raise_server_exceptions=False)

    board = {r["id"]: r for r in client.get("/api/leaderboard").json()}
    assert (board[one]["wins"], board[one]["draws"], board[one]["losses"]) == (2, 1, 2)
    assert (board[two]["wins"], board[two]["draws"], board[two]["losses"]) == (0, 1, 2)
    assert board[one]["win_rate"] == 0.4 and board[one]["win_rate_low"] < 0.4 < board[one]["win_rate_high"]
    assert board[remote]["online"] is True and board[one]["online"] is None
    ranks = sorted(board.values(), key=lambda r: r["rank"])
    assert [r["rating"] for r in ranks] == sorted((r["rating"] for r in ranks), reverse=True)
    host.joined.clear()
    assert client.get(f"/api/bots/{remote}").json()["online"] is False
    assert "offline" in client.get(f"/bots/{remote}").text

    bot = client.get(f"/api/bots/{one}").json()
    against = {o["id"]: (o["wins"], o["draws"], o["losses"]) for o in bot["head_to_head"]}
    assert against == {two: (2, 1, 0), remote: (0, 0, 2)}
    assert len(bot["ratings"]) == 5
    assert '<svg class="chart' in client.get(f"/bots/{one}").text

    lost = client.get(f"/api/games?bot={one}&result=lost").json()
    assert lost["total"] == 2 and {g["ending"] for g in lost["games"]} == {"timeout", "crash"}
    crashed = client.get(f"/api/games?bot={one}&result=lost&ending=crash").json()
    assert crashed["total"] == 1
    first = client.get("/api/games?limit=2").json()
    second = client.get("/api/games?limit=2&offset=2").json()
    assert first["total"] == 5 and not {g["id"] for g in first["games"]} & {g["id"] for g in second["games"]}
    assert "older ▸" in client.get("/games?limit=2").text
    for query, words in [("bot=abc", "version id"), ("result=lost", "result needs bot"),
                         ("color=red", "unknown filter"),
                         ("ending=sideways", "ending must be"), ("limit=0", "limit"), ("tournament=1", "filter by"),
                         ("offset=-1", "offset")]:
        answer = client.get(f"/api/games?{query}")
        assert answer.status_code == 400 and words in answer.json()["error"], (query, answer.text)
        assert "\n" not in answer.json()["error"]


def test_a_game_in_play_names_no_bot_until_it_ends(tmp_path: Path) -> None:
    """The ladder tells no bot its opponents (``hide_names``), so no public page or answer says
    who plays a game in play (its owner could pass it on to the bot): its seats are ``seat 0``
    and ``seat 1`` on the board's "In play", the game's page and its API, as in its live view;
    once it ends, the same pages name both."""
    file, store, params, one, two = _ladder(tmp_path, "greedyzebra", "naiveyak")
    gid = store.add_game((one, two), 7, 7)
    store.take_game(gid, "t")
    client = TestClient(create_app(Host(load_competition(file), tmp_path / "data", store)),
                        raise_server_exceptions=False)
    board = client.get("/")
    in_play = board.text.split('id="playing"', 1)[1].split("</ul>", 1)[0]  # the board itself names every bot
    answers = [client.get(path) for path in ("/games", f"/games/{gid}", f"/api/games/{gid}", "/api/games")]
    assert all(a.status_code == 200 for a in [board, *answers])
    for where, text in [("/ (in play)", in_play), *((str(a.url), a.text) for a in answers)]:
        assert "greedyzebra" not in text and "naiveyak" not in text, where
    assert "seat 0" in in_play and f'href="/games/{gid}/live"' in in_play
    assert client.get(f"/api/games/{gid}").json()["bots"] == ["seat 0", "seat 1"]
    store.finish_game(gid, ending="stock-emptied", reason="r", winners=[0], scores=[0, 0], faults=[[], []],
                      replay=None, logs=[None, None], params=params)
    named = client.get(f"/api/games/{gid}").json()["bots"]
    assert "greedyzebra" in named[0] and "naiveyak" in named[1]
