"""The arena's parts alone: the competition file, the store, the matchmaker, safe unpacking."""

from __future__ import annotations

import io
import random
import tarfile
from collections import Counter
from pathlib import Path

import pytest

from referee.core.reports import SeatFault
from referee.core.status import FaultKind
from spite_arena.config import CompetitionError, Limits, load_competition
from spite_arena.matchmaker import next_pairing, seed_order
from spite_arena.store import ArenaStore, ArenaStoreError, Version
from spite_arena.uploads import UploadError, check_manifest, unpack
from tournaments.ratings import RatingParams

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_competition_loads() -> None:
    competition = load_competition(ROOT / "competitions" / "example.toml")
    assert competition.house_bots == ("greedy", "naive", "random")
    assert competition.rating.tau > 0
    assert competition.limits.upload_mb == 20


@pytest.mark.parametrize("text, field", [
    ("rules = '4p'", "rules"), ("parallel = 0", "parallel"), ("[limits]\nupload_mb = -1", "upload_mb"),
    ("colour = 'red'", "unknown"), ("[finals]\ntop = 1", "finals.top"), ("house_bots = 'greedy'", "house_bots"),
])
def test_a_bad_competition_file_names_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text + "\n")
    with pytest.raises(CompetitionError, match=field):
        load_competition(path)


def test_keys_are_stored_hashed_and_found_by_key(tmp_path: Path) -> None:
    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("alice")
        store.add_entrant("bob")
        assert store.entrant_for_key(key).name == "alice"  # type: ignore[union-attr]
        assert store.entrant_for_key(key + "x") is None
        with pytest.raises(ArenaStoreError, match="exists"):
            store.add_entrant("alice")
        with pytest.raises(ArenaStoreError):
            store.add_entrant("../etc")
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("arena.db*"))
    assert key.encode() not in stored and b"alice" in stored


def test_a_finished_game_counts_once(tmp_path: Path) -> None:
    params = RatingParams()
    with ArenaStore(tmp_path) as store:
        a = store.ensure_house_bot("greedy", "1", "greedy", params)
        b = store.ensure_house_bot("naive", "1", "naive", params)
        game = store.add_game((a, b), 2**64 - 1, 5)
        store.take_game(game, "slot0")
        assert store.recover() == 1  # a kill while running: back to pending, same seed
        assert store.pending_games()[0].seed == 2**64 - 1
        for _ in range(2):
            store.finish_game(game, ending="stock-emptied", reason="r", winners=(0,), scores=(1, 0),
                              faults=((), ()), replay=None, logs=(None, None), params=params)
        winner, loser = store.version(a), store.version(b)
        assert winner is not None and loser is not None
        assert (winner.games, loser.games) == (1, 1)
        assert winner.mu > loser.mu and winner.sigma < params.sigma


def test_a_games_faults_are_kept_with_their_kinds_and_old_ones_read_as_unknown(tmp_path: Path) -> None:
    params = RatingParams()
    with ArenaStore(tmp_path) as store:
        a = store.ensure_house_bot("greedy", "1", "greedy", params)
        b = store.ensure_house_bot("naive", "1", "naive", params)
        new, old = store.add_game((a, b), 1, 5), store.add_game((a, b), 2, 6)
        late = SeatFault(FaultKind.TIMEOUT, "game 0 decision 4: no answer")
        for game in (new, old):
            store.finish_game(game, ending="timeout", reason="r", winners=(0,), scores=(1, 0), faults=((), (late,)),
                              replay=None, logs=(None, None), params=params, offender=1)
        # as schema 1 wrote it: the words alone
        with store.transaction():
            store.db.execute("UPDATE games SET faults = ? WHERE id = ?", ('[[], ["it was late"]]', old))
            store.db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    with ArenaStore(tmp_path) as store:  # the writer brings it to this schema
        assert store.meta("schema_version") == "2"
        assert store.game(new).faults == ((), (late,))
        assert store.game(old).faults == ((), (SeatFault(FaultKind.UNKNOWN, "it was late"),))


def _version(vid: int, entrant: str, mu: float, games: int, last: str | None = None) -> Version:
    return Version(vid, entrant, f"bot{vid}", 1, "", "upload", "", "active", "", (), mu, 8.3, games, last, "")


def test_the_matchmaker_seeds_placement_then_fewest_games_then_least_recent() -> None:
    old = _version(1, "a", 30, 50, "2026-01-02")
    stale = _version(2, "b", 25, 50, "2026-01-01")
    new = _version(3, "c", 25, 1)
    busy: Counter[int] = Counter()
    assert [v.id for v in seed_order([old, stale, new], busy, placement_games=5)] == [3, 2, 1]
    busy[3] = 60  # in flight counts as played
    assert [v.id for v in seed_order([old, stale, new], busy, placement_games=5)] == [2, 1, 3]


def test_the_matchmaker_pairs_near_in_mu_with_other_entrants_and_both_seat_orders() -> None:
    rng = random.Random(1)
    seed = _version(1, "a", 25, 0)
    field = [seed, _version(2, "a", 25, 10)] + [_version(10 + i, f"e{i}", 25 + 3 * i, 10) for i in range(8)]
    seen, first = Counter[int](), Counter[int]()
    for _ in range(300):
        pairing = next_pairing(field, Counter(), rng, placement_games=5)
        assert pairing is not None and seed.id in pairing.seats and pairing.placement
        seen[sum(pairing.seats) - seed.id] += 1
        first[pairing.seats[0]] += 1
    assert set(seen) == {10, 11, 12}  # the three nearest in mu, never its own entrant's bot
    assert 100 < first[seed.id] < 200
    assert next_pairing([seed], Counter(), rng) is None


def test_house_bots_are_not_one_team_to_the_matchmaker() -> None:
    rng = random.Random(2)
    house = [_version(i, "house", 25, 10) for i in (1, 2, 3)]
    outsider = _version(9, "alice", 40, 10)
    opponents = Counter[int]()
    for _ in range(200):
        pairing = next_pairing(house + [outsider], Counter({1: -5}), rng)  # version 1 asks first
        assert pairing is not None and 1 in pairing.seats
        opponents[sum(pairing.seats) - 1] += 1
    assert set(opponents) == {2, 3, 9}  # its nearest in mu, house bots included


def _tar(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def _file(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, b""


@pytest.mark.parametrize("members, reason", [
    ([_file("../evil")], "refused path"),
    ([_file("/etc/evil")], "refused path"),
    ([_link("bot.py", "/etc/passwd")], "link"),
    ([_link("bot.py", "../../x", tarfile.LNKTYPE)], "link"),
    ([_file(f"f{i}") for i in range(5)], "more than 3 files"),
    ([_file("big", b"\0" * (2 * 1024 * 1024))], "unpacks to more than 1 MiB"),
])
def test_an_unsafe_upload_is_refused_with_one_line(tmp_path: Path, members: list[tuple[tarfile.TarInfo, bytes]],
                                                   reason: str) -> None:
    with pytest.raises(UploadError, match=reason):
        unpack(_tar(members), tmp_path / "bot", Limits(unpacked_mb=1, files=3))
    assert not (tmp_path / "evil").exists()


def test_not_a_tar_and_too_big_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UploadError, match="gzipped tar"):
        unpack(b"PK\x03\x04 not a tar", tmp_path / "a", Limits())
    with pytest.raises(UploadError, match="over the limit"):
        unpack(b"\0" * (1024 * 1024 + 1), tmp_path / "b", Limits(upload_mb=1))


def test_an_upload_may_build_in_the_sandbox_but_not_set_limits(tmp_path: Path) -> None:
    for text, reason in [("build = 'make'", "build"), ("[limits]\nmemory_mb = 99999", "limits")]:
        folder = tmp_path / reason
        folder.mkdir()
        (folder / "bot.py").write_text("")
        (folder / "bot.toml").write_text(f"name = 'x'\ncommand = ['{{python}}', 'bot.py']\n{text}\n")
        if reason == "build":  # run later, in the sandbox (tests/arena/test_upload_builds.py)
            assert check_manifest(folder).build == "make"
            continue
        with pytest.raises(UploadError, match=reason):
            check_manifest(folder)
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "bot.toml").write_text("name = 'x'\ncommand = ['/bin/true']\nworkdir = '..'\n")
    with pytest.raises(UploadError, match="workdir"):
        check_manifest(tmp_path / "w")
