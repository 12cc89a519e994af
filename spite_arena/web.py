"""The arena's web face: the ladder's pages and JSON, on :mod:`spite_web`'s stack.

The pages extend spite_web's base template and use its viewer, charts, static files and
filters (:mod:`spite_web.site`); the arena adds its own templates (``spite_arena/templates``)
for what only a ladder has: entrants, versions, uploads, the organizer's panel.

What a request may see is one rule (:func:`replay_access`, :class:`Tier`), with three tiers:

* **public** (anyone): ``/`` the leaderboard (W/D/L, win rate, online remote bots),
  ``/bots/{id}`` a version's page (rating chart, head-to-head, its games), ``/games`` the
  games list (``bot``, ``result``, ``ending``, ``limit``, ``offset``), ``/games/{id}`` a game:
  its omniscient replay in the viewer once the game and the other half of its duplicate
  deal are both over (``[web] replays``, default ``after_deal``), never a debug string or a
  log; a game in play shows its seats only. JSON of each under ``/api/``. ``POST
  /api/register`` ``{"name", "invite_code"}`` with the competition's invite code makes an
  entrant and answers its key once (10 a minute per address).
* **entrant** (``Authorization: Bearer KEY``; ``/me`` asks for it): ``POST /api/submit`` (a
  gzipped tar of a bot directory; ``/me``'s upload form posts the same), ``GET /api/me``,
  ``/api/me/games`` (their games, with the games list's filters), ``/api/me/versions/{id}``
  and its ``/logs``, ``/api/me/logs/{game}/{seat}`` and ``/api/me/replays/{game}/{seat}``
  (the game as that seat saw it, with its own debug strings only; ``/me/games/{game}/{seat}``
  opens it in the viewer beside the log); any seat not theirs is 404.
* **organizer** (``Authorization: Bearer ADMIN_TOKEN``; ``/admin``): ``GET /api/admin``,
  ``POST /api/admin/{pause,resume,rerun-void}``, ``/api/admin/disable/{id}``, ``/enable/{id}``.

Handlers are module-level functions over the app's :class:`Arena` (``request.app.state``).
Reads open the store read-only per request; writes go through the service's one writer.
Errors are JSON ``{"error": ..., "status": ...}`` with a 4xx code (pages: the error page).
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import hmac
import json
import re
import shutil
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from referee.core import replay as replay_file
from referee.processes.manifest import BotManifest
from spite_web import charts, site
from spite_web.live import ladder_routes
from spite_web.replay_view import ViewError, viewer_data
from tournaments.queries import ENDINGS, RESULTS, BadQuery, GameFilter, Queries, QueryError, RatingPoint
from tournaments.ratings import Rating, board_order, wilson
from tournaments.store import ScheduleStatus

from .config import Competition
from .ladder import LIVE, SlotHealth
from .store import (
    ArenaStore,
    ArenaStoreError,
    Entrant,
    Game,
    GamePhase,
    LadderIncident,
    UploadLimit,
    Version,
    VersionKind,
    VersionStatus,
    check_name,
    hash_key,
)
from .uploads import CHECKS_AT_ONCE, UploadError, check_log_dir, check_manifest, unpack

HERE = Path(__file__).resolve().parent
LOG_TAIL_BYTES = 64 * 1024
DRAIN_BYTES = 64 * 1024 * 1024
"""The most of a refused upload's body read (and dropped) before answering."""
templates = site.templates(HERE / "templates")


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






class Tier(enum.IntEnum):
    """Who asks: anyone, an entrant (their key), the organizer (the admin token)."""

    PUBLIC = 0
    ENTRANT = 1
    ORGANIZER = 2


@dataclass(frozen=True)
class ReplayAccess:
    """What one asker may see of a game's replay: the omniscient view or not, the seats they
    may watch as, and whether the debug strings of those seats come with it."""

    omniscient: bool
    seats: tuple[int, ...]
    debug: bool
    why_not: str = ""
    """When nothing is open: why, in words, for the page."""


def replay_access(store: ArenaStore, game: Game, tier: Tier, rule: str, entrant: str | None = None) -> ReplayAccess:
    """The one rule of who sees what of ``game``. The organizer: everything. An entrant: the
    seats their bots played, as those seats saw them, with those seats' debug strings. The
    public (and an entrant, for the rest): the omniscient replay, with no debug string, once
    the game and the other half of its duplicate deal are both over (``rule`` ``after_deal``;
    ``never``: not at all). Logs follow the seats: their owner's and the organizer's only."""
    seats = tuple(range(len(game.versions)))
    if tier is Tier.ORGANIZER:
        return ReplayAccess(True, seats, True)
    own: tuple[int, ...] = ()
    if tier is Tier.ENTRANT and entrant is not None and game.status is ScheduleStatus.DONE:
        owners = {v.id: v.entrant for v in (store.version(vid) for vid in set(game.versions)) if v}
        own = tuple(s for s, vid in enumerate(game.versions) if owners.get(vid) == entrant)
    if game.status is not ScheduleStatus.DONE:
        why = "in play: its cards stay hidden until the game and its deal's other half are over"
        return ReplayAccess(False, own, bool(own), why)
    if rule == "never":
        return ReplayAccess(False, own, bool(own), "this competition shows replays to the bots' owners only")
    if not store.deal_over(game):
        partner = store.deal_partner(game)
        why = f"the replay opens when the other half of this deal (game {partner.id if partner else '?'}) is over"
        return ReplayAccess(False, own, bool(own), why)
    return ReplayAccess(True, own or seats, bool(own))


def game_row(game: Game, titles: dict[int, str], open_deals: set[tuple[int, int]]) -> dict[str, Any]:
    """A game as the lists and the API show it to anyone: seats, result, ending, when; its
    ``reason`` (the referee's words, which may name a card: "illegal move: no 7 in hand") only
    once its deal is over (``open_deals``, :meth:`ArenaStore.open_deals`); never its seeds,
    faults, log or replay paths. Who plays a game is shown once it is over: until then its
    seats are ``seat 0``, ``seat 1``, ... (as in its live view), since the ladder tells no bot its
    opponents (``hide_names``) and a page must not tell its owner, who could tell the bot."""
    closed = (game.seed, game.bot_seed) in open_deals or game.status is not ScheduleStatus.DONE
    over = game.status is ScheduleStatus.DONE
    return {"id": game.id, "phase": game.phase, "status": game.status, "versions": list(game.versions) if over else [],
            "bots": [titles.get(v, str(v)) if over else f"seat {i}" for i, v in enumerate(game.versions)],
            "winners": list(game.winners),
            "scores": list(game.scores), "ending": game.ending, "reason": "" if closed else game.reason,
            "created_at": game.created_at, "finished_at": game.finished_at, "url": f"/games/{game.id}"}


def rows_of(store: ArenaStore) -> Callable[[Game], dict[str, Any]]:
    """:func:`game_row` for each game of ``store``, its names and open deals read once."""
    names, open_deals = titles(store), store.open_deals()
    return lambda game: game_row(game, names, open_deals)


def board_rows(versions: list[Version], records: dict[int, tuple[int, int, int]],
               online: set[int] | None = None) -> list[dict[str, Any]]:
    """The ladder's leaderboard rows in :func:`tournaments.ratings.board_order` (the league's
    order): rating, W/D/L, win rate with its 95% interval, and a remote bot's presence
    (``online`` None: not known here, as in a finals store)."""
    ranked = sorted(versions, key=lambda v: board_order(Rating(v.mu, v.sigma), v.id))
    rows = []
    for rank, v in enumerate(ranked, 1):
        won, drawn, lost = records.get(v.id, (0, 0, 0))
        played = won + drawn + lost
        low, high = wilson(won, played)
        rows.append({"rank": rank, "id": v.id, "entrant": v.entrant, "bot": v.bot, "version": v.version,
                     "label": v.label, "kind": v.kind, "status": v.status, "rating": round(v.conservative, 3),
                     "mu": round(v.mu, 3), "sigma": round(v.sigma, 3), "games": v.games,
                     "wins": won, "draws": drawn, "losses": lost,
                     "win_rate": round(won / played, 4) if played else 0.0,
                     "win_rate_low": round(low, 4), "win_rate_high": round(high, 4),
                     "online": None if v.kind is not VersionKind.REMOTE or online is None else v.id in online,
                     "last_played_at": v.last_played_at})
    return rows


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


@dataclass
class Arena:
    """The app's context: the serving process and the per-address and per-key limits."""

    service: Host
    limiter: RateLimiter
    registrations: RateLimiter = field(default_factory=lambda: RateLimiter(10))
    wrong_keys: RateLimiter = field(default_factory=lambda: RateLimiter(WRONG_KEYS_PER_MINUTE))
    """Per client address: unknown entrant keys and wrong admin tokens. Past the limit the
    address is answered 429 before any key is looked at, so keys cannot be guessed at speed."""

    @property
    def data(self) -> Path:
        return self.service.data

    def reader(self) -> ArenaStore:
        return ArenaStore(self.service.data, readonly=True)

    def online(self) -> set[int]:
        """The remote versions joined now."""
        return {int(r["version_id"]) for r in self.service.remote_bots()}

    def check_wrong_keys(self, request: Request) -> None:
        if self.wrong_keys.full(client_address(request)):
            raise HTTPException(429, f"more than {WRONG_KEYS_PER_MINUTE} wrong keys a minute from this address; "
                                     "wait a minute")

    def entrant_of(self, request: Request) -> Entrant:
        """The entrant tier: the key's entrant, or 401/403/429."""
        self.check_wrong_keys(request)
        key = bearer(request)
        if not self.limiter.allow(hash_key(key)):
            raise HTTPException(429, f"more than {self.limiter.per_minute} requests a minute with this key")
        with self.reader() as store:
            entrant = store.entrant_for_key(key)
        if entrant is None:
            self.wrong_keys.allow(client_address(request))
            raise HTTPException(401, "unknown key")
        if entrant.banned is not None:
            raise HTTPException(403, f"entrant {entrant.name} is banned from this competition ({entrant.banned}); "
                                     f"ask the organizer")
        return entrant

    def admin(self, request: Request) -> None:
        """The organizer tier: the admin token, or 403/429."""
        self.check_wrong_keys(request)
        key = bearer(request)
        token = self.service.admin_token
        if not token or not hmac.compare_digest(hash_key(key), hash_key(token)):
            self.wrong_keys.allow(client_address(request))
            raise HTTPException(403, "this needs the organizer's admin token")


def ctx(request: Request) -> Arena:
    arena: Arena = request.app.state.arena
    return arena


def client_address(request: Request) -> str:
    """The TCP peer; a proxy's X-Forwarded-For only with ``spite serve --trusted-proxy``
    (uvicorn then puts the client it names here)."""
    return request.client.host if request.client else "?"


def bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    if not header.lower().startswith("bearer ") or len(header) > 300:
        raise HTTPException(401, "send the entrant's key: Authorization: Bearer KEY")
    return header[7:].strip()


NAV = (("/", "Ladder"), ("/games", "Games"), ("/finals", "Finals"), ("/me", "My bots"), ("/api/leaderboard", "API"))


def page(name: str, request: Request, status_code: int = 200, **context: Any) -> Response:
    """A page on spite_web's base template, with the ladder's name and navigation."""
    competition = ctx(request).service.competition.name
    return templates.TemplateResponse(request, name, {"competition": competition, "brand": competition, "nav": NAV,
                                                      "store_label": "Spite Arena ladder", **context},
                                      status_code=status_code)


def version_or_404(store: ArenaStore, vid: int) -> Version:
    version = store.version(vid)
    if version is None:
        raise HTTPException(404, f"no bot version {vid}")
    return version


def game_or_404(store: ArenaStore, gid: int) -> Game:
    game = store.game(gid)
    if game is None or game.phase is not GamePhase.LADDER:
        raise HTTPException(404, f"no ladder game {gid}")
    return game


def titles(store: ArenaStore) -> dict[int, str]:
    return {v.id: v.title for v in store.versions()}


def games_wanted(params: Any, *, own: bool = False) -> GameFilter:
    """A games list's filters, the league's (:class:`tournaments.queries.GameFilter`): ``bot``
    (here a version id), ``result`` (from its side; on ``own`` lists, from the entrant's
    side when no bot is named), ``ending``, ``limit``, ``offset``; anything else is 400."""
    values = dict(params)
    result = values.pop("result", "") if own and not values.get("bot") else ""
    try:
        wanted = GameFilter.parse(values)
    except BadQuery as error:
        raise HTTPException(400, str(error)) from None
    if wanted.tournament is not None or wanted.rules is not None or wanted.opponent is not None:
        raise HTTPException(400, "the ladder's games filter by bot, result, ending, limit and offset")
    if wanted.bot is not None and not (wanted.bot.isdigit() and len(wanted.bot) <= 18):
        raise HTTPException(400, f"bot must be a version id (the number in /bots/ID), got {wanted.bot[:20]!r}")
    if result:
        if result not in RESULTS:
            raise HTTPException(400, f"result must be one of {', '.join(RESULTS)}, got {result[:20]!r}")
        wanted = dataclasses.replace(wanted, result=result)
    return wanted


def games_page(store: ArenaStore, wanted: GameFilter, among: tuple[int, ...] = ()) -> tuple[list[Game], int]:
    """One page of the ladder's finished games that ``wanted`` accepts (``among``: of these
    versions only, an entrant's)."""
    ids = among if wanted.bot is None else tuple(v for v in (int(wanted.bot),) if not among or v in among)
    if wanted.bot is not None and not ids:
        return [], 0
    return store.game_page(version_ids=ids, result=wanted.result, ending=wanted.ending, limit=wanted.limit,
                           offset=wanted.offset, phase=GamePhase.LADDER)


# -- public -------------------------------------------------------------------------------


def leaderboard(store: ArenaStore, arena: Arena,
                statuses: tuple[VersionStatus, ...] = (VersionStatus.ACTIVE,)) -> list[dict[str, Any]]:
    return board_rows(store.versions(statuses=statuses), store.records(), arena.online())


async def index(request: Request) -> Response:
    arena = ctx(request)
    with arena.reader() as store:
        rows = leaderboard(store, arena)
        counts, paused, row = store.counts(), store.paused, rows_of(store)
        games = [row(g) for g in store.games(limit=10, phase=GamePhase.LADDER)]
        playing = [row(g) for g in store.games(status=ScheduleStatus.RUNNING, limit=20, phase=GamePhase.LADDER)]
    return page("ladder.html", request, rows=rows, counts=counts, paused=paused, games=games, playing=playing)


async def api_leaderboard(request: Request) -> Response:
    statuses = ((VersionStatus.ACTIVE, VersionStatus.RETIRED) if request.query_params.get("all") == "1"
                else (VersionStatus.ACTIVE,))
    arena = ctx(request)
    with arena.reader() as store:
        return JSONResponse(leaderboard(store, arena, statuses))


async def games_list(request: Request) -> Response:
    wanted = games_wanted(request.query_params)
    with ctx(request).reader() as store:
        found, total = games_page(store, wanted)
        row = rows_of(store)
        bot = store.version(int(wanted.bot)) if wanted.bot else None
        games = [row(g) for g in found]
    return page("ladder_games.html", request, games=games, total=total, f=wanted,
                bot=bot, endings=ENDINGS, results=RESULTS)


async def api_games(request: Request) -> Response:
    wanted = games_wanted(request.query_params)
    with ctx(request).reader() as store:
        found, total = games_page(store, wanted)
        row = rows_of(store)
        return JSONResponse({"counts": store.counts(), "filter": wanted.as_params(), "total": total,
                             "games": [row(g) for g in found]})


def bot_view(store: ArenaStore, arena: Arena, vid: int) -> dict[str, Any]:
    """A version's page and JSON: its row, rating history, head-to-head, recent games."""
    version = version_or_404(store, vid)
    names = titles(store)
    row = board_rows([version], store.records(), arena.online())[0]
    history = store.rating_history(version.id)
    against = [{"id": opponent, "bot": names.get(opponent, str(opponent)), "wins": won, "draws": drawn,
                "losses": lost, "played": won + drawn + lost,
                "win_rate": round(won / (won + drawn + lost), 4) if won + drawn + lost else 0.0}
               for opponent, (won, drawn, lost) in sorted(store.head_to_head(version.id).items(),
                                                 key=lambda item: -sum(item[1]))]
    games, total = store.game_page(version_ids=(version.id,), limit=30, phase=GamePhase.LADDER)
    return {"version": version, "row": {k: v for k, v in row.items() if k != "rank"},
            "ratings": [{"finished_at": at, "mu": round(mu, 4), "sigma": round(sigma, 4)} for at, mu, sigma in history],
            "head_to_head": against, "games": [rows_of(store)(g) for g in games], "total": total}


async def bot_page(request: Request) -> Response:
    arena = ctx(request)
    with arena.reader() as store:
        view = bot_view(store, arena, request.path_params["vid"])
    points = [RatingPoint(n, p["mu"], p["sigma"]) for n, p in enumerate(view["ratings"], 1)]
    return page("ladder_bot.html", request, v=view["version"], row=view["row"], against=view["head_to_head"],
                games=view["games"], total=view["total"],
                rating_svg=charts.rating_chart(points, f"rating of {view['version'].title}"))


async def api_bot(request: Request) -> Response:
    arena = ctx(request)
    with arena.reader() as store:
        view = bot_view(store, arena, request.path_params["vid"])
    version = view["version"]
    return JSONResponse({**view["row"], "reason": version.reason if version.status is VersionStatus.DISABLED else "",
                         "ratings": view["ratings"], "head_to_head": view["head_to_head"],
                         "recent_games": view["games"]})


def public_replay(request: Request, store: ArenaStore, game: Game) -> dict[str, Any] | None:
    """The game's replay as the public may watch it (no debug string), or None."""
    access = replay_access(store, game, Tier.PUBLIC, ctx(request).service.competition.replays)
    if not access.omniscient:
        return None
    as_seat = as_seat_of(request)
    try:
        return viewer_data(replay_file.load(game.replay or ""), as_seat, source=f"game {game.id}", debug=False)
    except ViewError as error:
        raise HTTPException(400, str(error)) from None
    except replay_file.ReplayError:
        raise HTTPException(404, f"no readable replay of game {game.id}") from None


def as_seat_of(request: Request) -> int | None:
    text = request.query_params.get("as_seat", "")
    if text in ("", "omniscient"):
        return None
    if not text.isdigit() or len(text) > 2:
        raise HTTPException(400, f"as_seat must be a seat number, got {text[:20]!r}")
    return int(text)


async def game_page(request: Request) -> Response:
    rule = ctx(request).service.competition.replays
    with ctx(request).reader() as store:
        game = game_or_404(store, request.path_params["gid"])
        data = public_replay(request, store, game)
        why = replay_access(store, game, Tier.PUBLIC, rule).why_not
        row = rows_of(store)(game)
    return page("ladder_game.html", request, g=row, data=data, why=why, api=f"/api/replays/{game.id}")


async def api_game(request: Request) -> Response:
    rule = ctx(request).service.competition.replays
    with ctx(request).reader() as store:
        game = game_or_404(store, request.path_params["gid"])
        access = replay_access(store, game, Tier.PUBLIC, rule)
        return JSONResponse({**rows_of(store)(game),
                             "replay": f"/api/replays/{game.id}" if access.omniscient else None,
                             "replay_closed": access.why_not})


async def api_replay(request: Request) -> Response:
    with ctx(request).reader() as store:
        game = game_or_404(store, request.path_params["gid"])
        data = public_replay(request, store, game)
        if data is None:
            raise HTTPException(404, f"game {game.id}: " + replay_access(
                store, game, Tier.PUBLIC, ctx(request).service.competition.replays).why_not)
    return JSONResponse(data)



# -- the finals (public once finished: its seed is then revealed) --------------------------


def finals_over(request: Request) -> Queries | None:
    """The finals' store (``DATA/finals.db``) opened read-only, if its latest tournament is
    finished -- its committed seed can then be revealed, and its games are all over. None
    before (no finals, or finals in play: nothing of them is public)."""
    path = ctx(request).data / "finals.db"
    if not path.is_file():
        return None
    try:
        queries = Queries.open(path)
    except QueryError:
        return None
    try:
        if queries.tournament().status == "finished":
            return queries
    except QueryError:
        pass
    queries.close()
    return None


def finals_view(queries: Queries) -> dict[str, Any]:
    board = queries.leaderboard()
    tid = board.tournament.id
    games = queries.games(GameFilter(tournament=tid, limit=1000)).games
    return {"tournament": board.tournament, "meta": board.meta, "rows": board.board(),
            "games": [{**g.as_dict(), "url": f"/finals/replays/{g.match_id}/{g.game_number}" if g.has_replay else None}
                      for g in games]}


async def finals_page(request: Request) -> Response:
    queries = finals_over(request)
    if queries is None:
        return page("finals.html", request, view=None)
    with queries:
        view = finals_view(queries)
    return page("finals.html", request, view=view)


async def api_finals(request: Request) -> Response:
    queries = finals_over(request)
    if queries is None:
        raise HTTPException(404, "the finals are not over: their results are public once they end")
    with queries:
        view = finals_view(queries)
    return JSONResponse({**view["meta"], "leaderboard": view["rows"], "games": view["games"]})


def finals_replay(request: Request) -> dict[str, Any]:
    """A finals game's omniscient replay, without any debug string (the finals are over)."""
    queries = finals_over(request)
    if queries is None:
        raise HTTPException(404, "the finals are not over: their replays are public once they end")
    mid, number = request.path_params["mid"], request.path_params["game"]
    try:
        with queries:
            ref = queries.replay(mid, number)
        return viewer_data(replay_file.load(ref.path), as_seat_of(request),
                           source=f"finals, match {mid}, game {number}",
                           debug=False)
    except QueryError as error:
        raise HTTPException(404, str(error).split(" in /")[0]) from None
    except replay_file.ReplayError:
        raise HTTPException(404, f"no readable replay of finals match {mid}, game {number}") from None
    except ViewError as error:
        raise HTTPException(400, str(error)) from None


async def finals_replay_page(request: Request) -> Response:
    data = finals_replay(request)
    mid, number = request.path_params["mid"], request.path_params["game"]
    return page("ladder_game.html", request, g=None, data=data, why="", api=f"/api/finals/replays/{mid}/{number}")


async def api_finals_replay(request: Request) -> Response:
    return JSONResponse(finals_replay(request))

# -- entrants and the organizer ---------------------------------------------------------


async def api_me(request: Request) -> Response:
    arena = ctx(request)
    data = arena.data
    entrant = arena.entrant_of(request)
    with arena.reader() as store:
        versions = store.versions(entrant=entrant.name)
    return JSONResponse({"entrant": entrant.name, "versions": [
        {"id": v.id, "bot": v.bot, "version": v.version, "label": v.label, "kind": v.kind, "status": v.status,
         "reason": without_server_paths(v.reason, data), "checks": [without_server_paths(c, data) for c in v.checks],
         "platform_fault": v.platform_fault,
         "rating": round(v.conservative, 3), "games": v.games}
        for v in versions]})


async def api_my_version(request: Request) -> Response:
    arena = ctx(request)
    data = arena.data
    entrant = arena.entrant_of(request)
    with arena.reader() as store:
        version = store.version(request.path_params["vid"])
    if version is None or version.entrant != entrant.name:
        raise HTTPException(404, f"you have no bot version {request.path_params['vid']}")
    return JSONResponse({"id": version.id, "bot": version.bot, "version": version.version,
                         "status": version.status, "reason": without_server_paths(version.reason, data),
                         "checks": [without_server_paths(c, data) for c in version.checks],
                         "platform_fault": version.platform_fault})


def own_seat(request: Request) -> tuple[Game, int]:
    """The game and seat of the path, if :func:`replay_access` opens that seat to the key's
    entrant (their bot played it, the game is over); else 404."""
    arena = ctx(request)
    entrant = arena.entrant_of(request)
    gid, seat = request.path_params["gid"], request.path_params["seat"]
    with arena.reader() as store:
        game = store.game(gid)
        access = None if game is None else replay_access(store, game, Tier.ENTRANT,
                                                         arena.service.competition.replays, entrant.name)
    if game is None or access is None or seat not in access.seats or not access.debug:
        raise HTTPException(404, f"you have no bot in seat {seat} of a finished game {gid}")
    return game, seat


async def api_my_log(request: Request) -> Response:
    data = ctx(request).data
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
    game, seat = own_seat(request)
    try:
        loaded = replay_file.load(game.replay or "")
        return JSONResponse(viewer_data(loaded, seat, source=f"game {game.id}, as seat {seat}"))
    except (replay_file.ReplayError, ViewError) as error:
        raise HTTPException(404, f"no readable replay of game {game.id}: {str(error)[:200]}") from None


async def api_register(request: Request) -> Response:
    """Open registration: an invite code makes a new entrant and answers its key once."""
    arena = ctx(request)
    service = arena.service
    code = service.competition.invite_code
    if not code:
        raise HTTPException(404, "registration is closed: ask the organizer for a key")
    if not arena.registrations.allow(client_address(request)):
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
    arena = ctx(request)
    service = arena.service
    data = arena.data
    limits = service.competition.limits
    from referee.sandbox import detect

    cap = limits.upload_mb * 1024 * 1024
    too_big = f"the upload is over the limit of {limits.upload_mb} MiB; leave out what the bot does not need"
    try:
        entrant = arena.entrant_of(request)
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
            service.store.add_incident(LadderIncident.REFUSED, f"{entrant.name}: {error}")
            raise HTTPException(422, str(error)) from None
        try:
            with service.store.transaction():
                service.store.check_room(entrant.id, manifest.name, bots=limits.bots, versions=limits.versions)
        except ArenaStoreError as error:
            service.store.add_incident(LadderIncident.REFUSED, f"{entrant.name}: {error}")
            raise HTTPException(422, str(error)) from None
        vid = service.store.add_checking_version(entrant.id, manifest.name, manifest.version, VersionKind.UPLOAD,
                                                 str(staging / "bot.toml"), service.competition.rating, slot)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        service.store.release_upload(slot)  # refused before any check ran: it costs nothing
        raise
    final = data / "uploads" / entrant.name / f"v{vid}"
    staging.rename(final)
    service.store.set_spec(vid, str(final / "bot.toml"))
    service.start_check(vid, final / "bot.toml")
    return JSONResponse({"version_id": vid, "bot": manifest.name, "status": "checking",
                         "poll": f"/api/me/versions/{vid}"}, status_code=202)


async def api_my_check_logs(request: Request) -> Response:
    """The logs of a version's check matches (the bot's and the reference bot's), each
    one's tail: what a refusal's "whole log" points at."""
    arena = ctx(request)
    data = arena.data
    entrant = arena.entrant_of(request)
    vid = request.path_params["vid"]
    with arena.reader() as store:
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


async def api_admin(request: Request) -> Response:
    arena = ctx(request)
    service = arena.service
    arena.admin(request)
    with arena.reader() as store:
        remote = service.remote_bots()
        titles = {v.id: v.title for v in store.versions()} if remote else {}
        return JSONResponse({"paused": store.paused, "counts": store.counts(),
                             "incidents": [i.to_dict() for i in store.incidents()],
                             "workers": [vars(h) for h in service.health()], "entrants": store.entrant_rows(),
                             "remote": [{**r, "version": titles.get(r["version_id"], "?")} for r in remote],
                             "disabled": [{"id": v.id, "version": v.title, "reason": v.reason}
                                          for v in store.versions(statuses=(VersionStatus.DISABLED,))]})


async def api_admin_action(request: Request) -> Response:
    arena = ctx(request)
    service = arena.service
    arena.admin(request)
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
    arena = ctx(request)
    service = arena.service
    arena.admin(request)
    body = await small_body(request)
    reason = str(body.get("reason", "disabled by the organizer"))[:500] if isinstance(body, dict) else ""
    vid = request.path_params["vid"]
    version = service.store.version(vid)
    if version is None:
        raise HTTPException(404, f"no bot version {vid} (the leaderboard and /bots/ID show the ids)")
    if version.status not in (VersionStatus.ACTIVE, VersionStatus.CHECKING):
        raise HTTPException(409, f"{version.title} (id {vid}) is {version.status} already, not on the ladder")
    service.store.set_version_status(vid, VersionStatus.DISABLED, reason)
    return JSONResponse({"ok": True, "id": vid, "version": version.title, "status": "disabled",
                         "reason": reason})


async def api_admin_enable(request: Request) -> Response:
    arena = ctx(request)
    service = arena.service
    arena.admin(request)
    vid = request.path_params["vid"]
    try:
        version = service.store.enable_version(vid)
    except ArenaStoreError as error:
        raise HTTPException(404 if str(error).startswith("no bot version") else 409, str(error)) from None
    return JSONResponse({"ok": True, "id": vid, "version": version.title, "status": version.status})


async def http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    message = without_server_paths(str(error.detail), ctx(request).data)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message, "status": error.status_code},
                            status_code=error.status_code, headers=error.headers)
    return page("error.html", request, status=error.status_code, message=message, home="Back to the ladder",
                status_code=error.status_code)


async def api_my_games(request: Request) -> Response:
    """The entrant's finished games, newest first, with the games list's filters (``result``
    from their side), each with the seat(s) they played."""
    arena = ctx(request)
    entrant = arena.entrant_of(request)
    wanted = games_wanted(request.query_params, own=True)
    with arena.reader() as store:
        mine = tuple(v.id for v in store.versions(entrant=entrant.name))
        found, total = games_page(store, wanted, mine) if mine else ([], 0)
        row = rows_of(store)
        games = [{**row(g), "seats": [s for s, v in enumerate(g.versions) if v in mine]} for g in found]
    return JSONResponse({"filter": wanted.as_params(), "total": total, "games": games})


async def me_page(request: Request) -> Response:
    return page("me.html", request, endings=ENDINGS, results=RESULTS)


async def me_game_page(request: Request) -> Response:
    """The shell of an entrant's game in the viewer; its script fetches the as-seat view and
    the log with the key kept in the tab (the page itself holds nothing private)."""
    gid, seat = request.path_params["gid"], request.path_params["seat"]
    return page("me_game.html", request, gid=gid, seat=seat)


async def admin_page(request: Request) -> Response:
    return page("admin.html", request)


def create_app(service: Host) -> Starlette:
    routes = [
        Route("/", index),
        Route("/bots/{vid:id}", bot_page),
        Route("/games", games_list),
        Route("/games/{gid:id}", game_page),
        Route("/api/leaderboard", api_leaderboard),
        Route("/api/games", api_games),
        Route("/api/games/{gid:id}", api_game),
        Route("/api/replays/{gid:id}", api_replay),
        Route("/api/bots/{vid:id}", api_bot),
        Route("/finals", finals_page),
        Route("/finals/replays/{mid:id}/{game:id}", finals_replay_page),
        Route("/api/finals", api_finals),
        Route("/api/finals/replays/{mid:id}/{game:id}", api_finals_replay),
        Route("/api/me", api_me),
        Route("/api/me/games", api_my_games),
        Route("/api/me/versions/{vid:id}", api_my_version),
        Route("/api/me/versions/{vid:id}/logs", api_my_check_logs),
        Route("/api/me/logs/{gid:id}/{seat:id}", api_my_log),
        Route("/api/me/replays/{gid:id}/{seat:id}", api_my_replay),
        Route("/api/submit", api_submit, methods=["POST"]),
        Route("/api/register", api_register, methods=["POST"]),
        Route("/me", me_page),
        Route("/me/games/{gid:id}/{seat:id}", me_game_page),
        Route("/admin", admin_page),
        Route("/api/admin", api_admin),
        Route("/api/admin/disable/{vid:id}", api_admin_disable, methods=["POST"]),
        Route("/api/admin/enable/{vid:id}", api_admin_enable, methods=["POST"]),
        Route("/api/admin/{action}", api_admin_action, methods=["POST"]),
        *ladder_routes(service.data / LIVE, page),
        site.static_files(),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error,
                                                       OverflowError: site.number_too_large})
    app.state.arena = Arena(service, RateLimiter(service.competition.limits.requests_per_minute))
    return app
