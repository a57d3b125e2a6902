"""GammaMarketSource over httpx.MockTransport: paging, batching, retries, budgets, timeouts."""

import json
import math
import threading
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena_core.adapters.polymarket import GammaMarketSource
from arena_core.adapters.rate_limit import TokenBucket
from arena_core.adapters.retry import Retrier, RetryPolicy
from arena_core.domain.market import MarketStatus
from arena_core.errors import RetryableUpstreamError
from arena_local.replay import GammaReplay
from tests.integration.upstream.test_parse_market_fixtures import TOP
from tests.support.fake_time import FakeTime


@pytest.fixture
def dump(fixtures_dir: Path) -> list[dict[str, Any]]:
    return json.loads((fixtures_dir / TOP).read_text())


def source(
    transport: httpx.BaseTransport, time: FakeTime, *, budget: float = 30.0, **kwargs: Any
) -> GammaMarketSource:
    retrier = Retrier(
        RetryPolicy(max_attempts=4, base_delay=0.5, total_budget=budget),
        sleep=time.sleep,
        clock=time.clock,
    )
    limiter = TokenBucket(rate=1000, burst=1000, clock=time.clock, sleep=time.sleep)
    return GammaMarketSource(
        httpx.Client(transport=transport), retrier=retrier, limiter=limiter, **kwargs
    )


def test_top_markets_pages_by_volume_num_and_keeps_only_open(dump: list[dict[str, Any]]) -> None:
    replay = GammaReplay(dump)
    fetch = source(replay.transport(), FakeTime()).top_markets(limit=250)
    assert len(fetch.markets) == 250
    volumes = [m.volume for m in fetch.markets.values()]
    assert volumes == sorted(volumes, reverse=True)  # type: ignore[type-var]
    assert all(m.status is MarketStatus.OPEN for m in fetch.markets.values())
    assert fetch.requests == 3
    first = replay.requests[0].url.params
    assert first["order"] == "volumeNum"
    assert first["ascending"] == "false"
    assert first["closed"] == "false"
    assert [r.url.params["offset"] for r in replay.requests] == ["0", "100", "200"]


def test_top_markets_stops_on_a_short_page(dump: list[dict[str, Any]]) -> None:
    replay = GammaReplay(dump)
    fetch = source(replay.transport(), FakeTime()).top_markets(limit=500)
    assert len(fetch.markets) == 300  # the dump holds 300 open markets
    assert fetch.requests == 4


def test_unparseable_markets_are_reported_not_fatal(dump: list[dict[str, Any]]) -> None:
    broken = [m for m in dump if not m["closed"]][:5]
    for m in broken:
        m["outcomes"] = "{not json"
    fetch = source(GammaReplay(dump).transport(), FakeTime()).top_markets(limit=500)
    assert len(fetch.markets) == 295
    assert {s.market_id for s in fetch.skipped} == {m["id"] for m in broken}
    assert all("outcomes" in s.reason for s in fetch.skipped)


@pytest.mark.parametrize(("m", "batch"), [(120, 50), (50, 50), (7, 3), (300, 100)])
def test_markets_by_id_costs_ceil_m_over_batch(
    dump: list[dict[str, Any]], m: int, batch: int
) -> None:
    replay = GammaReplay(dump)
    ids = [d["id"] for d in dump if not d["closed"]][:m]
    fetch = source(replay.transport(), FakeTime(), batch_size=batch).markets_by_id(ids)
    assert set(fetch.markets) == set(ids)
    assert fetch.requests == math.ceil(m / batch) == len(replay.requests)
    assert all(len(r.url.params.get_list("id")) <= batch for r in replay.requests)


@pytest.mark.parametrize(("m", "threads_expected"), [(40, False), (200, True)])
def test_one_batch_is_fetched_in_the_calling_thread_and_several_in_a_pool(
    dump: list[dict[str, Any]], m: int, threads_expected: bool
) -> None:
    replay = GammaReplay(dump)
    threads: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        threads.append(threading.current_thread().name)
        return replay.handle(request)

    ids = [d["id"] for d in dump if not d["closed"]][:m]
    fetch = source(httpx.MockTransport(handle), FakeTime(), batch_size=50).markets_by_id(ids)
    assert set(fetch.markets) == set(ids)  # in the ids' batches, whichever thread asked
    assert len(threads) == math.ceil(m / 50)
    caller = threading.current_thread().name
    assert all((name != caller) is threads_expected for name in threads)


def test_closed_markets_are_fetched_with_a_single_follow_up(dump: list[dict[str, Any]]) -> None:
    replay = GammaReplay(dump)
    open_ids = [d["id"] for d in dump if not d["closed"]][:30]
    closed_ids = [d["id"] for d in dump if d["closed"]][:20]
    fetch = source(replay.transport(), FakeTime(), batch_size=50).markets_by_id(
        open_ids + closed_ids
    )
    assert set(fetch.markets) == set(open_ids + closed_ids)
    assert fetch.requests == 2
    assert replay.requests[1].url.params["closed"] == "true"
    assert set(replay.requests[1].url.params.get_list("id")) == set(closed_ids)


def test_unknown_ids_are_reported_missing(dump: list[dict[str, Any]]) -> None:
    fetch = source(GammaReplay(dump).transport(), FakeTime()).markets_by_id(["nope", dump[0]["id"]])
    assert fetch.missing_ids == ("nope",)
    assert list(fetch.markets) == [dump[0]["id"]]


class Flaky:
    """Fails the first ``failures`` calls with ``response`` (or an exception), then replays."""

    def __init__(self, replay: GammaReplay, failures: int, fail: Any) -> None:
        self.replay, self.failures, self.fail, self.calls = replay, failures, fail, 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if self.calls <= self.failures:
            if isinstance(self.fail, Exception):
                raise self.fail
            return self.fail  # type: ignore[no-any-return]
        return self.replay.handle(request)


def test_retry_after_is_honoured_on_429(dump: list[dict[str, Any]]) -> None:
    time = FakeTime()
    flaky = Flaky(GammaReplay(dump), 1, httpx.Response(429, headers={"Retry-After": "7"}))
    fetch = source(httpx.MockTransport(flaky), time).top_markets(limit=10)
    assert len(fetch.markets) == 10
    assert time.sleeps == [7.0]
    assert fetch.requests == 2
    assert fetch.retries == 1


@pytest.mark.parametrize(
    "failure",
    [
        httpx.Response(503),
        httpx.Response(502, text="bad gateway"),
        httpx.ReadTimeout("slow"),
        httpx.ConnectError("refused"),
    ],
)
def test_transient_failures_are_retried_with_backoff(
    dump: list[dict[str, Any]], failure: Any
) -> None:
    time = FakeTime()
    flaky = Flaky(GammaReplay(dump), 2, failure)
    fetch = source(httpx.MockTransport(flaky), time).top_markets(limit=5)
    assert len(fetch.markets) == 5
    assert len(time.sleeps) == 2
    # Equal jitter: attempt n waits between half and all of base * 2^(n-1).
    assert 0.25 <= time.sleeps[0] <= 0.5
    assert 0.5 <= time.sleeps[1] <= 1.0


def test_total_retry_time_is_bounded(dump: list[dict[str, Any]]) -> None:
    time = FakeTime()
    always = Flaky(GammaReplay(dump), 10**6, httpx.Response(503, headers={"Retry-After": "4"}))
    with pytest.raises(RetryableUpstreamError, match="budget"):
        source(httpx.MockTransport(always), time, budget=10.0).top_markets(limit=5)
    assert sum(time.sleeps) <= 10.0
    assert time.sleeps == [4.0, 4.0]


def test_attempts_are_bounded(dump: list[dict[str, Any]]) -> None:
    always = Flaky(GammaReplay(dump), 10**6, httpx.Response(500))
    with pytest.raises(RetryableUpstreamError, match="4 attempts"):
        source(httpx.MockTransport(always), FakeTime()).top_markets(limit=5)
    assert always.calls == 4


def test_a_failed_batch_is_reported_and_the_others_still_arrive(dump: list[dict[str, Any]]) -> None:
    replay = GammaReplay(dump)
    ids = [d["id"] for d in dump if not d["closed"]][:100]
    poisoned = set(ids[:50])

    def handler(request: httpx.Request) -> httpx.Response:
        if set(request.url.params.get_list("id")) & poisoned:
            return httpx.Response(500)
        return replay.handle(request)

    fetch = source(httpx.MockTransport(handler), FakeTime(), batch_size=50).markets_by_id(ids)
    assert set(fetch.failed_ids) == poisoned
    assert set(fetch.markets) == set(ids[50:])
    assert fetch.errors


def test_client_errors_are_fatal_not_retried(dump: list[dict[str, Any]]) -> None:
    from arena_core.errors import FatalUpstreamError  # noqa: PLC0415

    calls = Flaky(GammaReplay(dump), 10**6, httpx.Response(422, text="bad params"))
    with pytest.raises(FatalUpstreamError, match="422"):
        source(httpx.MockTransport(calls), FakeTime()).top_markets(limit=5)
    assert calls.calls == 1


def test_every_request_carries_a_timeout(dump: list[dict[str, Any]]) -> None:
    replay = GammaReplay(dump)
    source(replay.transport(), FakeTime()).markets_by_id([dump[0]["id"]])
    timeouts = replay.requests[0].extensions["timeout"]
    assert all(timeouts[k] is not None for k in ("connect", "read", "write", "pool"))


def test_midpoints_accept_both_documented_shapes() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/midpoints"
        body = json.loads(request.content)
        assert body == [{"token_id": "1"}, {"token_id": "2"}, {"token_id": "3"}]
        return httpx.Response(200, json={"1": "0.45", "2": {"mid_price": "0.1"}, "3": {"mid": 0.7}})

    mids = source(httpx.MockTransport(handler), FakeTime()).midpoints(["1", "2", "3"])
    assert {k: str(v) for k, v in mids.items()} == {"1": "0.45", "2": "0.1", "3": "0.7"}


def test_rate_limiter_spaces_requests() -> None:
    time = FakeTime()
    bucket = TokenBucket(rate=10, burst=2, clock=time.clock, sleep=time.sleep)
    for _ in range(6):
        bucket.acquire()
    # Two free, then four more at 10 per second.
    assert time.now - 1000.0 == pytest.approx(0.4)


WINDOW = (
    datetime(2026, 2, 1, 0, 5, tzinfo=UTC),
    datetime(2026, 2, 15, 0, 5, tzinfo=UTC),
    Decimal("1000"),
)


def _in_window(raw: dict[str, Any]) -> bool:
    end, liquidity = str(raw.get("endDate") or ""), raw.get("liquidityNum")
    return (
        not raw.get("closed")
        and "2026-02-01T00:05:00Z" < end <= "2026-02-15T00:05:00Z"
        and liquidity is not None
        and float(liquidity) >= 1000
    )


def test_the_panel_listing_asks_for_the_window_and_the_floor_and_pages_it(
    dump: list[dict[str, Any]],
) -> None:
    replay = GammaReplay(dump)
    fetch = source(replay.transport(), FakeTime(), page_size=10).panel_listing(*WINDOW)
    expected = {str(m["id"]) for m in dump if _in_window(m)}
    assert set(fetch.markets) == expected and len(expected) > 10
    first = replay.requests[0].url.params
    assert (first["closed"], first["liquidity_num_min"]) == ("false", "1000")
    assert (first["end_date_min"], first["end_date_max"]) == (
        "2026-02-01T00:05:00Z",
        "2026-02-15T00:05:00Z",
    )
    assert fetch.requests == math.ceil((len(expected) + 1) / 10)  # up to the short page


def test_a_listing_the_server_does_not_filter_is_filtered_here(
    dump: list[dict[str, Any]],
) -> None:
    """A server that ignores the window's parameters returns every open market: the same
    rules keep the same markets."""

    def ignoring(request: httpx.Request) -> httpx.Response:
        params = [(k, v) for k, v in request.url.params.multi_items() if "_min" not in k]
        params = [(k, v) for k, v in params if "_max" not in k]
        return GammaReplay(dump).handle(httpx.Request("GET", request.url.copy_with(params=params)))

    fetch = source(httpx.MockTransport(ignoring), FakeTime()).panel_listing(*WINDOW)
    assert set(fetch.markets) == {str(m["id"]) for m in dump if _in_window(m)}


def test_a_deep_offset_gamma_refuses_ends_the_listing_there_and_says_so(
    dump: list[dict[str, Any]],
) -> None:
    replay = GammaReplay([{**m, "endDate": "2026-02-03T00:00:00Z"} for m in dump])

    def refusing(request: httpx.Request) -> httpx.Response:
        if int(request.url.params["offset"]) >= 200:
            return httpx.Response(422, text="offset too large")
        return replay.handle(request)

    fetch = source(httpx.MockTransport(refusing), FakeTime()).panel_listing(*WINDOW)
    assert 100 < len(fetch.markets) <= 200
    assert fetch.errors and "listing ends at offset 200" in fetch.errors[0]
