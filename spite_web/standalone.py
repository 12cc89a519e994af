"""``spite replay FILE --html OUT.html``: the replay viewer as one self-contained file.

Data, script and style are inline; the page's Content-Security-Policy forbids every
network request, so it works from ``file://`` on a machine with no network -- the
``render(mode="html")`` of kaggle-environments.
"""

from __future__ import annotations

import os
from pathlib import Path

from referee.core.replay import Replay

from .app import templates
from .replay_view import viewer_data
from .site import STATIC


def render_html(replay: Replay, title: str, as_seat: int | None = None) -> str:
    """The page as text; ``as_seat`` K writes only what seat K saw (no omniscient view in it)."""
    data = viewer_data(replay, as_seat, source=title)
    return templates.env.get_template("standalone.html").render(
        data=data, title=title, css=(STATIC / "site.css").read_text(),
        js=(STATIC / "viewer.js").read_text())


def write_html(replay: Replay, out: Path, title: str, as_seat: int | None = None) -> Path:
    """Write :func:`render_html` to ``out`` atomically."""
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(out.name + ".tmp")
    temporary.write_text(render_html(replay, title, as_seat), encoding="utf-8")
    os.replace(temporary, out)
    return out
