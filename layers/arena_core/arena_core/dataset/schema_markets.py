"""The markets of the dataset: every market any agent traded or was asked about, with what
became of it and how the arena saw it resolve, and each week's captured universe."""

from __future__ import annotations

Column = tuple[str, str]

MARKET_TABLES: dict[str, tuple[str, tuple[Column, ...]]] = {
    "markets": (
        "Every market any agent traded or was shown in a forecast panel: what it is, what "
        "became of it, and the provenance of its resolution as the arena observed it. Updated "
        "after each decision run and resolution; a market's row keeps its last state.",
        (
            ("market_id", "Polymarket market id (the join key of every table)."),
            (
                "event_id",
                "Its Polymarket event (Gamma's events[0].id); markets of one event share an "
                "outcome.",
            ),
            ("event_slug", "The event's slug (polymarket.com/event/<slug>)."),
            ("question", "The market's question."),
            ("category", "Its category, as Gamma gave it (empty when none)."),
            ("outcomes", "Its outcomes in order, separated by ' | ' (YES is the first)."),
            ("end_date", "Its scheduled close."),
            ("status", "open, closed (trading stopped, not final) or resolved."),
            ("resolution", "winner, split (50/50: $0.50 a share) or indeterminate (refunded)."),
            ("winner", "The winning outcome (resolution winner), else empty."),
            ("resolved_at", "When the arena marked it resolved (every position settled)."),
            ("uma_status", "Its UMA resolution status when last seen."),
            (
                "uma_history",
                "The UMA statuses the arena observed, in order, separated by ' > ' "
                "(e.g. proposed > disputed > proposed > resolved).",
            ),
            ("disputes", "How many times the arena saw it enter the disputed status."),
            ("split", "true when it resolved 50/50 (left out of Brier, as in v1)."),
            ("indeterminate", "true when resolved without a determinable winner (refunded)."),
            ("captures", "Weekly universe captures that held it (its page charts the prices)."),
            ("positions", "Positions any agent opened on it, in every cohort."),
            ("settled_positions", "Of them, settled (won, lost, split) or refunded."),
            ("traded_by", "The families that held a position on it, space-separated."),
            ("asked_by_panel", "true when a forecast panel (v1+panel) asked about it."),
        ),
    ),
    "universe": (
        "One file per week (universes/<week start>.csv): the top markets by volume captured "
        "once by the week's decision run and shown identically to every agent, with prices.",
        (
            ("rank", "Position in the captured list (by volume, 1 = the largest)."),
            ("market_id", "Polymarket market id."),
            ("event_id", "Its Polymarket event."),
            ("question", "The market's question."),
            ("category", "Its category."),
            ("outcomes", "Its outcomes in order, separated by ' | '."),
            ("prices", "The outcomes' prices at capture, in the same order, separated by ' | '."),
            ("p_yes", "The first outcome's price (P(YES) of a binary market)."),
            ("volume", "Its volume in US dollars, as Gamma gave it."),
            ("end_date", "Its scheduled close."),
            ("status", "open or closed at capture."),
        ),
    ),
}
