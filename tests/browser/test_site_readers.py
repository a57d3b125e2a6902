"""The site as its readers use it, in Chromium: a simulated build says so on every page and a
real one does not; the leaderboard's family rows fit the first screen and its ranked columns a
phone; the home chart never drops when a cohort joins and its ALL range draws the history;
time labels stay inside the plot; the new index pages are reachable and sort."""

from __future__ import annotations

import functools
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.services.publish_site import PublishSiteService
from tests.browser.conftest import Handler
from tests.browser.test_site_in_chromium import page_paths
from tests.support.scenario import Scenario

SIMULATED = frozenset({"clock", "prices", "replayed-markets"})
FAMILY_ROWS = "#leaderboard tbody:not(.reference) tr.llm"


@pytest.fixture(scope="module")
def simulated_site(scenario: Scenario, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same history published as the local demo publishes it: a simulation."""
    folder = tmp_path_factory.mktemp("simulated") / "site"
    service = PublishSiteService(
        scenario.stores,
        LocalFolderPublisher(folder),
        scenario.blobs,
        scenario.clock,
        scenario.rules,
        simulated=SIMULATED,
    )
    service.run()
    return folder


@pytest.fixture(scope="module")
def simulated_url(simulated_site: Path) -> Iterator[str]:
    handler = functools.partial(Handler, directory=str(simulated_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _open(browser: Browser, url: str, width: int = 1280, height: int = 900) -> Page:
    return browser.new_context(viewport={"width": width, "height": height}).new_page()


def test_a_simulated_build_says_so_on_every_page_and_a_real_one_does_not(
    browser: Browser, base_url: str, simulated_url: str, scenario: Scenario, artifacts: Path
) -> None:
    for name, path in page_paths(scenario).items():
        real = _open(browser, base_url)
        real.goto(f"{base_url}/{path}")
        assert real.locator("aside.banner").count() == 0, name
        assert "simulat" not in real.locator("footer").inner_text().lower(), name
        real.context.close()
        simulated = _open(browser, simulated_url)
        simulated.goto(f"{simulated_url}/{path}")
        banner = simulated.locator("aside.banner")
        assert banner.count() == 1, name
        assert "A simulation, not a benchmark result" in banner.inner_text(), name
        banner.locator("summary").click()  # the details behind the one line
        text = banner.inner_text()
        for part in ("clock", "prices", "markets", "say nothing about how the real models"):
            assert part in text, (name, part)
        assert "simulated build" in simulated.locator("footer").inner_text(), name
        if name == "leaderboard":
            simulated.screenshot(path=str(artifacts / "1280-simulated-leaderboard.png"))
        simulated.context.close()


@pytest.mark.parametrize("which", ["real", "simulated"])
def test_every_family_row_fits_the_first_screen(
    browser: Browser, base_url: str, simulated_url: str, which: str, artifacts: Path
) -> None:
    url = base_url if which == "real" else simulated_url
    page = _open(browser, url)
    page.goto(f"{url}/index.html")
    rows = page.locator(FAMILY_ROWS)
    assert rows.count() == 7
    for i in range(rows.count()):
        box = rows.nth(i).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 900, (which, i)
    table = page.locator("#leaderboard").bounding_box()
    assert table is not None and table["width"] <= 1280 - 2 * 24  # inside its box, no scrolling
    names = page.locator(f"{FAMILY_ROWS} td.model")
    for i in range(names.count()):  # one line each
        box = names.nth(i).bounding_box()
        assert box is not None and box["height"] < 40, i
    page.screenshot(path=str(artifacts / f"1280-first-screen-{which}.png"))
    page.context.close()


def test_the_columns_toggle_shows_and_hides_every_column(base_url: str, browser: Browser) -> None:
    page = _open(browser, base_url)
    page.goto(f"{base_url}/index.html")
    secondary = page.locator("#leaderboard th.secondary").first
    assert not secondary.is_visible()
    page.locator("button.columns-toggle").first.click()
    assert secondary.is_visible()
    assert page.locator("#leaderboard tr.groups th").first.get_attribute("colspan") == "6"
    page.locator("button.columns-toggle").first.click()
    assert not secondary.is_visible()
    page.context.close()


def test_the_home_chart_sums_each_family_and_says_so(visit: Any) -> None:
    """A sum over cohorts (a joining cohort adds $0), never a mean that drops when one joins:
    the drawing itself is checked in tests/unit/site/test_charts.py."""
    page = visit("index.html").page
    assert "A sum, not a mean" in page.locator("#returns + p.meta").inner_text()
    figure = page.locator("#returns ~ section.chart figure[data-range='ALL']").first
    ticks = figure.locator("text.tick").all_text_contents()
    assert any(t.startswith(("$", "-$")) for t in ticks)


def test_the_all_range_of_two_weeks_draws_more_than_two_points(visit: Any) -> None:
    page = visit("index.html").page
    figure = page.locator("#returns ~ section.chart figure[data-range='ALL']").first
    assert figure.get_attribute("hidden") is None  # the default range is the longest, ALL
    lines = figure.locator("polyline")
    assert lines.count() >= 2
    for i in range(lines.count()):
        assert len((lines.nth(i).get_attribute("points") or "").split()) > 2


@pytest.mark.parametrize("path", ["index.html", "models/deepseek-v3.1.html"])
def test_time_labels_stay_inside_the_plot(visit: Any, path: str) -> None:
    page = visit(path).page
    figures = page.locator("section.chart figure[data-range]")
    for i in range(figures.count()):
        figure = figures.nth(i)
        figure.evaluate("f => { f.hidden = false; }")
        svg = figure.locator("svg").first
        if svg.count() == 0:
            continue
        frame = svg.bounding_box()
        assert frame is not None
        labels = svg.locator("text.tick")
        for j in range(labels.count()):
            box = labels.nth(j).bounding_box()
            assert box is not None
            assert (
                frame["x"] - 1 <= box["x"]
                and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1
            )


@pytest.mark.parametrize(
    "name", ["calibration", "models", "markets", "cohorts", "about", "changelog"]
)
def test_the_index_pages_are_reachable_from_every_page(
    scenario: Scenario, visit: Any, name: str
) -> None:
    visited = visit("index.html")
    assert visited.problems == []
    target = page_paths(scenario)[name]
    link = visited.page.locator(f"header nav a[href='{target}'], footer a[href='{target}']")
    assert link.count() >= 1
    link = link.first
    link.click()
    page = visited.page
    assert page.locator("h1").count() == 1
    assert re.search(re.escape(target) + "$", page.url)
    if name in ("models", "markets", "cohorts"):
        rows = page.locator("main table tbody tr")
        assert rows.count() >= 2
        assert page.locator("main table th button[data-sort]").count() >= 3


def test_the_banner_is_one_line_on_a_phone_with_its_details_behind_a_toggle(
    browser: Browser, simulated_url: str
) -> None:
    """Issue 36: it took 250 px of every phone screen."""
    page = _open(browser, simulated_url, 390, 844)
    page.goto(f"{simulated_url}/index.html")
    banner = page.locator("aside.banner")
    closed = banner.bounding_box()
    assert closed is not None and closed["height"] <= 48, closed  # one line
    assert not page.locator("aside.banner details p").is_visible()
    banner.locator("summary").focus()
    page.keyboard.press("Enter")  # a keyboard opens it as well as a tap
    assert page.locator("aside.banner details p").is_visible()
    opened = banner.bounding_box()
    assert opened is not None and opened["height"] > closed["height"]
    page.context.close()
