"""Live spectating of ladder games on a real ``spite serve``: a game refereed in a worker
process and a remote bot's game on the lobby's referee, each watched to its end from its
feed (``DATA/live``), and the same in headless Chromium from the ladder's page.

The house bot ``slowpoke`` takes its time (so a game stays in play long enough to be
watched) and writes its hand into every debug string and into its log: none of it, and no
bot's name, may reach a spectator. What a spectator was shown is checked against the
game's replay once it is over: every table shown is the public part of the replay's.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from referee.core import replay as replay_file
from spite_arena.store import ArenaStore
from spite_web.live import STREAMS_PER_ADDRESS
from spite_web.replay_view import viewer_data
from tests.web.conftest import browser, page, screenshot  # noqa: F401 (the browser tests' fixtures)

from .conftest import Arena, running_arena

pytestmark = pytest.mark.slow

SLOWPOKE = Path(__file__).parent / "bots" / "slowpoke"
WAIT_S = 300
"""A cap on each wait for a condition (a game in play, a game's end), not a speed check:
the suite beside 8 busy processes makes them slow."""


def competition(house: list[str]) -> str:
    return (f'name = "live-ladder"\nrules = "standard"\nhouse_bots = {json.dumps(house)}\nparallel = 1\n'
            "[time_control]\ndecision_ms = 2000\nbank_ms = 20000\nconnect_ms = 15000\n"
            "[limits]\nrequests_per_minute = 10000\n")


def in_play(arena: Arena) -> list[int]:
    status, answer = arena.get("/api/live")
    assert status == 200, answer
    return [g["id"] for g in answer["games"]]


def watch(arena: Arena, game: int) -> list[dict[str, Any]] | None:
    """Every message of game ``game``'s live stream, to its end; None if it is not in play."""
    try:
        answer = urllib.request.urlopen(f"{arena.url}/api/games/{game}/live", timeout=WAIT_S)
    except urllib.error.HTTPError as error:
        assert error.code == 404, error.read()
        return None
    messages = []
    with answer:
        assert answer.headers["content-type"].startswith("text/event-stream")
        for raw in answer:
            line = raw.decode()
            if line.startswith("data: "):
                messages.append(json.loads(line[6:]))
                if messages[-1]["type"] in ("match_over", "error"):
                    break
    return messages


def watch_one(arena: Arena) -> tuple[int, list[dict[str, Any]]]:
    """Wait for a game in play and watch it to its end; another one if it ended before the
    stream opened, or was cut off (a referee that a loaded machine made late voids its game:
    its stream ends with an ``error``, and the game is played again)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for game in in_play(arena):
            try:  # the organizer's alone (a bot's sandbox hides the folder besides)
                assert (arena.data / "live").stat().st_mode & 0o777 == 0o700
                assert (arena.data / "live" / f"{game}.feed").stat().st_mode & 0o777 == 0o600
            except FileNotFoundError:
                continue  # it ended meanwhile
            messages = watch(arena, game)
            if messages is not None and messages[-1]["type"] == "match_over":
                return game, messages
            if messages is not None:
                assert messages[-1]["type"] == "error" and "cut off" in messages[-1]["error"], messages[-1]
        time.sleep(0.1)
    pytest.fail("no game was watched to its end")


def finished(arena: Arena, game: int) -> Any:
    def done() -> Any:
        with ArenaStore(arena.data, readonly=True) as store:
            found = store.game(game)
        return found if found is not None and found.status == "done" else None
    return arena.wait_for(f"game {game} to be recorded", done, timeout=WAIT_S)


def check_public(arena: Arena, game: int, messages: list[dict[str, Any]]) -> None:
    """The stream shows the game start to end, anonymous, and only the public part of what
    its replay holds: the same moves, each table the replay's with every hand hidden."""
    kinds = [m["type"] for m in messages]
    assert kinds[0] == "match" and kinds[1] == "game_start" and kinds[-1] == "match_over", kinds[:3] + kinds[-3:]
    assert messages[0]["seats"] == ["seat 0", "seat 1"]
    text = json.dumps(messages)
    for secret in ("slowpoke", "greedy", "random", "house/"):
        assert secret not in text
    assert all(h is None for m in messages if "frame" in m for h in m["frame"]["hands"])
    record = finished(arena, game)
    assert not (arena.data / "live" / f"{game}.feed").exists()
    assert record.replay
    whole = viewer_data(replay_file.load(record.replay))
    public = [json.dumps(f | {"hands": [None, None]}) for f in whole["frames"]]
    assert [m["move"]["move"] for m in messages if m["type"] == "step"] == [m["move"] for m in whole["moves"]]
    shown = [json.dumps(m["frame"]) for m in messages if m["type"] in ("game_start", "frame")]
    assert shown[0] == public[0] and shown[-1] == public[-1]
    rest = iter(public)
    assert all(any(s == p for p in rest) for s in shown), "a table shown that the replay does not have, in order"
    over = next(m for m in messages if m["type"] == "game_over")
    assert over["outcome"]["ending"] == record.ending and over["outcome"]["winners"] == list(record.winners)


def open_stream(arena: Arena, game: int) -> Any:
    """An open live stream with its first message read; an HTTPError if refused."""
    answer = urllib.request.urlopen(f"{arena.url}/api/games/{game}/live", timeout=WAIT_S)
    assert answer.readline().startswith(b"data: ")
    return answer


def test_live_streams_are_limited_per_address_and_freed_when_the_browser_leaves(tmp_path: Path) -> None:
    with running_arena(tmp_path, competition(["greedy", str(SLOWPOKE)])) as arena:
        game = arena.wait_for("a game in play", lambda: in_play(arena), timeout=WAIT_S)[0]
        streams = [open_stream(arena, game) for _ in range(STREAMS_PER_ADDRESS)]
        with pytest.raises(urllib.error.HTTPError) as refused:
            open_stream(arena, game)
        assert refused.value.code == 429 and b"close one" in refused.value.read()
        for stream in streams:
            stream.close()

        def admitted() -> bool:  # the server frees a stream once it sees the connection closed
            try:
                open_stream(arena, game).close()
                return True
            except urllib.error.HTTPError as error:
                assert error.code in (404, 429)
                return error.code == 404  # the game ended meanwhile: its slot was freed as well
        arena.wait_for("a live stream after the others were closed", admitted, timeout=WAIT_S)


def test_a_game_in_a_worker_process_is_watched_live_to_its_end(tmp_path: Path) -> None:
    with running_arena(tmp_path, competition(["greedy", str(SLOWPOKE)])) as arena:
        game, messages = watch_one(arena)
        check_public(arena, game, messages)
        with ArenaStore(arena.data, readonly=True) as store:
            assert all(store.version(v).kind != "remote" for v in store.game(game).versions)  # type: ignore[union-attr]


def test_a_remote_bots_game_on_the_lobbys_referee_is_watched_live_to_its_end(tmp_path: Path) -> None:
    with running_arena(tmp_path, competition([str(SLOWPOKE)])) as arena:
        arena.remote_bot("random", arena.add_entrant("rita"))
        game, messages = watch_one(arena)
        check_public(arena, game, messages)
        with ArenaStore(arena.data, readonly=True) as store:
            kinds = {store.version(v).kind for v in store.game(game).versions}  # type: ignore[union-attr]
        assert "remote" in kinds


def test_a_spectator_watches_a_live_ladder_game_to_its_end_in_the_browser(tmp_path: Path, page: Any) -> None:  # noqa: F811
    with running_arena(tmp_path, competition(["greedy", str(SLOWPOKE)])) as arena:
        page.goto(arena.url + "/")
        page.click("#in-play-link")
        page.wait_for_url("**/live")
        status = "document.getElementById('v-live').textContent"
        for _ in range(5):  # a game cut off (a void game on a loaded machine) ends its stream: the next one
            page.wait_for_selector("#in-play a")
            page.click("#in-play a")
            page.wait_for_url("**/games/*/live")
            game = int(page.url.rsplit("/", 2)[-2])
            page.wait_for_function(f"{status}.includes('live')")
            page.wait_for_function("Number(document.getElementById('viewer').dataset.moves || 0) >= 5")
            assert page.locator("#v-table section.seat").count() == 2
            assert page.locator("#v-table .hand .card:not(.back)").count() == 0
            assert page.locator("#v-table .hand[data-cards]").count() == 0
            screenshot(page, "arena-live")
            page.wait_for_function(f"{status}.includes('match over') || {status}.includes('stream ended')")
            if "match over" in page.evaluate(status):
                break
            page.goto(arena.url + "/live")
        else:
            pytest.fail("every game watched was cut off")
        content = page.content()
        for secret in ("slowpoke-debug", "slowpoke-log", "slowpoke", "greedy"):
            assert secret not in content
        assert page.locator("#v-outcome .reason").inner_text()
        moves = int(page.evaluate("document.getElementById('viewer').dataset.moves"))
        record = finished(arena, game)
        assert moves == len(viewer_data(replay_file.load(record.replay))["moves"])
