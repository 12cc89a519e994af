"""The ladder's leaderboard in headless Chromium: it updates while games are played, with no reload."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.web.conftest import CHROMIUM, need_chromium, screenshot

from .conftest import running_arena

pytestmark = pytest.mark.slow

HOUSE = """
name = "browser-ladder"
house_bots = ["greedy", "naive"]
parallel = 1
"""


@pytest.fixture
def chromium() -> Iterator[Any]:
    need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def test_the_ladder_leaderboard_updates_while_games_are_played(tmp_path: Path, chromium: Any) -> None:
    with running_arena(tmp_path, HOUSE) as arena:
        page = chromium.new_page()
        page.set_default_timeout(180_000)  # a cap on every wait for a condition, not a speed check
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(arena.url + "/")
        assert page.title().startswith("browser-ladder")
        page.evaluate("window.notReloaded = true")
        total = "Array.from(document.querySelectorAll('#ladder td.games')).reduce((s, td) => s + Number(td.textContent), 0)"
        first = page.evaluate(total)
        page.wait_for_function(f"({total}) >= {first} + 4 && document.querySelectorAll('#ladder tbody tr').length == 2",
                               timeout=300_000)
        assert page.evaluate("window.notReloaded") is True
        names = page.locator("#ladder tbody tr td:nth-child(2)").all_text_contents()
        assert sorted(names) == ["greedy", "naive"]
        assert int(page.locator("#games-done").text_content() or "0") > 0
        page.wait_for_function("document.querySelectorAll('#latest tbody tr').length > 0")
        assert "house/" in (page.text_content("#latest tbody") or "")
        screenshot(page, "arena-ladder")
        assert not errors, errors


def test_an_entrant_sees_their_own_bots_logs_and_view_on_the_me_page(tmp_path: Path, chromium: Any) -> None:
    with running_arena(tmp_path, HOUSE) as arena:
        key = arena.add_entrant("zoe")
        arena.remote_bot("random", key)
        arena.wait_for("zoe's games", lambda: [r for r in arena.get("/api/leaderboard")[1]
                                               if r["entrant"] == "zoe" and r["games"] >= 2])
        page = chromium.new_page()
        page.set_default_timeout(180_000)  # a cap on every wait for a condition, not a speed check
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(arena.url + "/me")
        page.fill("#key", "sk_wrong")
        page.click("#login button")
        page.wait_for_selector("#problem:not([hidden])")
        assert "unknown key" in (page.text_content("#problem") or "")
        page.fill("#key", key)
        page.click("#login button")
        page.wait_for_selector("#games tbody tr a.log")
        assert page.text_content("#who") == "zoe"
        assert "remote" in (page.text_content("#versions tbody") or "")
        page.click("#games tbody tr a.view")
        page.wait_for_selector("#shown:not([hidden])")
        assert "as seat" in (page.text_content("#shown") or "")
        screenshot(page, "arena-me")
        assert not errors, errors


def test_the_admin_page_answers_the_organizer(tmp_path: Path, chromium: Any) -> None:
    """Issue 24.15: a wrong token showed an empty page, a disable said nothing (nor did an
    unknown id), and nothing listed entrants or remote bots or put a version back."""
    with running_arena(tmp_path, HOUSE) as arena:
        key = arena.add_entrant("zed")
        arena.remote_bot("random", key, SPITE_ARENA_CAPACITY="2")
        arena.wait_for("zed's bot to join", lambda: [r for r in arena.get("/api/leaderboard")[1]
                                                     if r["entrant"] == "zed"])
        page = chromium.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(arena.url + "/admin")
        page.fill("#token", "wrong-token")
        page.click("#login button")
        page.wait_for_selector("#problem:not([hidden])")
        assert "not the admin token" in (page.text_content("#problem") or "")
        page.fill("#token", (arena.data / "admin.token").read_text().strip())
        page.click("#login button")
        page.wait_for_selector("#panel:not([hidden])")
        assert page.is_hidden("#problem")
        page.wait_for_function("document.querySelector('#remote tbody').textContent.includes('zed/random')",
                               timeout=30_000)
        assert "zed" in (page.text_content("#entrants tbody") or "")
        page.fill("#vid", "999")
        page.fill("#reason", "x")
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#disable button")
        page.wait_for_function("document.querySelector('#done').textContent.includes('no bot version 999')",
                               timeout=30_000)
        vid = next(r["id"] for r in arena.get("/api/leaderboard")[1] if r["bot"] == "naive")
        page.fill("#vid", str(vid))
        page.fill("#reason", "too slow")
        asked: list[str] = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        page.click("#disable button")
        page.wait_for_function("document.querySelector('#done').textContent.includes('is disabled: too slow')",
                               timeout=30_000)
        assert asked and f"Disable version {vid}?" in asked[0]
        page.wait_for_selector("#disabled button.enable")
        page.click("#disabled button.enable")
        page.wait_for_function("document.querySelector('#done').textContent.includes('is active')", timeout=30_000)
        assert vid in [r["id"] for r in arena.get("/api/leaderboard")[1]]
        screenshot(page, "arena-admin")
        assert not errors, errors
