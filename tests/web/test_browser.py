"""The pages in a real browser: Debian's Chromium, headless, driven by Playwright.

A small league is played in the test (conftest.league); the leaderboard shows its bots, a
bot page draws its rating chart, the games list filters, the replay viewer steps through a
whole game and its drawn table matches the engine's state at sampled steps, the as-seat
view hides the other hands and debug strings, and ``spite replay --html`` works from
``file://`` with the network off. Screenshots go to test-artifacts/web/ (git-ignored).
Without Chromium these tests skip with the reason; under CI=true they fail.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from referee.core import replay as replay_file
from spite_cli.main import main
from spite_engine import GameState
from tournaments.queries import Queries

from .conftest import PHONE, League, debug_string, phone_widths, screenshot, serve

Page = Any
FANNED = 8
"""A discard pile shows its last 8 cards, and its size (viewer.js)."""

READ_TABLE = """() => {
  const ranks = (root, selector) => Array.from(root.querySelectorAll(selector)).map((c) => Number(c.dataset.rank));
  const seats = {};
  document.querySelectorAll("#v-table section.seat").forEach((s) => {
    const stock = s.querySelector(".stock");
    const hand = s.querySelector(".hand");
    seats[s.dataset.seat] = {
      stock_count: Number(stock.querySelector(".count").textContent.split(" ")[0]),
      stock_top: ranks(stock, ".card.top")[0] ?? null,
      discards: Array.from(s.querySelectorAll(".discard-pile")).map((p) => ({
        shown: ranks(p, ".card:not(.slot)"),
        size: p.querySelector(".pile-size") ? Number(p.querySelector(".pile-size").textContent)
                                            : p.querySelectorAll(".card:not(.slot)").length})),
      hand: hand.dataset.hidden ? null : ranks(hand, ".card:not(.back)"),
      backs: hand.querySelectorAll(".card.back").length,
    };
  });
  const centre = Array.from(document.querySelectorAll("#v-table .centre-pile")).map((p) => ({
    size: Number(p.dataset.size), top: ranks(p, ".card.top")[0] ?? null}));
  const draw = Number(document.querySelector("#v-table .draw-pile .count").textContent.split(" ")[0]);
  return {step: Number(document.getElementById("v-table").dataset.step), seats, centre, draw};
}"""


def expected_table(state: GameState, as_seat: int | None) -> dict[str, Any]:
    """What the viewer must draw for ``state``, straight from the engine's state."""
    rules = state.rules
    seats = {}
    for seat in range(rules.players):
        stock = state.stocks[rules.stock_of(seat)]
        shown = as_seat is None or as_seat == seat
        seats[str(seat)] = {
            "stock_count": len(stock), "stock_top": stock[-1] if stock else None,
            "discards": [{"shown": pile[-FANNED:], "size": len(pile)} for pile in state.discards[seat]],
            "hand": sorted(state.hands[seat]) if shown else None,
            "backs": 0 if shown else len(state.hands[seat]),
        }
    centre = [{"size": len(p), "top": p[-1] if p else None} for p in state.centre]
    return {"seats": seats, "centre": centre, "draw": len(state.draw_pile)}


def test_the_leaderboard_shows_the_league_and_a_bot_page_draws_its_chart(server: str, page: Page) -> None:
    page.goto(f"{server}/tournaments/1")
    names = page.locator("#leaderboard tbody a.bot").all_inner_texts()
    assert sorted(names) == ["greedy", "naive", "random"]
    assert page.locator("#head-to-head td[data-rate]").count() == 6
    screenshot(page, "leaderboard")
    page.click("#leaderboard th[data-key=name]")
    assert page.locator("#leaderboard tbody a.bot").all_inner_texts() == sorted(names)
    page.click("#leaderboard th[data-key=conservative]")
    ratings = [float(v) for v in page.locator("#leaderboard tbody td.strong").all_inner_texts()]
    assert ratings == sorted(ratings, reverse=True)
    page.click("#leaderboard a.bot:text-is('greedy')")
    page.wait_for_url(re.compile(r"/tournaments/1/bots/greedy$"))
    chart = page.locator("svg.rating-chart")
    assert chart.get_attribute("data-points") == "4"
    assert len(chart.locator("polyline.mu").get_attribute("points").split()) == 4
    assert chart.bounding_box()["width"] > 300
    assert page.locator("svg.histogram rect").count() > 0
    assert page.locator("#recent tbody tr").count() == 4
    screenshot(page, "bot-page")


def test_the_games_list_finds_the_games_a_bot_lost(league: League, server: str, page: Page) -> None:
    page.goto(f"{server}/games")
    assert page.locator("#games tbody tr").count() == 6
    page.fill("input[name=bot]", "greedy")
    page.select_option("select[name=result]", "lost")
    page.click("form.filters button")
    page.wait_for_url(re.compile(r"result=lost"))
    with Queries.open(league.db) as q:
        from tournaments.queries import GameFilter
        lost = q.games(GameFilter(bot="greedy", result="lost")).total
    assert page.locator("#games tbody tr .result.lost").count() == lost
    assert page.locator("#games tbody tr .result.won, #games tbody tr .result.drawn").count() == 0
    screenshot(page, "games-lost")


def test_the_viewer_steps_through_a_whole_game_and_draws_the_engines_table(league: League, server: str,
                                                                           page: Page) -> None:
    match_id, game = league.debug_replay
    with Queries.open(league.db) as q:
        loaded = replay_file.load(q.replay(match_id, game).path)
    record = loaded.record
    page.goto(f"{server}/replays/{match_id}/{game}")
    page.wait_for_selector("#viewer[data-ready=true]")
    state = GameState.new(record.rules, record.seed, record.first_seat)
    sampled = set(range(0, len(record.moves) + 1, max(1, len(record.moves) // 12))) | {len(record.moves)}
    page.focus("body")
    for step in range(len(record.moves) + 1):
        if step in sampled:
            shown = page.evaluate(READ_TABLE)
            assert shown["step"] == step
            assert {k: v for k, v in shown.items() if k != "step"} == expected_table(state, None), f"step {step}"
            if step == 40:
                screenshot(page, "replay-omniscient")
        if step < len(record.moves):
            state.apply(record.moves[step][1])
            page.keyboard.press("ArrowRight")
    assert page.locator(".end-banner").is_visible()
    assert record.outcome is not None and record.outcome.reason in page.locator(".end-banner").inner_text()
    page.keyboard.press("ArrowRight")  # past the end: stays at the end
    assert page.evaluate(READ_TABLE)["step"] == len(record.moves)
    screenshot(page, "replay-end")
    page.keyboard.press("Home")
    assert page.evaluate(READ_TABLE)["step"] == 0
    page.fill("#v-turn", "10")
    page.press("#v-turn", "Enter")
    assert int(page.locator("#v-table").get_attribute("data-turn")) >= 10
    page.locator("#v-moves li").nth(4).click()
    assert page.evaluate(READ_TABLE)["step"] == 5
    assert page.locator("#v-moves li").nth(4).locator(".debug").inner_text() == debug_string(record.moves[4][0], 4)
    page.select_option("#v-speed", "40")
    page.click("#v-play")
    page.wait_for_function("Number(document.getElementById('v-table').dataset.step) > 12")
    page.keyboard.press(" ")
    assert page.locator("#viewer").get_attribute("data-playing") == "false"


def check_as_seat(page: Page, seat: int, players: int) -> None:
    page.wait_for_selector(f"#viewer[data-view='{seat}']")
    shown = page.evaluate(READ_TABLE)
    for other in range(players):
        if other == seat:
            assert shown["seats"][str(other)]["hand"] is not None
        else:
            assert shown["seats"][str(other)]["hand"] is None and shown["seats"][str(other)]["backs"] >= 0
            assert page.locator(f"#v-table section.seat[data-seat='{other}'] .hand .card:not(.back)").count() == 0
    text = page.locator("body").inner_text()
    html = page.content()
    for other in range(players):
        marker = f"dbg-seat{other}-"
        assert (marker in text) == (other == seat)
        assert (marker in html) == (other == seat), "a hidden debug string is in the page's DOM"


def test_the_as_seat_view_hides_the_other_hands_and_debug_strings(league: League, server: str, page: Page) -> None:
    match_id, game = league.debug_replay
    page.goto(f"{server}/replays/{match_id}/{game}")
    page.wait_for_selector("#viewer[data-ready=true]")
    assert "dbg-seat0-" in page.content() and "dbg-seat1-" in page.content()
    for _ in range(25):
        page.keyboard.press("ArrowRight")
    page.select_option("#v-view", "1")
    check_as_seat(page, 1, 2)
    assert page.evaluate(READ_TABLE)["step"] == 25  # the toggle keeps the place
    assert "as_seat=1" in page.url
    screenshot(page, "replay-as-seat-1")
    page.select_option("#v-view", "0")
    check_as_seat(page, 0, 2)
    page.goto(f"{server}/replays/{match_id}/{game}?as_seat=1")  # loaded as seat 1: nothing else in the page
    page.wait_for_selector("#viewer[data-ready=true]")
    check_as_seat(page, 1, 2)


def test_the_self_contained_file_works_from_file_with_the_network_off(league: League, browser: Any,
                                                                     tmp_path: Path) -> None:
    match_id, game = league.debug_replay
    with Queries.open(league.db) as q:
        path = q.replay(match_id, game).path
    out = tmp_path / "replay.html"
    assert main(["replay", str(path), "--html", str(out)]) == 0
    text = out.read_text()
    assert not re.findall(r'(?:src|href)="(?!data:)', text) and "http://" not in text and "https://" not in text
    context = browser.new_context(offline=True, viewport={"width": 1360, "height": 900})
    requests: list[str] = []
    context.route("**/*", lambda route: (requests.append(route.request.url), route.continue_()
                                         if route.request.url.startswith("file://") else route.abort()))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(out.as_uri())
    page.wait_for_selector("#viewer[data-ready=true]")
    page.keyboard.press("End")
    loaded = replay_file.load(path)
    assert page.evaluate(READ_TABLE)["step"] == len(loaded.record.moves)
    assert page.locator(".end-banner").is_visible()
    page.keyboard.press("Home")
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    screenshot(page, "standalone")
    page.select_option("#v-view", "0")
    check_as_seat_text(page, 0)
    assert requests == [out.as_uri()] and not errors
    context.close()
    seat_only = tmp_path / "seat1.html"
    assert main(["replay", str(path), "--html", str(seat_only), "--as-seat", "1"]) == 0
    assert "dbg-seat0-" not in seat_only.read_text() and "dbg-seat1-" in seat_only.read_text()


def check_as_seat_text(page: Page, seat: int) -> None:
    page.wait_for_selector(f"#viewer[data-view='{seat}']")
    text = page.locator("body").inner_text()
    assert f"dbg-seat{seat}-" in text and f"dbg-seat{1 - seat}-" not in text
    assert page.locator(f"#v-table section.seat[data-seat='{1 - seat}'] .hand .card:not(.back)").count() == 0


def test_the_leaderboard_updates_while_its_tournament_runs(league: League, page: Page, tmp_path: Path) -> None:
    """A store whose tournament is still running (a copy of the league's, one match not yet
    done): the open page picks up the match finishing without a reload."""
    import shutil
    import sqlite3

    from spite_web.app import create_app

    db = tmp_path / "running.db"
    shutil.copy(league.db, db)
    with sqlite3.connect(db) as writer:
        last = writer.execute("SELECT MAX(id) FROM matches").fetchone()[0]
        writer.execute("UPDATE tournaments SET status = 'running', finished_at = NULL")
        writer.execute("UPDATE matches SET status = 'running' WHERE id = ?", (last,))
    with serve(create_app(db)) as url:
        page.goto(f"{url}/tournaments/1")
        assert page.locator("#done").inner_text() == "5" and page.locator("#live").is_visible()
        assert played(page) == 2 * 5  # W + D + L over the board: two entrants per match
        page.evaluate("window.notReloaded = true")
        with sqlite3.connect(db) as writer:
            writer.execute("UPDATE matches SET status = 'done' WHERE id = ?", (last,))
            writer.execute("UPDATE tournaments SET status = 'finished'")
        page.wait_for_function("document.getElementById('done').textContent === '6'")
        assert page.locator("#status").inner_text() == "finished"
        assert page.evaluate("window.notReloaded") is True
        assert played(page) == 2 * 6


def played(page: Page) -> int:
    cells = page.locator("#leaderboard tbody tr td:nth-child(5), #leaderboard tbody tr td:nth-child(6), "
                         "#leaderboard tbody tr td:nth-child(7)").all_inner_texts()
    return sum(int(v) for v in cells)


@pytest.mark.parametrize("spec", ["partners", "3p+open-stock", "skip-bo"])
def test_the_viewer_draws_other_rule_sets_as_the_engine_has_them(spec: str, page: Page, tmp_path: Path) -> None:
    """Four seats with team stocks, three seats with three open stock cards, Skip-Bo's deck:
    a random game written as a replay, opened from its --html file, compared at sampled steps."""
    import random as random_module

    from referee.core.replay import write
    from spite_engine import parse_rules

    rules = parse_rules(spec)
    state = GameState.new(rules, 20260101)
    rng = random_module.Random(7)
    while state.outcome is None and len(state.log) < 4000:
        moves = state.legal_moves()
        plays = [m for m in moves if m.kind == 0]
        state.apply(rng.choice(plays) if plays and rng.random() < 0.9 else rng.choice(moves))
    path = write(tmp_path / "game.jsonl.gz", {"seats": [{"name": f"bot{s}"} for s in range(rules.players)]},
                 state, {})
    out = tmp_path / "game.html"
    assert main(["replay", str(path), "--html", str(out)]) == 0
    page.goto(out.as_uri())
    page.wait_for_selector("#viewer[data-ready=true]")
    record = replay_file.load(path).record
    replayed = GameState.new(record.rules, record.seed, record.first_seat)
    steps = len(record.moves)
    for step in range(steps + 1):
        if step % max(1, steps // 6) == 0 or step == steps:
            page.evaluate(f"window.spiteViewer.go({step})")
            shown = page.evaluate(READ_TABLE)
            assert {k: v for k, v in shown.items() if k != "step"} == expected_table(replayed, None), f"step {step}"
        if step < steps:
            replayed.apply(record.moves[step][1])
    screenshot(page, f"viewer-{spec}")


def test_every_league_page_fits_a_phone(league: League, server: str, browser: Any) -> None:
    """At 390x844 with mobile emulation no page scrolls sideways: tables drop their minor
    columns and wrap, the viewer's table and controls stack."""
    with Queries.open(league.db) as q:
        tournament = q.tournament()
        bot = q.leaderboard(tournament.id).rows[0].name
    mid, game = league.debug_replay
    widths = phone_widths(browser, server, [
        "/", f"/tournaments/{tournament.id}", f"/tournaments/{tournament.id}/bots/{bot}",
        f"/games?bot={bot}&result=lost", f"/replays/{mid}/{game}", f"/replays/{mid}/{game}?as_seat=1",
        "/tournaments/999999"])
    assert all(width <= 390 for width, _ in widths.values()), widths
    context = browser.new_context(**PHONE)
    phone = context.new_page()
    phone.goto(server + f"/replays/{mid}/{game}")
    phone.wait_for_selector("#viewer[data-ready=true]")
    screenshot(phone, "league-replay-phone")
    context.close()
