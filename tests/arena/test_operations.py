"""Issue 24's operations items: keys that mean it, void games dealt afresh, pending games of
retired versions resolved, finals of eligible versions with a commitment published ahead,
leaderboard spam, a clean stop and status, and what a remote bot is told."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import grpc
import pytest

from spite.v1 import arena_pb2, arena_pb2_grpc
from spite_arena.lobby import Lobby, start_lobby
from spite_arena.store import ArenaStore
from tournaments.ratings import RatingParams

from .conftest import running_arena


async def open_join(address: str, key: str, name: str, label: str = "1") -> Any:
    """A Join stream left open; the caller reads or cancels it."""
    channel = grpc.aio.insecure_channel(address)
    call = arena_pb2_grpc.ArenaStub(channel).Join(
        arena_pb2.JoinRequest(key=key, bot_name=name, bot_version=label, capacity=1))
    return channel, call


async def ends_with(call: Any, timeout: float = 60) -> tuple[grpc.StatusCode, str]:
    """Read a Join stream until the server ends it; its status and details."""
    try:
        async def drain() -> None:
            async for _ in call:
                pass
        await asyncio.wait_for(drain(), timeout)
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return await call.code(), await call.details()


# -- 24.8: a rotated key ends the sessions joined with the old one -----------------------

def test_rotating_a_key_ends_the_streams_joined_with_the_old_key(tmp_path: Path) -> None:
    """24.8: today a rotated key's joined streams play on; the lobby's sweep ends them with
    one line saying what to do, and leaves other keys' streams alone."""
    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("rot")
        other = store.add_entrant("calm")
        lobby = Lobby(store, RatingParams(), per_key=4)

        async def scenario() -> tuple[tuple[grpc.StatusCode, str], bool]:
            server = await start_lobby("127.0.0.1:0", lobby)
            stopping = asyncio.Event()
            watch = asyncio.get_running_loop().create_task(lobby.watch(stopping, every_s=0.05))
            try:
                old_channel, old = await open_join(server.address, key, "bot")
                calm_channel, calm = await open_join(server.address, other, "bot")
                for _ in range(400):
                    if len(lobby.connected()) == 2:
                        break
                    await asyncio.sleep(0.05)
                assert len(lobby.connected()) == 2
                store.rotate_key("rot")
                ended = await ends_with(old)
                calm_open = not calm.done()
                calm.cancel()
                await old_channel.close()
                await calm_channel.close()
                return ended, calm_open
            finally:
                stopping.set()
                await watch
                await server.stop(grace=0.5)

        (code, details), calm_open = asyncio.run(scenario())
        assert code is grpc.StatusCode.UNAUTHENTICATED
        assert "was replaced" in details and "new key" in details
        assert calm_open
        assert [b.entrant for bots in lobby.bots.values() for b in bots] == []


@pytest.mark.slow
def test_a_remote_bot_stops_when_its_key_is_rotated(tmp_path: Path) -> None:
    """24.8 end to end: ``spite arena rotate-key`` while ``spite serve`` runs; the SDK bot
    joined with the old key is told so and exits 1 instead of playing on."""
    with running_arena(tmp_path) as arena:
        key = arena.add_entrant("rot")
        bot = arena.remote_bot("greedy", key)
        arena.wait_for("rot's first game", lambda: [r for r in arena.get("/api/leaderboard")[1]
                                                    if r["entrant"] == "rot" and r["games"] >= 1])
        done = arena.spite("arena", "rotate-key", "rot", "--data", str(arena.data))
        assert done.returncode == 0, done.stderr
        arena.wait_for("the bot to stop", lambda: bot.poll() is not None, timeout=60)
        assert bot.returncode == 1
        assert bot.stderr is not None
        assert "was replaced" in bot.stderr.read()


# -- 24.9: rerun-void deals a remote game afresh -----------------------------------------

def test_rerun_void_gives_a_remote_game_a_fresh_deal(tmp_path: Path) -> None:
    """24.9: today ``rerun_void()`` resets ``attempts`` and the game keeps its seed, so the
    ladder (which reseeds only a retried remote game) replays a deal a remote bot may have
    seen. Now a remote game gets fresh seeds; a house-only game (a duplicate half) keeps its
    deal; a game of a version no longer active stays void."""
    params = RatingParams()
    with ArenaStore(tmp_path) as store:
        greedy = store.ensure_house_bot("greedy", "1", "greedy", params)
        naive = store.ensure_house_bot("naive", "1", "naive", params)
        entrant = store.entrant_for_key(store.add_entrant("rem"))
        assert entrant is not None
        remote = store.remote_version(entrant.id, "bot", "1", params)
        remote_game = store.add_game((greedy, remote), 11, 12)
        house_game = store.add_game((greedy, naive), 21, 22)
        for game in (remote_game, house_game):
            store.take_game(game, "slot0")
            store.void_game(game, "cut off", retry=False)
        assert store.rerun_void() == 2
        again, house = store.game(remote_game), store.game(house_game)
        assert again is not None and house is not None
        assert again.status == "pending" and again.attempts == 0 and (again.seed, again.bot_seed) != (11, 12)
        assert house.status == "pending" and (house.seed, house.bot_seed) == (21, 22)

        store.take_game(remote_game, "slot0")
        store.void_game(remote_game, "cut off", retry=False)
        store.set_version_status(remote, "disabled", "gone")
        assert store.rerun_void() == 0
        assert store.game(remote_game).status == "void"  # type: ignore[union-attr]


# -- 24.10: a pending game of a version that left the ladder is resolved ------------------

def ladder_over(tmp_path: Path, store: ArenaStore, extra: str = "") -> Any:
    """A :class:`spite_arena.ladder.Ladder` over ``store`` (not started: no workers run)."""
    from spite_arena.config import load_competition
    from spite_arena.ladder import Ladder
    from tournaments.backends import LocalBackend

    file = tmp_path / "competition.toml"
    file.write_text('name = "ops"\nhouse_bots = ["greedy", "naive", "random"]\nparallel = 2\n' + extra)
    return Ladder(load_competition(file), store, LocalBackend(2), tmp_path)


def test_a_pending_game_of_a_retired_version_is_voided_with_the_reason(tmp_path: Path) -> None:
    """24.10: the second half of a duplicate deal whose bot was retired (a new upload) or
    disabled stayed ``pending`` forever, in every count. Now the ladder voids it with the
    reason (an incident ``dropped``), and ``rerun-void`` does not bring it back."""
    params = RatingParams()
    with ArenaStore(tmp_path / "data") as store:
        greedy = store.ensure_house_bot("greedy", "1", "greedy", params)
        naive = store.ensure_house_bot("naive", "1", "naive", params)
        store.ensure_house_bot("random", "1", "random", params)
        second_half = store.add_game((naive, greedy), 5, 6)
        other_half = store.add_game((greedy, naive), 7, 8)
        ladder = ladder_over(tmp_path, store)
        try:
            store.set_version_status(naive, "retired")
            game = ladder.next_game()
            assert game is not None and naive not in game.versions  # a fresh pairing instead
            for gid in (second_half, other_half):
                dropped = store.game(gid)
                assert dropped is not None and dropped.status == "void"
                assert dropped.error is not None and "house/naive v1 was retired" in dropped.error
            assert {i.kind for i in store.incidents()} == {"dropped"}
            assert store.rerun_void() == 0
            assert all(naive not in g.versions for g in store.pending_games())
        finally:
            ladder.backend._scratch.cleanup()


# -- 24.12: [finals] top = N takes N eligible versions ------------------------------------

def test_the_finals_take_the_top_n_eligible_versions(tmp_path: Path) -> None:
    """24.12: a remote version at #4 of ``top = 4`` was counted, then dropped: 3 finalists.
    Now the finals take the four best versions that run here, and name the remote one ranked
    above the last of them; one ranked below is not named."""
    from spite_arena.config import load_competition
    from spite_arena.finals import prepare_finals

    file = tmp_path / "c.toml"
    file.write_text('house_bots = ["greedy"]\n[finals]\ntop = 4\nrounds = 1\n')
    competition = load_competition(file)
    with ArenaStore(tmp_path / "data") as store:
        mus = {"greedy": 30, "naive": 29, "random": 28, "tactician": 26, "planner": 20}
        for name in mus:
            store.ensure_house_bot(name, "1", name, competition.rating)
        entrant = store.entrant_for_key(store.add_entrant("far"))
        assert entrant is not None
        fourth = store.remote_version(entrant.id, "near", "1", competition.rating)
        last = store.remote_version(entrant.id, "far", "1", competition.rating)
        for name, mu in mus.items():
            store.db.execute("UPDATE versions SET mu = ? WHERE bot = ?", (mu, name))
        store.db.execute("UPDATE versions SET mu = 27 WHERE id = ?", (fourth,))
        store.db.execute("UPDATE versions SET mu = 1 WHERE id = ?", (last,))
        plan = prepare_finals(store, competition, tmp_path / "data")
    assert [v.bot for v in plan.finalists] == ["greedy", "naive", "random", "tactician"]
    assert [v.title for v in plan.left_out] == ["far/near v1"]


# -- 24.13: the finals' seed commitment, published before play ----------------------------

def test_the_finals_are_dealt_from_a_commitment_made_ahead(tmp_path: Path) -> None:
    """24.13: the commitment could only be printed by the run that plays the finals. Now
    :func:`commit_finals` makes it ahead (the same one until used), the finals are dealt from
    it, and the next finals need a new one."""
    from spite_arena.config import load_competition
    from spite_arena.finals import commit_finals, prepare_finals
    from tournaments import seeds
    from tournaments.config import load_tournament

    file = tmp_path / "c.toml"
    file.write_text('house_bots = ["greedy", "naive"]\n[finals]\ntop = 2\nrounds = 1\n')
    competition = load_competition(file)
    data = tmp_path / "data"
    commitment, new = commit_finals(data)
    assert new and commit_finals(data) == (commitment, False)
    with ArenaStore(data) as store:
        for name in ("greedy", "naive"):
            store.ensure_house_bot(name, "1", name, competition.rating)
        plan = prepare_finals(store, competition, data)
    assert plan.precommitted and plan.commitment == commitment
    assert load_tournament(plan.file).seed_commitment == commitment
    seeds.verify_file(plan.file.parent / "seed.secret", commitment)
    assert commit_finals(data)[0] != commitment  # used: the next finals get their own


def read_line(arena: Any, starts: str, timeout: float = 60) -> str:
    """The next line of ``spite serve``'s output that starts with ``starts``."""
    import select
    import time

    assert arena.process is not None and arena.process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([arena.process.stdout], [], [], 1)
        if ready:
            line = arena.process.stdout.readline()
            if line.startswith(starts):
                return str(line)
            if not line:
                break
    pytest.fail(f"spite serve printed no line starting {starts!r}")


@pytest.mark.slow
def test_the_commitment_is_published_at_serve_start_and_the_finals_reveal_its_seed(tmp_path: Path) -> None:
    """24.13 end to end: ``spite serve`` with ``[finals] start`` prints the commitment at start;
    ``spite arena finals --commit`` prints the same one; the finals played later say they are
    dealt from it, and the seed they reveal opens it (``spite seed verify``)."""
    competition = ('name = "ahead"\nhouse_bots = ["greedy", "naive"]\nparallel = 1\n'
                   '[finals]\ntop = 2\nrounds = 1\nstart = 2099-01-01T00:00:00Z\n')
    with running_arena(tmp_path, competition) as arena:
        line = read_line(arena, "spite serve: the finals start at")
        commitment = line.rsplit(" ", 1)[1].strip()
        assert commitment.startswith("sha256:") and "publish it now" in line
        arena.kill()
        data = ["--data", str(arena.data)]
        ahead = arena.spite("arena", "finals", str(arena.file), *data, "--commit", "--json")
        assert ahead.returncode == 0, ahead.stderr
        assert json.loads(ahead.stdout) == {"commitment": commitment, "new": False}
        played = arena.spite("arena", "finals", str(arena.file), *data)
        assert played.returncode == 0, played.stdout + played.stderr
        assert f"seed commitment (published ahead; the finals are dealt from it): {commitment}" in played.stdout
        revealed = re.search(r"^seed +([0-9a-f]{32,})$", played.stdout, re.MULTILINE)
        assert revealed is not None, played.stdout
        secret = revealed.group(1)
        verified = arena.spite("seed", "verify", "--commitment", commitment, "--seed", secret)
        assert verified.returncode == 0 and verified.stdout.startswith("OK"), verified.stdout + verified.stderr


# -- 24.7: leaderboard spam: limits per entrant, bans, unplayed versions off the board -----

def test_an_entrant_has_at_most_its_bots_and_versions_on_the_board(tmp_path: Path) -> None:
    """24.7: any key could add permanent rows. Now ``[limits] bots`` caps an entrant's bots on
    the board at once and ``[limits] versions`` the versions it makes in all; each refusal
    is one line saying what to do."""
    from spite_arena.lobby import JoinRefused

    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("many")
        lobby = Lobby(store, RatingParams(), per_key=64, bots_per_entrant=2, versions_per_entrant=3)
        lobby.join(key, "a", "1", 1)
        lobby.join(key, "b", "1", 1)
        with pytest.raises(JoinRefused, match=r"has 2 bots on the board \(a, b\).*\[limits\] bots") as refused:
            lobby.join(key, "c", "1", 1)
        assert refused.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
        lobby.join(key, "a", "2", 1)  # a new version of a bot on the board: room for it
        with pytest.raises(JoinRefused, match=r"made 3 bot versions.*\(\[limits\] versions\); ask the organizer"):
            lobby.join(key, "a", "3", 1)
        assert sorted(v.bot for v in store.versions(entrant="many", statuses=("active",))) == ["a", "b"]


def test_a_remote_version_that_never_played_and_left_is_not_listed(tmp_path: Path) -> None:
    """24.7: joining for 4 s as ``zzclone1``, ``zzclone2``... left permanent active rows. A
    version whose bot leaves before its first game is off the board (and frees its place
    under ``bots``); the same bot and version string joining again gets it back."""
    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("clones")
        lobby = Lobby(store, RatingParams(), per_key=64, bots_per_entrant=1)
        first = lobby.join(key, "zzclone1", "1", 1)
        lobby.leave(first)
        assert store.versions(entrant="clones", statuses=("active",)) == []
        second = lobby.join(key, "zzclone2", "1", 1)  # the clone's place is free again
        lobby.leave(second)
        back = lobby.join(key, "zzclone1", "1", 1)
        assert back.version_id == first.version_id
        assert [v.bot for v in store.versions(entrant="clones", statuses=("active",))] == ["zzclone1"]
        store.db.execute("UPDATE versions SET games = 1 WHERE id = ?", (back.version_id,))
        lobby.leave(back)
        assert [v.bot for v in store.versions(entrant="clones", statuses=("active",))] == ["zzclone1"]  # it played


def test_a_banned_entrant_is_refused_and_its_streams_end(tmp_path: Path) -> None:
    """24.7: ``ArenaStore.ban``: every version off the ladder with the reason, the key refused
    (``PERMISSION_DENIED``), the joined streams ended by the lobby's sweep."""
    from spite_arena.lobby import JoinRefused

    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("spam")
        lobby = Lobby(store, RatingParams(), per_key=64)
        joined = lobby.join(key, "bot", "1", 1)
        assert store.ban("spam", "spam rows") == 1
        version = store.version(joined.version_id)
        assert version is not None and (version.status, version.reason) == ("disabled", "banned: spam rows")
        assert lobby.sweep() == 1
        ended = joined.assignments.get_nowait()
        assert isinstance(ended, JoinRefused) and "banned: spam rows" in str(ended)
        with pytest.raises(JoinRefused, match=r"entrant spam is banned from this competition \(spam rows\)") as no:
            lobby.join(key, "other", "1", 1)
        assert no.value.code is grpc.StatusCode.PERMISSION_DENIED


def test_the_entrant_limits_are_in_the_competition_file_with_ranges(tmp_path: Path) -> None:
    from spite_arena.config import CompetitionError, load_competition

    file = tmp_path / "c.toml"
    file.write_text("[limits]\nbots = 2\nversions = 40\n")
    limits = load_competition(file).limits
    assert (limits.bots, limits.versions) == (2, 40)
    file.write_text("[limits]\nbots = 0\n")
    with pytest.raises(CompetitionError, match=r"'limits.bots' must be a whole number in 1..100"):
        load_competition(file)
    file.write_text("")
    assert (load_competition(file).limits.bots, load_competition(file).limits.versions) == (3, 100)


@pytest.mark.slow
def test_spite_arena_ban_takes_an_entrant_off_the_running_ladder(tmp_path: Path) -> None:
    """24.7 end to end: ``spite arena ban`` while the entrant's remote bot plays: the bot is
    told and exits 1, its rows leave the board, its key gets 403 with the reason."""
    with running_arena(tmp_path) as arena:
        key = arena.add_entrant("spam")
        bot = arena.remote_bot("greedy", key)
        arena.wait_for("spam's first game", lambda: [r for r in arena.get("/api/leaderboard")[1]
                                                     if r["entrant"] == "spam" and r["games"] >= 1])
        done = arena.spite("arena", "ban", "spam", "--reason", "rows of clones", "--data", str(arena.data))
        assert done.returncode == 0, done.stderr
        assert "entrant spam banned" in done.stdout
        arena.wait_for("the bot to stop", lambda: bot.poll() is not None, timeout=60)
        assert bot.returncode == 1
        assert bot.stderr is not None and "banned: rows of clones" in bot.stderr.read()
        assert not [r for r in arena.get("/api/leaderboard")[1] if r["entrant"] == "spam"]
        status, body = arena.get("/api/me", key)
        assert status == 403 and "banned from this competition (rows of clones)" in json.dumps(body)
        unknown = arena.spite("arena", "ban", "nobody", "--reason", "x", "--data", str(arena.data))
        assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1 and "no entrant 'nobody'" in unknown.stderr


# -- 24.15: a clean stop, a status table, an admin page that answers ----------------------

def test_spite_arena_status_prints_a_table_or_json(tmp_path: Path) -> None:
    """24.15: ``status`` printed ``games {'pending': 0, ...}``, a Python dict."""
    import subprocess

    from .conftest import REPO, SPITE

    data = tmp_path / "data"
    with ArenaStore(data) as store:
        greedy = store.ensure_house_bot("greedy", "1", "greedy", RatingParams())
        store.ensure_house_bot("naive", "1", "naive", RatingParams())
        store.add_game((greedy, greedy), 1, 2)

    def status(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*SPITE, "arena", "status", "--data", str(data), *extra], cwd=REPO,
                              capture_output=True, text=True, timeout=120)

    text = status()
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == "ladder running; games: 0 done, 0 running, 1 pending, 0 void"
    assert "{" not in text.stdout
    assert lines[1].split() == ["rank", "rating", "mu", "sigma", "games", "kind", "version"]
    assert lines[2].split()[0] == "1" and lines[2].endswith("house/greedy v1 (id 1)")
    assert lines[3].split()[0] == "2" and lines[3].endswith("house/naive v1 (id 2)") and len(lines) == 4
    answer = json.loads(status("--json").stdout)
    assert answer["games"]["pending"] == 1 and [r["bot"] for r in answer["leaderboard"]] == ["greedy", "naive"]


@pytest.mark.slow
def test_ctrl_c_stops_spite_serve_without_tracebacks(tmp_path: Path) -> None:
    """24.15: SIGINT to ``spite serve``'s process group (Ctrl-C in a terminal) while a remote
    bot is joined printed four ``CancelledError`` tracebacks; now the lobby ends its streams
    first, and serve exits 130 (interrupted) with one line."""
    import os
    import signal

    with running_arena(tmp_path) as arena:
        key = arena.add_entrant("rb")
        arena.remote_bot("greedy", key, SPITE_ARENA_CAPACITY="2")
        arena.wait_for("rb's first game", lambda: [r for r in arena.get("/api/leaderboard")[1]
                                                   if r["entrant"] == "rb" and r["games"] >= 1])
        assert arena.process is not None
        os.killpg(arena.process.pid, signal.SIGINT)
        out, _ = arena.process.communicate(timeout=120)
        assert "Traceback" not in out and "CancelledError" not in out and "ERROR" not in out, out
        assert arena.process.returncode == 130
        assert "spite serve: stopped (Ctrl-C)" in out


def test_the_admin_api_lists_entrants_confirms_disables_and_enables(tmp_path: Path) -> None:
    """24.15: a disable answered ``{"ok": true}`` (or a 404 the page ignored), and nothing could
    put a version back. Now each answer names the version and its status, an unknown id or a
    second disable says so, ``enable`` puts it back, and ``/api/admin`` lists the entrants."""
    from starlette.testclient import TestClient

    from spite_arena.config import load_competition
    from spite_arena.service import Service
    from spite_arena.web import create_app

    file = tmp_path / "c.toml"
    file.write_text('house_bots = ["greedy"]\n')
    service = Service(load_competition(file), tmp_path / "data")
    service.enter_house_bots()
    service.store.add_entrant("ann")
    admin = {"Authorization": f"Bearer {service.admin_token}"}
    with TestClient(create_app(service), raise_server_exceptions=False) as client:
        vid = client.get("/api/leaderboard").json()[0]["id"]
        done = client.post(f"/api/admin/disable/{vid}", json={"reason": "too slow"}, headers=admin).json()
        assert done == {"ok": True, "id": vid, "version": "house/greedy v1", "status": "disabled", "reason": "too slow"}
        again = client.post(f"/api/admin/disable/{vid}", json={"reason": "x"}, headers=admin)
        assert again.status_code == 409 and "is disabled already" in again.json()["error"]
        unknown = client.post("/api/admin/disable/999", json={"reason": "x"}, headers=admin)
        assert unknown.status_code == 404 and unknown.json()["error"].startswith("no bot version 999")
        state = client.get("/api/admin", headers=admin).json()
        assert [e["name"] for e in state["entrants"]] == ["ann"] and state["remote"] == []
        assert state["disabled"] == [{"id": vid, "version": "house/greedy v1", "reason": "too slow"}]
        enabled = client.post(f"/api/admin/enable/{vid}", headers=admin).json()
        assert enabled["status"] == "active" and [r["id"] for r in client.get("/api/leaderboard").json()] == [vid]
        twice = client.post(f"/api/admin/enable/{vid}", headers=admin)
        assert twice.status_code == 409 and "only a disabled version can be enabled" in twice.json()["error"]
        assert client.post("/api/admin/enable/999", headers=admin).status_code == 404
    service.store.close()


# -- 24.16: what a remote bot is told ----------------------------------------------------

@pytest.mark.slow
def test_a_remote_bot_says_it_joined_and_hears_its_forfeit_for_timeouts(tmp_path: Path) -> None:
    """24.16: a remote bot said nothing when it joined (nor that its capacity was capped), and
    a game it forfeited for timeouts ended as "INTERNAL: Internal error from Core" (its late
    answer was written after the referee closed the stream, which hid the MatchOver)."""
    import os
    import subprocess
    import sys

    from .conftest import COMPETITION, REPO

    competition = (COMPETITION.replace("decision_ms = 1000", "decision_ms = 200")
                   .replace("bank_ms = 5000", "bank_ms = 300").replace("[limits]", "[limits]\nremote_matches = 1"))
    with running_arena(tmp_path, competition) as arena:
        key = arena.add_entrant("slow")
        env = {"SPITE_ARENA": arena.grpc, "SPITE_BOT_KEY": key, "SPITE_ARENA_CAPACITY": "3"}
        bot = subprocess.Popen([sys.executable, str(REPO / "tests" / "arena" / "bots" / "sleeper" / "bot.py")],
                               cwd=REPO, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
        arena.helpers.append(bot)
        arena.wait_for("the sleeper to be benched and stop", lambda: bot.poll() is not None, timeout=240)
        assert bot.stderr is not None
        said = bot.stderr.read()
    lines = said.splitlines()
    joined = [line for line in lines if "joined the arena" in line]
    assert len(joined) == 1, said
    assert ("entrant slow, version slow/sleeper v1, 1 game at once (asked for 3; capped: this key plays at most 1 "
            "remote games at once") in joined[0]
    games = [line for line in lines if ": game " in line]
    forfeits = [line for line in games if re.search(r"lost \(seat \d forfeits: third strike: no answer to decision",
                                                    line)]
    # a sleeper still asleep in its last game may come too late for the next one's seat (a no-show):
    # the bot hears that as a refused token, never as an internal error
    late = [line for line in games if "refused the seat token" in line]
    assert forfeits and len(forfeits) + len(late) == len(games), said
    assert "INTERNAL" not in said and "Internal error from Core" not in said
    assert "the arena ended the bot's stream" in lines[-1] and "benched" in lines[-1]
