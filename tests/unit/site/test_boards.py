"""A leaderboard built from its published tables alone: standings, order, the trading columns,
the words of the pairwise page, and the settings file that makes it reproducible."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from arena_core.analysis.clustered import Clustering
from arena_core.analysis.figures import Figure, Rules
from arena_core.analysis.pairs import PairResult, Verdict
from arena_core.dataset import boards, exports
from arena_core.dataset.board_inputs import read_settings, settings_json
from arena_core.dataset.boards import Standing, build
from arena_core.errors import DatasetError
from arena_core.site import pairwise

RULES = Rules(min_forecasts=6, min_cohorts=2, min_weeks=2, min_events=2, min_return_cohorts=2)
START = datetime(2026, 3, 1, tzinfo=UTC)
Row = dict[str, Any]


def family(family_id: str, kind: str = "llm") -> Row:
    return {
        "methodology": "v1",
        "family_id": family_id,
        "display_name": family_id.title(),
        "kind": kind,
        "stand_in": False,
        "model_id": f"x/{family_id}",
    }


def bet(family_id: str, week: int, market: str, p_yes: str, outcome: int, side: str) -> Row:
    at = START + timedelta(weeks=week)
    return {
        "methodology": "v1",
        "trade_id": f"c{week}.{family_id}.{market}",
        "family_id": family_id,
        "agent_id": f"c{week}.{family_id}",
        "cohort_id": f"c2026-03-0{1 + week}",
        "market_id": market,
        "event_id": f"e{market}",
        "run_week": f"w{at.date().isoformat()}",
        "side": side,
        "p_yes": Decimal(p_yes),
        "market_p_yes": Decimal("0.5"),
        "outcome": outcome,
        "matured": True,
        "category": "Sports",
        "bet_at": at,
        "closes_at": at + timedelta(days=3),
    }


def returns(family_id: str, cohort: str, pnl: str, trades: int) -> Row:
    return {
        "methodology": "v1",
        "family_id": family_id,
        "cohort_id": cohort,
        "return_pct": Decimal(pnl) / 100,
        "total_pnl": Decimal(pnl),
        "trades": trades,
        "completed": False,
        "matured": False,
    }


def tables(families: list[Row], bets: list[Row], records: list[Row]) -> dict[str, bytes]:
    rows = {
        "families": families,
        "forecasts": bets,
        "family_returns": records,
        "position_returns": [],
    }
    return {name: exports.to_csv(name, found) for name, found in rows.items()}


def skilled_bets(family_id: str, noise: float, weeks: int, per_week: int, seed: int) -> list[Row]:
    rng = random.Random(seed)
    found = []
    for week in range(weeks):
        for i in range(per_week):
            outcome = (week + i) % 2
            p = min(max(outcome + rng.gauss(0, noise) * (1 if outcome == 0 else -1), 0.02), 0.98)
            found.append(bet(family_id, week, f"q{week}{i}", f"{abs(p):.2f}", outcome, "YES"))
    return found


def test_standings_order_and_what_a_provisional_family_needs() -> None:
    result = build(
        tables(
            [
                family("sharp"),
                family("fair"),
                family("thin"),
                family("idle"),
                family("random", "baseline"),
            ],
            skilled_bets("sharp", 0.05, 3, 6, 1)
            + skilled_bets("fair", 0.4, 3, 6, 2)
            + skilled_bets("thin", 0.1, 1, 3, 3)
            + skilled_bets("random", 0.5, 3, 6, 4),
            [returns("idle", "c2026-03-01", "0", 0)],
        ),
        "v1",
        RULES,
    )
    order = [(r.family_id, r.standing) for r in result.rows]
    assert order == [
        ("sharp", Standing.RANKED),
        ("fair", Standing.RANKED),
        ("thin", Standing.PROVISIONAL),
        ("idle", Standing.UNSCORED),
        ("random", Standing.REFERENCE),
        ("market", Standing.REFERENCE),
    ]
    thin = result.row("thin")
    assert thin is not None and thin.result is not None
    assert thin.result.missing == "1 of 2 weeks, 3 of 6 matured forecasts, 1 of 2 cohorts needed"
    assert thin.result.brier is not None and not thin.result.brier.shown


def test_trading_columns_add_up_the_rows_they_come_from() -> None:
    bets = [
        bet("a", 0, "m1", "0.8", 1, "YES"),  # won
        bet("a", 0, "m2", "0.3", 0, "NO"),  # a NO bet on a question that resolved NO: won
        bet("a", 1, "m3", "0.4", 1, "NO"),  # lost
    ]
    records = [returns("a", "c2026-03-01", "120.50", 4), returns("a", "c2026-03-08", "-20.25", 3)]
    result = build(tables([family("a")], bets, records), "v1", RULES)
    row = result.row("a")
    assert row is not None and row.trading is not None
    assert row.trading.win_rate == Decimal(2) / 3
    assert (row.trading.total_pnl, row.trading.trades) == (Decimal("100.25"), 7)
    assert (row.trading.cohorts, row.trading.resolved_bets) == (2, 3)


def _pair(
    verdict: Verdict, low: float | None, p_holm: float | None, more: int | None
) -> PairResult:
    difference = Figure(-0.05, low, None if low is None else -0.01, 0.02, 9.0, 40, 10, 30,
                        None if low is not None else "3 of 8 weeks needed")  # fmt: skip
    return PairResult("a", "b", "brier", True, difference, 0.01, p_holm, 0.06, more, verdict)


def test_an_undecided_pair_never_reads_as_already_separated() -> None:
    """The interval of one pair can exclude 0 while Holm over all pairs still says undecided:
    the row then says how many weeks more, not "none: its interval already excludes 0"."""
    undecided = _pair(Verdict.UNDECIDED, -0.09, 0.08, 3)
    assert pairwise.verdict(undecided, {}) == "undecided so far"
    assert pairwise.more_needed(undecided) == "about 3 more weeks"
    assert "none" not in pairwise.more_needed(undecided)
    too_few = _pair(Verdict.TOO_FEW, None, None, None)
    assert pairwise.verdict(too_few, {}) == "too few shared for a verdict"
    assert pairwise.more_needed(too_few) == "3 of 8 weeks needed"
    decided = _pair(Verdict.A_BETTER, -0.09, 0.01, None)
    assert pairwise.verdict(decided, {"a": "Model A"}) == "Model A better"
    assert pairwise.more_needed(decided) == "—"
    assert (
        pairwise.more_needed(replace(undecided, more_weeks=None))
        == "no difference established: no week promised"
    )


def test_a_detectable_difference_beyond_what_the_measure_allows_says_so() -> None:
    """Two weeks give a t with one degree of freedom: the detectable Brier difference came out
    as 17.88, where no two forecasters can differ by more than 1."""
    pair = _pair(Verdict.UNDECIDED, -0.09, 0.08, 3)
    assert pairwise.detectable(pair) == "0.0600"
    assert pairwise.detectable(replace(pair, detectable=17.88)) == (
        "beyond the measure's range (±1)"
    )
    assert pairwise.detectable(replace(pair, detectable=None)) == "—"
    peer = replace(pair, measure="peer_score", detectable=117.5)
    assert pairwise.detectable(peer) == "117.5000"  # an unbounded measure: always a number


def test_matrix_cells_read_row_minus_column_and_carry_no_interval_below_the_minimum() -> None:
    pair = _pair(Verdict.TOO_FEW, None, None, None)
    (matrix,) = pairwise.matrices([pair], {"a": "A", "b": "B"})
    a_minus_b, b_minus_a = matrix.cells[0][1], matrix.cells[1][0]
    assert a_minus_b is not None and b_minus_a is not None
    assert (a_minus_b.estimate, b_minus_a.estimate) == (-0.05, 0.05)
    assert a_minus_b.low is None and a_minus_b.needs == "3 of 8 weeks needed"


def test_settings_round_trip_and_garbled_settings_are_one_clear_error() -> None:
    rules = replace(RULES, clustering=Clustering.EVENT)
    read = read_settings(settings_json(rules, ["v1+panel", "v1"], START))
    assert read == (rules, ["v1+panel", "v1"])
    for garbled in (b"{", b"[]", b'{"rules": {}, "methodologies": ["v1"]}', b"\xff"):
        with pytest.raises(DatasetError, match=r"analysis\.json"):
            read_settings(garbled)
    with pytest.raises(DatasetError, match="unknown methodology"):
        read_settings(settings_json(rules, ["v9"], START))


def test_a_missing_or_malformed_table_names_itself() -> None:
    good = tables([family("a")], [bet("a", 0, "m1", "0.8", 1, "YES")], [])
    with pytest.raises(DatasetError, match=r"no forecasts\.csv"):
        build({k: v for k, v in good.items() if k != "forecasts"}, "v1", RULES)
    broken = good["forecasts"].replace(b"0.800000000000", b"NaN")
    with pytest.raises(DatasetError, match=r"forecasts\.csv line 2, column p_yes"):
        build({**good, "forecasts": broken}, "v1", RULES)
    outside = good["forecasts"].replace(b"0.800000000000", b"1.5")
    with pytest.raises(DatasetError, match=r"forecasts\.csv line 2"):
        build({**good, "forecasts": outside}, "v1", RULES)
    header = good["forecasts"].split(b"\n", 1)[0].replace(b"matured,", b"")
    with pytest.raises(DatasetError, match="lacks the column"):
        build({**good, "forecasts": header + b"\n"}, "v1", RULES)
    assert boards.V1 == "v1"
