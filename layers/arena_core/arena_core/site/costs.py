"""What each family's decisions cost over a leaderboard's cohorts (the costs table's rows,
summed per methodology and family): what the home page and model pages show."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena_core.dataset.costs import CostSummary, Row, summary
from arena_core.site.views import LeaderboardData

Spend = dict[tuple[str, str], CostSummary]  # by (methodology, family)


def family_costs(boards: Sequence[LeaderboardData], costs: Iterable[Row]) -> Spend:
    """Per (methodology, family): what its decisions cost over the leaderboard's cohorts."""
    by_family: dict[str, list[Row]] = {}
    for row in costs:
        by_family.setdefault(str(row["family_id"]), []).append(row)
    found = {}
    for board in boards:
        ids = {c.cohort_id for c in board.cohorts}
        for view in board.families:
            family = view.spec.family_id
            mine = [r for r in by_family.get(family, []) if r["cohort_id"] in ids]
            found[(board.methodology, family)] = summary(mine)
    return found
