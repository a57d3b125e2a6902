"""The market source on Polymarket's Gamma API (metadata and prices) and CLOB (midpoints).

- Top-N: ``GET /markets?closed=false&order=volumeNum&ascending=false`` paged by offset (sorting by
  ``volume`` would sort the string). Pages are fetched one after another because each decides
  whether another is needed.
- The panel listing: every open market closing within the panel's strata and above its
  liquidity floor (``end_date_min``, ``end_date_max``, ``liquidity_num_min``), paged by offset.
- By id: the documented multi-valued ``id`` filter, ``batch_size`` ids a request, batches in
  parallel under a small concurrency limit (a single batch, a snapshot pass's usual case, in
  the calling thread), so refreshing M markets costs ``ceil(M / batch)`` requests. Gamma's
  ``closed`` filter defaults to false, so ids not returned are asked for once more with
  ``closed=true`` (only resolution ever needs that second request).
- Every request has a timeout, is retried on timeouts, connection errors, 429 and 5xx with
  backoff and jitter (``Retry-After`` honoured, total time bounded), and passes a token bucket
  set under the documented 300 requests / 10 s.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, TypeVar

import httpx

from arena_core.adapters.polymarket.parse import parse_market
from arena_core.adapters.rate_limit import TokenBucket
from arena_core.adapters.retry import Retrier, Transient, is_retryable_status, parse_retry_after
from arena_core.domain.market import Market, MarketStatus
from arena_core.domain.money import ONE, ZERO, to_decimal
from arena_core.errors import FatalUpstreamError, MarketPayloadError, UpstreamError
from arena_core.ports.market_source import (
    LISTING_LIMIT,
    MarketFetch,
    MarketSource,
    SkippedMarket,
)

_T = TypeVar("_T")
_R = TypeVar("_R")

GAMMA_URL = "https://gamma-api.polymarket.com"
CLOB_URL = "https://clob.polymarket.com"


@dataclass
class _Tally:
    """Requests and retries of one operation (thread-safe: batches run in parallel)."""

    requests: int = 0
    retries: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, attempts: int) -> None:
        with self.lock:
            self.requests += attempts
            self.retries += attempts - 1


@dataclass
class _Collected:
    markets: dict[str, Market] = field(default_factory=dict)
    skipped: list[SkippedMarket] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def take(self, payloads: Iterable[Any]) -> None:
        for raw in payloads:
            try:
                market = parse_market(raw)
            except MarketPayloadError as exc:
                self.skipped.append(SkippedMarket(exc.market_id or "?", str(exc)))
                continue
            self.markets.setdefault(market.market_id, market)


class GammaMarketSource(MarketSource):
    def __init__(
        self,
        http: httpx.Client,
        *,
        gamma_url: str = GAMMA_URL,
        clob_url: str = CLOB_URL,
        page_size: int = 100,
        batch_size: int = 50,
        concurrency: int = 4,
        timeout: httpx.Timeout | None = None,
        retrier: Retrier | None = None,
        limiter: TokenBucket | None = None,
    ) -> None:
        self._http = http
        self._gamma = gamma_url.rstrip("/")
        self._clob = clob_url.rstrip("/")
        self._page_size = page_size
        self._batch_size = batch_size
        self._concurrency = max(1, concurrency)
        self._timeout = timeout or httpx.Timeout(10.0, connect=5.0)
        self._retrier = retrier or Retrier()
        self._limiter = limiter or TokenBucket(rate=25.0, burst=10)

    # --- transport ---------------------------------------------------------------------------

    def _request(self, method: str, url: str, tally: _Tally, **kwargs: Any) -> Any:
        def attempt(_: int) -> Any:
            self._limiter.acquire()
            try:
                response = self._http.request(method, url, timeout=self._timeout, **kwargs)
            except httpx.TimeoutException as exc:
                raise Transient(f"timeout: {exc}") from exc
            except httpx.TransportError as exc:
                raise Transient(f"connection error: {exc}") from exc
            return _json_or_raise(response)

        body, _ = self._retry(attempt, what=f"{method} {url}", tally=tally)
        return body

    def _retry(self, attempt: Any, *, what: str, tally: _Tally) -> tuple[Any, int]:
        counted = 0

        def counting(number: int) -> Any:
            nonlocal counted
            counted = number
            return attempt(number)

        try:
            return self._retrier.run(counting, what=what)
        finally:
            tally.add(counted)

    # --- top markets ---------------------------------------------------------------------------

    def top_markets(self, limit: int = 500) -> MarketFetch:
        tally, found = _Tally(), _Collected()
        offset = 0
        # Bounded even if the upstream keeps answering full pages of duplicates or closed markets.
        max_pages = 2 * (limit // self._page_size + 1) + 5
        for _ in range(max_pages):
            if len(_open(found.markets)) >= limit:
                break
            params = [
                ("closed", "false"),
                ("order", "volumeNum"),
                ("ascending", "false"),
                ("limit", str(self._page_size)),
                ("offset", str(offset)),
            ]
            page = self._request("GET", f"{self._gamma}/markets", tally, params=params)
            if not isinstance(page, list):
                raise MarketPayloadError("<page>", f"expected a list, got {type(page).__name__}")
            found.take(page)
            if len(page) < self._page_size:
                break
            offset += self._page_size
        ranked = sorted(_open(found.markets), key=lambda m: m.volume or Decimal(0), reverse=True)
        return MarketFetch(
            markets={m.market_id: m for m in ranked[:limit]},
            skipped=tuple(found.skipped),
            requests=tally.requests,
            retries=tally.retries,
        )

    # --- the panel listing ---------------------------------------------------------------------

    def panel_listing(
        self, closes_after: datetime, closes_by: datetime, min_liquidity: Decimal
    ) -> MarketFetch:
        """Every open market closing in (``closes_after``, ``closes_by``] with at least
        ``min_liquidity`` of liquidity: Gamma's ``end_date_min``, ``end_date_max`` and
        ``liquidity_num_min`` filters, paged by offset up to ``LISTING_LIMIT`` markets, and the
        same rules applied again to what comes back (a filter the server ignored changes
        nothing). Gamma refuses deep offsets: a refusal after the first page ends the listing
        there, said in ``errors`` (the panel records how many markets it was drawn from)."""
        tally, found = _Tally(), _Collected()
        window = [
            ("closed", "false"),
            ("liquidity_num_min", f"{min_liquidity:f}"),
            ("end_date_min", _gamma_time(closes_after)),
            ("end_date_max", _gamma_time(closes_by)),
            ("order", "volumeNum"),
            ("ascending", "false"),
            ("limit", str(self._page_size)),
        ]
        for offset in range(0, LISTING_LIMIT, self._page_size):
            params = [*window, ("offset", str(offset))]
            try:
                page = self._request("GET", f"{self._gamma}/markets", tally, params=params)
            except FatalUpstreamError as exc:
                if offset == 0:
                    raise
                found.errors.append(f"listing ends at offset {offset}: {exc}")
                break
            if not isinstance(page, list):
                raise MarketPayloadError("<page>", f"expected a list, got {type(page).__name__}")
            found.take(page)
            if len(page) < self._page_size:
                break
        kept = [
            m
            for m in _open(found.markets)
            if m.end_date is not None
            and closes_after < m.end_date <= closes_by
            and (m.liquidity or ZERO) >= min_liquidity
        ]
        return MarketFetch(
            markets={m.market_id: m for m in kept},
            skipped=tuple(found.skipped),
            requests=tally.requests,
            retries=tally.retries,
            errors=tuple(found.errors),
        )

    # --- markets by id -------------------------------------------------------------------------

    def markets_by_id(self, market_ids: Sequence[str]) -> MarketFetch:
        wanted = list(dict.fromkeys(str(i) for i in market_ids))
        tally, found = _Tally(), _Collected()
        self._fetch_batches(wanted, closed=None, tally=tally, found=found)
        absent = [i for i in wanted if i not in found.markets and i not in found.failed]
        if absent:
            self._fetch_batches(absent, closed=True, tally=tally, found=found)
        missing = tuple(
            i
            for i in wanted
            if i not in found.markets
            and i not in found.failed
            and i not in {s.market_id for s in found.skipped}
        )
        return MarketFetch(
            markets={i: found.markets[i] for i in wanted if i in found.markets},
            skipped=tuple(found.skipped),
            failed_ids=tuple(found.failed),
            missing_ids=missing,
            requests=tally.requests,
            retries=tally.retries,
            errors=tuple(found.errors),
        )

    def _fetch_batches(
        self, ids: list[str], *, closed: bool | None, tally: _Tally, found: _Collected
    ) -> None:
        batches = [ids[i : i + self._batch_size] for i in range(0, len(ids), self._batch_size)]

        def fetch(batch: list[str]) -> tuple[list[str], Any, str | None]:
            params = [("id", i) for i in batch] + [("limit", str(len(batch)))]
            if closed is not None:
                params.append(("closed", "true" if closed else "false"))
            try:
                page = self._request("GET", f"{self._gamma}/markets", tally, params=params)
                return batch, page, None
            except UpstreamError as exc:
                return batch, None, f"{type(exc).__name__}: {exc}"

        for batch, page, error in _each(fetch, batches, self._concurrency):
            if error is not None or not isinstance(page, list):
                found.failed.extend(batch)
                found.errors.append(error or f"unexpected page type {type(page).__name__}")
                continue
            found.take(page)

    # --- CLOB midpoints ------------------------------------------------------------------------

    def midpoints(self, token_ids: Sequence[str]) -> dict[str, Decimal]:
        """Batch ``POST /midpoints``; accepts ``{token: "0.5"}`` or ``{token: {"mid": ...}}``."""
        tokens = list(dict.fromkeys(token_ids))
        result: dict[str, Decimal] = {}
        tally = _Tally()
        for start in range(0, len(tokens), self._batch_size):
            chunk = tokens[start : start + self._batch_size]
            payload = [{"token_id": t} for t in chunk]
            body = self._request("POST", f"{self._clob}/midpoints", tally, json=payload)
            if not isinstance(body, dict):
                raise MarketPayloadError(
                    "midpoints", f"expected an object, got {type(body).__name__}"
                )
            asked = set(chunk)  # a token the body adds (or garbles) is no answer
            for token, value in body.items():
                mid = _midpoint_value(value)
                if mid is not None and token in asked and ZERO <= mid <= ONE:
                    result[token] = mid
        return result


def _each(fetch: Callable[[_T], _R], batches: list[_T], concurrency: int) -> Iterator[_R]:
    """``fetch`` of each batch, in order: in a pool of ``concurrency`` threads when there are
    several, in this thread when there is one (a snapshot pass's usual case: a pool's threads
    cost more than the one request)."""
    if len(batches) <= 1 or concurrency <= 1:
        yield from map(fetch, batches)
        return
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        yield from pool.map(fetch, batches)


def _gamma_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _open(markets: dict[str, Market]) -> list[Market]:
    return [m for m in markets.values() if m.status is MarketStatus.OPEN]


def _midpoint_value(value: Any) -> Decimal | None:
    if isinstance(value, dict):
        value = value.get("mid_price", value.get("mid"))
    if value is None:
        return None
    try:
        return to_decimal(value)
    except ValueError:
        return None


def _json_or_raise(response: httpx.Response) -> Any:
    status = response.status_code
    if is_retryable_status(status):
        raise Transient(
            f"HTTP {status}", retry_after=parse_retry_after(response.headers.get("Retry-After"))
        )
    if status >= 400:
        raise FatalUpstreamError(
            f"HTTP {status} from {response.request.url}: {response.text[:200]}"
        )
    try:
        return response.json()
    except (ValueError, RecursionError) as exc:  # syntax, huge integers, deep nesting
        raise MarketPayloadError(
            "<body>", f"response is not JSON: {response.text[:120]!r}"
        ) from exc
