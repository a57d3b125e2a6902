"""The publication's state read back from the bytes this process wrote or read is the state
those bytes hold (``publication/state.py`` keeps the last one instead of parsing it again), and
no change made to a state it handed out reaches the next one."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from arena_core.domain.portfolio import SeriesPoint
from arena_core.publication import state as state_module
from arena_core.publication.state import State

START = datetime(2026, 3, 1, tzinfo=UTC)


def point(hour: int, pnl: str = "12.50") -> SeriesPoint:
    return SeriesPoint(
        family_id="gpt",
        resolution="hour",
        bucket=START + timedelta(hours=hour),
        taken_at=START + timedelta(hours=hour, minutes=50),
        pnl=Decimal(pnl),
        return_pct=Decimal("0.125"),
        agents=2,
    )


def a_state() -> State:
    state = State(identity="site-a")
    state.done["board"] = START
    state.links["history"] = "abc"
    state.carried.score_counts["gpt"] = 3
    state.carried.series["gpt/hour"] = [point(0), point(1)]
    return state


def parsed(payload: bytes) -> State:
    """What the bytes hold, parsed (the path a process that kept nothing takes)."""
    return State.model_validate_json(gzip.decompress(payload))


@pytest.fixture(autouse=True)
def nothing_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_module, "_kept", None)


def test_the_bytes_written_are_read_back_as_they_were_written() -> None:
    payload = a_state().dump()
    loaded, note = State.load(payload, "site-a")
    assert note is None
    assert state_module._kept is not None  # read back from what was kept, not parsed
    assert loaded == parsed(payload)
    assert loaded.model_dump_json() == parsed(payload).model_dump_json()


def test_changes_to_a_state_handed_out_do_not_reach_the_next() -> None:
    payload = a_state().dump()
    first, _ = State.load(payload, "site-a")
    first.carried.series["gpt/hour"].append(point(2, "99.00"))
    first.carried.series["gpt/6h"] = [point(0)]
    first.carried.score_counts["gpt"] = 4
    first.links["history"] = "changed"
    first.done["daily"] = START
    first.reports.append(first.reports[0] if first.reports else _report())
    again, _ = State.load(payload, "site-a")
    assert again == parsed(payload)
    assert again.carried.series == {"gpt/hour": [point(0), point(1)]}


def test_a_state_changed_after_it_was_written_is_not_what_is_kept() -> None:
    state = a_state()
    payload = state.dump()
    state.carried.series["gpt/hour"].append(point(2))  # changed, never written
    loaded, _ = State.load(payload, "site-a")
    assert loaded.carried.series["gpt/hour"] == [point(0), point(1)]


def test_other_bytes_and_other_sites_are_read_as_before() -> None:
    written = a_state().dump()
    other = a_state()
    other.links["history"] = "def"
    other_payload = gzip.compress(other.model_dump_json().encode())  # written elsewhere
    loaded, note = State.load(other_payload, "site-a")
    assert note is None and loaded.links["history"] == "def"
    foreign, note = State.load(written, "site-b")
    assert note == "a state written for another site"
    assert foreign == State(identity="site-b")


def test_a_series_out_of_order_is_not_kept_and_not_read() -> None:
    state = a_state()
    state.carried.series["gpt/hour"] = [point(1), point(0)]
    payload = state.dump()
    assert state_module._kept is None
    loaded, note = State.load(payload, "site-a")
    assert note == "the state could not be read"
    assert loaded == State(identity="site-a")


def _report() -> state_module.Report:
    return state_module.Report(at=START, scope="board", why="tick", uploaded=0, paths=[], misses=[])


def test_a_container_is_shared_member_by_member_only_when_nothing_in_it_can_change() -> None:
    """A list or dict of points (frozen) is copied as a whole; one holding a container or a
    model that can change has that member copied too."""
    inner = {"gpt": 1}
    mixed = [point(0), inner, State(identity="x")]
    copied = state_module._thawed(mixed)
    copied[1]["gpt"] = 2
    copied[2].identity = "y"
    copied.append(point(1))
    assert mixed == [point(0), {"gpt": 1}, State(identity="x")]
    assert copied[0] is mixed[0]  # a frozen point is shared
    by_name = {"a": [point(0)], "b": point(1)}
    thawed = state_module._thawed(by_name)
    thawed["a"].append(point(2))
    assert by_name == {"a": [point(0)], "b": point(1)}
    points = [point(0), point(1)]
    assert state_module._thawed(points) == points and state_module._thawed(points) is not points
