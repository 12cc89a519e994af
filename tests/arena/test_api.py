"""The arena's HTTP API answers every bad request with a clean 4xx and a reason."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Iterator

import pytest
from starlette.testclient import TestClient

from spite_arena.config import load_competition
from spite_arena.service import Service
from spite_arena.web import create_app

LIMITS = "[limits]\nupload_mb = 1\nbuilds_per_hour = 3\nrequests_per_minute = 40\n"


@pytest.fixture
def service(tmp_path: Path) -> Service:
    file = tmp_path / "c.toml"
    file.write_text('name = "api <test>"\nhouse_bots = ["greedy"]\n' + LIMITS)
    service = Service(load_competition(file), tmp_path / "data")
    service.enter_house_bots()
    return service


@pytest.fixture
def client(service: Service) -> Iterator[TestClient]:
    with TestClient(create_app(service), raise_server_exceptions=False) as client:
        yield client


def _tar(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_public_pages_and_their_json(client: TestClient) -> None:
    board = client.get("/api/leaderboard").json()
    assert [(r["entrant"], r["bot"], r["games"]) for r in board] == [("house", "greedy", 0)]
    page = client.get("/")
    assert page.status_code == 200 and "api &lt;test&gt;" in page.text and "<test>" not in page.text
    assert client.get(f"/bots/{board[0]['id']}").status_code == 200
    assert client.get("/bots/999").status_code == 404
    assert client.get("/api/bots/999").json() == {"error": "no bot version 999", "status": 404}
    assert client.get("/api/games?limit=abc").status_code == 400
    assert client.get("/api/games?limit=0").status_code == 400


def test_entrant_calls_need_a_known_key(client: TestClient, service: Service) -> None:
    assert client.get("/api/me").status_code == 401
    assert client.get("/api/me", headers={"Authorization": "Bearer nope"}).json()["error"] == "unknown key"
    assert client.get("/api/me", headers={"Authorization": "Bearer " + "x" * 400}).status_code == 401
    key = service.store.add_entrant("carol")
    assert client.get("/api/me", headers={"Authorization": f"Bearer {key}"}).json()["entrant"] == "carol"
    assert client.get("/api/me/logs/1/0", headers={"Authorization": f"Bearer {key}"}).status_code == 404
    assert client.get("/api/me/versions/1", headers={"Authorization": f"Bearer {key}"}).status_code == 404


def test_bad_uploads_are_refused_with_the_reason(client: TestClient, service: Service) -> None:
    from referee.sandbox import detect

    key = service.store.add_entrant("dave")
    auth = {"Authorization": f"Bearer {key}"}
    if not detect().isolated:
        closed = client.post("/api/submit", content=b"x", headers=auth)
        assert closed.status_code == 503 and "cannot sandbox" in closed.json()["error"]
        return
    too_big = client.post("/api/submit", content=b"\0" * (1024 * 1024 + 10), headers=auth)
    assert too_big.status_code == 413 and "1 MiB" in too_big.json()["error"]
    traversal = client.post("/api/submit", content=_tar({"../x": b"1"}), headers=auth)
    assert traversal.status_code == 422 and "refused path" in traversal.json()["error"]
    no_manifest = client.post("/api/submit", content=_tar({"bot.py": b""}), headers=auth)
    assert no_manifest.status_code == 422 and "no bot.toml" in no_manifest.json()["error"]
    junk = client.post("/api/submit", content=b"junk", headers=auth)
    assert junk.status_code == 422 and "gzipped tar" in junk.json()["error"]
    still_free = client.post("/api/submit", content=b"junk", headers=auth)  # refused before any check: free
    assert still_free.status_code == 422 and service.store.builds_since(service.store.entrant("dave").id, "") == 0
    assert not (service.data / "uploads" / "dave").exists() or not any((service.data / "uploads" / "dave").iterdir())


def test_a_key_is_rate_limited(client: TestClient, service: Service) -> None:
    key = service.store.add_entrant("erin")
    codes = [client.get("/api/me", headers={"Authorization": f"Bearer {key}"}).status_code for _ in range(45)]
    assert codes[:40] == [200] * 40 and codes[-1] == 429


def test_the_organizer_pauses_and_disables_with_the_admin_token(client: TestClient, service: Service) -> None:
    assert client.get("/api/admin").status_code == 401
    assert client.get("/api/admin", headers={"Authorization": "Bearer wrong"}).status_code == 403
    admin = {"Authorization": f"Bearer {service.admin_token}"}
    assert client.post("/api/admin/pause", headers=admin).json()["ok"]
    assert client.get("/api/admin", headers=admin).json()["paused"] is True
    assert client.post("/api/admin/explode", headers=admin).status_code == 404
    vid = client.get("/api/leaderboard").json()[0]["id"]
    assert client.post(f"/api/admin/disable/{vid}", content=b"{not json", headers=admin).status_code == 400
    assert client.post(f"/api/admin/disable/{vid}", json={"reason": "plays too slowly"}, headers=admin).json()["ok"]
    assert client.get(f"/api/bots/{vid}").json()["reason"] == "plays too slowly"
    assert client.get("/api/leaderboard").json() == []
    assert client.get("/admin").status_code == 200


def test_registration_with_the_invite_code(tmp_path: Path) -> None:
    closed = Service(load_competition(_file(tmp_path / "closed", "")), tmp_path / "closed" / "data")
    with TestClient(create_app(closed)) as client:
        answer = client.post("/api/register", json={"name": "x", "invite_code": "whatever-code"})
        assert answer.status_code == 404 and "closed" in answer.json()["error"]
    opened = Service(load_competition(_file(tmp_path / "open", '[registration]\ninvite_code = "open-sesame-123"\n')),
                     tmp_path / "open" / "data")
    with TestClient(create_app(opened)) as client:
        assert client.post("/api/register", json={"name": "x", "invite_code": "wrong-code-000"}).status_code == 403
        assert client.post("/api/register", content=b"[1]").status_code == 400
        made = client.post("/api/register", json={"name": "frank", "invite_code": "open-sesame-123"})
        assert made.status_code == 201 and made.json()["entrant"] == "frank"
        me = client.get("/api/me", headers={"Authorization": f"Bearer {made.json()['key']}"})
        assert me.json()["entrant"] == "frank"
        again = client.post("/api/register", json={"name": "frank", "invite_code": "open-sesame-123"})
        assert again.status_code == 409
        bad = client.post("/api/register", json={"name": "../../x", "invite_code": "open-sesame-123"})
        assert bad.status_code == 400
        codes = [client.post("/api/register", json={"name": f"n{i}", "invite_code": "open-sesame-123"}).status_code
                 for i in range(8)]
        assert codes[-1] == 429


def _file(directory: Path, extra: str) -> Path:
    directory.mkdir(parents=True)
    file = directory / "c.toml"
    file.write_text('house_bots = ["greedy"]\n' + extra)
    return file


def test_small_bodies_are_capped(client: TestClient, service: Service) -> None:
    admin = {"Authorization": f"Bearer {service.admin_token}"}
    huge = client.post("/api/admin/disable/1", content=b"{" + b" " * 20_000 + b"}", headers=admin)
    assert huge.status_code == 413
    assert client.post("/api/register", content=b"x" * 20_000).status_code in (404, 413)
