"""Readers' numbers agree: what every page says about positions, trade P/L and the verdict
against the market is recomputed here from the published CSVs alone, as a reader would."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from arena_core.analysis.figures import Rules
from tests.support.market_verdicts import market_verdicts
from tests.support.scenario import Scenario, build

RULES = Rules(min_forecasts=8, min_cohorts=2, min_weeks=2, min_events=4, min_return_cohorts=2)
CENT = Decimal("0.01")
Row = dict[str, str]


def rows(path: Path) -> list[Row]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def cohort_rows(site: Path, table: str) -> list[Row]:
    return [
        r
        for folder in sorted((site / "data" / "cohorts").iterdir())
        for r in rows(folder / f"{table}.csv")
    ]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built: Scenario = build(tmp_path_factory.mktemp("site"), weeks=3, extra=6, rules=RULES)
    built.publish()
    return built.site_dir


def test_every_market_page_counts_the_positions_the_csvs_hold(site: Path) -> None:
    held: dict[str, int] = defaultdict(int)
    for position in cohort_rows(site, "positions"):
        held[position["market_id"]] += 1
    markets = rows(site / "data" / "markets.csv")
    assert sum(held.values()) > 10
    for market in markets:
        count = held.get(market["market_id"], 0)
        assert int(market["positions"]) == count, market["market_id"]
        page = site / "markets" / f"{market['market_id']}.html"
        shown = re.search(r"<dt>Positions</dt><dd>(\d+)</dd>", page.read_text())
        assert shown is not None and int(shown.group(1)) == count, market["market_id"]
        if count:
            assert "No agent held a position on it" not in page.read_text()


def expected_trade_pnl(site: Path) -> dict[str, Decimal | None]:
    """Each trade's own P/L: a sell its realized P/L; a buy its share (by shares) of what its
    position made at settlement; None while its position is open."""
    trades = cohort_rows(site, "trades")
    settled = {
        s["position_id"]: Decimal(s["realized_pnl"]) for s in cohort_rows(site, "settlements")
    }
    status = {p["position_id"]: p["status"] for p in cohort_rows(site, "positions")}
    bought: dict[str, Decimal] = defaultdict(Decimal)
    for t in trades:
        if t["kind"] == "buy":
            bought[t["position_id"]] += Decimal(t["shares"])
    found: dict[str, Decimal | None] = {}
    for t in trades:
        position = t["position_id"]
        if t["kind"] == "sell":
            found[t["trade_id"]] = Decimal(t["realized_pnl"])
        elif status[position] == "open":
            found[t["trade_id"]] = None
        else:
            made = settled.get(position, Decimal(0))
            found[t["trade_id"]] = made * Decimal(t["shares"]) / bought[position]
    return found


def test_every_decision_page_gives_each_trade_its_own_pnl_and_their_sum(site: Path) -> None:
    expected = expected_trade_pnl(site)
    by_decision: dict[str, list[str]] = defaultdict(list)
    for t in cohort_rows(site, "trades"):
        by_decision[t["decision_id"]].append(t["trade_id"])
    checked = 0
    for decision, trade_ids in by_decision.items():
        body = (site / "decisions" / f"{decision}.html").read_text()
        cells = dict(
            re.findall(
                r'<tr><td data-value="(\d+)">.*?<td data-value="([^"]*)" title="this trade', body
            )
        )
        total = Decimal(0)
        for trade_id in trade_ids:
            index = str(int(trade_id.rsplit(".t", 1)[1]))
            want = expected[trade_id]
            shown = cells[index]
            if want is None:
                assert shown == "", trade_id
                continue
            assert abs(Decimal(shown) - want) <= CENT, (trade_id, shown, want)
            total += Decimal(shown)
            checked += 1
        earned = re.search(r"trades earned: <strong>([^<]+)</strong>", body)
        assert earned is not None, decision
        assert Decimal(earned.group(1).replace(",", "").replace("+", "")) == total, decision
    assert checked > 10


def test_no_profit_counts_twice(site: Path) -> None:
    """An agent's trades' own P/L add up to its sells and settlements, to the cent."""
    expected = expected_trade_pnl(site)
    per_agent: dict[str, Decimal] = defaultdict(Decimal)
    for t in cohort_rows(site, "trades"):
        per_agent[t["agent_id"]] += expected[t["trade_id"]] or Decimal(0)
    truth: dict[str, Decimal] = defaultdict(Decimal)
    for s in cohort_rows(site, "settlements"):
        truth[s["agent_id"]] += Decimal(s["realized_pnl"])
    for t in cohort_rows(site, "trades"):
        if t["kind"] == "sell":
            truth[t["agent_id"]] += Decimal(t["realized_pnl"])
    for agent, made in truth.items():
        assert abs(per_agent[agent] - made) < CENT, agent


def test_every_model_page_gives_the_verdict_against_the_market_pairwise_gives(site: Path) -> None:
    verdicts = market_verdicts(site / "data", "v1", "brier")
    assert verdicts
    for family, verdict in verdicts.items():
        body = (site / "models" / f"{family}.html").read_text()
        skill = re.search(r"<dt>Skill vs market</dt><dd>(.*?)</dd>", body)
        assert skill is not None, family
        cell = re.sub(r"<[^>]+>", "", skill.group(1))
        assert cell.endswith(f" {verdict}"), (family, cell)
