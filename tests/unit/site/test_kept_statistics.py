"""The forecasts' statistics kept between publications (``boards.build``'s ``keep``, through the
publication's memo; ``analysis/stored.py``): read back they are the board computed afresh, to the
bit; they are read only for the same forecasts, families, rules and code, and never trusted when
unreadable."""

from __future__ import annotations

import gzip
import math
from dataclasses import replace
from decimal import Decimal

import pytest

from arena_core.analysis import board as board_module
from arena_core.analysis import stored
from arena_core.analysis.board import analyze_forecasts
from arena_core.analysis.figures import BRIER, PEER
from arena_core.dataset import board_parts, exports
from arena_core.dataset.boards import build
from arena_core.errors import DatasetError
from arena_core.publication import memo as memo_module
from tests.support.memo import Bookkeeping
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
    """How often the build calls one of its analyses (the forecasts' by default)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str = "analyze_forecasts") -> None:
        self.calls = 0
        original = getattr(board_parts, name)

        def counted(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(board_parts, name, counted)


def _garble(books: Bookkeeping, part: str, text: str) -> None:
    """Keep ``text`` as the part's value, under its own key and in its own (linked) shard."""
    memo, objects = books.open()
    entry = memo._shard("board")[f"board/v1/{part}"]
    memo._keep(f"board/v1/{part}", replace(entry, text=text))
    books.save(memo, objects)


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
    books = Bookkeeping()
    first = build(_tables(), "v1", RULES, keep=books.keep())
    keep = books.keep()
    again = build(_tables(), "v1", RULES, keep=keep)
    assert counting.calls == 1 and keep.misses == []
    assert set(books.state.links) == {"memo/board"}
    assert again == first == build(_tables(), "v1", RULES)  # and as without anything kept
    # The live returns are not part of what is kept: a new cohort's return moves the board
    moved = _tables()
    moved["family_returns"] = _table("family_returns", [returns("sharp", "c2026-03-08", "50", 2)])
    row = build(moved, "v1", RULES, keep=books.keep()).row("sharp")
    assert counting.calls == 2  # (the third call, without kept)
    assert row is not None and row.result is not None and row.trading is not None
    assert row.result.provisional_return == pytest.approx(0.5)
    assert row.trading.resolved_bets == 18


@pytest.mark.parametrize("change", ["forecasts", "families", "rules", "code", "garbage"])
def test_anything_else_is_analysed_again(monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    counting = Counting(monkeypatch)
    books = Bookkeeping()
    build(_tables(), "v1", RULES, keep=books.keep())
    found, rules = _tables(), RULES
    if change == "forecasts":  # one bet more
        found["forecasts"] = _table("forecasts", [*_bets(), bet("fair", 2, "z", "0.3", 1, "NO")])
    elif change == "families":  # the same forecasts, one family a baseline now
        found["families"] = _table("families", [family("sharp"), family("fair", "baseline")])
    elif change == "rules":
        rules = type(RULES)(min_forecasts=7, min_cohorts=2, min_weeks=2, min_events=2)
    elif change == "code":
        monkeypatch.setattr(memo_module, "code_digest", lambda: "other code")
    else:
        _garble(books, "bets", "{not json")
    keep = books.keep()
    result = build(found, "v1", rules, keep=keep)
    assert counting.calls == 2
    assert dict(keep.misses)["board/v1/bets"] == {
        "forecasts": "inputs changed", "families": "inputs changed", "rules": "inputs changed",
        "code": "new code", "garbage": "unreadable",
    }[change]  # fmt: skip
    assert result == build(found, "v1", rules)


def _matured_tables(cohorts: int, *, pnl: str = "10") -> dict[str, bytes]:
    """Two families with ``cohorts`` matured cohorts each, a position per cohort and family."""
    found = _tables()
    records: list[dict[str, object]] = []
    positions: list[dict[str, object]] = []
    for i in range(cohorts):
        cohort = f"c2026-03-{1 + 7 * i:02d}"
        for name, sign in (("sharp", 1), ("fair", -1)):
            value = Decimal(pnl) * sign + i
            records.append(
                {**returns(name, cohort, str(value), 1), "completed": True, "matured": True}
            )
            positions.append(
                {
                    "methodology": "v1", "family_id": name, "agent_id": f"{cohort}.{name}",
                    "cohort_id": cohort, "position_id": f"{cohort}.{name}.p", "market_id": f"m{i}",
                    "event_id": f"e{i}", "run_week": f"w{cohort[1:]}", "closes_at": None,
                    "realized_pnl": value * 100, "pnl_pct": value,
                }
            )  # fmt: skip
    records.append(returns("sharp", "c2026-05-31", "3", 1))  # a live cohort: provisional only
    found["family_returns"] = _table("family_returns", records)
    found["position_returns"] = _table("position_returns", positions)
    return found


def test_return_statistics_are_kept_while_no_cohort_matures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = Counting(monkeypatch, "return_statistics")
    books = Bookkeeping()
    first = build(_matured_tables(3), "v1", RULES, keep=books.keep())
    sharp = first.row("sharp")
    assert sharp is not None and sharp.result is not None and sharp.result.returns is not None
    assert first.bets.return_pairs  # something to keep
    # The live cohort's return moves: the kept statistics hold, the provisional figure moves
    moved = _matured_tables(3)
    text = moved["family_returns"].decode().replace(",0.0300,3.00,", ",0.0900,9.00,")
    assert text != moved["family_returns"].decode()
    moved["family_returns"] = text.encode()
    again = build(moved, "v1", RULES, keep=books.keep())
    assert counting.calls == 1
    assert again == build(moved, "v1", RULES)  # as without anything kept
    assert again.row("sharp") != first.row("sharp")
    # A cohort more matured: computed again
    more = build(_matured_tables(4), "v1", RULES, keep=books.keep())
    assert counting.calls == 3 and more == build(_matured_tables(4), "v1", RULES)
    assert more.bets.return_pairs != first.bets.return_pairs


@pytest.mark.parametrize("change", ["positions", "rules", "code", "garbage", "names"])
def test_return_statistics_are_computed_again_for_anything_else(
    monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    counting = Counting(monkeypatch, "return_statistics")
    books = Bookkeeping()
    build(_matured_tables(3), "v1", RULES, keep=books.keep())
    found, rules = _matured_tables(3), RULES
    if change == "positions":  # the same cohorts matured, another P/L
        found["position_returns"] = _matured_tables(3, pnl="20")["position_returns"]
    elif change == "rules":
        rules = type(RULES)(min_forecasts=7, min_cohorts=2, min_weeks=2, min_events=2)
    elif change == "code":
        monkeypatch.setattr(memo_module, "code_digest", lambda: "other code")
    elif change == "garbage":
        _garble(books, "returns", '{"figures": {}, "pairs": "no"}')
    else:  # the shard changed out of band (other families): not the one the state links
        shard = books.shard("board")
        text = gzip.decompress(books.objects[shard])
        assert b"sharp" in text
        books.objects[shard] = gzip.compress(text.replace(b"sharp", b"other"))
    result = build(found, "v1", rules, keep=books.keep())
    assert counting.calls == 2
    assert result == build(found, "v1", rules)
