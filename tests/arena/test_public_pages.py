"""What the public sees of a ladder, as a property: over any mix of games pending, in play,
finished and void, duplicate deals or not, under either ``[web] replays`` rule, no public
page or public API answer holds a hidden card of a game that is not public yet (nor of an
unfinished duplicate half), and none ever holds a bot's debug string or log text.

The games are real: played by the engine, written by :func:`referee.core.replay.write` with a
debug string on every move, each seat's log beside it, recorded by the arena store."""

from __future__ import annotations

import random
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from referee.core import replay as replay_file
from spite_arena.config import Competition, load_competition
from spite_arena.store import ArenaStore
from spite_arena.web import create_app
from spite_engine import EventKind, GameState, preset
from tournaments.ratings import RatingParams

STATUSES = ("pending", "running", "done", "void")
DEBUG = "dbg-secret"
LOG = "log-secret"
DEAL = "deal-marker"
REASON = "reason-marker"
"""The referee's words on a game's end, which may name a card ("illegal move: no 7 in hand")."""


@dataclass
class Host:
    """The serving process, as the app sees it (:class:`spite_arena.web.Host`)."""

    competition: Competition
    data: Path
    store: ArenaStore
    admin_token: str = "organizer-token-for-the-test"
    joined: list[dict[str, Any]] = field(default_factory=list)

    def health(self) -> list[Any]:
        return []

    def remote_bots(self) -> list[dict[str, Any]]:
        return self.joined

    def start_check(self, version_id: int, manifest: Path) -> None:
        raise AssertionError("no uploads here")


def play(data: Path, game_id: int, seed: int) -> tuple[str, list[str]]:
    """A real game of the deal ``seed``: its replay (a debug string on every move, the deal's
    marker in the header) and each seat's log; returns their paths."""
    state = GameState.new(preset("standard"), seed)
    moves = random.Random(seed)
    while not state.is_over:
        state.apply(moves.choice(state.legal_moves()))
    meta = {i: {"us": 1000, "debug": f"{DEBUG}-{game_id}-{i}"} for i, e in enumerate(state.log)
            if e.kind is EventKind.MOVE}
    header = {"match_id": f"{DEAL}-{seed}", "game_number": 0, "seats": [{"name": "a"}, {"name": "b"}]}
    replay = replay_file.write(data / "replays" / f"{game_id}.jsonl.gz", header, state, meta)
    assert all(note["debug"] for note in replay_file.move_notes(replay_file.load(replay)))  # the test has teeth
    logs = []
    for seat in (0, 1):
        log = data / "logs" / str(game_id) / f"seat{seat}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"{LOG}-{game_id}-{seat}: my hand is secret\n")
        logs.append(str(log))
    return str(replay), logs


def public_answers(client: TestClient, games: list[int], versions: list[int]) -> dict[str, str]:
    """Every public page and public API answer of the ladder, by URL."""
    urls = ["/", "/games", "/api/leaderboard", "/api/leaderboard?all=1", "/api/games", "/api/games?limit=500",
            "/me", "/admin"]
    for vid in versions:
        urls += [f"/bots/{vid}", f"/api/bots/{vid}", f"/games?bot={vid}", f"/api/games?bot={vid}&result=lost"]
    for gid in games:
        urls += [f"/games/{gid}", f"/api/games/{gid}", f"/api/replays/{gid}", f"/api/replays/{gid}?as_seat=0",
                 f"/api/replays/{gid}?as_seat=1", f"/games/{gid}?as_seat=1"]
    return {url: client.get(url).text for url in urls}


deal = st.tuples(st.booleans(), st.sampled_from(STATUSES), st.sampled_from(STATUSES))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deals=st.lists(deal, min_size=1, max_size=4), rule=st.sampled_from(["after_deal", "never"]))
def test_no_public_answer_holds_a_hidden_card_a_debug_string_or_a_log(deals: list[tuple[bool, str, str]],
                                                                       rule: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        file = directory / "c.toml"
        file.write_text(f'name = "public"\n[web]\nreplays = "{rule}"\n')
        data = directory / "data"
        store = ArenaStore(data)
        params = RatingParams()
        one = store.ensure_house_bot("greedy", "1", "greedy", params)
        two = store.ensure_house_bot("naive", "1", "naive", params)
        statuses: dict[int, str] = {}
        partner: dict[int, int] = {}
        seeds: dict[int, int] = {}
        for number, (duplicate, first, second) in enumerate(deals):
            seed = 1_000_003 * (number + 1) + 7
            halves = [(first, (one, two))] + ([(second, (two, one))] if duplicate else [])
            ids = [store.add_game(seats, seed, seed % 2**62) for _, seats in halves]
            if duplicate:
                partner[ids[0]], partner[ids[1]] = ids[1], ids[0]
            for gid, (status, _) in zip(ids, halves):
                statuses[gid], seeds[gid] = status, seed
                if status in ("running", "done"):
                    store.take_game(gid, "test")
                if status == "done":
                    replay, logs = play(data, gid, seed)
                    store.finish_game(gid, ending="illegal-move", reason=f"{REASON}-game{gid}.", winners=[0],
                                      scores=[1, 0],
                                      faults=[[], []],
                                      replay=replay, logs=logs, params=params)
                elif status == "void":
                    store.void_game(gid, "the platform failed", retry=False)
        host = Host(load_competition(file), data, store)
        with TestClient(create_app(host), raise_server_exceptions=False) as client:
            answers = public_answers(client, sorted(statuses), [one, two])
            for url, text in answers.items():
                assert DEBUG not in text, url
                assert LOG not in text, url
                assert "secret" not in text, url
            for gid, status in statuses.items():
                other = partner.get(gid)
                over = status == "done" and (other is None or statuses[other] == "done")
                public = rule == "after_deal" and over
                said = [url for url, text in answers.items() if f"{REASON}-game{gid}." in text]
                assert bool(said) == over, (gid, statuses, partner, said)
                answer = client.get(f"/api/replays/{gid}")
                assert answer.status_code == (200 if public else 404), (gid, statuses, partner)
                page = answers[f"/games/{gid}"]
                assert ('id="replay-data"' in page) == public, gid
                if public:
                    view = answer.json()
                    assert view["frames"] and all("debug" not in m for m in view["moves"])
                    assert all(f.get("hands") for f in view["frames"])  # omniscient: every hand
                    continue
                hidden = re.compile(rf"\b{seeds[gid]}\b")  # the deal: every card of the game follows from it
                for url, text in answers.items():
                    assert not hidden.search(text), (url, gid)
                    assert f"{DEAL}-{seeds[gid]}" not in text, (url, gid)  # its replay, in any view
                for seat in (0, 1):
                    assert client.get(f"/api/replays/{gid}?as_seat={seat}").status_code == 404
        store.close()
