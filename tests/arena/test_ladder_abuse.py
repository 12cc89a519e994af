"""The ladder's abuse cases (issue 31): join spam, no-show and abandon bots, selective forfeits
to a chosen opponent, and a bot named like another seat's log file."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path
from typing import Any

import grpc
import pytest

from spite.v1 import arena_pb2, arena_pb2_grpc
from spite_arena.lobby import Lobby, start_lobby
from spite_arena.matchmaker import next_pairing
from spite_arena.store import ArenaStore
from tournaments.ratings import RatingParams

BOTS = Path(__file__).resolve().parent / "bots"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def join(address: str, key: str, name: str, label: str, capacity: int = 1) -> tuple[grpc.StatusCode, str]:
    """One Join over gRPC: the status it ends with (OK while the stream stays open)."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = arena_pb2_grpc.ArenaStub(channel).Join(
            arena_pb2.JoinRequest(key=key, bot_name=name, bot_version=label, capacity=capacity))
        try:
            await asyncio.wait_for(call.read(), 0.5)
        except (asyncio.TimeoutError, TimeoutError):
            call.cancel()
            return grpc.StatusCode.OK, ""
        except grpc.aio.AioRpcError as error:
            return error.code(), error.details() or ""
        return await call.code(), await call.details()


def test_join_spam_is_refused_per_key_and_makes_few_versions(tmp_path: Path) -> None:
    """31.10: 300 joins with new version strings made 285 versions; now a key gets
    JOINS_PER_MINUTE joins a minute and NEW_VERSIONS_PER_HOUR new versions an hour, each
    refusal one line saying what to do."""
    from spite_arena.lobby import JOINS_PER_MINUTE, NEW_VERSIONS_PER_HOUR, JoinRefused

    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("spam")
        other = store.add_entrant("calm")
        clock = Clock()
        lobby = Lobby(store, RatingParams(), per_key=64, clock=clock)

        async def spam() -> list[tuple[grpc.StatusCode, str]]:
            server = await start_lobby("127.0.0.1:0", lobby)
            try:
                answers = [await join(server.address, key, "bot", f"v{i}") for i in range(40)]
                answers.append(await join(server.address, "sk_made-up", "bot", "1"))
                answers.append(await join(server.address, other, "bot", "1"))
                return answers
            finally:
                await server.stop(grace=0.5)

        answers = asyncio.run(spam())
        spammed, made_up, calm = answers[:40], answers[40], answers[41]
        codes = Counter(code for code, _ in spammed)
        assert codes[grpc.StatusCode.OK] == NEW_VERSIONS_PER_HOUR
        assert codes[grpc.StatusCode.RESOURCE_EXHAUSTED] == 40 - NEW_VERSIONS_PER_HOUR
        assert len(store.versions(entrant="spam")) == NEW_VERSIONS_PER_HOUR
        refusals = {details for code, details in spammed if code is not grpc.StatusCode.OK}
        assert any("remote bot versions in the last hour" in r and "version string of its active version" in r
                   for r in refusals)
        assert any(f"more than {JOINS_PER_MINUTE} joins with this key in a minute" in r for r in refusals)
        assert made_up[0] is grpc.StatusCode.UNAUTHENTICATED and calm[0] is grpc.StatusCode.OK  # other keys unharmed

        # A minute on, the key joins again with its active version, not with a new one.
        clock.now += 61
        lobby.bots.clear()
        # Each spam stream left before a game: off the board (issue 24.7); the last one comes back.
        assert store.versions(entrant="spam", statuses=("active",)) == []
        active = store.versions(entrant="spam")[-1:]
        assert [v.label for v in active] == [f"v{NEW_VERSIONS_PER_HOUR - 1}"]
        assert lobby.join(key, "bot", active[0].label, 1).version_id == active[0].id
        with pytest.raises(JoinRefused, match="in the last hour"):
            lobby.join(key, "bot", "v-new", 1)
        clock.now += 61
        for _ in range(JOINS_PER_MINUTE):
            lobby.join(key, "bot", active[0].label, 1)
            lobby.bots.clear()
        with pytest.raises(JoinRefused, match="joins with this key in a minute"):
            lobby.join(key, "bot", active[0].label, 1)


def test_an_entrant_holds_at_most_its_share_of_the_games_at_once(tmp_path: Path) -> None:
    """31.7: no entrant's versions (alone or together) take more than ``share`` of the games in
    flight; the house's bots are not capped."""
    with ArenaStore(tmp_path) as store:
        params = RatingParams()
        for name in ("greedy", "naive", "random"):
            store.ensure_house_bot(name, "1", name, params)
        entrant = store.entrant_for_key(store.add_entrant("idle"))
        assert entrant is not None
        idlers = {store.remote_version(entrant.id, f"idler{i}", "1", params) for i in range(2)}
        versions = store.versions(statuses=("active",))
        busy: Counter[int] = Counter()
        rng = random.Random(7)
        for _ in range(6):  # six slots filled one after the other
            pairing = next_pairing(versions, busy, rng, placement_games=6, share=2)
            assert pairing is not None
            busy.update(pairing.seats)
        assert sum(busy[v] for v in idlers) == 2
        assert sum(busy.values()) == 12  # the other games went to house bots
        uncapped: Counter[int] = Counter()
        for _ in range(6):
            pairing = next_pairing(versions, uncapped, rng, placement_games=6)
            assert pairing is not None
            uncapped.update(pairing.seats)
        assert sum(uncapped[v] for v in idlers) > 2  # what the cap prevents: new versions seeded first


def test_a_forfeit_is_rated_for_the_seat_at_fault_only(tmp_path: Path) -> None:
    """31.8: a game the opponent forfeited (here: never came) moves the forfeiter's rating and
    game count only; a game played out rates both."""
    with ArenaStore(tmp_path) as store:
        params = RatingParams()
        friend = store.ensure_house_bot("greedy", "1", "greedy", params)
        entrant = store.entrant_for_key(store.add_entrant("feeder"))
        assert entrant is not None
        feeder = store.remote_version(entrant.id, "feeder", "1", params)
        game = store.add_game((friend, feeder), 1, 1)
        store.finish_game(game, ending="no-show", reason="seat 1 forfeits: it did not connect", winners=[0],
                          scores=[1, 0], faults=[[], []], replay=None, logs=[None, None], params=params,
                          offender=1)
        winner, loser = store.version(friend), store.version(feeder)
        assert winner is not None and loser is not None
        assert (winner.mu, winner.sigma, winner.games) == (params.mu, params.sigma, 0)
        assert loser.mu < params.mu and loser.games == 1
        played = store.add_game((friend, feeder), 2, 2)
        store.finish_game(played, ending="stock-emptied", reason="seat 0 emptied its stock", winners=[0],
                          scores=[1, 0], faults=[[], []], replay=None, logs=[None, None], params=params, offender=None)
        winner = store.version(friend)
        assert winner is not None and winner.mu > params.mu and winner.games == 1


@pytest.mark.slow
def test_no_show_bots_are_benched_capped_and_nobody_learns_whom_it_plays(tmp_path: Path) -> None:
    """The ladder in process on real workers and a real lobby: an entrant's two remote bots
    that join and never play (31.7) hold one of the two slots at most and are benched after
    BENCH_AFTER no-shows, their streams ended with the reason; the wins they handed out rate
    nobody (31.8); a remote SDK bot and a house bot are told no opponent's name (31.8); the
    house bot named ``a-seat1-b`` has exactly its own log recorded (31.13)."""
    from spite_arena.config import load_competition
    from spite_arena.ladder import BENCH_AFTER, Ladder, share_of
    from spite_arena.lobby import JoinRefused
    from spite_arena.store import FORFEITED
    from spite_sdk import Bot, policies
    from spite_sdk.arena import ladder as sdk_ladder
    from spite_sdk.connection import RefereeError
    from tournaments.backends import LocalBackend
    from tournaments.bot_specs import resolve_bot

    file = tmp_path / "c.toml"
    file.write_text(f'house_bots = ["{BOTS / "names" / "bot.toml"}", "greedy"]\nparallel = 2\nplacement_games = 2\n'
                    '[time_control]\ndecision_ms = 1000\nbank_ms = 5000\nconnect_ms = 1500\n'
                    '[limits]\nremote_matches = 8\n')
    competition = load_competition(file)
    data = tmp_path / "data"

    class Seer(Bot):
        name = "seer"
        version = "1"
        seen: list[tuple[int, tuple[str, ...]]] = []  # on the class: each game plays a copy of the bot

        def on_welcome(self, welcome: Any) -> None:
            Seer.seen.append((welcome.seat, welcome.seat_names))

        def decide(self, observation: Any) -> Any:
            return policies.greedy_move(observation)

    with ArenaStore(data) as store:
        for spec in competition.house_bots:
            manifest = resolve_bot(spec)
            store.ensure_house_bot(manifest.name, manifest.version, spec, competition.rating)
        idle_key, seer_key = store.add_entrant("idle"), store.add_entrant("sdk")
        lobby = Lobby(store, competition.rating, competition.limits.remote_matches)
        ended: dict[str, tuple[grpc.StatusCode, str]] = {}
        most_in_flight = 0

        async def idle(address: str, name: str) -> None:
            """Join, take games, never play them."""
            async with grpc.aio.insecure_channel(address) as channel:
                call = arena_pb2_grpc.ArenaStub(channel).Join(
                    arena_pb2.JoinRequest(key=idle_key, bot_name=name, bot_version="1", capacity=4))
                try:
                    async for _ in call:
                        pass
                except grpc.aio.AioRpcError as error:
                    ended[name] = (error.code(), error.details() or "")

        def idle_versions() -> list[Any]:
            return store.versions(entrant="idle")

        def done() -> bool:
            benched = [v for v in idle_versions() if v.status == "disabled"]
            house_games = [g for g in store.games() if g.ending == "stock-emptied"
                           and all(store.version(v).kind == "house" for v in g.versions)]  # type: ignore[union-attr]
            return len(benched) == 2 and len(ended) == 2 and bool(Seer.seen) and bool(house_games)

        async def play() -> None:
            nonlocal most_in_flight
            referee = await start_lobby("127.0.0.1:0", lobby)
            ladder = Ladder(competition, store, LocalBackend(2), data, lobby=lobby, referee=referee)
            tasks = [asyncio.create_task(idle(referee.address, f"idler{i}")) for i in range(2)]
            tasks.append(asyncio.create_task(sdk_ladder(Seer(), referee.address, seer_key, 1, None, RefereeError)))
            running = asyncio.create_task(ladder.run())
            try:
                while not done():
                    ids = {v.id for v in idle_versions()}
                    most_in_flight = max(most_in_flight, sum(ladder.busy[v] for v in ids))
                    await asyncio.sleep(0.05)
            finally:
                ladder.stopping.set()
                await running
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                await referee.stop(grace=0.5)

        asyncio.run(asyncio.wait_for(play(), 240))

        # 31.7: at most its share of the two slots, then benched with the reason, the streams ended.
        assert most_in_flight == share_of(2) == 1
        for version in idle_versions():
            assert version.status == "disabled" and version.reason.startswith("benched: lost ")
            lost, _ = store.abandoned(version.id, 5)
            assert lost == BENCH_AFTER
        for code, details in ended.values():
            assert code is grpc.StatusCode.FAILED_PRECONDITION and "is off the ladder (benched: lost" in details
        with pytest.raises(JoinRefused, match=r"idle/idler0 v1 is off the ladder \(benched"):
            lobby.join(idle_key, "idler0", "1", 1)
        assert [i.kind for i in store.incidents()].count("benched") == 2

        # 31.8: a forfeited game counts for the seat at fault only.
        games = store.games(limit=1000)
        assert sum(v.games for v in store.versions()) == sum(1 if g.ending in FORFEITED else 2 for g in games)
        house = [v for v in store.versions() if v.entrant == "house"]
        no_shows = [g for g in games if g.ending == "no-show"]
        assert len(no_shows) >= 2 * BENCH_AFTER

        # 31.8: nobody is told whom it plays.
        for seat, names in Seer.seen:
            assert names[seat] == "seer" and [n for i, n in enumerate(names) if i != seat] == [f"seat {1 - seat}"]
        names_bot = next(v for v in house if v.bot == "a-seat1-b")
        read = 0
        for game in games:
            for seat, (vid, log) in enumerate(zip(game.versions, game.logs)):
                version = store.version(vid)
                assert version is not None
                if version.kind == "remote":
                    assert log is None
                    continue
                # 31.13: exactly this seat's file, whatever the bot's name says
                assert log is not None and log.endswith(f"-seat{seat}-{version.bot}.log"), (seat, game.logs)
                if vid == names_bot.id and game.ending == "stock-emptied":
                    text = Path(log).read_text()
                    assert f"seat {seat} seat_names=" in text
                    assert "greedy" not in text and "seer" not in text and f"'seat {1 - seat}'" in text
                    read += 1
        assert read


@pytest.mark.slow
def test_spite_serve_benches_two_keys_that_join_and_never_play(tmp_path: Path) -> None:
    """The issue's reproduction on a real ``spite serve``: two keys join and ignore every game
    (31.7). Each gets BENCH_AFTER games, then its owner reads on /api/me why it is benched,
    its stream ends with that reason, and the house bots go on playing; the no-shows gave the
    house bots no rating (31.8)."""
    import threading

    from .conftest import COMPETITION, running_arena

    BENCH_AFTER = 3  # noqa: N806 (spite_arena.ladder's, spelled out so the test runs on code without it)
    FORFEITED = {"no-show", "disconnect", "timeout", "crash", "illegal-move", "malformed", "forfeit"}  # noqa: N806

    competition = (COMPETITION.replace('house_bots = ["greedy"]', 'house_bots = ["greedy", "naive"]')
                   .replace("parallel = 1", "parallel = 2").replace("connect_ms = 8000", "connect_ms = 1500"))
    with running_arena(tmp_path, competition) as arena:
        keys = {name: arena.add_entrant(name) for name in ("ghost1", "ghost2")}
        ended: dict[str, tuple[grpc.StatusCode, str]] = {}

        async def ghosts() -> None:
            async def ghost(name: str) -> None:
                async with grpc.aio.insecure_channel(arena.grpc) as channel:
                    call = arena_pb2_grpc.ArenaStub(channel).Join(
                        arena_pb2.JoinRequest(key=keys[name], bot_name="ghost", bot_version="1", capacity=4))
                    try:
                        async for _ in call:
                            pass
                    except grpc.aio.AioRpcError as error:
                        ended[name] = (error.code(), error.details() or "")
            await asyncio.wait_for(asyncio.gather(*(ghost(n) for n in keys)), 240)

        thread = threading.Thread(target=lambda: asyncio.run(ghosts()), daemon=True)
        thread.start()

        def benched() -> list[dict[str, Any]]:
            versions = [arena.get("/api/me", key)[1]["versions"] for key in keys.values()]
            found = [v[0] for v in versions if v and v[0]["status"] == "disabled"]
            return found if len(found) == 2 else []

        for version in arena.wait_for("both ghosts benched", benched, timeout=200):
            assert version["reason"].startswith(f"benched: lost {BENCH_AFTER} of its last ") and \
                version["games"] == BENCH_AFTER
        thread.join(60)
        assert sorted(ended) == ["ghost1", "ghost2"]
        for code, details in ended.values():
            assert code is grpc.StatusCode.FAILED_PRECONDITION and "is off the ladder (benched: lost" in details
        def snapshot() -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
            """The leaderboard and the games list at one moment (no game finished in between)."""
            before = arena.get("/api/games?limit=500")[1]["games"]
            board = arena.get("/api/leaderboard")[1]
            return (board, before) if arena.get("/api/games?limit=500")[1]["games"] == before else None

        board, games = arena.wait_for("a quiet moment", snapshot, timeout=60)
        assert {r["entrant"] for r in board} == {"house"}  # benched versions leave the board
        ghost_games = [g for g in games if any(b.startswith("ghost") for b in g["bots"])]
        assert len(ghost_games) == 2 * BENCH_AFTER and {g["ending"] for g in ghost_games} == {"no-show"}
        house_games = [g for g in games if g not in ghost_games]
        # the no-shows counted for no house bot (a house game a referee ended counts for its offender only)
        assert sum(r["games"] for r in board) == sum(1 if g["ending"] in FORFEITED else 2 for g in house_games)
        arena.wait_for("the house bots playing on", lambda: len(arena.get("/api/games?limit=500")[1]["games"])
                       > len(games))


def test_a_disabled_remote_version_is_told_why_it_cannot_join(tmp_path: Path) -> None:
    from spite_arena.lobby import JoinRefused

    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("eve")
        lobby = Lobby(store, RatingParams(), per_key=4)
        version = lobby.join(key, "bot", "1", 1).version_id
        store.set_version_status(version, "disabled", "plays for a friend")
        lobby.bots.clear()
        with pytest.raises(JoinRefused, match=r"eve/bot v1 is off the ladder \(disabled by the organizer: plays "
                                              r"for a friend\); ask the organizer") as refused:
            lobby.join(key, "bot", "1", 1)
        assert refused.value.code is grpc.StatusCode.FAILED_PRECONDITION


def test_the_bench_and_the_rating_rule_say_what_the_tests_spell_out() -> None:
    from spite_arena.ladder import BENCH_AFTER, BENCH_OF
    from spite_arena.store import FORFEITED

    assert (BENCH_AFTER, BENCH_OF) == (3, 5)
    assert FORFEITED == {"no-show", "disconnect", "timeout", "crash", "illegal-move", "malformed", "forfeit"}
