"""The dataset's tables: every column with what it means. The exports write these columns and
the schema page documents them, from this one definition (the forecast panel's tables are in
``schema_panel``)."""

from __future__ import annotations

from arena_core.dataset.schema_cohort import COHORT_TABLES
from arena_core.dataset.schema_comparisons import COMPARISON_TABLES
from arena_core.dataset.schema_decisions import DECISION_TABLES
from arena_core.dataset.schema_markets import MARKET_TABLES
from arena_core.dataset.schema_panel import METHODOLOGY, PANEL_TABLES

TABLES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "leaderboard": (
        "v1: one row per model family (baselines and the market's price as reference rows). "
        "Figures are over matured forecasts (see forecasts.matured), with 95% intervals from "
        "standard errors clustered by event and run week (Student's t), shown only once the "
        "sample reaches the minimum at which the validity benchmark shows them covering; every "
        "number recomputes from forecasts, family_returns, position_returns and families "
        "(arena analyze).",
        (
            METHODOLOGY,
            ("rank", "Rank among ranked families by mean Brier (lower is better), else empty."),
            ("rank_best", "Best rank the pairwise verdicts allow: 1 + families called better."),
            ("rank_worst", "Worst rank they allow: ranked families - families called worse."),
            ("tied_with_leader", "true when the family's rank range reaches 1 (not the leader)."),
            (
                "first_share",
                "Share of draws from the families' joint sampling distribution (the t its "
                "intervals use) in which it ranks first.",
            ),
            (
                "standing",
                "ranked; provisional (below the minimum sample: no rank, no interval); unscored "
                "(nothing scored); reference (a baseline or the market).",
            ),
            ("needs", "What it still needs to be ranked, e.g. 3 of 8 weeks needed."),
            ("family_id", "Stable family id (join key); market for the market's row."),
            ("display_name", "Current display name of the family."),
            (
                "kind",
                "llm, baseline, or market (the market's price at bet time, one forecast per "
                "question).",
            ),
            ("stand_in", "true for a simulated stand-in (the local demo's), never a real model."),
            ("cohorts", "Cohorts the family has an agent in."),
            ("forecasts", "Matured scored forecasts (v1: scored bets): what the figures use."),
            ("scored_cohorts", "Cohorts holding at least one of them."),
            ("weeks", "Run weeks they were made in."),
            ("events", "Polymarket events they belong to."),
            ("brier", "Mean Brier over its matured forecasts: (p_yes - outcome)^2."),
            (
                "brier_low",
                "Lower end of the Brier's 95% interval (empty below the minimum sample).",
            ),
            ("brier_high", "Upper end of the Brier's 95% interval."),
            (
                "provisional_brier",
                "Mean Brier over every resolved bet, matured or not: the v1 methodology's own "
                "figure, which leans toward early-resolving (mostly YES) questions.",
            ),
            (
                "ece",
                "Expected calibration error of its matured forecasts: the count-weighted mean "
                "|mean forecast - observed frequency of YES| over ten bins (0 is calibrated).",
            ),
            ("market_brier", "The market's mean Brier on the same forecasts."),
            ("market_brier_low", "Lower end of its 95% interval."),
            ("market_brier_high", "Upper end of its 95% interval."),
            ("log_score", "Mean ln P(outcome) (<= 0, higher is better)."),
            ("log_score_low", "Lower end of the log score's 95% interval."),
            ("log_score_high", "Upper end of the log score's 95% interval."),
            (
                "brier_skill_vs_market",
                "1 - mean Brier / the market's mean Brier on the same forecasts (its price at "
                "bet time); above 0 beats the market.",
            ),
            ("skill_low", "Lower end of the skill's 95% interval."),
            ("skill_high", "Upper end of the skill's 95% interval."),
            (
                "relative_log_score",
                "Mean 100 x (ln P(outcome) - the market's ln P(outcome)): Metaculus peer-style "
                "against the market, natural log; above 0 beats the market.",
            ),
            ("relative_log_low", "Lower end of its 95% interval."),
            ("relative_log_high", "Upper end of its 95% interval."),
            (
                "return_pct_mean",
                "Mean return % over its matured cohorts (completed, every market held past its "
                "end).",
            ),
            (
                "return_low",
                "Lower end of the mean return's 95% interval (positions clustered by event and "
                "run week).",
            ),
            ("return_high", "Upper end of the mean return's 95% interval."),
            (
                "return_needs",
                "What the return's interval still needs, e.g. 2 of 8 matured cohorts needed.",
            ),
            (
                "provisional_return",
                "Mean return % over every cohort, live ones at their latest marks.",
            ),
            ("total_pnl", "Sum over its cohorts of total value - 10,000, in dollars."),
            ("trades", "Executed trades (buys and sells)."),
            ("win_rate", "Share of scored bets whose side won."),
            (
                "resolved_bets",
                "Scored bets (buys on markets resolved with a winner), matured or not.",
            ),
            (
                "min_forecasts",
                "The methodology's minimum sample to be ranked: matured forecasts...",
            ),
            ("min_cohorts", "...over at least this many cohorts."),
            ("min_weeks", "The validity minimum: run weeks before any interval, rank or verdict."),
            ("min_events", "...and events."),
        ),
    ),
    "forecasts": (
        "One row per scored forecast: the unit every statistic is computed from. v1: each scored "
        "bet, in YES terms (a NO bet forecasts YES at 1 - its implied confidence).",
        (
            METHODOLOGY,
            ("trade_id", "The buy it comes from."),
            ("family_id", "Family id."),
            ("agent_id", "Agent id."),
            ("cohort_id", "Cohort the agent belongs to."),
            ("market_id", "Polymarket market id."),
            (
                "event_id",
                "The market's Polymarket event (Gamma's events[0].id); empty when not recorded "
                "(the market is then its own event). The statistics cluster by event and run week.",
            ),
            ("run_week", "The run week the bet was made in: w and the ISO date of its Sunday."),
            ("side", "Side bought."),
            ("p_yes", "The forecast's probability for YES (a named outcome bought counts as YES)."),
            ("market_p_yes", "The market's YES price when the forecast was made."),
            ("outcome", "1 if YES happened, else 0."),
            (
                "matured",
                "true when the market's scheduled end (closes_at, as captured at the bet) had "
                "passed when the dataset was published: ranks, intervals and verdicts use "
                "matured forecasts only (a 'by date' question resolves YES early, NO only at its "
                "end).",
            ),
            ("brier", "(p_yes - outcome)^2."),
            (
                "log_score",
                "ln of the probability given to what happened, clipped to [1e-12, 1 - 1e-12].",
            ),
            ("market_brier", "(market_p_yes - outcome)^2."),
            ("market_log_score", "The market's log score on the same forecast."),
            ("relative_log_score", "100 x (log_score - market_log_score)."),
            ("category", "The market's category when it was scored."),
            ("bet_at", "When the forecast (the bet) was made."),
            ("closes_at", "The market's scheduled close."),
        ),
    ),
    "family_returns": (
        "One row per family and cohort (a live cohort from a day after it opened): the return "
        "the mean return % and its interval come from.",
        (
            METHODOLOGY,
            ("family_id", "Family id."),
            ("cohort_id", "Cohort id."),
            ("return_pct", "The agent's latest (total value - 10,000) / 10,000 x 100."),
            ("total_pnl", "The agent's latest total value - 10,000, in dollars."),
            ("trades", "Trades the agent executed (buys and sells)."),
            ("completed", "true once the cohort completed (every position closed)."),
            (
                "matured",
                "true once it completed and the scheduled end of every market it held had "
                "passed: the mean return's interval uses matured cohorts only.",
            ),
        ),
    ),
    "position_returns": (
        "One row per position of a completed cohort: its realized P/L. A completed cohort's "
        "return is the sum of its positions', and the return's interval clusters positions by "
        "event and run week, like forecasts.",
        (
            METHODOLOGY,
            ("family_id", "Family id."),
            ("agent_id", "Agent id."),
            ("cohort_id", "Cohort id."),
            ("position_id", "Position id."),
            ("market_id", "Polymarket market id."),
            ("event_id", "The market's Polymarket event (empty when not recorded)."),
            ("run_week", "The run week it was opened in: w and the ISO date of its Sunday."),
            ("closes_at", "The market's scheduled close."),
            ("realized_pnl", "Realized P/L of the position, in dollars."),
            ("pnl_pct", "realized_pnl / the starting balance x 100."),
        ),
    ),
    "families": (
        "One row per family that ran under the methodology: who it is.",
        (
            METHODOLOGY,
            ("family_id", "Stable family id (join key)."),
            ("display_name", "Its most recent display name."),
            ("kind", "llm or baseline."),
            ("stand_in", "true for a simulated stand-in (the local demo's), never a real model."),
            ("model_id", "The provider model id of its most recent release."),
        ),
    ),
    "pairwise": (
        "Every two of the models, the market (and under v1+panel the ensemble) compared on what "
        "both did: on the ranked measure (v1: Brier; v1+panel: peer score, with Brier beside) "
        "over questions both answered (a market in a run week), and on return % over matured "
        "cohorts both ran. Differences are A - B; verdicts are Holm-adjusted over the pairs of a "
        "measure, so the chance of any false verdict is at most 5%.",
        (
            METHODOLOGY,
            ("family_a", "Family A."),
            ("family_b", "Family B."),
            ("measure", "brier, peer_score or return_pct."),
            ("units", "Shared questions (return_pct: shared matured cohorts)."),
            ("weeks", "Run weeks the shared questions fall in."),
            ("events", "Polymarket events they belong to."),
            ("difference", "Mean of A - B over the shared units."),
            (
                "difference_low",
                "Lower end of its interval (clustered by event and run week, at the level in "
                "confidence; empty below the minimum sample). It excludes 0 exactly when the pair "
                "is called.",
            ),
            ("difference_high", "Upper end of its interval."),
            (
                "confidence",
                "The interval's level: its Holm step's, 1 - 0.05 / (pairs not yet called when "
                "Holm reached it), so at least 0.95; a pair Holm did not call takes the level of "
                "the step where Holm stopped.",
            ),
            ("p_value", "Two-sided p-value of Student's t on the clustered difference."),
            ("p_holm", "The p-value Holm-adjusted over all pairs tested on the measure."),
            (
                "detectable",
                "Smallest |A - B| this sample would call with 80% power at Holm's strictest level.",
            ),
            (
                "more_weeks",
                "Undecided pairs: weeks more until the observed difference would be called, if it "
                "held.",
            ),
            ("verdict", "A better, B better, undecided, too few shared, or nothing shared."),
            ("needs", "What a pair with too few shared still needs, e.g. 3 of 8 weeks needed."),
            (
                "correction",
                "The secondary table's own correction: Holm over every pair tested on the "
                "measure (the primary comparisons, with theirs, are in comparisons).",
            ),
        ),
    ),
    "breakdowns": (
        "Per family, its scored forecasts by market category and by time from bet to close.",
        (
            METHODOLOGY,
            ("family_id", "Family id."),
            ("dimension", "category or time_to_close."),
            ("group", "The category, or under a week / under a month / longer / unknown."),
            ("forecasts", "Scored forecasts in the group."),
            ("brier", "Mean Brier."),
            ("brier_low", "Lower end of its 95% interval."),
            ("brier_high", "Upper end of its 95% interval."),
            ("brier_skill_vs_market", "Brier skill against the market on the group's forecasts."),
            ("skill_low", "Lower end of its 95% interval."),
            ("skill_high", "Upper end of its 95% interval."),
            ("needs", "What the group's intervals still need (empty once shown)."),
        ),
    ),
    "calibration": (
        "Reliability diagram data: per family, its forecasts and the market's prices on the same "
        "forecasts, in ten right-closed bins of probability for YES.",
        (
            METHODOLOGY,
            ("family_id", "Family id."),
            ("forecaster", "model (the family's p_yes) or market (market_p_yes)."),
            ("bin", "Bin index, 0 to 9."),
            ("bin_low", "The bin's lower edge (exclusive, except for bin 0)."),
            ("bin_high", "The bin's upper edge."),
            ("count", "Forecasts in the bin."),
            ("mean_forecast", "Mean probability in the bin."),
            ("observed", "Share of them where YES happened."),
            ("wilson_low", "Lower end of the observed share's 95% Wilson interval."),
            ("wilson_high", "Upper end of its 95% Wilson interval."),
        ),
    ),
    **COHORT_TABLES,
    **DECISION_TABLES,
    **MARKET_TABLES,
    **PANEL_TABLES,
    **COMPARISON_TABLES,
}
