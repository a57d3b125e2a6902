"""Every page type in a real browser: loads clean, charts switch range, hostile text stays text,
accessible (axe-core), and screenshots for the README."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Error, Page, Request, Response

from tests.support.scenario import HOSTILE_FAMILY, HOSTILE_QUESTION, HOSTILE_REASONING, Scenario


def first_agent_page(scenario: Scenario) -> str:
    """The page of the agent whose reply and market question are hostile."""
    cohort = scenario.stores.cohorts.cohorts()[-1]
    return f"cohorts/{cohort.cohort_id}/{cohort.cohort_id}.{HOSTILE_FAMILY}.html"


def page_paths(scenario: Scenario) -> dict[str, str]:
    cohort = scenario.stores.cohorts.cohorts()[-1]
    family = cohort.lineup[0].family_id
    return {
        "leaderboard": "index.html",
        "model": f"models/{family}.html",
        "baseline model": "models/baseline-market-follower.html",
        "cohort": f"cohorts/{cohort.cohort_id}/index.html",
        "agent": first_agent_page(scenario),
        "methodology": "methodology.html",
        "data": "data/index.html",
    }


class Visit:
    """A page with every console error, failed request, dialog and CSP violation recorded."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page: Page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", self._page_error)
        self.page.on("requestfailed", self._failed)
        self.page.on("response", self._response)
        self.page.on("dialog", self._dialog)
        self.page.goto(url, wait_until="load")

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def _page_error(self, error: Error) -> None:
        self.problems.append(f"page error: {error}")

    def _failed(self, request: Request) -> None:
        self.problems.append(f"failed request: {request.url}")

    def _response(self, response: Response) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def _dialog(self, dialog: Dialog) -> None:
        self.problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser: Browser, base_url: str) -> Iterator[Any]:
    opened: list[Visit] = []

    def open_page(path: str) -> Visit:
        found = Visit(browser, f"{base_url}/{path}")
        opened.append(found)
        return found

    yield open_page
    for v in opened:
        v.close()


def test_every_page_type_loads_without_errors(scenario: Scenario, visit: Any) -> None:
    for name, path in page_paths(scenario).items():
        page = visit(path)
        assert page.problems == [], f"{name}: {page.problems}"
        assert page.page.locator("h1").count() == 1, name


def test_leaderboard_rows_links_and_sorting(scenario: Scenario, visit: Any) -> None:
    page = visit("index.html").page
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == 10
    assert page.locator("#leaderboard tbody tr.baseline").count() == 3
    assert "Ranking rule" in page.locator(".rule").inner_text()
    header = page.locator("#leaderboard th button", has_text="Trades")
    header.click()
    first = [
        int(t) for t in page.locator("#leaderboard tbody tr td:nth-child(11)").all_inner_texts()
    ]
    assert first == sorted(first)
    header.click()
    second = [
        int(t) for t in page.locator("#leaderboard tbody tr td:nth-child(11)").all_inner_texts()
    ]
    assert second == sorted(second, reverse=True)


@pytest.mark.parametrize("kind", ["model", "agent"])
def test_range_buttons_change_the_plotted_series(scenario: Scenario, visit: Any, kind: str) -> None:
    page = visit(page_paths(scenario)[kind]).page
    visible = page.locator("section.chart figure:not([hidden])")
    assert visible.get_attribute("data-range") == "ALL"
    all_points = visible.locator("polyline").get_attribute("points")
    page.locator("section.chart button[data-range='1D']").click()
    assert visible.get_attribute("data-range") == "1D"
    assert (
        page.locator("section.chart button[data-range='1D']").get_attribute("aria-pressed")
        == "true"
    )
    assert (
        page.locator("section.chart button[data-range='ALL']").get_attribute("aria-pressed")
        == "false"
    )
    day = visible.locator("polyline")
    assert day.count() == 0 or day.get_attribute("points") != all_points


def test_hostile_text_renders_as_text_and_runs_nothing(scenario: Scenario, visit: Any) -> None:
    page_visit = visit(first_agent_page(scenario))
    page = page_visit.page
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script:not([src])").count() == 0
    text = page.locator("main").inner_text()
    assert HOSTILE_REASONING in text
    assert HOSTILE_QUESTION in text
    assert page_visit.problems == []


def test_axe_finds_no_serious_or_critical_violations(
    scenario: Scenario, visit: Any, axe_source: str
) -> None:
    for name, path in page_paths(scenario).items():
        page = visit(path).page
        page.evaluate(axe_source)
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        serious = [
            f"{v['id']} ({v['impact']}): {v['help']}"
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert serious == [], f"{name}: {serious}"


def test_screenshots_of_leaderboard_and_model_page(
    scenario: Scenario, visit: Any, artifacts: Path
) -> None:
    for name in ("leaderboard", "model"):
        page = visit(page_paths(scenario)[name]).page
        target = artifacts / f"{name.replace(' ', '-')}.png"
        page.screenshot(path=str(target), full_page=True)
        assert target.stat().st_size > 10_000
