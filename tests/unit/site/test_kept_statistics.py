"""The forecasts' statistics kept between publications (``boards.build``'s ``kept``,
``analysis/stored.py``): read back they are the board computed afresh, to the bit; they are
read only for the same forecasts, families, rules and code, and never trusted when unreadable."""

from __future__ import annotations

import math

import pytest

from arena_core.analysis import board as board_module
from arena_core.analysis import stored
from arena_core.analysis.board import analyze_forecasts
from arena_core.analysis.figures import BRIER, PEER
from arena_core.errors import DatasetError
from arena_core.site import boards, exports
from arena_core.site.boards import build
from tests.unit.analysis.test_board import forecast
from tests.unit.site.test_boards import RULES, bet, family, returns, skilled_bets, tables


def _bets() -> list[dict[str, object]]:
    return (
        skilled_bets("sharp", 0.05, 3, 6, 1)
        + skilled_bets("fair", 0.4, 3, 6, 2)
        + skilled_bets("random", 0.5, 3, 6, 4)
    )


def _tables() -> dict[str, bytes]:
    return tables(
        [family("sharp"), family("fair"), family("idle"), family("random", "baseline")],
        _bets(),
        [returns("idle", "c2026-03-01", "0", 0), returns("sharp", "c2026-03-01", "12.5", 3)],
    )


def _table(name: str, rows: list[dict[str, object]]) -> bytes:
    return exports.to_csv(name, rows)


class Counting:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original = boards.analyze_forecasts

        def counted(*args: object, **kwargs: object) -> board_module.Board:
            self.calls += 1
            return original(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(boards, "analyze_forecasts", counted)


def test_a_board_reads_back_as_computed_to_the_bit() -> None:
    rows = [
        forecast(f, w, f"m{w}{i}", p, (w + i) % 2, peer=p - 0.5, baseline=0.1 * i)
        for f, p in (("a", 0.7), ("b", 0.4), ("c", 0.55))
        for w in range(3)
        for i in range(4)
    ]
    for measure in (BRIER, PEER):
        computed = analyze_forecasts(
            rows,
            rankable={"a", "b", "c"},
            compared={"a", "b", "c"},
            measure=measure,
            rules=RULES,
            peer_market=measure is PEER,
            groups={"week": lambda f: f.week},
        )
        assert computed.pairs and computed.breakdowns and computed.families
        assert stored.load_board(stored.dump_board(computed)) == computed


def test_infinities_survive_and_garbage_is_refused() -> None:
    text = stored.dump_board(board_module.Board(BRIER, RULES))
    assert stored.load_board(text) == board_module.Board(BRIER, RULES)
    assert stored._typed(float, stored._plain(math.inf)) == math.inf
    assert stored._typed(float, stored._plain(-math.inf)) == -math.inf
    for bad in ("", "[]", '{"measure": "nope"}', text.replace('"brier"', '"volume"', 1)):
        with pytest.raises(DatasetError):
            stored.load_board(bad)


def test_the_same_forecasts_are_analysed_once_and_give_the_same_board(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = Counting(monkeypatch)
    kept: boards.Kept = {}
    first = build(_tables(), "v1", RULES, kept)
    again = build(_tables(), "v1", RULES, kept)
    assert counting.calls == 1 and set(kept) == {"v1/bets"}
    assert again == first == build(_tables(), "v1", RULES)  # and as without anything kept
    # Returns are not part of what is kept: a new cohort's return moves the board at once
    moved = _tables()
    moved["family_returns"] = _table("family_returns", [returns("sharp", "c2026-03-08", "50", 2)])
    row = build(moved, "v1", RULES, kept).row("sharp")
    assert counting.calls == 2  # (the third call, without kept)
    assert row is not None and row.result is not None and row.trading is not None
    assert row.result.provisional_return == pytest.approx(0.5)
    assert row.trading.resolved_bets == 18


@pytest.mark.parametrize("change", ["forecasts", "families", "rules", "code", "garbage"])
def test_anything_else_is_analysed_again(monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    counting = Counting(monkeypatch)
    kept: boards.Kept = {}
    build(_tables(), "v1", RULES, kept)
    found, rules = _tables(), RULES
    if change == "forecasts":  # one bet more
        found["forecasts"] = _table("forecasts", [*_bets(), bet("fair", 2, "z", "0.3", 1, "NO")])
    elif change == "families":  # the same forecasts, one family a baseline now
        found["families"] = _table("families", [family("sharp"), family("fair", "baseline")])
    elif change == "rules":
        rules = type(RULES)(min_forecasts=7, min_cohorts=2, min_weeks=2, min_events=2)
    elif change == "code":
        monkeypatch.setattr(boards, "code_digest", lambda: "other code")
    else:
        key, _ = kept["v1/bets"]
        kept["v1/bets"] = (key, "{not json")
    result = build(found, "v1", rules, kept)
    assert counting.calls == 2
    assert result == build(found, "v1", rules)
