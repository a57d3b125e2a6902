"""A v1 model page says what its tables hold: its calibration and breakdowns are of its bets
(there is no panel under v1), and a list cut at twelve never claims twelve of three."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena_core.analysis.figures import Rules
from tests.support.scenario import Scenario, build

RULES = Rules(min_forecasts=8, min_cohorts=2, min_weeks=2, min_events=4, min_return_cohorts=2)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    built = build(tmp_path_factory.mktemp("site"), weeks=3, extra=6, rules=RULES)
    built.publish()
    return built


def model_pages(site: Scenario) -> list[Path]:
    pages = sorted(p for p in (site.site_dir / "models").glob("*.html") if p.stem != "index")
    assert len(pages) >= 5
    return pages


def test_a_v1_model_page_does_not_call_its_bets_panel_forecasts(site: Scenario) -> None:
    """The headings tested an undefined ``p`` (always "not none"): every v1 page said
    "Calibration of its panel forecasts"."""
    for page in model_pages(site):
        body = page.read_text()
        assert ">Calibration</h3>" in body and ">Breakdowns</h3>" in body, page.name
        assert "panel forecasts" not in body, page.name


def test_counts_of_recent_rows_never_exceed_what_there_is(site: Scenario) -> None:
    cohorts = len(list((site.site_dir / "data" / "cohorts").glob("c*")))
    assert 0 < cohorts < 12
    body = (site.site_dir / "models" / "deepseek-v3.1.html").read_text()
    found = re.search(r"The (\d+) most recent of (\d+) cohorts", body)
    assert found is not None and found.group(1) == found.group(2) == str(cohorts)
    newest = re.search(r"the (\d+) newest; every week", body)
    assert newest is not None and int(newest.group(1)) <= cohorts
    data = (site.site_dir / "data" / "index.html").read_text()
    assert f"The {cohorts} most recent cohorts are listed here" in data
