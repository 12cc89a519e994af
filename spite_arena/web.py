"""The arena's web face: public pages and JSON over the arena store, and the entrants' API.

Public (anyone): ``/`` the ladder's leaderboard (live), ``/bots/{id}`` a version's page,
``/api/leaderboard``, ``/api/games``, ``/api/bots/{id}``. Those show results only: no
replay (omniscient), no log, no debug string.

With the competition's invite code, ``POST /api/register`` ``{"name", "invite_code"}``
makes an entrant and answers its key once (10 a minute per address).

Entrants (``Authorization: Bearer KEY``; ``/me`` is a page that asks for it and calls these): ``POST /api/submit`` (a gzipped tar of a bot
directory), ``GET /api/me`` (their versions, check results and refusal reasons),
``GET /api/me/versions/{id}/logs`` (the logs of a version's check matches),
``GET /api/me/logs/{game}/{seat}`` (their own bot's log of a game) and
``GET /api/me/replays/{game}/{seat}`` (the game as that seat saw it, with its own debug
strings only); any seat not theirs is 404.

Organizer (``Authorization: Bearer ADMIN_TOKEN``; ``/admin`` is a page that asks for it and
calls these): ``GET /api/admin`` (incidents, worker
slots, counts, entrants, joined remote bots, disabled versions), ``POST /api/admin/{pause,resume,rerun-void}``,
``POST /api/admin/disable/{id}`` and ``POST /api/admin/enable/{id}``.

Reads open the store read-only per request; writes go through the service's one writer.
Errors are JSON ``{"error": ..., "status": ...}`` with a 4xx code.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import re
import shutil
import time
from collections import defaultdict, deque
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from referee.manifest import BotManifest
from spite_web.app import HERE as WEB_HERE
from spite_web.app import number_too_large
from spite_web.live import ladder_routes

from .config import Competition
from .ladder import LIVE, SlotHealth
from .store import ArenaStore, ArenaStoreError, Entrant, UploadLimit, Version, check_name, hash_key
from .uploads import CHECKS_AT_ONCE, UploadError, check_log_dir, check_manifest, unpack

HERE = Path(__file__).resolve().parent
LOG_TAIL_BYTES = 64 * 1024
DRAIN_BYTES = 64 * 1024 * 1024
"""The most of a refused upload's body read (and dropped) before answering."""
templates = Jinja2Templates(directory=str(HERE / "templates"))


def board_rows(versions: list[Version]) -> list[dict[str, Any]]:
    """The leaderboard's rows, best first by mu - 3 sigma: the one ordering for page and API."""
    ranked = sorted(versions, key=lambda v: (-v.conservative, -v.mu, v.id))
    return [{"rank": i + 1, "id": v.id, "entrant": v.entrant, "bot": v.bot, "version": v.version,
             "label": v.label, "kind": v.kind, "status": v.status, "rating": round(v.conservative, 3),
             "mu": round(v.mu, 3), "sigma": round(v.sigma, 3), "games": v.games,
             "last_played_at": v.last_played_at} for i, v in enumerate(ranked)]


def game_dict(game: Any, titles: dict[int, str]) -> dict[str, Any]:
    return {"id": game.id, "phase": game.phase, "status": game.status, "versions": list(game.versions),
            "bots": [titles.get(v, str(v)) for v in game.versions], "winners": list(game.winners),
            "scores": list(game.scores), "ending": game.ending, "reason": game.reason,
            "finished_at": game.finished_at}


SMALL_BODY = 16 * 1024
WRONG_KEYS_PER_MINUTE = 20


def without_server_paths(text: str, data: Path) -> str:
    """``text`` for a client: an upload's folder on this server (``DATA/uploads/NAME/incoming-N``,
    ``.../vN``) becomes ``<your upload>``, any other path under the data directory
    ``DATA/...`` -- the server's layout is nobody else's business."""
    roots = sorted({str(data), str(data.absolute()), str(data.resolve())}, key=len, reverse=True)
    for root in roots:  # a whole path only: "data" is not replaced inside "metadata/..."
        prefix = r"(?<![\w./-])" + re.escape(root.rstrip("/"))
        text = re.sub(prefix + r"/uploads/[^/\s]+/(?:incoming-\d+|v\d+)", "<your upload>", text)
        text = re.sub(prefix + (r"(?![\w.-])" if root.startswith("/") else "(?=/)"), "DATA", text)
    return text



async def small_body(request: Request) -> Any:
    """A JSON body of at most ``SMALL_BODY`` bytes (413 beyond, 400 if not JSON)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > SMALL_BODY:
        raise HTTPException(413, f"the body is over {SMALL_BODY} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > SMALL_BODY:
            raise HTTPException(413, f"the body is over {SMALL_BODY} bytes")
    try:
        return json.loads(body or b"{}")
    except ValueError:
        raise HTTPException(400, "the body must be JSON") from None
    except RecursionError:  # 16 KiB of "[" nests deeper than the parser's stack
        raise HTTPException(400, "the body's JSON nests too deep") from None


class RateLimiter:
    """At most ``per_minute`` requests per key in any sliding minute."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.seen: dict[str, deque[float]] = defaultdict(deque)

    def full(self, key: str) -> bool:
        """Whether ``key`` used up its minute (without counting this look)."""
        times = self.seen.get(key)
        now = time.monotonic()
        while times and times[0] < now - 60:
            times.popleft()
        return bool(times) and len(times or ()) >= self.per_minute

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        if len(self.seen) > 10_000:  # forget idle keys, so made-up keys cannot grow this without end
            for idle in [k for k, t in self.seen.items() if not t or t[-1] < now - 60]:
                del self.seen[idle]
        times = self.seen[key]
        while times and times[0] < now - 60:
            times.popleft()
        if len(times) >= self.per_minute:
            return False
        times.append(now)
        return True


class Host(Protocol):
    """What the app needs of the process serving it (:class:`spite_arena.service.Service`)."""

    competition: Competition
    data: Path
    store: ArenaStore
    """The one writer."""
    admin_token: str

    def health(self) -> list[SlotHealth]: ...

    def remote_bots(self) -> list[dict[str, Any]]: ...

    def start_check(self, version_id: int, manifest: Path) -> None: ...


def create_app(service: Host) -> Starlette:
    data = service.data
    limits = service.competition.limits
    limiter = RateLimiter(limits.requests_per_minute)
    registrations = RateLimiter(10)
    wrong_keys = RateLimiter(WRONG_KEYS_PER_MINUTE)
    """Per client address: unknown entrant keys and wrong admin tokens. Past the limit the
    address is answered 429 before any key is looked at, so keys cannot be guessed at speed."""

    def client_address(request: Request) -> str:
        """The TCP peer; a proxy's X-Forwarded-For only with ``spite serve --trusted-proxy``
        (uvicorn then puts the client it names here)."""
        return request.client.host if request.client else "?"

    def check_wrong_keys(request: Request) -> None:
        if wrong_keys.full(client_address(request)):
            raise HTTPException(429, f"more than {WRONG_KEYS_PER_MINUTE} wrong keys a minute from this address; "
                                     "wait a minute")

    def reader() -> ArenaStore:
        return ArenaStore(data, readonly=True)

    def bearer(request: Request) -> str:
        header = request.headers.get("authorization", "")
        if not header.lower().startswith("bearer ") or len(header) > 300:
            raise HTTPException(401, "send the entrant's key: Authorization: Bearer KEY")
        return header[7:].strip()

    def entrant_of(request: Request) -> Entrant:
        check_wrong_keys(request)
        key = bearer(request)
        if not limiter.allow(hash_key(key)):
            raise HTTPException(429, f"more than {limits.requests_per_minute} requests a minute with this key")
        with reader() as store:
            entrant = store.entrant_for_key(key)
        if entrant is None:
            wrong_keys.allow(client_address(request))
            raise HTTPException(401, "unknown key")
        if entrant.banned is not None:
            raise HTTPException(403, f"entrant {entrant.name} is banned from this competition ({entrant.banned}); "
                                     f"ask the organizer")
        return entrant

    def admin(request: Request) -> None:
        check_wrong_keys(request)
        key = bearer(request)
        if not service.admin_token or not hmac.compare_digest(hash_key(key), hash_key(service.admin_token)):
            wrong_keys.allow(client_address(request))
            raise HTTPException(403, "this needs the organizer's admin token")

    def page(name: str, request: Request, **context: Any) -> Response:
        return templates.TemplateResponse(request, name, {"competition": service.competition.name, **context})

    async def index(request: Request) -> Response:
        with reader() as store:
            rows = board_rows(store.versions(statuses=("active",)))
            counts = store.counts()
            paused = store.paused
            titles = {v.id: v.title for v in store.versions()}
            games = [game_dict(g, titles) for g in store.games(limit=10)]
        return page("arena.html", request, rows=rows, counts=counts, paused=paused, games=games)

    async def api_leaderboard(request: Request) -> Response:
        statuses = ("active", "retired") if request.query_params.get("all") == "1" else ("active",)
        with reader() as store:
            return JSONResponse(board_rows(store.versions(statuses=statuses)))

    async def api_games(request: Request) -> Response:
        text = request.query_params.get("limit", "50")
        if not text.isdigit() or not 1 <= int(text) <= 500:
            raise HTTPException(400, "limit must be a number in 1..500")
        with reader() as store:
            titles = {v.id: v.title for v in store.versions()}
            return JSONResponse({"counts": store.counts(),
                                 "games": [game_dict(g, titles) for g in store.games(limit=int(text))]})

    def version_or_404(store: ArenaStore, vid: int) -> Version:
        version = store.version(vid)
        if version is None:
            raise HTTPException(404, f"no bot version {vid}")
        return version

    async def bot_page(request: Request) -> Response:
        with reader() as store:
            version = version_or_404(store, request.path_params["vid"])
            titles = {v.id: v.title for v in store.versions()}
            games = [game_dict(g, titles) for g in store.games(version_id=version.id, limit=30)]
        return page("bot.html", request, v=version, games=games)

    async def api_bot(request: Request) -> Response:
        with reader() as store:
            version = version_or_404(store, request.path_params["vid"])
            titles = {v.id: v.title for v in store.versions()}
            games = [game_dict(g, titles) for g in store.games(version_id=version.id, limit=30)]
        public = {k: v for k, v in board_rows([version])[0].items() if k != "rank"}
        return JSONResponse({**public, "reason": version.reason if version.status == "disabled" else "",
                             "recent_games": games})

    # -- entrants ----------------------------------------------------------------------

    async def api_me(request: Request) -> Response:
        entrant = entrant_of(request)
        with reader() as store:
            versions = store.versions(entrant=entrant.name)
        return JSONResponse({"entrant": entrant.name, "versions": [
            {"id": v.id, "bot": v.bot, "version": v.version, "label": v.label, "kind": v.kind, "status": v.status,
             "reason": without_server_paths(v.reason, data), "checks": [without_server_paths(c, data) for c in v.checks],
             "platform_fault": v.platform_fault,
             "rating": round(v.conservative, 3), "games": v.games}
            for v in versions]})

    async def api_my_version(request: Request) -> Response:
        entrant = entrant_of(request)
        with reader() as store:
            version = store.version(request.path_params["vid"])
        if version is None or version.entrant != entrant.name:
            raise HTTPException(404, f"you have no bot version {request.path_params['vid']}")
        return JSONResponse({"id": version.id, "bot": version.bot, "version": version.version,
                             "status": version.status, "reason": without_server_paths(version.reason, data),
                             "checks": [without_server_paths(c, data) for c in version.checks],
                             "platform_fault": version.platform_fault})

    def own_seat(request: Request) -> tuple[Any, int]:
        """The game and seat of the path, if the key's entrant played that seat; else 404."""
        entrant = entrant_of(request)
        gid, seat = request.path_params["gid"], request.path_params["seat"]
        with reader() as store:
            game = store.game(gid)
            owner = None
            if game is not None and 0 <= seat < len(game.versions):
                version = store.version(game.versions[seat])
                owner = version.entrant if version else None
        if game is None or owner != entrant.name:
            raise HTTPException(404, f"you have no bot in seat {seat} of game {gid}")
        return game, seat

    async def api_my_log(request: Request) -> Response:
        game, seat = own_seat(request)
        gid = game.id
        path = game.logs[seat] if seat < len(game.logs) else None  # the seat's own file, recorded with the game
        if not path or Path(path).parent != Path(data) / "logs" / str(gid) or not Path(path).is_file():
            raise HTTPException(404, f"no log kept for seat {seat} of game {gid}")
        with open(path, "rb") as source:
            source.seek(max(0, Path(path).stat().st_size - LOG_TAIL_BYTES))
            return PlainTextResponse(source.read().decode("utf-8", errors="replace"))

    async def api_my_replay(request: Request) -> Response:
        """The game as the entrant's seat saw it, with its own debug strings only."""
        from referee import replay as replay_file
        from spite_web.replay_view import ViewError, viewer_data

        game, seat = own_seat(request)
        try:
            loaded = replay_file.load(game.replay or "")
            return JSONResponse(viewer_data(loaded, seat, source=f"game {game.id}, as seat {seat}"))
        except (replay_file.ReplayError, ViewError) as error:
            raise HTTPException(404, f"no readable replay of game {game.id}: {str(error)[:200]}") from None

    async def api_register(request: Request) -> Response:
        """Open registration: an invite code makes a new entrant and answers its key once."""
        code = service.competition.invite_code
        if not code:
            raise HTTPException(404, "registration is closed: ask the organizer for a key")
        if not registrations.allow(client_address(request)):
            raise HTTPException(429, "too many registrations from this address; try later")
        body = await small_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("name"), str) or \
                not isinstance(body.get("invite_code"), str):
            raise HTTPException(400, 'the body must be JSON: {"name": "...", "invite_code": "..."}')
        if not hmac.compare_digest(hash_key(body["invite_code"]), hash_key(code)):
            raise HTTPException(403, "wrong invite code")
        try:
            key = service.store.add_entrant(body["name"][:100])
        except ArenaStoreError as error:
            raise HTTPException(409 if "exists" in str(error) else 400, str(error)) from None
        return JSONResponse({"entrant": body["name"], "key": key}, status_code=201)

    async def drain(request: Request) -> None:
        """Read and drop the rest of a refused upload (at most ``DRAIN_BYTES``), so a client
        still sending its body reads the answer instead of a reset connection. A client that
        sent ``Expect: 100-continue`` has not sent the body: there is nothing to read."""
        declared = request.headers.get("content-length", "")
        if request.headers.get("expect", "").lower() == "100-continue" or \
                (declared.isdigit() and int(declared) > DRAIN_BYTES):
            return
        seen = 0
        try:
            async for chunk in request.stream():
                seen += len(chunk)
                if seen > DRAIN_BYTES:
                    return
        except (ClientDisconnect, RuntimeError):
            return

    async def api_submit(request: Request) -> Response:
        """Limits first (key, sandbox, size, the hourly cap and one check at a time, counted
        and reserved in one transaction), then the body, then unpacking and the manifest; the
        checks run in the background and only they count against ``builds_per_hour``."""
        from referee.sandbox import detect

        cap = limits.upload_mb * 1024 * 1024
        too_big = f"the upload is over the limit of {limits.upload_mb} MiB; leave out what the bot does not need"
        try:
            entrant = entrant_of(request)
            if not detect().isolated:
                raise HTTPException(503, "uploads are closed: this server cannot sandbox bots (`spite doctor` says why)")
            declared = request.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                raise HTTPException(413, too_big)
            try:
                slot = service.store.reserve_upload(entrant.id, limits.builds_per_hour, CHECKS_AT_ONCE)
            except UploadLimit as error:
                raise HTTPException(429, str(error), headers={"Retry-After": str(error.retry_after)}) from None
        except HTTPException:
            await drain(request)
            raise
        staging = data / "uploads" / entrant.name / f"incoming-{time.time_ns()}"
        try:
            chunks, size = [], 0
            try:
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > cap:
                        await drain(request)
                        raise HTTPException(413, too_big)
                    chunks.append(chunk)
            except ClientDisconnect:
                raise HTTPException(400, "the upload was cut off before its end; send it again") from None

            def unpack_and_read() -> BotManifest:
                unpack(b"".join(chunks), staging, limits)
                manifest = check_manifest(staging)
                check_name(manifest.name, "the bot's name")
                return manifest

            try:  # up to unpacked_mb of writing: off the event loop
                manifest = await asyncio.to_thread(unpack_and_read)
            except (UploadError, ArenaStoreError) as error:
                service.store.add_incident("refused", f"{entrant.name}: {error}")
                raise HTTPException(422, str(error)) from None
            try:
                with service.store.transaction():
                    service.store.check_room(entrant.id, manifest.name, bots=limits.bots, versions=limits.versions)
            except ArenaStoreError as error:
                service.store.add_incident("refused", f"{entrant.name}: {error}")
                raise HTTPException(422, str(error)) from None
            vid = service.store.add_checking_version(entrant.id, manifest.name, manifest.version, "upload",
                                                     str(staging / "bot.toml"), service.competition.rating, slot)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            service.store.release_upload(slot)  # refused before any check ran: it costs nothing
            raise
        final = data / "uploads" / entrant.name / f"v{vid}"
        staging.rename(final)
        with service.store.transaction():
            service.store.db.execute("UPDATE versions SET spec = ? WHERE id = ?", (str(final / "bot.toml"), vid))
        service.start_check(vid, final / "bot.toml")
        return JSONResponse({"version_id": vid, "bot": manifest.name, "status": "checking",
                             "poll": f"/api/me/versions/{vid}"}, status_code=202)

    async def api_my_check_logs(request: Request) -> Response:
        """The logs of a version's check matches (the bot's and the reference bot's), each
        one's tail: what a refusal's "whole log" points at."""
        entrant = entrant_of(request)
        vid = request.path_params["vid"]
        with reader() as store:
            version = store.version(vid)
        if version is None or version.entrant != entrant.name:
            raise HTTPException(404, f"you have no bot version {vid}")
        folder = check_log_dir(data, vid)
        logs = sorted(p for p in folder.glob("*.log") if p.is_file()) if folder.is_dir() else []
        if not logs:
            raise HTTPException(404, f"no check logs kept for version {vid}")
        parts = []
        for path in logs:
            with open(path, "rb") as source:
                source.seek(max(0, path.stat().st_size - LOG_TAIL_BYTES))
                parts.append(f"==> {path.name} <==\n" + source.read().decode("utf-8", errors="replace"))
        return PlainTextResponse("\n".join(parts))

    # -- the organizer -----------------------------------------------------------------

    async def me_page(request: Request) -> Response:
        return page("me.html", request)

    async def admin_page(request: Request) -> Response:
        return page("admin.html", request)

    async def api_admin(request: Request) -> Response:
        admin(request)
        with reader() as store:
            remote = service.remote_bots()
            titles = {v.id: v.title for v in store.versions()} if remote else {}
            return JSONResponse({"paused": store.paused, "counts": store.counts(), "incidents": store.incidents(),
                                 "workers": [vars(h) for h in service.health()], "entrants": store.entrant_rows(),
                                 "remote": [{**r, "version": titles.get(r["version_id"], "?")} for r in remote],
                                 "disabled": [{"id": v.id, "version": v.title, "reason": v.reason}
                                              for v in store.versions(statuses=("disabled",))]})

    async def api_admin_action(request: Request) -> Response:
        admin(request)
        action = request.path_params["action"]
        if action == "pause":
            service.store.set_meta("paused", "1")
        elif action == "resume":
            service.store.set_meta("paused", "0")
        elif action == "rerun-void":
            return JSONResponse({"requeued": service.store.rerun_void()})
        else:
            raise HTTPException(404, f"no admin action {action[:30]!r}")
        return JSONResponse({"ok": True, "action": action})

    async def api_admin_disable(request: Request) -> Response:
        admin(request)
        body = await small_body(request)
        reason = str(body.get("reason", "disabled by the organizer"))[:500] if isinstance(body, dict) else ""
        vid = request.path_params["vid"]
        version = service.store.version(vid)
        if version is None:
            raise HTTPException(404, f"no bot version {vid} (the leaderboard and /bots/ID show the ids)")
        if version.status not in ("active", "checking"):
            raise HTTPException(409, f"{version.title} (id {vid}) is {version.status} already, not on the ladder")
        service.store.set_version_status(vid, "disabled", reason)
        return JSONResponse({"ok": True, "id": vid, "version": version.title, "status": "disabled",
                             "reason": reason})

    async def api_admin_enable(request: Request) -> Response:
        admin(request)
        vid = request.path_params["vid"]
        try:
            version = service.store.enable_version(vid)
        except ArenaStoreError as error:
            raise HTTPException(404 if str(error).startswith("no bot version") else 409, str(error)) from None
        return JSONResponse({"ok": True, "id": vid, "version": version.title, "status": version.status})

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        message = without_server_paths(str(error.detail), data)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message, "status": error.status_code},
                                status_code=error.status_code, headers=error.headers)
        return HTMLResponse(templates.get_template("error.html").render(
            competition=service.competition.name, status=error.status_code, message=message),
            status_code=error.status_code)

    routes = [
        Route("/", index),
        Route("/bots/{vid:id}", bot_page),
        Route("/api/leaderboard", api_leaderboard),
        Route("/api/games", api_games),
        Route("/api/bots/{vid:id}", api_bot),
        Route("/api/me", api_me),
        Route("/api/me/versions/{vid:id}", api_my_version),
        Route("/api/me/versions/{vid:id}/logs", api_my_check_logs),
        Route("/api/me/logs/{gid:id}/{seat:id}", api_my_log),
        Route("/api/me/replays/{gid:id}/{seat:id}", api_my_replay),
        Route("/api/submit", api_submit, methods=["POST"]),
        Route("/api/register", api_register, methods=["POST"]),
        Route("/me", me_page),
        Route("/admin", admin_page),
        Route("/api/admin", api_admin),
        Route("/api/admin/disable/{vid:id}", api_admin_disable, methods=["POST"]),
        Route("/api/admin/enable/{vid:id}", api_admin_enable, methods=["POST"]),
        Route("/api/admin/{action}", api_admin_action, methods=["POST"]),
        *ladder_routes(data / LIVE),
        Mount("/static", StaticFiles(directory=str(WEB_HERE / "static")), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error, OverflowError: number_too_large})
