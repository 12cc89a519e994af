"""Issue 31, item 14: the web faces under hostile requests. Deep JSON and numbers beyond 64
bits are a 4xx with one line, never a 500 with a traceback; X-Forwarded-For names the client
only when the organizer trusts a proxy; wrong keys are limited per address; connections that
never finish a request's headers are closed; error messages show no server paths.

Real ``spite serve`` processes on free ports (one ladder bot, so no game is played), real
sockets; the header deadline's own test runs uvicorn in a thread with a short deadline."""

from __future__ import annotations

import asyncio
import io
import json
import os
import select
import socket
import tarfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.languages.common import unavailable

from .conftest import Arena

INVITE = "an-invite-code-for-tests"
COMPETITION = f"""
name = "hardening"
rules = "standard"
house_bots = ["greedy"]
parallel = 1

[limits]
requests_per_minute = 10000

[registration]
invite_code = "{INVITE}"
"""


def _start(directory: Path, *extra: str) -> Arena:
    directory.mkdir(parents=True, exist_ok=True)
    file = directory / "competition.toml"
    file.write_text(COMPETITION)
    arena = Arena(file, directory / "data", extra=list(extra))
    arena.start()
    return arena


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    """``spite serve`` as started by default: no proxy trusted."""
    arena = _start(tmp_path_factory.mktemp("plain"))
    try:
        yield arena
    finally:
        arena.stop()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    """``spite serve --trusted-proxy 127.0.0.1``: a reverse proxy on this machine names each
    client in X-Forwarded-For (so each test below can be its own client address)."""
    arena = _start(tmp_path_factory.mktemp("proxied"), "--trusted-proxy", "127.0.0.1")
    try:
        yield arena
    finally:
        arena.stop()


def call(arena: Arena, method: str, path: str, body: bytes | None = None, **headers: str) -> tuple[int, Any]:
    request = urllib.request.Request(arena.url + path, data=body, method=method,
                                     headers={k.replace("_", "-"): v for k, v in headers.items()})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            status, raw = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


def server_output(arena: Arena) -> str:
    """What the server printed so far (stdout and stderr), without waiting for more."""
    assert arena.process is not None and arena.process.stdout is not None
    chunks = []
    descriptor = arena.process.stdout.fileno()
    while select.select([descriptor], [], [], 0.2)[0]:
        chunk = os.read(descriptor, 65536)
        if not chunk:
            break
        chunks.append(chunk.decode(errors="replace"))
    return "".join(chunks)


def admin_token(arena: Arena) -> str:
    return (arena.data / "admin.token").read_text().strip()


def register(arena: Arena, client: str | None = None) -> int:
    headers = {"X_Forwarded_For": client} if client else {}
    status, _ = call(arena, "POST", "/api/register", json.dumps({"name": "x", "invite_code": "wrong" * 4}).encode(),
                     Content_Type="application/json", **headers)
    return status


def test_deeply_nested_json_is_a_400_with_one_line(plain: Arena) -> None:
    status, answer = call(plain, "POST", "/api/admin/disable/1", b"[" * 8000 + b"]" * 8000,
                          Authorization=f"Bearer {admin_token(plain)}", Content_Type="application/json")
    assert (status, answer) == (400, {"error": "the body's JSON nests too deep", "status": 400})
    assert call(plain, "GET", "/api/leaderboard")[0] == 200  # the server is fine
    assert "Traceback" not in server_output(plain)


@pytest.mark.parametrize("path", ["/api/bots/{n}", "/bots/{n}", "/api/me/versions/{n}", "/api/me/logs/{n}/0",
                                  "/api/me/replays/1/{n}"])
def test_numbers_beyond_64_bits_in_a_path_match_no_route(plain: Arena, path: str) -> None:
    key = plain.add_entrant(f"big{abs(hash(path)) % 10_000}")
    for number in (2**63, 2**70, 10**40):
        status, answer = call(plain, "GET", path.format(n=number), Authorization=f"Bearer {key}")
        assert status == 404, (path, number, status, answer)
    assert "Traceback" not in server_output(plain)


def test_a_number_beyond_64_bits_in_an_admin_path_is_404(plain: Arena) -> None:
    status, answer = call(plain, "POST", f"/api/admin/disable/{2**70}", b"{}",
                          Authorization=f"Bearer {admin_token(plain)}")
    assert status == 404 and isinstance(answer, dict) and answer["status"] == 404
    assert "Traceback" not in server_output(plain)


def test_x_forwarded_for_is_not_believed_without_a_trusted_proxy(plain: Arena) -> None:
    """12 registrations, each claiming another address: the 10-a-minute limit still counts
    them as this one client (it was 12 of 12 through)."""
    answers = [register(plain, f"203.0.113.{i}") for i in range(12)]
    assert answers[:10] == [403] * 10  # a wrong invite code, counted
    assert answers[10:] == [429, 429]


def test_a_trusted_proxy_names_each_client(proxied: Arena) -> None:
    assert [register(proxied, f"198.51.100.{i}") for i in range(12)] == [403] * 12  # twelve clients, one each
    same = [register(proxied, "198.51.100.200") for _ in range(11)]
    assert same == [403] * 10 + [429]


def test_wrong_keys_are_limited_per_address(proxied: Arena) -> None:
    key = proxied.add_entrant("keyholder")
    guesser = {"X_Forwarded_For": "192.0.2.7"}
    wrong = [call(proxied, "GET", "/api/me", Authorization=f"Bearer sk_guess{i}", **guesser)[0] for i in range(22)]
    assert wrong == [401] * 20 + [429, 429]
    # even a good key, for now
    assert call(proxied, "GET", "/api/me", Authorization=f"Bearer {key}", **guesser)[0] == 429
    assert call(proxied, "GET", "/api/admin", Authorization="Bearer nope", **guesser)[0] == 429
    status, me = call(proxied, "GET", "/api/me", Authorization=f"Bearer {key}", X_Forwarded_For="192.0.2.8")
    assert (status, me["entrant"]) == (200, "keyholder")


def test_error_messages_do_not_show_the_servers_paths(plain: Arena) -> None:
    from referee.sandbox import detect

    if not detect().isolated:  # uploads run only in the sandbox: CI must have it, a laptop may not
        unavailable(f"uploads are closed where bots cannot be sandboxed: {detect().reason} "
                    f"(.ci/run installs bubblewrap)")
    key = plain.add_entrant("up04")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        manifest = b'name = "leaky"\nversion = "1"\ncommand = ["{python}", "../../x.py"]\n'
        info = tarfile.TarInfo("bot.toml")
        info.size = len(manifest)
        archive.addfile(info, io.BytesIO(manifest))
    status, answer = call(plain, "POST", "/api/submit", buffer.getvalue(), Authorization=f"Bearer {key}",
                          Content_Type="application/gzip")
    assert status == 422, answer
    assert "leads out of the bot's folder <your upload>" in answer["error"]
    for shown in (str(plain.data), str(plain.data.resolve()), "uploads/up04", "incoming-"):
        assert shown not in answer["error"]


def _raw(port: int, data: bytes = b"") -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    if data:
        connection.sendall(data)
    return connection


def _closed_by_server(connection: socket.socket) -> bool:
    connection.setblocking(False)
    try:
        return connection.recv(4096) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True
    finally:
        connection.setblocking(True)


def test_connections_that_never_finish_their_headers_are_closed() -> None:
    """The header deadline itself, short here: a silent connection, one that drips a header a
    byte at a time, and one idle after its first answer are closed; a prompt request is served."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from spite_web.serving import bind_listener, server_config

    async def hello(request: Any) -> PlainTextResponse:
        return PlainTextResponse("hello")

    async def slow(request: Any) -> PlainTextResponse:
        await asyncio.sleep(1.5)  # longer than the header deadline: a request in progress is never cut
        return PlainTextResponse("slow")

    listener = bind_listener("127.0.0.1", 0, "--web")
    port = listener.getsockname()[1]
    server = uvicorn.Server(server_config(Starlette(routes=[Route("/", hello), Route("/slow", slow)]), "127.0.0.1",
                                          port,
                                          header_timeout=0.5))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[listener])), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        silent = _raw(port)
        dripping = _raw(port, b"GET / HTTP/1.1\r\n")
        served = _raw(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        served.settimeout(30)
        answer = b""
        while not answer.endswith(b"hello"):  # then it idles, a keep-alive connection
            chunk = served.recv(4096)
            assert chunk, f"closed before its answer: {answer!r}"
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200")
        pipelined = _raw(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        pipelined.settimeout(30)
        both = b""
        while not both.endswith(b"slow"):
            chunk = pipelined.recv(4096)
            assert chunk, f"a pipelined request was cut: {both!r}"
            both += chunk
        assert both.count(b"HTTP/1.1 200") == 2
        deadline = time.monotonic() + 60  # not a speed check: a generous cap on a busy machine
        open_ones = {"silent": silent, "dripping": dripping, "idle after an answer": served,
                     "idle after pipelined answers": pipelined}
        while open_ones and time.monotonic() < deadline:
            if "dripping" in open_ones:
                try:
                    dripping.sendall(b"X")  # a byte now and then: uvicorn's own idle timer never fires
                except OSError:
                    pass  # closed under it: the next look sees it
            open_ones = {name: c for name, c in open_ones.items() if not _closed_by_server(c)}
            time.sleep(0.1)
        assert not open_ones, f"still open: {sorted(open_ones)}"
    finally:
        server.should_exit = True
        thread.join(30)


@pytest.mark.slow
def test_spite_serve_closes_half_open_connections(plain: Arena) -> None:
    """300 connections that never send a request were held for ever: now each is closed at the
    header deadline (10 s), and the server keeps answering meanwhile."""
    connections = [_raw(plain.web_port, b"GET / HTTP/1.1\r\n" if i % 2 else b"") for i in range(100)]
    try:
        assert call(plain, "GET", "/api/leaderboard")[0] == 200
        deadline = time.monotonic() + 120  # not a speed check: a generous cap on a busy machine
        while connections and time.monotonic() < deadline:
            closed = [c for c in connections if _closed_by_server(c)]
            for connection in closed:
                connection.close()
            connections = [c for c in connections if c not in closed]
            time.sleep(0.2)
        assert not connections, f"{len(connections)} half-open connections are still open"
    finally:
        for connection in connections:
            connection.close()


def test_spite_web_answers_numbers_beyond_64_bits_with_a_4xx(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from spite_web.app import create_app
    from tournaments.store import Store

    Store(tmp_path / "spite.db").close()
    with TestClient(create_app(tmp_path / "spite.db"), raise_server_exceptions=False) as client:
        for path in (f"/api/games?offset={2**70}", f"/api/games?tournament={2**70}", f"/games?offset={2**70}"):
            assert client.get(path).status_code < 500, path  # 400, or nothing found: never a 500
        for path in (f"/api/replays/{2**70}/0", f"/api/tournaments/{2**63}", f"/tournaments/{10**30}/bots/x"):
            assert client.get(path).status_code == 404, path
