"""The ladder in headless Chromium at 1280x800 and a 390x844 phone: the leaderboard updates while games
are played, a spectator watches a game, an entrant uploads and watches their own, the organizer's panel."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.web.conftest import CHROMIUM, PHONE, need_chromium, phone_widths, screenshot

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
        total = ("Array.from(document.querySelectorAll('#ladder td.games'))"
                 ".reduce((s, td) => s + Number(td.textContent), 0)")
        first = page.evaluate(total)
        page.wait_for_function(f"({total}) >= {first} + 4 && document.querySelectorAll('#ladder tbody tr').length == 2",
                               timeout=300_000)
        assert page.evaluate("window.notReloaded") is True
        names = page.locator("#ladder tbody tr a.bot").all_text_contents()
        assert sorted(names) == ["greedy", "naive"]
        assert int(page.locator("#games-done").text_content() or "0") > 0
        page.wait_for_function("document.querySelectorAll('#latest tbody tr').length > 0")
        assert "house/" in (page.text_content("#latest tbody") or "")
        screenshot(page, "arena-ladder")
        assert not errors, errors


DIARIST = Path(__file__).parent / "bots" / "diarist"


def public_game(arena: Any) -> int:
    """A finished game whose replay is public (it and its deal's other half are over)."""
    def found() -> int | None:
        for game in arena.get("/api/games?limit=50")[1]["games"]:
            if arena.get(f"/api/games/{game['id']}")[1]["replay"]:
                return int(game["id"])
        return None
    return int(arena.wait_for("a public replay", found, timeout=300))


def test_a_spectator_goes_from_the_leaderboard_to_a_bot_to_a_game_and_steps_its_replay(tmp_path: Path,
                                                                                         chromium: Any) -> None:
    with running_arena(tmp_path, HOUSE) as arena:
        gid = public_game(arena)
        game = arena.get(f"/api/games/{gid}")[1]
        page = chromium.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(180_000)  # a cap on every wait for a condition, not a speed check
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(arena.url + "/")
        page.click(f"#ladder tr[data-id='{game['versions'][0]}'] a.bot")
        page.wait_for_selector("#opponents")
        assert "W–D–L" in (page.text_content(".stats") or "")
        assert page.locator("svg.chart").count() == 1  # the rating chart
        page.goto(arena.url + f"/games?bot={game['versions'][0]}&limit=500")
        page.click(f"tr[data-game='{gid}'] a.watch")
        page.wait_for_selector("#viewer[data-ready=true]")
        assert page.url.endswith(f"/games/{gid}")
        first = page.text_content("#v-step")
        for _ in range(3):
            page.click("#v-next")
        assert page.text_content("#v-step") != first
        assert page.locator("#v-moves li.played").count() == 3
        assert page.locator("#v-moves .debug").count() == 0  # never a debug string in public
        assert page.locator(".seat .hand .card:not(.back)").count() > 0  # the omniscient view: the hands
        screenshot(page, "arena-game")
        widths = phone_widths(chromium, arena.url, ["/", f"/bots/{game['versions'][0]}", "/games",
                                                    f"/games?bot={game['versions'][1]}", f"/games/{gid}",
                                                    "/me", "/admin", "/games/999999"])
        assert all(width <= 390 for width, _ in widths.values()), widths
        phone = chromium.new_context(**PHONE).new_page()
        phone.goto(arena.url + "/")
        screenshot(phone, "arena-phone")
        phone.goto(arena.url + f"/games/{gid}")
        phone.wait_for_selector("#viewer[data-ready=true]")
        screenshot(phone, "arena-game-phone")
        assert not errors, errors


def bundle(directory: Path) -> Path:
    import tarfile

    out = directory / "diarist.tar.gz"
    with tarfile.open(out, "w:gz") as tar:
        for name in ("bot.py", "bot.toml"):
            tar.add(DIARIST / name, arcname=name)
    return out


def test_an_entrant_uploads_from_the_browser_and_watches_their_game_with_their_own_debug_and_log(
        tmp_path: Path, chromium: Any) -> None:
    competition = f'name = "diary-ladder"\nhouse_bots = ["{DIARIST / "rival.toml"}"]\nparallel = 1\n' \
                  "[limits]\nrequests_per_minute = 10000\n"
    with running_arena(tmp_path, competition) as arena:
        key = arena.add_entrant("zoe")
        page = chromium.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(300_000)  # a cap on every wait for a condition, not a speed check
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(arena.url + "/me")
        page.fill("#key", "sk_wrong")
        page.click("#login button")
        page.wait_for_selector("#problem:not([hidden])")
        assert "unknown key" in (page.text_content("#problem") or "")
        page.fill("#key", key)
        page.click("#login button")
        page.wait_for_selector("#panel:not([hidden])")
        page.set_input_files("#bundle", str(bundle(tmp_path)))
        page.click("#upload button")
        page.wait_for_function("document.querySelector('#uploaded').textContent.includes('checking')")
        by_rules = ("stock-emptied", "stalemate", "turn-cap", "draw-pile-exhausted")  # both bots played moves
        played = arena.wait_for("a game of zoe's played out", lambda: [
            g for g in arena.get("/api/me/games?limit=1000", key)[1].get("games", []) if g["ending"] in by_rules],
            timeout=600)
        page.reload()
        page.wait_for_selector("#games tbody tr a.view")
        assert page.text_content("#who") == "zoe"
        assert "diarist" in (page.text_content("#versions tbody") or "")
        page.select_option("#filters select[name=result]", "won")
        page.wait_for_function("document.querySelector('#my-count').textContent.length > 0")
        page.select_option("#filters select[name=result]", "")
        page.wait_for_selector(f"#games tbody tr a.view[href^='/me/games/{played[0]['id']}/']")
        page.click(f"#games tbody tr a.view[href^='/me/games/{played[0]['id']}/']")
        page.wait_for_selector("#viewer[data-ready=true]")
        seat = int(page.evaluate("window.spiteViewer.data().view"))
        page.wait_for_function("document.querySelector('#log').textContent.length > 0")
        moves, log = page.text_content("#v-moves") or "", page.text_content("#log") or ""
        assert "diarist-debug" in moves and "rival-debug" not in moves
        assert "diarist-log" in log and "rival-log" not in log
        assert page.locator(f".seat[data-seat='{1 - seat}'] .hand .card:not(.back)").count() == 0  # not its hand
        screenshot(page, "arena-me-game")
        me_game = page.url.removeprefix(arena.url)
        widths = phone_widths(chromium, arena.url, ["/me", me_game], key=key)
        assert all(width <= 390 for width, _ in widths.values()), widths
        public = page.url.replace(me_game, "/games/" + me_game.split("/")[3])
        page.goto(public)
        assert "-debug" not in (page.content()) and "-log:" not in page.content()
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

        def confirm(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept()

        page.once("dialog", confirm)
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


def test_an_entrant_pages_through_their_games_fifty_at_a_time(tmp_path: Path, chromium: Any) -> None:
    """``/me`` lists an entrant's games fifty at a time, newest first, with "older" and "newer"
    (120 finished games of a remote version against a house bot, in a real store)."""
    from spite_arena.config import load_competition
    from spite_arena.store import ArenaStore
    from spite_arena.web import create_app
    from tests.web.conftest import serve
    from tournaments.ratings import RatingParams

    from .test_public_pages import Host

    file = tmp_path / "c.toml"
    file.write_text('name = "pager"\n')
    store, params = ArenaStore(tmp_path / "data"), RatingParams()
    house = store.ensure_house_bot("greedy", "1", "greedy", params)
    key = store.add_entrant("zoe")
    mine = store.remote_version(store.entrant("zoe").id, "far", "1", params)  # type: ignore[union-attr]
    for number in range(120):
        gid = store.add_game((mine, house), 1000 + number, 1000 + number)
        store.take_game(gid, "t")
        store.finish_game(gid, ending="stalemate", reason="r", winners=[0], scores=[0, 0], faults=[[], []],
                          replay=None, logs=[None, None], params=params)
    with serve(create_app(Host(load_competition(file), tmp_path / "data", store))) as url:
        page = chromium.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(300_000)  # a cap on every wait for a condition, not a speed check
        page.goto(url + "/me")
        page.fill("#key", key)
        page.click("#login button")
        page.wait_for_function("document.querySelector('#my-count').textContent.includes('showing 1–50')")
        first = page.text_content("#games tbody tr:first-child td:first-child")
        assert page.locator("#games tbody tr").count() == 50 and page.is_hidden("#newer")
        page.click("#older")
        page.wait_for_function("document.querySelector('#my-count').textContent.includes('showing 51–100')")
        page.click("#older")
        page.wait_for_function("document.querySelector('#my-count').textContent.includes('showing 101–120')")
        assert page.locator("#games tbody tr").count() == 20 and page.is_hidden("#older")
        # Two quick clicks of "newer", the first one's answer held back until the second's is
        # drawn: the late answer (page two) must not be drawn over page one.
        held: list[Any] = []
        page.route(lambda u: "/api/me/games?" in u and "offset=50" in u, lambda route: held.append(route))
        page.click("#newer")
        page.wait_for_function("document.querySelector('#games').getAttribute('aria-busy') === 'true'")
        page.click("#newer")
        page.wait_for_function("document.querySelector('#my-count').textContent.includes('showing 1–50')")
        for _ in range(30_000):  # the route's handler runs while Playwright waits on the page
            if held:
                break
            page.wait_for_timeout(10)
        assert held, "the first click's request never reached the route"
        held[0].continue_()
        page.wait_for_function("!document.querySelector('#games').hasAttribute('aria-busy')")
        assert page.text_content("#my-count") == "120 games, showing 1–50"
        assert page.text_content("#games tbody tr:first-child td:first-child") == first
        assert page.locator("#games tbody tr").count() == 50 and page.is_hidden("#newer")
