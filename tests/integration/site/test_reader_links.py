"""What a reader follows from a page: the families trading a market to their model pages, the
markets a model's reasoning names to theirs (by question), a market to Polymarket's event."""

from __future__ import annotations

import re

import pytest

from tests.support.html_tables import table
from tests.support.scenario import EVENT_SLUG, HOSTILE_REASONING, Scenario, build


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    built = build(tmp_path_factory.mktemp("site"), weeks=1)
    built.publish()
    return built


def test_the_families_trading_a_market_link_to_their_model_pages(site: Scenario) -> None:
    body = (site.site_dir / "markets" / "index.html").read_text()
    links = re.findall(
        r'<a href="\.\./models/([^"]+)\.html" title="family ([^"]+)">([^<]+)</a>', body
    )
    assert links, "no trader is linked"
    for page, family, name in links:
        assert page == family
        assert (site.site_dir / "models" / f"{page}.html").is_file()
        model_page = (site.site_dir / "models" / f"{page}.html").read_text()
        assert f"<h1>{name}" in model_page or f">{name}<" in model_page, name


def test_reasoning_names_a_market_by_its_question_with_a_link(site: Scenario) -> None:
    decisions = list((site.site_dir / "decisions").glob("*.html"))
    linked = [
        p
        for p in decisions
        if '<a href="../markets/m1.html" title="market m1">Will m1 happen?</a>' in p.read_text()
    ]
    assert linked, "no decision page links the m1 its reasoning names"
    feed = (site.site_dir / "index.html").read_text()
    assert 'title="market m1">Will m1 happen?</a>' in feed


def test_hostile_reasoning_stays_text(site: Scenario) -> None:
    for page in (site.site_dir / "decisions").glob("*.html"):
        body = page.read_text()
        assert "<script>window.__pwned" not in body and "<img src=x" not in body
    assert HOSTILE_REASONING.startswith("<script>")


def test_a_market_with_an_event_links_to_it_on_polymarket_in_one_path_segment(
    site: Scenario,
) -> None:
    body = (site.site_dir / "markets" / "m2.html").read_text()
    found = re.search(
        r'<a href="(https://polymarket\.com/event/[^"]+)"[^>]*>on Polymarket</a>', body
    )
    assert found is not None
    segment = found.group(1).removeprefix("https://polymarket.com/event/")
    assert "/" not in segment and " " not in segment and "?" not in segment
    assert segment.replace("%2F", "/").replace("%20", " ").replace("%3F", "?") == EVENT_SLUG
    assert "on Polymarket" not in (site.site_dir / "markets" / "m1.html").read_text()


def test_a_missing_interval_says_in_words_what_it_needs(site: Scenario) -> None:
    board = table((site.site_dir / "index.html").read_text(), "leaderboard")
    cells = [c for row in board.rows for c in row]
    needs = [c for c in cells if "weeks needed" in c or "needed)" in c]
    assert needs, "one week of history must leave intervals missing"
    assert not any(re.search(r"\[\d+/\d+", c) for c in cells), "shorthand like [1/2 wk] is back"
    assert all(re.search(r"\(\d+ of \d+ [a-z ]+needed\)", c) for c in needs), needs
