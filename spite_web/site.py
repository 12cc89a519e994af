"""What both web faces stand on: the templates (``spite_web/templates``: base, viewer, error),
the static files (CSS, the viewer's script), Jinja's filters, the row-id path segment and the
answer to a number too large. ``spite web`` (:mod:`spite_web.app`) and ``spite serve``
(:mod:`spite_arena.web`) both build their pages from here; the arena adds its own templates
in front of these (``spite_arena/templates``) and never reaches into this package's files.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"


class RowId(Convertor[int]):
    """A path segment that is a row id: 1 to 18 digits, so it always fits SQLite's 64-bit
    integers. A longer number matches no route (404) instead of overflowing in a query (500)."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(int(value))


register_url_convertor("id", RowId())  # {name:id} in the routes of spite web and spite serve


async def number_too_large(request: Request, error: Exception) -> Response:
    """A number in the query that SQLite cannot hold (``offset=2**70``): 400, not a traceback."""
    message = "a number in the request is too large (at most 2^63 - 1)"
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message, "status": 400}, status_code=400)
    return PlainTextResponse(message, status_code=400)


def human_date(stamp: str | None) -> str:
    """An ISO timestamp as people read it: ``2 Dec 2026, 07:23 UTC`` (``""`` for none)."""
    if not stamp:
        return ""
    try:
        when = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return stamp[:32]
    if when.tzinfo is not None:
        when = when.astimezone(dt.timezone.utc)
    return f"{when.day} {when:%b %Y, %H:%M} UTC"


def templates(*first: Path) -> Jinja2Templates:
    """The pages' templates: ``first`` (a face's own folders) in front of the shared ones."""
    loader = ChoiceLoader([FileSystemLoader([str(p) for p in first]), FileSystemLoader(str(TEMPLATES))])
    found = Jinja2Templates(env=Environment(loader=loader, autoescape=select_autoescape()))
    found.env.filters["tojson_script"] = lambda value: json.dumps(value).replace("<", "\\u003c")
    found.env.filters["when"] = human_date
    return found


def static_files() -> Mount:
    """``/static``: the CSS, the viewer's and the leaderboard's scripts, the icon."""
    return Mount("/static", StaticFiles(directory=str(STATIC)), name="static")
