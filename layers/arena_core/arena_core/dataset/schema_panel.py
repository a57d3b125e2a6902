"""The forecast panel's tables (methodology ``v1+panel``), declared like every other table of
the dataset: the exports write these columns and the schema page documents them."""

from __future__ import annotations

Column = tuple[str, str]

METHODOLOGY: Column = (
    "methodology",
    "Methodology version of the cohorts the row comes from (v1 or v1+panel); results are never "
    "aggregated across versions. Under v1+panel the pairwise, breakdowns and calibration rows "
    "come from the panel forecasts (panel_scores), under v1 from the bets (forecasts).",
)

_INTERVAL = (
    "Lower and upper ends of its 95% interval (clustered by event and run week; empty below "
    "the minimum sample)."
)

PANEL_LEADERBOARD: tuple[Column, ...] = (
    METHODOLOGY,
    ("rank", "Rank among ranked families by mean peer score (higher first), then Brier."),
    ("rank_best", "Best rank the peer-score verdicts allow: 1 + families called better."),
    ("rank_worst", "Worst rank they allow: ranked families - families called worse."),
    ("tied_with_leader", "true when the family's rank range reaches 1 (not the leader)."),
    ("first_share", "Share of draws from the joint sampling distribution in which it ranks first."),
    (
        "standing",
        "ranked; provisional (below the minimum sample); unscored (no scored panel forecast); "
        "reference (a baseline, the ensemble or the market).",
    ),
    ("needs", "What it still needs to be ranked, e.g. 3 of 8 weeks needed."),
    ("family_id", "Stable family id; ensemble and market for the two computed reference rows."),
    ("display_name", "Display name."),
    ("kind", "llm, baseline, ensemble (the models' log-loss-weighted average) or market."),
    ("stand_in", "true for a simulated stand-in (the local demo's), never a real model."),
    ("panel_forecasts", "Matured scored panel forecasts (fill-ins included)."),
    ("panel_weeks", "Run weeks holding them."),
    ("panel_events", "Polymarket events they belong to."),
    ("missing", "Forecasts the reply left out, filled in with the market's price at capture."),
    ("clipped", "Stated probabilities clipped into [0.001, 0.999]."),
    (
        "peer_score",
        "Mean Metaculus peer score among the cohort's models (x100, natural log): a model's "
        "mean over the other models of ln p(outcome) - ln p_other(outcome); the models' peer "
        "scores sum to zero per question. Baselines, ensemble and market: against the models.",
    ),
    ("peer_score_low", _INTERVAL),
    ("peer_score_high", _INTERVAL),
    (
        "provisional_peer_score",
        "Mean peer score over every resolved panel forecast, matured or not.",
    ),
    (
        "ece",
        "Expected calibration error of its matured panel forecasts (count-weighted mean "
        "|mean forecast - observed frequency| over ten bins).",
    ),
    ("baseline_score", "Mean Metaculus baseline score (x100, log base 2, against 50%)."),
    ("baseline_score_low", _INTERVAL),
    ("baseline_score_high", _INTERVAL),
    ("brier", "Mean Brier of its panel forecasts: (p_yes - outcome)^2."),
    ("brier_low", _INTERVAL),
    ("brier_high", _INTERVAL),
    ("market_brier", "The market's mean Brier at capture on the same questions."),
    ("market_brier_low", _INTERVAL),
    ("market_brier_high", _INTERVAL),
    ("log_score", "Mean ln P(outcome) (<= 0, higher is better)."),
    ("log_score_low", _INTERVAL),
    ("log_score_high", _INTERVAL),
    ("brier_skill_vs_market", "1 - mean Brier / the market's mean Brier on the same questions."),
    ("skill_low", _INTERVAL),
    ("skill_high", _INTERVAL),
    ("coherence_trades", "Its executed buys on panel markets it forecast in the same decision."),
    ("coherent_trades", "Those whose side agrees with its stated edge over the price."),
    ("coherence_share", "coherent_trades / coherence_trades."),
    (
        "median_size_to_kelly",
        "Median over those buys of (amount / cash at the decision) / (Kelly fraction of the "
        "stated edge, capped at 25%), over the buys Kelly would make at all (edge > 0).",
    ),
    ("bet_forecasts", "v1 trading column: scored bets over the same cohorts."),
    ("bet_brier", "v1 trading column: mean Brier of its matured bets (implied confidence)."),
    ("bet_brier_low", _INTERVAL),
    ("bet_brier_high", _INTERVAL),
    ("return_pct_mean", "v1 trading column: mean return % over its matured cohorts."),
    ("return_low", _INTERVAL),
    ("return_high", _INTERVAL),
    ("return_needs", "What the return's interval still needs."),
    (
        "provisional_return",
        "Mean return % over every cohort, live ones (a day after opening) at their latest marks.",
    ),
    ("total_pnl", "v1 trading column: sum over its cohorts of total value - 10,000, in dollars."),
    ("trades", "v1 trading column: executed trades (buys and sells)."),
    ("min_forecasts", "The minimum sample to be ranked: matured panel forecasts..."),
    ("min_cohorts", "...over at least this many cohorts."),
    ("min_weeks", "The validity minimum: run weeks before any interval, rank or verdict."),
    ("min_events", "...and events."),
)

PANEL_SCORES: tuple[Column, ...] = (
    METHODOLOGY,
    ("cohort_id", "Cohort id."),
    ("week", "Decision week of the cohort (1 = its first Sunday)."),
    ("run_at", "The decision run that asked the question."),
    ("run_week", "The run's week (w + the ISO date of its Sunday): one clustering dimension."),
    ("market_id", "Polymarket market id."),
    ("event_id", "The market's Polymarket event (empty when not recorded): the other one."),
    ("category", "The market's category at capture."),
    ("end_date", "The market's scheduled close at capture."),
    ("agent_id", "The forecaster's agent id (cohort id + family id; ensemble: cohort.ensemble)."),
    ("family_id", "Family id, or ensemble."),
    ("scored_by", "llm, baseline or ensemble."),
    ("stated", "The probability for YES as the reply stated it, unclipped; empty when missing."),
    ("p_yes", "The probability scored: stated, clipped to [0.001, 0.999], or the fill-in."),
    ("clipped", "true when the stated probability was clipped."),
    ("missing", "true when the reply gave none and the market's price at capture was used."),
    ("market_p_yes", "The market's YES price (first outcome) at capture."),
    ("outcome", "1 if YES (the first outcome) won, else 0."),
    ("brier", "(p_yes - outcome)^2."),
    ("log_score", "ln of the probability given to what happened (natural log, clipped)."),
    ("market_brier", "(market_p_yes - outcome)^2."),
    ("baseline_score", "Metaculus baseline score: 100 x log2(p(outcome) / 0.5)."),
    ("peer_score", "Metaculus peer score among the cohort's models (x100, natural log)."),
    ("resolved_at", "When resolution scored it."),
    (
        "matured",
        "true when end_date had passed when the dataset was published: ranks, intervals and "
        "verdicts use matured forecasts only.",
    ),
)

COHERENCE: tuple[Column, ...] = (
    METHODOLOGY,
    ("decision_id", "The decision that stated the forecast and placed the buy."),
    ("agent_id", "Agent id."),
    ("cohort_id", "Cohort id."),
    ("family_id", "Family id."),
    ("week", "Decision week."),
    ("market_id", "The panel market bought."),
    ("side", "Side bought."),
    ("yes_side", "true when the side is YES (the market's first outcome)."),
    ("p_yes", "The agent's own forecast for YES in that decision (clipped)."),
    ("yes_price", "The YES price the buy executed at."),
    ("coherent", "true when YES is bought with p_yes > price, or NO with p_yes < price."),
    ("fraction", "The buy's amount / the agent's cash when the decision began."),
    (
        "kelly",
        "Kelly fraction of the stated edge for that side, capped at 25%: (p - q) / (1 - q) "
        "buying YES at q, (q - p) / q buying NO; <= 0 when the edge is against the side.",
    ),
    ("size_to_kelly", "fraction / kelly; empty when kelly <= 0."),
)

PANEL_QUESTIONS: tuple[Column, ...] = (
    ("cohort_id", "Cohort id."),
    ("week", "Decision week of the cohort."),
    ("run_at", "The decision run whose captured universe the panel was drawn from."),
    ("market_id", "Polymarket market id."),
    ("event_id", "The market's Polymarket event (empty when not recorded)."),
    ("question", "The market's question at capture."),
    ("category", "Its category (uncategorized when Gamma gives none)."),
    ("end_date", "Its scheduled close."),
    ("p_yes", "Its YES price (first outcome) at capture: the fill-in and the market's forecast."),
    ("status", "pending, scored, or void (50/50 or indeterminate: left out, as in v1)."),
    ("agents", "Agents asked (scored together: peer scores need them all)."),
    ("requested", "The panel size asked for (K)."),
    (
        "eligible",
        "Markets of the panel listing that qualified (open, binary, in a horizon stratum, priced "
        "in the band, liquid, not asked recently); fewer than K gives a smaller panel.",
    ),
    ("stratum", "The horizon stratum it was drawn for (days from the run to its close)."),
    ("stratum_quota", "That stratum's share of K, in questions."),
    ("stratum_eligible", "Markets that qualified for that stratum."),
)

PANEL_FORECASTS: tuple[Column, ...] = (
    ("decision_id", "The decision."),
    ("agent_id", "Agent id."),
    ("cohort_id", "Cohort id."),
    ("week", "Decision week."),
    ("market_id", "Panel market."),
    ("stated", "As stated in the reply, unclipped; empty when missing."),
    ("p_yes", "As scored: stated and clipped to [0.001, 0.999], or the fill-in."),
    ("clipped", "true when clipped."),
    ("missing", "true when filled in with the market's price at capture."),
)

PANEL_TABLES: dict[str, tuple[str, tuple[Column, ...]]] = {
    "panel_leaderboard": (
        "The v1+panel leaderboard: one row per forecaster of the panel, ranked on the panel "
        "scores, beside the family's v1 trading columns over the same cohorts. Recomputes from "
        "panel_scores, coherence, forecasts and family_returns (methodology v1+panel).",
        PANEL_LEADERBOARD,
    ),
    "panel_scores": (
        "One row per scored panel forecast (every agent's, and the ensemble's) of a question "
        "resolved with a winner: the unit the panel statistics are computed from.",
        PANEL_SCORES,
    ),
    "coherence": (
        "One row per executed buy on a panel market the agent forecast in the same decision: "
        "does the trade follow the agent's own forecast?",
        COHERENCE,
    ),
    "panel_questions": (
        "Per cohort: every panel question asked, with the market as it stood at capture (the "
        "panel of a week is the same for every cohort and agent of its run).",
        PANEL_QUESTIONS,
    ),
    "panel_forecasts": (
        "Per cohort: every agent's forecast for every panel market of each decision, raw and "
        "clipped, fill-ins flagged; scored or not yet.",
        PANEL_FORECASTS,
    ),
}
