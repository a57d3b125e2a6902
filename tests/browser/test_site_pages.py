"""The pages a reader browses, in Chromium: market and decision pages reached from every table
that names them, charts with dated axes and values on hover, the home page's comparison chart
and feed, and a phone-sized screen that shows the ranking columns without scrolling the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from playwright.sync_api import Browser, Page

from tests.browser.test_site_in_chromium import page_paths
from tests.support.scenario import Scenario

LINK_PAGES = ("leaderboard", "model", "cohort", "agent", "market", "decision")


def linked(page: Page, kind: str) -> list[str]:
    """Every link to a market or decision page, absolute."""
    hrefs = page.eval_on_selector_all(
        f"main a[href*='{kind}/']", "links => links.map(a => a.getAttribute('href'))"
    )
    return sorted({urljoin(page.url, h) for h in hrefs if h.endswith(".html")})


def test_market_and_decision_links_resolve_from_every_page(scenario: Scenario, visit: Any) -> None:
    found: dict[str, set[str]] = {"markets": set(), "decisions": set()}
    cohort = scenario.stores.cohorts.cohorts()[-1].cohort_id
    busy = f"cohorts/{cohort}/{cohort}.deepseek-v3.1.html"  # an agent with many trades
    for path in [page_paths(scenario)[name] for name in LINK_PAGES] + [busy]:
        page = visit(path).page
        for kind in found:
            found[kind] |= set(linked(page, kind))
    assert len(found["markets"]) >= 3 and len(found["decisions"]) >= 3
    for url in sorted(found["markets"] | found["decisions"]):
        page = visit(url.split("/", 3)[3]).page
        assert page.locator("h1").count() == 1, url
        assert page.url == url


def test_tables_name_markets_by_question_with_the_id_at_hand(
    scenario: Scenario, visit: Any
) -> None:
    page = visit(page_paths(scenario)["agent"]).page
    links = page.locator("table a[href*='markets/']")
    assert links.count() > 0
    for i in range(links.count()):
        link = links.nth(i)
        market_id = link.get_attribute("href").rsplit("/", 1)[1].removesuffix(".html")  # type: ignore[union-attr]
        assert link.inner_text() != market_id  # the question, not the id
        assert market_id in (link.get_attribute("title") or "")


def test_decision_page_shows_the_reply_cost_and_prompt(scenario: Scenario, visit: Any) -> None:
    visited = visit(page_paths(scenario)["decision"])
    page = visited.page
    assert visited.problems == []
    stats = page.locator("dl.stats").inner_text()
    for label in ("Action", "Replies", "Tokens in / out", "Cost", "Latency", "Answered by"):
        assert label in stats
    prompt = page.locator("a", has_text="The prompt as sent")
    response = page.request.get(urljoin(page.url, prompt.get_attribute("href") or ""))
    assert response.status == 200 and "=== user ===" in response.text()
    assert page.locator("h2", has_text="Instructions and trades").count() == 1


def test_charts_have_dated_ticks_values_on_hover_and_a_legend(
    scenario: Scenario, visit: Any
) -> None:
    page = visit("index.html").page
    figure = page.locator("#returns ~ section.chart figure:not([hidden])").first
    assert figure.get_attribute("data-range") == "ALL"
    ticks = figure.locator("text.tick").all_text_contents()
    assert any(t.startswith(("$", "-$")) for t in ticks)  # value ticks with their unit
    months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    assert any(t.startswith(months) for t in ticks)  # dated time ticks
    assert len(ticks) >= 5
    series = figure.locator("g.series")
    assert series.count() == len(scenario.stores.cohorts.cohorts()[-1].lineup)
    legend = figure.locator("ul.legend li").all_inner_texts()
    assert len(legend) == series.count()
    title = figure.locator("circle.mark title").first.text_content() or ""
    assert "$" in title and "UTC" in title  # the point's value and time on hover


def test_the_all_range_of_a_young_deployment_draws_points(scenario: Scenario, visit: Any) -> None:
    """Two weeks in, the weekly series has fewer than two points: ALL falls back to finer."""
    for path in ("index.html", page_paths(scenario)["model"], page_paths(scenario)["agent"]):
        page = visit(path).page
        figure = page.locator("section.chart figure[data-range='ALL']").first
        points = (figure.locator("polyline").first.get_attribute("points") or "").split()
        assert len(points) >= 2, path
        assert figure.locator(".empty").count() == 0, path


def test_a_phone_shows_the_ranking_columns_without_scrolling_the_page(
    browser: Browser, base_url: str, scenario: Scenario, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        for name in ("leaderboard", "model", "market", "decision", "agent"):
            page = context.new_page()
            page.goto(f"{base_url}/{page_paths(scenario)[name]}", wait_until="load")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"{name}: the page scrolls sideways ({width} px)"
            page.screenshot(path=str(artifacts / f"390-{name}.png"), full_page=False)
            if name == "leaderboard":  # rank, model, the ranked measure, skill vs market
                for header in ("Rank", "Model", "Brier", "Skill vs market"):
                    box = page.locator("#leaderboard th", has_text=header).first.bounding_box()
                    assert box is not None and box["x"] + box["width"] <= 390, header
            page.close()
    finally:
        context.close()


def test_every_table_sorts(scenario: Scenario, visit: Any) -> None:
    for name in ("model", "agent", "cohort", "market", "decision", "data"):
        page = visit(page_paths(scenario)[name]).page
        tables = page.locator("main table:not(.matrix)")
        for i in range(tables.count()):
            table = tables.nth(i)
            if table.locator("thead th").count() == 0:
                continue
            assert table.locator("thead th button[data-sort]").count() > 0, name
