"""How sure the ranking is, in one sentence above the leaderboard, generated from its verdicts:
e.g. "After 2 weeks, no model is distinguishable from another or from the market; DeepSeek
V3.2 leads on the point estimate."

It says only what the verdicts say: the pairs between ranked models (Holm-adjusted, as on the
pairwise page) and each ranked model against the market on the same forecasts, by the primary
comparison against the market (``analysis.primary``: Holm over the ranked models) where there is
one, by the pair with the market otherwise (an unranked model's)."""

from __future__ import annotations

from collections.abc import Sequence

from arena_core.analysis.board import Board
from arena_core.analysis.families import MARKET
from arena_core.analysis.pairs import PairResult, Verdict
from arena_core.dataset.boards import BoardResult, Row


def _names(names: Sequence[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def against_market(analysis: Board, family: str) -> Verdict | None:
    """The family's verdict against the market (A_BETTER: it is better), if tested: the
    primary comparison's, else the pair's."""
    primary = analysis.primary.versus_market if analysis.primary else ()
    return _verdict([*primary, *analysis.pairs], family)


def _verdict(pairs: Sequence[PairResult], family: str) -> Verdict | None:
    for pair in pairs:
        if {pair.family_a, pair.family_b} == {family, MARKET}:
            if not pair.decided:
                return pair.verdict
            won = (pair.verdict is Verdict.A_BETTER) == (pair.family_a == family)
            return Verdict.A_BETTER if won else Verdict.B_BETTER
    return None


# In the skill cell, beside the skill: the column's heading says "vs market".
VERSUS_MARKET = {
    Verdict.A_BETTER: "better",
    Verdict.B_BETTER: "worse",
    Verdict.UNDECIDED: "undecided",
    Verdict.TOO_FEW: "too few shared",
    Verdict.NOTHING_SHARED: "nothing shared",
}


def versus_market(analysis: Board, family: str) -> str:
    """The skill cell's answer: the family's verdict against the market, the primary
    comparison's where there is one (``against_market``), as the sentence above the table
    gives it (empty: not tested, e.g. the market itself)."""
    found = against_market(analysis, family)
    return "" if found is None else VERSUS_MARKET[found]


def headline(board: BoardResult) -> str:
    ranked = [r for r in board.rows if r.rank is not None and r.kind in ("llm", "baseline")]
    weeks = max((r.result.weeks for r in board.rows if r.result), default=0)
    after = f"After {weeks} week{'' if weeks == 1 else 's'} of matured forecasts"
    if not ranked:
        return f"{after}, no model has the sample to be ranked yet: every figure is provisional."
    pairs = board.shown.pairs
    models = [r for r in ranked if r.kind == "llm"] or ranked
    ids = {r.family_id for r in models}
    between = [p for p in pairs if p.family_a in ids and p.family_b in ids]
    decided = sum(p.decided for p in between)
    market = {r.family_id: against_market(board.shown, r.family_id) for r in models}
    leader = min(models, key=lambda r: r.rank or 0)
    return f"{after}, {_between(models, decided, len(between), leader)}; {_market(models, market)}."


def _between(models: Sequence[Row], decided: int, pairs: int, leader: Row) -> str:
    if len(models) == 1:
        return f"{leader.display_name} is the only ranked model"
    if decided == 1:
        return (
            f"1 of {pairs} pairs of models is told apart; {leader.display_name} leads on "
            "the point estimate"
        )
    if decided == 0:
        return (
            f"no model is distinguishable from another yet ({pairs} pairs compared); "
            f"{leader.display_name} leads on the point estimate"
        )
    if leader.rank_range == (1, 1):
        return f"{leader.display_name} is first: the verdicts set it apart from every other model"
    reaching = sum(1 for r in models if r.rank_range and r.rank_range[0] == 1)
    return (
        f"{decided} of {pairs} pairs of models are told apart and {reaching} models could "
        f"still be first; {leader.display_name} leads on the point estimate"
    )


def _market(models: Sequence[Row], verdicts: dict[str, Verdict | None]) -> str:
    better = [r.display_name for r in models if verdicts[r.family_id] is Verdict.A_BETTER]
    worse = [r.display_name for r in models if verdicts[r.family_id] is Verdict.B_BETTER]
    if not better and not worse:
        return "none is distinguishable from the market's own forecasts yet"
    said = []
    if better:
        said.append(f"{_names(better)} {'beats' if len(better) == 1 else 'beat'} the market")
    if worse:
        said.append(f"{_names(worse)} {'trails' if len(worse) == 1 else 'trail'} the market")
    rest = len(models) - len(better) - len(worse)
    if rest:
        others = "other is" if rest == 1 else "others are"
        said.append(f"{rest} {others} not distinguishable from it")
    return ", ".join(said)
