"""Entrants treated fairly by a real ``spite serve`` (issue 24, items 1-5; issue 31, item 4):
the checks run under the competition's own time control and rules; a check the machine was
too slow for is the server's fault and costs nothing; only checked uploads count against
``builds_per_hour`` and the 429 says when the next is allowed; concurrent uploads cannot
race past the cap; an over-limit upload and an unknown key get their sentence and the right
exit code from ``spite submit``; a refusal's log is read on ``/me``, not at a server path."""

from __future__ import annotations

import http.client
import io
import json
import os
import sqlite3
import tarfile
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.languages.common import unavailable

from .conftest import REPO, Arena, running_arena

pytestmark = pytest.mark.slow

CRASHER = Path(__file__).parent / "bots" / "crasher"
ANSI = Path(__file__).parent / "bots" / "ansi"


@pytest.fixture(autouse=True)
def _sandboxed() -> None:
    from referee.sandbox import detect

    if not detect().isolated:  # uploads run only in the sandbox: CI must have it, a laptop may not
        unavailable(f"no sandbox here: {detect().reason} (.ci/run installs bubblewrap)")


def _competition(time_control: str, limits: str) -> str:
    return (f'name = "fair"\nrules = "standard"\nhouse_bots = ["greedy"]\nparallel = 1\n'
            f"[time_control]\n{time_control}\n[limits]\nrequests_per_minute = 10000\n{limits}\n")


def _builds(data: Path) -> int:
    with sqlite3.connect(f"file:{data / 'arena.db'}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT COUNT(*) FROM builds").fetchone()[0])


def _submit(arena: Arena, bot: Path, key: str, *extra: str) -> Any:
    """``spite submit`` as the README says an entrant runs it: the key in ``SPITE_BOT_KEY``
    (``--key`` warns that it shows in ``ps``)."""
    return arena.spite("submit", str(bot), "--server", arena.url, *extra, env={"SPITE_BOT_KEY": key})


def test_checks_use_the_competitions_time_control_and_a_slow_machine_is_not_the_bots_fault(
        tmp_path: Path) -> None:
    # connect_ms = 1: no bot, not even the reference, connects in time. The checks used to
    # run with a hard-coded 5 s and passed; a fault the reference bot shares is the machine's.
    competition = _competition("decision_ms = 1000\nconnect_ms = 1", "builds_per_hour = 2")
    with running_arena(tmp_path, competition) as arena:
        alice = arena.add_entrant("alice")
        for attempt in range(2):  # not charged (no build recorded); free up to the hourly cap
            done = _submit(arena, REPO / "sample_bots" / "greedy", alice)
            last = done.stdout.strip().splitlines()[-1]
            assert done.returncode == 3, done.stdout + done.stderr
            assert last.startswith("not judged:") and "reference bot (greedy) missed its limits too" in last
            assert "not your bot's" in last and "does not count against your uploads" in last
            assert "within 0.001 s" in done.stdout  # the competition's connect_ms, not 5 s
            assert "fix: start faster: the bot must send Hello within 0.001 s" in done.stdout
            assert "rules.players" not in done.stdout and "SPITE_ADDRESS and SPITE_TOKEN" not in done.stdout
            assert "SKIP  presets" in done.stdout and "only standard is played here" in done.stdout
        versions = arena.get("/api/me", alice)[1]["versions"]
        assert [(v["status"], v["platform_fault"]) for v in versions] == [("refused", True)] * 2
        assert _builds(arena.data) == 0
        third = _submit(arena, REPO / "sample_bots" / "greedy", alice)  # a bot could slow the reference down
        assert third.returncode == 1 and "the server could not judge 2 of your uploads in the last hour" in third.stdout
        assert {i["kind"] for i in arena.get("/api/admin", (arena.data / "admin.token").read_text().strip())[1][
            "incidents"]} == {"platform"}


def _bot(folder: Path, toml: str, **files: bytes) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(toml)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def test_only_checked_uploads_count_and_every_refusal_has_its_sentence(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))  # the server's temporary files, to see what it leaves
    competition = _competition("decision_ms = 1000\nconnect_ms = 10000", "builds_per_hour = 1\nupload_mb = 1")
    with running_arena(tmp_path, competition) as arena:
        alice, bob = arena.add_entrant("alice"), arena.add_entrant("bob")

        unknown = _submit(arena, CRASHER, "sk_not-a-key")
        assert unknown.returncode == 2 and "refused the key (unknown key)" in unknown.stderr
        assert unknown.stderr.count("\n") == 1 and "Traceback" not in unknown.stderr

        # 25 MB: the server used to answer 413 and close while the client still sent ("reset by peer")
        big = _bot(tmp_path / "big", 'name = "big"\ncommand = ["{python}", "bot.py"]\n', **{
            "bot.py": b"", "blob.bin": os.urandom(25_000_000)})
        over = _submit(arena, big, alice)
        assert over.returncode == 1, over.stdout + over.stderr
        assert over.stdout.strip() == ("refused: the upload is over the limit of 1 MiB; leave out what the bot "
                                       "does not need")

        broken = _bot(tmp_path / "broken", 'name = \n')
        for _ in range(3):  # refused before any check ran: free
            refused = _submit(arena, broken, alice)
            assert refused.returncode == 1 and "refused: bot.toml: not valid TOML" in refused.stdout
        assert _builds(arena.data) == 0

        crashed = _submit(arena, ANSI, alice)  # checked (and refused): it counts
        assert crashed.returncode == 1, crashed.stdout + crashed.stderr
        assert crashed.stdout.strip().splitlines()[-1].startswith("refused: failed the crash check: RuntimeError")
        assert "\\x1b]0;pwned\\x07" in crashed.stdout  # the bot's log, shown and harmless
        assert not any(char in crashed.stdout + crashed.stderr for char in ("\x1b", "\x07", "\x9b", "\u202e"))
        verdict = arena.get("/api/me", alice)[1]["versions"][-1]
        assert verdict["status"] == "refused" and not verdict["platform_fault"]
        assert _builds(arena.data) == 1
        text = "\n".join([verdict["reason"], *verdict["checks"]])
        assert f"whole log: /me, version {verdict['id']}'s check logs" in text
        assert str(arena.data) not in text and str(scratch) not in text and "/tmp/" not in text
        status, logs = arena.get(f"/api/me/versions/{verdict['id']}/logs", alice)
        assert status == 200 and "RuntimeError: boom" in logs
        assert arena.get(f"/api/me/versions/{verdict['id']}/logs", bob)[0] == 404
        assert arena.get(f"/api/me/versions/{verdict['id']}/logs")[0] == 401

        limited = _submit(arena, CRASHER, alice)
        assert limited.returncode == 1
        line = limited.stdout.strip()
        assert line.startswith("refused: 1 of your uploads were checked in the last hour, the limit is 1; "
                               "the next is allowed at ") and " UTC (in 60 min)" in line, line
        status, headers, _ = _raw_upload(arena, alice, b"x")
        assert status == 429 and 3500 <= int(headers["retry-after"]) <= 3601
    assert not list(scratch.glob("spite-check-bot-*")), "the checks left their temporary logs behind"


def _raw_upload(arena: Arena, key: str, body: bytes, barrier: threading.Barrier | None = None
                ) -> tuple[int, dict[str, str], dict[str, Any]]:
    """POST /api/submit by hand: headers and half the body, then (with ``barrier``) wait for
    every other uploader to get that far, then the rest."""
    connection = http.client.HTTPConnection("127.0.0.1", arena.web_port, timeout=120)
    try:
        connection.putrequest("POST", "/api/submit")
        connection.putheader("Authorization", f"Bearer {key}")
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        connection.send(body[:len(body) // 2])
        if barrier is not None:
            barrier.wait(120)
        connection.send(body[len(body) // 2:])
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(response.read())
    finally:
        connection.close()


def _packed(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(folder.iterdir()):
            archive.add(path, arcname=path.name)
    return buffer.getvalue()


def test_concurrent_uploads_cannot_race_past_the_caps(tmp_path: Path) -> None:
    """20 uploads at once, all past their headers before any body is complete: the count
    and the reservation are one step before the body is read, so one is taken (one check at
    a time per entrant) and the others are told to wait for its verdict."""
    with running_arena(tmp_path, _competition("connect_ms = 10000", "builds_per_hour = 6")) as arena:
        alice = arena.add_entrant("alice")
        body = _packed(CRASHER)
        barrier = threading.Barrier(20)
        answers: list[tuple[int, dict[str, Any]]] = []

        def upload() -> None:
            status, _, answer = _raw_upload(arena, alice, body, barrier)
            answers.append((status, answer))

        threads = [threading.Thread(target=upload) for _ in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(180)
        assert sorted(status for status, _ in answers) == [202] + [429] * 19
        assert all("still being checked" in answer["error"] for status, answer in answers if status == 429)
        arena.wait_for("the verdict", lambda: arena.get("/api/me", alice)[1]["versions"][0]["status"] != "checking")
        assert len(arena.get("/api/me", alice)[1]["versions"]) == 1 and _builds(arena.data) == 1
