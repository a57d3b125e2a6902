"""Constructed leaderboards: the minimum sample, unscored families, ties and missing values."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_core.domain.portfolio import BetScore, PortfolioSnapshot
from arena_core.scoring.statistics import ScoredForecast
from arena_core.site.leaderboard import LeaderboardRow, Standing, leaderboard_row, ordered
from arena_core.site.pairwise import matrices, more_needed, verdict
from arena_core.site.statistics import RankingRules, Statistics, compute, empty_statistics

RULES = RankingRules(min_forecasts=30, min_cohorts=2)


def forecasts(family: str, count: int, *, weeks: int = 2, hit: float = 0.7) -> list[ScoredForecast]:
    """``count`` forecasts spread over ``weeks`` cohorts, on markets shared across families;
    ``hit`` is the mean probability given to what happened (spread +-0.15 over the forecasts,
    so intervals have width), so families differ in Brier."""
    found = []
    for i in range(count):
        given = min(0.99, max(0.01, hit + 0.075 * ((7 * i) % 5 - 2)))
        found.append(
            ScoredForecast(
                family_id=family,
                agent_id=f"c{i % weeks}.{family}",
                cohort_id=f"c{i % weeks}",
                market_id=f"m{i}",
                p_yes=given if i % 3 else 1 - given,
                market_p_yes=0.5,
                outcome=1 if i % 3 else 0,
            )
        )
    return found


def run(
    rows: dict[str, list[ScoredForecast]],
    *,
    rules: RankingRules = RULES,
    rankable: set[str] | None = None,
    returns: dict[str, dict[str, float]] | None = None,
) -> Statistics:
    return compute(
        rows,
        returns or {},
        rankable=set(rows) if rankable is None else rankable,
        rules=rules,
        groups={},
    )


def spec(family: str, kind: AgentKind = AgentKind.LLM) -> AgentSpec:
    return AgentSpec(
        family_id=family, display_name=family.upper(), kind=kind, model_id=family, provider="p"
    )


def row(statistics: Statistics, family: str, kind: AgentKind = AgentKind.LLM) -> LeaderboardRow:
    stats = statistics.families.get(family) or empty_statistics(family)
    return leaderboard_row(spec(family, kind), [], [], stats)


def test_two_families_with_three_bets_each_are_provisional() -> None:
    statistics = run({"a": forecasts("a", 3), "b": forecasts("b", 3, hit=0.9)})
    for family in ("a", "b"):
        board_row = row(statistics, family)
        assert board_row.standing is Standing.PROVISIONAL
        assert (board_row.rank, board_row.rank_range) == (None, None)
        assert board_row.brier is not None  # shown, with its interval, just not ranked


def test_the_minimum_sample_needs_both_forecasts_and_cohorts() -> None:
    statistics = run(
        {"one-week": forecasts("one-week", 40, weeks=1), "enough": forecasts("enough", 30)}
    )
    assert statistics.families["one-week"].rank is None
    assert statistics.families["enough"].rank == 1


def test_a_family_without_scored_forecasts_is_never_ranked() -> None:
    anything = RankingRules(min_forecasts=0, min_cohorts=0)
    statistics = run({"a": forecasts("a", 5)}, rules=anything, rankable={"a", "none"})
    none = row(statistics, "none")
    assert none.standing is Standing.UNSCORED
    assert none.rank is None
    assert row(statistics, "a").rank == 1


def test_baselines_are_reference_rows_whatever_their_sample() -> None:
    statistics = run({"base": forecasts("base", 60)}, rankable=set())
    board_row = row(statistics, "base", AgentKind.BASELINE)
    assert (board_row.standing, board_row.rank) == (Standing.REFERENCE, None)


def test_ties_produce_overlapping_rank_ranges() -> None:
    statistics = run(
        {
            "a": forecasts("a", 40),
            "b": forecasts("b", 40),  # the very same forecasts as a
            "sharp": forecasts("sharp", 40, hit=0.97),
            "poor": forecasts("poor", 40, hit=0.15),
        }
    )
    a, b = statistics.families["a"], statistics.families["b"]
    assert a.brier == b.brier
    assert {a.rank, b.rank} == {2, 3}
    assert a.rank_range == b.rank_range == (2, 3)
    assert statistics.families["sharp"].rank_range == (1, 1)
    assert statistics.families["poor"].rank_range == (4, 4)
    assert not a.tied_with_leader and not b.tied_with_leader


def test_a_family_whose_range_reaches_the_top_is_tied_with_the_leader() -> None:
    statistics = run({"a": forecasts("a", 40, hit=0.72), "b": forecasts("b", 40, hit=0.7)})
    leader, second = sorted(statistics.families.values(), key=lambda s: s.rank or 0)
    assert (leader.rank, second.rank) == (1, 2)
    assert second.rank_range == (1, 2)
    assert second.tied_with_leader
    assert not leader.tied_with_leader


def test_missing_values_sort_last_and_groups_keep_their_order() -> None:
    statistics = run(
        {
            "ranked": forecasts("ranked", 40),
            "provisional-good": forecasts("provisional-good", 3, hit=0.99),
            "provisional-poor": forecasts("provisional-poor", 3, hit=0.3),
        },
        rankable={"ranked", "provisional-good", "provisional-poor", "unscored"},
    )
    rows = [
        row(statistics, "unscored"),
        row(statistics, "provisional-poor"),
        row(statistics, "base", AgentKind.BASELINE),
        row(statistics, "provisional-good"),
        row(statistics, "ranked"),
    ]
    assert [r.family_id for r in ordered(rows)] == [
        "ranked",
        "provisional-good",
        "provisional-poor",
        "unscored",
        "base",
    ]


def test_pair_views_read_row_minus_column_and_say_indistinguishable_plainly() -> None:
    statistics = run(
        {"a": forecasts("a", 40, weeks=8, hit=0.9), "b": forecasts("b", 40, weeks=8, hit=0.6)},
        returns={"a": {"c0": 1.0}, "b": {}},
    )
    names = {"a": "A", "b": "B"}
    brier_pair = next(p for p in statistics.pairs if p.measure == "brier")
    assert brier_pair.result is not None
    assert brier_pair.result.difference.estimate < 0  # a forecast better
    assert verdict(brier_pair, names) == "A better"
    brier_matrix = next(m for m in matrices(statistics.pairs, names) if m.measure == "brier")
    a_to_b, b_to_a = brier_matrix.cells[0][1], brier_matrix.cells[1][0]
    assert a_to_b is not None and b_to_a is not None
    assert a_to_b.estimate == -(b_to_a.estimate or 0.0)
    assert a_to_b.separated and b_to_a.separated
    returns_pair = next(p for p in statistics.pairs if p.measure == "return_pct")
    assert returns_pair.result is None  # no week both ran
    assert verdict(returns_pair, names) == "nothing shared yet"
    same = run({"a": forecasts("a", 40, weeks=8), "b": forecasts("b", 40, weeks=8)})
    identical = next(p for p in same.pairs if p.measure == "brier")
    assert verdict(identical, names) == "indistinguishable so far"
    assert more_needed(identical) == "no difference observed"


def bet_score(index: int, *, won: bool) -> BetScore:
    return BetScore(
        trade_id=f"t{index}",
        agent_id="c1.a",
        cohort_id="c1",
        family_id="a",
        market_id=f"m{index}",
        side="YES",
        amount=Decimal(100),
        cash_before=Decimal(10_000),
        forecast=Decimal("0.04"),
        market_price=Decimal("0.5"),
        won=won,
        brier=Decimal("0.5"),
        market_brier=Decimal("0.25"),
        log_score=Decimal("-1"),
        scored_at=datetime(2026, 3, 8, tzinfo=UTC),
    )


def snapshot(cohort: str, pnl: int, trades: int) -> PortfolioSnapshot:
    value = Decimal(10_000 + pnl)
    return PortfolioSnapshot(
        agent_id=f"{cohort}.a",
        cohort_id=cohort,
        family_id="a",
        taken_at=datetime(2026, 3, 8, tzinfo=UTC),
        cash=value,
        positions_value=Decimal(0),
        total_value=value,
        total_pnl=Decimal(pnl),
        total_pnl_pct=Decimal(pnl) / 100,
        brier=None,
        resolved_bets=0,
        open_positions=0,
        trades=trades,
    )


def test_win_rate_trades_and_pnl_come_from_the_scores_and_snapshots() -> None:
    scores = [bet_score(i, won=i != 2) for i in range(4)]
    latest = [snapshot("c1", 250, 5), snapshot("c2", -100, 2)]
    board_row = leaderboard_row(spec("a"), scores, latest, empty_statistics("a"))
    assert board_row.win_rate == Decimal(3) / 4
    assert board_row.resolved_bets == 4
    assert board_row.trades == 7
    assert board_row.total_pnl == 150
    assert leaderboard_row(spec("a"), [], [], empty_statistics("a")).win_rate is None
