"""The primary comparisons' table (``analysis.primary``), declared like every other table of the
dataset: the exports write these columns and the schema page documents them."""

from __future__ import annotations

from arena_core.dataset.schema_panel import METHODOLOGY, Column

COMPARISONS: tuple[Column, ...] = (
    METHODOLOGY,
    (
        "comparison",
        "versus_market: the model minus the market's price on the questions both answered; "
        "best: the model minus the best of the other ranked models (Hsu's multiple comparisons "
        "with the best).",
    ),
    ("family_id", "The ranked model family."),
    ("measure", "The ranked measure: brier (v1) or peer_score (v1+panel)."),
    (
        "estimate",
        "versus_market: the mean difference, model minus market (empty for best: MCB gives an "
        "interval only).",
    ),
    (
        "estimate_low",
        "Lower end of its interval, at the level in confidence (versus_market: clustered by "
        "event and run week, at its Holm step; best: MCB's, which always contains 0).",
    ),
    (
        "estimate_high",
        "Upper end. best: positive means better than every other ranked model could be; 0 "
        "means some other model is at least as good.",
    ),
    ("confidence", "The interval's level."),
    ("p_value", "versus_market: two-sided p-value of Student's t on the clustered difference."),
    ("p_adjusted", "versus_market: Holm-adjusted over the ranked models."),
    (
        "verdict",
        "versus_market: better than the market, worse than the market, undecided, too few "
        "shared; best: the best, not the best, could be the best, too few shared.",
    ),
    (
        "correction",
        "How the comparison's family holds its error: half of alpha each (Holm over the "
        "models against the market; MCB with Bonferroni over the comparisons with the best), so "
        "both families together at alpha. The pairwise table is the secondary one, with its own "
        "correction.",
    ),
)

COMPARISON_TABLES: dict[str, tuple[str, tuple[Column, ...]]] = {
    "comparisons": (
        "The primary comparisons, fixed in advance on the ranked measure: each ranked model "
        "against the market, and which models could be the best. Holds the familywise error "
        "at 5% over both families together; recomputes from the same inputs as the "
        "leaderboards (arena analyze).",
        COMPARISONS,
    ),
}
