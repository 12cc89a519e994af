"""The web tests' parts: a small league played for real, the app served by uvicorn on port 0,
and Debian's Chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import gzip
import json
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.languages.common import unavailable
from tests.tournaments.conftest import run, write_tournament

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "web"
"""Screenshots of every page the browser tests open (git-ignored)."""
CHROMIUM = os.environ.get("SPITE_CHROMIUM", "/usr/bin/chromium")


@dataclass
class League:
    db: Path
    replays: Path
    debug_replay: tuple[int, int]
    """(match id, game) of the replay the fixture gave a debug string on every move."""


def debug_string(seat: int, index: int) -> str:
    return f"dbg-seat{seat}-move{index}"


@pytest.fixture(scope="session")
def league(tmp_path_factory: pytest.TempPathFactory) -> League:
    """Three sample bots, one round robin (6 matches), with replays and logs. One replay gets
    a debug string on every move (the sample bots send none), for the as-seat tests."""
    directory = tmp_path_factory.mktemp("web-league")
    path = write_tournament(directory, "webleague", bots=["greedy", "random", "naive"], seed=11, rounds=1,
                            parallel=2, replay_dir=str(directory / "replays"), log_dir=str(directory / "logs"))
    played = run(path, directory / "web.db")
    assert played.outcome.void == 0 and played.outcome.done == 6, played.output
    import sqlite3
    with sqlite3.connect(directory / "web.db") as db:
        match_id, game, replay = db.execute(
            "SELECT match_id, game_number, replay FROM games ORDER BY moves DESC LIMIT 1").fetchone()
    add_debug_strings(Path(replay))
    return League(directory / "web.db", directory / "replays", (match_id, game))


def add_debug_strings(path: Path) -> None:
    with gzip.open(path, "rt", encoding="utf-8") as source:
        lines = [json.loads(line) for line in source]
    moves = 0
    for line in lines[1:-1]:
        if line["event"]["kind"] == "move":
            line["debug"] = debug_string(line["event"]["seat"], moves)
            moves += 1
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(line) + "\n" for line in lines)


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free port in a thread; yields its base URL."""
    import uvicorn

    serving = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=serving.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 180  # a cap on the wait (a busy machine starts it late), not a speed check
    while not (serving.started and serving.servers):
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{serving.servers[0].sockets[0].getsockname()[1]}"
    finally:
        serving.should_exit = True
        thread.join(10)


@pytest.fixture(scope="session")
def server(league: League) -> Iterator[str]:
    """``spite web``'s app over the league's store."""
    from spite_web.app import create_app

    with serve(create_app(league.db)) as url:
        yield url


def need_chromium() -> None:
    """Skip with the reason where there is no Chromium or Playwright; under CI=true, fail."""
    reason = ""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        reason = "Playwright for Python is not installed (pip install -e '.[dev]')"
    if not reason and not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        reason = f"no Chromium at {CHROMIUM} (apt-get install chromium; or set SPITE_CHROMIUM)"
    if reason:
        unavailable(f"{reason} (.ci/run installs chromium)")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    need_chromium()
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread while it runs, and asyncio.run
    # (a tournament, a referee) refuses to start under it: one browser per test module, gone
    # before the next module's tests.
    with sync_playwright() as driver:
        # --no-sandbox: CI runs as root, where Chromium's own sandbox refuses to start.
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


PAGE_WAIT_MS = 180_000
"""How long any wait for a page (a selector, a function, a navigation) may take."""


@pytest.fixture
def page(browser: object, request: pytest.FixtureRequest) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1360, "height": 900})  # type: ignore[attr-defined]
    opened = context.new_page()
    # every wait for the page waits for a condition; this is its cap, not a speed check
    # (the suite beside 8 busy processes makes pages slow, never wrong)
    opened.set_default_timeout(PAGE_WAIT_MS)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    yield opened
    context.close()
    assert not errors, f"the page logged errors: {errors}"


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
"""A phone's viewport, with mobile emulation (Playwright's ``new_context`` options)."""
TOO_WIDE = """() => Array.from(document.querySelectorAll("body *"))
  .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .slice(0, 6)
  .map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : ""))"""


def phone_widths(browser: Any, url: str, paths: list[str], key: str = "") -> dict[str, tuple[int, list[str]]]:
    """Each page's ``document.documentElement.scrollWidth`` at :data:`PHONE`, with the first
    elements that stick out past the screen (for the failure's message); ``key`` is put in
    the tab first, as the ladder's /me does."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.set_default_timeout(PAGE_WAIT_MS)
    if key:
        page.goto(url + "/me")
        page.evaluate(f"sessionStorage.setItem('spite-key', {key!r})")
    widths = {}
    for path in paths:
        page.goto(url + path)
        page.wait_for_load_state("networkidle")
        widths[path] = (int(page.evaluate("document.documentElement.scrollWidth")), page.evaluate(TOO_WIDE))
    context.close()
    return widths


def screenshot(page: object, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(out), full_page=True)  # type: ignore[attr-defined]
    return out

