"""``spite web``: a read-only ASGI app over a results store.

Every page has its data at a URL under ``/api/`` (docs/web.md), rendered from the same
values of :mod:`tournaments.queries` -- one query layer, two renderings (HTML and JSON), as
in Datasette. Handlers only translate: parse the request, ask :class:`Queries`, render.
Each request opens the store read-only (``mode=ro``); nothing here can write to it.
Errors are clean 4xx answers: :class:`NotFound` is 404, :class:`BadQuery` 400.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from referee.core import replay as replay_file
from tournaments.queries import ENDINGS, RESULTS, BadQuery, GameFilter, NotFound, Queries, QueryError

from . import charts, site
from .replay_view import ViewError, viewer_data
from .site import number_too_large

MATCH_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
LOG_TAIL_BYTES = 256 * 1024
templates = site.templates()


def create_app(db: Path | str, *, referee: str | None = None, admin_token: str | None = None) -> Starlette:
    """The app over store ``db`` (it may not exist yet: pages then say so with a 404).
    With ``referee`` (an address) and its ``admin_token``, ``/live/{match}`` spectates."""
    db = Path(db)

    def queries() -> Queries:
        return Queries.open(db)

    def page(name: str, request: Request, **context: Any) -> Response:
        return templates.TemplateResponse(request, name, {"db": db.name, **context})

    async def index(request: Request) -> Response:
        with queries() as q:
            tournaments = q.tournaments()
        return page("index.html", request, tournaments=tournaments)

    async def leaderboard_page(request: Request) -> Response:
        with queries() as q:
            board = q.leaderboard(request.path_params["tid"])
        return page("leaderboard.html", request, board=board, t=board.tournament)

    async def bot_page(request: Request) -> Response:
        with queries() as q:
            bot = q.bot(request.path_params["name"], request.path_params["tid"])
        return page("bot.html", request, bot=bot, t=bot.tournament,
                    rating_svg=charts.rating_chart(bot.ratings, f"rating of {bot.name}"),
                    histogram_svg=charts.histogram_chart(bot.histogram),
                    endings_svg=charts.bar_chart(list(bot.endings), list(bot.endings.values()), "games by ending"))

    async def bot_log(request: Request) -> Response:
        p = request.path_params
        with queries() as q:
            log = q.log(p["name"], p["mid"], p["seat"], p["tid"])
        with open(log.path, "rb") as source:
            source.seek(max(0, log.path.stat().st_size - LOG_TAIL_BYTES))
            text = source.read().decode("utf-8", errors="replace")
        return PlainTextResponse(text)

    async def games_page(request: Request) -> Response:
        wanted = GameFilter.parse(dict(request.query_params))
        with queries() as q:
            found = q.games(wanted)
            tournaments = q.tournaments()
        return page("games.html", request, page=found, f=wanted, tournaments=tournaments, endings=ENDINGS,
                    results=RESULTS, rule_sets=sorted({t.rules for t in tournaments}),
                    bots=sorted({b for g in found.games for b in g.bots}))

    async def replay_page(request: Request) -> Response:
        data, ref = _replay(request)
        return page("replay.html", request, data=data, ref=ref, api=_replay_api(request), standalone=False)

    async def live_page(request: Request) -> Response:
        match_id = _live_match(request)
        return page("live.html", request, what=f"match {match_id}", api=f"/api/live/{match_id}")

    async def api_live(request: Request) -> Response:
        """Server-sent events: the match's public table as it happens (spite_web.live)."""
        import grpc

        from .live import spectate, sse

        match_id = _live_match(request)
        stream = spectate(referee or "", admin_token or "", match_id)
        try:
            first = await stream.__anext__()
        except grpc.aio.AioRpcError as error:
            await stream.aclose()
            if error.code() == grpc.StatusCode.NOT_FOUND:
                raise NotFound(f"no match {match_id!r} on the referee") from None
            raise HTTPException(502, f"the referee answered {error.code().name}: {error.details()}") from None
        return sse(first, stream)

    def _live_match(request: Request) -> str:
        if not referee:
            raise NotFound("live spectating needs a referee: spite web --referee HOST:PORT --admin-token-file FILE")
        match_id = request.path_params["match"]
        if not MATCH_ID.fullmatch(match_id):
            raise BadQuery(f"not a match id: {match_id[:40]!r}")
        return str(match_id)

    # -- the JSON API ----------------------------------------------------------------------

    async def api_tournaments(request: Request) -> Response:
        with queries() as q:
            return _json({"tournaments": [_info(t) for t in q.tournaments()]})

    async def api_tournament(request: Request) -> Response:
        with queries() as q:
            return _json(_info(q.tournament(request.path_params["tid"])))

    async def api_leaderboard(request: Request) -> Response:
        with queries() as q:
            board = q.leaderboard(request.path_params["tid"])
        return _json({**board.meta, "leaderboard": board.board(), "head_to_head": board.head_to_head})

    async def api_ratings(request: Request) -> Response:
        with queries() as q:
            history = q.rating_history(request.path_params["tid"])
        return _json({"ratings": {name: [_point(p) for p in points] for name, points in history.items()}})

    async def api_bot(request: Request) -> Response:
        with queries() as q:
            bot = q.bot(request.path_params["name"], request.path_params["tid"])
        return _json({
            "tournament": _info(bot.tournament), "name": bot.name, "standing": bot.standing.as_dict(),
            "versions": list(bot.versions), "ratings": [_point(p) for p in bot.ratings],
            "opponents": [{"name": o.name, "score": o.score, "played": o.played, "win_rate": round(o.win_rate, 4)}
                          for o in bot.opponents],
            "endings": bot.endings, "decision_histogram": [{"ms": b.ms, "count": b.count} for b in bot.histogram],
            "recent_games": [g.as_dict() for g in bot.recent_games],
            "faults": [{"match_id": f.match_id, "ordinal": f.ordinal, "seat": f.seat, "kind": f.kind.value,
                        "reason": f.reason}
                       for f in bot.faults],
            "logs": [{"match_id": log.match_id, "seat": log.seat, "bot": log.bot,
                      "url": f"/tournaments/{bot.tournament.id}/bots/{bot.name}/logs/{log.match_id}/{log.seat}"}
                     for log in bot.logs]})

    async def api_games(request: Request) -> Response:
        wanted = GameFilter.parse(dict(request.query_params))
        with queries() as q:
            found = q.games(wanted)
        return _json({"filter": wanted.as_params(), "total": found.total,
                      "games": [g.as_dict() for g in found.games]})

    async def api_replay(request: Request) -> Response:
        data, _ = _replay(request)
        return _json(data)

    def _replay(request: Request) -> tuple[dict[str, Any], Any]:
        mid, game = request.path_params["mid"], request.path_params["game"]
        as_seat = _as_seat(request)
        with queries() as q:
            ref = q.replay(mid, game)
        try:
            loaded = replay_file.load(ref.path)
            return viewer_data(loaded, as_seat, source=f"match {mid}, game {game}"), ref
        except replay_file.ReplayError as error:
            raise NotFound(f"the replay of game {game} of match {mid} is not readable: "
                           f"{str(error).split(': ', 1)[-1]}") from None
        except ViewError as error:
            raise BadQuery(str(error)) from None

    routes = [
        Route("/", index),
        Route("/tournaments/{tid:id}", leaderboard_page),
        Route("/tournaments/{tid:id}/bots/{name}", bot_page),
        Route("/tournaments/{tid:id}/bots/{name}/logs/{mid:id}/{seat:id}", bot_log),
        Route("/games", games_page),
        Route("/replays/{mid:id}/{game:id}", replay_page),
        Route("/api/tournaments", api_tournaments),
        Route("/api/tournaments/{tid:id}", api_tournament),
        Route("/api/tournaments/{tid:id}/leaderboard", api_leaderboard),
        Route("/api/tournaments/{tid:id}/ratings", api_ratings),
        Route("/api/tournaments/{tid:id}/bots/{name}", api_bot),
        Route("/api/games", api_games),
        Route("/api/replays/{mid:id}/{game:id}", api_replay),
        Route("/latest", _latest(queries)),
        Route("/live/{match}", live_page),
        Route("/api/live/{match}", api_live),
        site.static_files(),
    ]

    async def query_error(request: Request, error: Exception) -> Response:
        status = 400 if isinstance(error, BadQuery) else 404
        return _error(request, status, str(error))

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        return _error(request, error.status_code, str(error.detail))

    def _error(request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message, "status": status}, status_code=status)
        return templates.TemplateResponse(request, "error.html", {"db": db.name, "status": status,
                                                                  "message": message}, status_code=status)

    return Starlette(routes=routes, exception_handlers={QueryError: query_error, HTTPException: http_error,
                                                        OverflowError: number_too_large})


def _latest(queries: Callable[[], Queries]) -> Callable[[Request], Any]:
    async def latest(request: Request) -> Response:
        with queries() as q:
            return RedirectResponse(f"/tournaments/{q.tournament().id}", status_code=302)
    return latest


def _as_seat(request: Request) -> int | None:
    text = request.query_params.get("as_seat", "")
    if text in ("", "omniscient"):
        return None
    if not text.isdigit():
        raise BadQuery(f"as_seat must be a seat number, got {text[:20]!r}")
    return int(text)


def _replay_api(request: Request) -> str:
    return f"/api/replays/{request.path_params['mid']}/{request.path_params['game']}"


def _info(t: Any) -> dict[str, Any]:
    return {"id": t.id, "name": t.name, "file": t.file, "rules": t.rules, "status": t.status,
            "created_at": t.created_at, "finished_at": t.finished_at, "matches": t.matches}


def _point(p: Any) -> dict[str, float]:
    return {"ordinal": p.ordinal, "mu": round(p.mu, 4), "sigma": round(p.sigma, 4),
            "conservative": round(p.conservative, 4)}


def _json(data: Any) -> Response:
    return JSONResponse(data)
