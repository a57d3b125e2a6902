"""What the leaderboard's statistics are computed from, in two parts that change apart: the
forecasts' (``bets_part``: their board and each family's bet counts, changed when a bet is
scored or matures) and the returns' (``returns_part``, changed when a cohort matures). Each is
computed through ``keep`` with the inputs it is a function of, so the publication's memo can
keep it between publications (the leaderboard is regenerated every ten minutes); ``arena
analyze`` computes both."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from arena_core.analysis import stored
from arena_core.analysis.board import (
    Board,
    ReturnStatistics,
    analyze_forecasts,
    return_names,
    return_statistics,
)
from arena_core.analysis.figures import BRIER, Rules
from arena_core.analysis.rows import CohortReturn
from arena_core.dataset.board_inputs import V1, Inputs, by_family, read_inputs
from arena_core.errors import DatasetError
from arena_core.ports.publisher import digest as digest_of

T = TypeVar("T")


class Keep(Protocol):
    """Where a part is kept: ``compute`` called only when no part of these inputs is kept."""

    def __call__(self, part: str, inputs: object, compute: Callable[[], T]) -> T: ...


def compute_only(part: str, inputs: object, compute: Callable[[], T]) -> T:
    """Nothing kept: every part computed."""
    del part, inputs
    return compute()


GROUPS = {"category": lambda f: f.category, "time_to_close": lambda f: f.horizon}


def _bets_board(inputs: Inputs, rules: Rules, *, calibrate: bool) -> Board:
    models = {f.family_id for f in inputs.families if f.kind == "llm"}
    return analyze_forecasts(
        [b.forecast for b in inputs.bets],
        rankable=models,
        compared=models,
        measure=BRIER,
        rules=rules,
        peer_market=False,
        groups=GROUPS,
        calibrate=calibrate,
    )


@dataclass(frozen=True)
class BetCounts:
    """A family's resolved bets and how many of them won (the trading columns)."""

    resolved: int = 0
    won: int = 0


@dataclass(frozen=True)
class BetsPart:
    """What the forecasts alone decide: their statistics and each family's bet counts."""

    board: Board
    counts: dict[str, BetCounts]

    def dump(self) -> str:
        counts = {f: [c.resolved, c.won] for f, c in self.counts.items()}
        board = stored.plain(self.board)  # nested, not a text: parsed once
        return json.dumps({"board": board, "counts": counts}, separators=(",", ":"))

    @classmethod
    def load(cls, text: str) -> BetsPart:
        try:
            found = json.loads(text)
            counts = {str(f): BetCounts(int(n), int(w)) for f, (n, w) in found["counts"].items()}
            board = stored.board_from_plain(found["board"])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise DatasetError(f"kept statistics cannot be read: {type(exc).__name__}") from exc
        return cls(board, counts)


def _digest(parts: Sequence[str]) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def bets_part(
    tables: Mapping[str, bytes],
    methodology: str,
    rules: Rules,
    digests: Mapping[str, str],
    keep: Keep,
) -> tuple[BetsPart, str]:
    """The forecasts' statistics, a function of the forecasts and families under the rules,
    and the digest of those inputs."""
    known = [digests.get(n) or digest_of(tables.get(n, b"")) for n in ("families", "forecasts")]
    inputs = [methodology, repr(rules), *known]

    def compute() -> BetsPart:
        found = read_inputs(tables, methodology)
        won = by_family([(b.forecast.family_id, b.won) for b in found.bets])
        return BetsPart(
            _bets_board(found, rules, calibrate=methodology == V1),
            {f: BetCounts(len(mine), sum(mine)) for f, mine in won.items()},
        )

    return keep("bets", inputs, compute), _digest(inputs)


def returns_part(
    tables: Mapping[str, bytes],
    methodology: str,
    *,
    board: Board,
    returns: Sequence[CohortReturn],
    models: set[str],
    digests: Mapping[str, str],
    keep: Keep,
) -> tuple[ReturnStatistics, str]:
    """The return statistics, a function of the matured cohorts, the positions and the
    families under the rules (they change when a cohort matures, not every ten minutes), and
    the digest of those inputs."""
    positions = digests.get("position_returns") or digest_of(tables.get("position_returns", b""))
    matured = sorted((r.family_id, r.cohort_id) for r in returns if r.matured)
    names = return_names(board, returns)
    inputs = [
        methodology,
        repr(board.rules),
        positions,
        repr(sorted(models)),
        repr((names, matured)),
    ]

    def compute() -> ReturnStatistics:
        found = read_inputs(tables, methodology, bets=False)
        return return_statistics(board, returns, found.positions, compared=models)

    return keep("returns", inputs, compute), _digest(inputs)


def dump_returns(value: ReturnStatistics) -> str:
    return stored.dump_value(value)


def load_returns(text: str) -> ReturnStatistics:
    found = stored.load_value(ReturnStatistics, text)
    if not isinstance(found, ReturnStatistics):
        raise DatasetError("kept return statistics are not return statistics")
    return found
