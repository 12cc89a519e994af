"""Live spectating: the table kept from the spectator stream is the engine's public view.

The spectator stream carries ``observe_public`` at a game's start and then
``visible_events(state, None)``; :class:`spite_web.live.PublicTable` must rebuild the public
table from exactly that -- through the wire form, as the referee sends it -- after every
move of random games of every rule set. It has no field for a hand, and a DRAW's or
SHUFFLE's cards are dropped on the way in, so it cannot show what spectators may not see.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterator

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.exceptions import HTTPException
from starlette.testclient import TestClient

from referee.core.deadlines import TimeControl
from referee.core.feed import LiveFeed
from referee.core.match import MatchConfig, Policy
from referee.transports.server import RunningReferee, start_referee
from spite.v1 import referee_pb2 as rpb
from spite.v1 import referee_pb2_grpc
from spite_engine import GameState, observe_public, parse_rules, visible_events
from spite_web.app import create_app
from spite_web.live import (
    STREAMS_PER_ADDRESS,
    FeedError,
    LadderLive,
    PublicTable,
    follow_feed,
    ladder_routes,
    public_frames,
    start_from_pb,
)
from spite_web.replay_view import frame
from spite_wire import (
    event_from_proto,
    event_to_proto,
    events_to_proto,
    observation_to_proto,
    outcome_to_proto,
    rules_from_proto,
    rules_to_proto,
)
from tests.rules.support import MAX_SEED, POLICIES, SPECS

from ..load import calibrated_ms
from .conftest import League, screenshot, serve

ADMIN = "web-test-admin"


@settings(max_examples=60, deadline=None)
@given(spec=st.sampled_from(SPECS), seed=st.integers(0, MAX_SEED), moves=st.integers(0, 400),
       policy=st.sampled_from(sorted(POLICIES)))
def test_the_spectators_table_is_the_engines_public_view(spec: str, seed: int, moves: int, policy: str) -> None:
    rules = parse_rules(spec)
    state = GameState.new(rules, seed)
    assert rules_from_proto(rules_to_proto(rules)) == rules
    table = PublicTable(rules, start_from_pb(observation_to_proto(observe_public(state))))
    cursor = len(state.log)
    rng = random.Random(seed)
    choose = POLICIES[policy]
    for _ in range(moves):
        if state.outcome is not None:
            break
        state.apply(choose(state, rng))
        for event in visible_events(state, None, cursor):
            table.apply(event_from_proto(event_to_proto(event)))
        cursor = len(state.log)
        public = frame(state, 0) | {"hands": [None] * rules.players}
        assert json.dumps(table.frame()) == json.dumps(public)


def _match_stream(rules: Any, state: GameState, choose: Any, rng: random.Random, moves: int) -> Iterator[Any]:
    """What a match sends its spectators for one game (``referee.core.match``): the public start,
    each move's public events, the outcome, the match's end."""
    yield rpb.SpectatorMessage(game_start=rpb.GameStart(game_number=0, first_seat=state.first_seat,
                                                        observation=observation_to_proto(observe_public(state))))
    cursor = len(state.log)
    for _ in range(moves):
        if state.outcome is not None:
            break
        state.apply(choose(state, rng))
        yield rpb.SpectatorMessage(events=rpb.EventBatch(game_number=0, events=events_to_proto(
            visible_events(state, None, cursor))))
        cursor = len(state.log)
    if state.outcome is not None:
        yield rpb.SpectatorMessage(game_over=rpb.GameOver(game_number=0, outcome=outcome_to_proto(state.outcome)))
        yield rpb.SpectatorMessage(match_over=rpb.MatchOver(points=list(state.outcome.scores), reason="over"))


@settings(max_examples=40, deadline=None)
@given(spec=st.sampled_from(SPECS), seed=st.integers(0, MAX_SEED), moves=st.integers(0, 400),
       policy=st.sampled_from(sorted(POLICIES)))
def test_a_feed_file_gives_the_viewer_the_engines_public_view(spec: str, seed: int, moves: int, policy: str) -> None:
    """A ladder game's feed (referee.core.feed, written as the match publishes) read back by
    follow_feed and public_frames: after every move the frame is the engine's public view,
    the seats are anonymous, and the file is gone at the end."""
    rules = parse_rules(spec)
    state, rng = GameState.new(rules, seed), random.Random(seed)
    publics = []

    async def run(path: Path) -> list[dict[str, Any]]:
        writer = LiveFeed(path, rules)
        read_rules, messages = await follow_feed(path)
        assert read_rules == rules
        for message in _match_stream(rules, state, POLICIES[policy], rng, moves):
            writer.put_nowait(message)
            publics.append(frame(state, 0) | {"hands": [None] * rules.players})
        writer.put_nowait(None)
        assert not path.exists()
        return [m async for m in public_frames(rules, ["seat 0"] * rules.players, "1", messages)]

    with tempfile.TemporaryDirectory() as directory:
        shown = asyncio.run(run(Path(directory) / "live" / "1.feed"))
    frames = [m["frame"] for m in shown if m["type"] in ("game_start", "frame")]
    # one frame at the start and one per move's batch; the last messages repeat the end
    assert [json.dumps(f) for f in frames] == [json.dumps(p) for p in publics[:len(frames)]]
    assert len(frames) == len(publics) - (2 if state.outcome is not None else 0)
    assert shown[-1]["type"] == ("match_over" if state.outcome is not None else "error")
    assert all(h is None for m in shown if "frame" in m for h in m["frame"]["hands"])


def test_a_feed_follower_stops_when_its_file_is_replaced_or_garbled(tmp_path: Path) -> None:
    """A worker killed mid-game leaves its feed; the retry replaces it: a spectator of the
    old one is told the stream was cut off, not left waiting. A file that is not a feed is
    refused in one line."""
    rules = parse_rules("standard")
    path = tmp_path / "7.feed"

    async def run() -> list[dict[str, Any]]:
        LiveFeed(path, rules)  # never ended: its writer was killed
        _, messages = await follow_feed(path)
        LiveFeed(path, rules)  # the retry's feed
        return [m async for m in public_frames(rules, ["seat 0", "seat 1"], "7", messages)]

    shown = asyncio.run(run())
    assert [m["type"] for m in shown] == ["match", "error"]
    path.write_text("not a feed\n")
    with pytest.raises(FeedError, match="no readable header"):
        asyncio.run(follow_feed(path))
    with pytest.raises(FileNotFoundError):
        asyncio.run(follow_feed(tmp_path / "8.feed"))


def test_the_ladders_live_routes_answer_bad_requests_cleanly(tmp_path: Path) -> None:
    from starlette.applications import Starlette

    from spite_web import site

    templates = site.templates()

    def page(name: str, request: Any, **context: Any) -> Any:
        return templates.TemplateResponse(request, name, {"brand": "test ladder", **context})

    with TestClient(Starlette(routes=[*ladder_routes(tmp_path, page), site.static_files()])) as client:
        assert client.get("/api/live").json() == {"games": []}
        missing = client.get("/api/games/12/live")
        assert missing.status_code == 404 and "game 12 is not in play" in missing.text
        assert client.get("/games/12/live").status_code == 404
        assert client.get("/api/games/1%3B/live").status_code == 404
        assert client.get("/api/games/1234567890123456789/live").status_code == 404
        (tmp_path / "12.feed").write_text("garbage\n")
        assert client.get("/api/games/12/live").status_code == 404
        assert "game 12" in client.get("/live").text
    live = LadderLive(tmp_path)
    releases = [live.take("10.0.0.1") for _ in range(STREAMS_PER_ADDRESS)]
    with pytest.raises(HTTPException) as refused:
        live.take("10.0.0.1")
    assert refused.value.status_code == 429
    live.take("10.0.0.2")  # another address still may
    for release in releases:
        release()
    live.take("10.0.0.1")
    assert live.open == {"10.0.0.1": 1, "10.0.0.2": 1}


# -- a real referee, real spectating through spite web --------------------------------------

WAIT_MS = 180_000
"""How long a wait for the page or the match may take: not a speed check, only so a page that
never gets there fails the test (the suite beside 8 busy processes makes them slow)."""


class Referee:
    """A referee on port 0 with its own event loop in a thread, and raw bots to play on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.running: RunningReferee = self.call(start_referee("127.0.0.1:0", admin_token=ADMIN))

    def call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(30)

    def new_match(self) -> Any:
        async def create() -> Any:
            return self.running.arena.create(MatchConfig(parse_rules("standard"), ["alpha", "beta"],
                                                         TimeControl(calibrated_ms(1000), calibrated_ms(1000),
                                                                     calibrated_ms(20000)), 1, 5, Policy.FORFEIT))
        return self.call(create())

    def play(self, match: Any, pause_s: float = 0.0) -> Any:
        """Two raw bots play ``match`` (the first legal move, after ``pause_s``); returns a future.
        The first legal move plays a card when one can be played, so the game ends by the rules
        in a few hundred moves (seats that only discard would play on to the turn cap).

        The bots connect once the match has a spectator: spite web sends its first message
        before it subscribes, and a spectator that subscribes after the game started is not
        sent its start (a loaded machine made that happen)."""
        async def bot(token: str, name: str) -> None:
            async with grpc.aio.insecure_channel(self.running.address) as channel:
                call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
                await call.write(rpb.BotMessage(hello=rpb.Hello(token=token, name=name, version="1",
                                                                protocol_version=1)))
                while (message := await call.read()) is not grpc.aio.EOF:
                    if message.WhichOneof("body") == "decision":
                        await asyncio.sleep(pause_s)
                        await call.write(rpb.BotMessage(action=rpb.Action(
                            decision_id=message.decision.decision_id, move_index=0,
                            debug="hidden-debug")))

        async def both() -> None:
            deadline = self.loop.time() + 60  # not a speed check: only so a lost spectator fails the test
            while not match.spectators:
                assert self.loop.time() < deadline, "nobody spectated the match within a minute"
                await asyncio.sleep(0.01)
            await asyncio.gather(*(bot(s.token, n) for s, n in zip(match.seats, ("alpha", "beta"))))
        return asyncio.run_coroutine_threadsafe(both(), self.loop)

    def stop(self) -> None:
        self.call(self.running.stop(grace=0.2))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def referee() -> Iterator[Referee]:
    running = Referee()
    yield running
    running.stop()


def test_live_answers_bad_requests_cleanly(league: League, referee: Referee) -> None:
    with TestClient(create_app(league.db)) as plain:
        answer = plain.get("/api/live/abc")
        assert answer.status_code == 404 and "needs a referee" in answer.json()["error"]
    with TestClient(create_app(league.db, referee=referee.running.address, admin_token=ADMIN)) as client:
        assert client.get("/api/live/nosuchmatch").status_code == 404
        assert client.get("/live/bad%20id%3B").status_code == 400
    with TestClient(create_app(league.db, referee=referee.running.address, admin_token="wrong")) as client:
        match = referee.new_match()
        answer = client.get(f"/api/live/{match.match_id}")
        assert answer.status_code == 502 and "UNAUTHENTICATED" in answer.json()["error"]


def test_live_spectating_streams_the_public_table_only(league: League, referee: Referee) -> None:
    match = referee.new_match()
    messages: list[dict[str, Any]] = []
    with TestClient(create_app(league.db, referee=referee.running.address, admin_token=ADMIN)) as client:
        with client.stream("GET", f"/api/live/{match.match_id}") as stream:
            playing = referee.play(match)
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    messages.append(json.loads(line[6:]))
                    if messages[-1]["type"] == "match_over":
                        break
        playing.result(WAIT_MS / 1000)
    kinds = [m["type"] for m in messages]
    assert kinds[0] == "match" and kinds[1] == "game_start" and kinds[-1] == "match_over" and "step" in kinds
    assert messages[0]["seats"] == ["alpha", "beta"]
    frames = [m["frame"] for m in messages if "frame" in m]
    assert all(hand is None for f in frames for hand in f["hands"])
    assert "hidden-debug" not in json.dumps(messages)
    assert all(set(m["move"]) == {"seat", "move", "turn"} for m in messages if m["type"] == "step")
    over = next(m for m in messages if m["type"] == "game_over")
    assert over["outcome"]["reason"]


def test_the_live_page_follows_a_running_match(league: League, referee: Referee, page: Any) -> None:
    match = referee.new_match()
    with serve(create_app(league.db, referee=referee.running.address, admin_token=ADMIN)) as url:
        page.goto(f"{url}/live/{match.match_id}")
        page.wait_for_function("document.getElementById('v-live').textContent.includes('live')", timeout=WAIT_MS)
        playing = referee.play(match, pause_s=0.02)
        page.wait_for_function("Number(document.getElementById('viewer').dataset.moves || 0) >= 30", timeout=WAIT_MS)
        shown = page.locator("#v-table section.seat").count()
        assert shown == 2 and page.locator("#v-table .hand .card:not(.back)").count() == 0
        assert page.locator("#v-table .hand[data-cards]").count() == 0
        screenshot(page, "live")
        playing.result(WAIT_MS / 1000)
        page.wait_for_function("document.getElementById('v-live').textContent.includes('match over')", timeout=WAIT_MS)
        assert "hidden-debug" not in page.content()
        assert page.locator("#v-outcome .reason").inner_text()
