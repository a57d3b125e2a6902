"""A recorded Gamma ``/markets`` dump served as the Gamma API, through an httpx transport.

The real ``GammaMarketSource`` talks to it exactly as to Polymarket: the demo replays recorded
payloads this way, and transport tests use it as a faithful fake. It implements what the client
uses: the ``closed`` filter (default false), the panel listing's ``liquidity_num_min``,
``end_date_min`` and ``end_date_max`` filters, ``order=volumeNum`` with ``ascending``, ``limit`` /
``offset`` paging and the repeated ``id`` filter. ``overrides`` replaces fields of a market by id
or ``live`` computes them when a market is served (the demo's price simulation moves prices and
resolves markets this way, computing only the markets asked for). Every request is counted, and
thread-safe, since batches arrive in parallel.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

LiveFields = Callable[[str], Mapping[str, Any]]


def _flag(value: str | None, default: bool | None) -> bool | None:
    if value is None:
        return default
    return value.lower() == "true"


def _volume(raw: Mapping[str, Any]) -> float:
    value = raw.get("volumeNum", raw.get("volume"))
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _number(raw: Mapping[str, Any], *names: str) -> float | None:
    for name in names:
        try:
            return float(raw[name])
        except (KeyError, TypeError, ValueError):
            continue
    return None


def _in_window(markets: list[dict[str, Any]], params: httpx.QueryParams) -> list[dict[str, Any]]:
    """The ``liquidity_num_min``, ``end_date_min`` and ``end_date_max`` filters, as Gamma
    applies them (a market without the field does not pass a filter on it)."""
    low, high = params.get("end_date_min"), params.get("end_date_max")
    floor = params.get("liquidity_num_min")
    found = []
    for market in markets:
        if floor is not None:
            liquidity = _number(market, "liquidityNum", "liquidity")
            if liquidity is None or liquidity < float(floor):
                continue
        if low is not None or high is not None:
            end = str(market.get("endDate") or "")
            if not end or (low is not None and end < low) or (high is not None and end > high):
                continue
        found.append(market)
    return found


class GammaReplay:
    def __init__(
        self, markets: Sequence[Mapping[str, Any]], live: LiveFields | None = None
    ) -> None:
        self._markets = [dict(m) for m in markets]
        # a market's place in the dump, by id: an id filter picks its markets in dump order
        self._places: dict[str, list[int]] = {}
        for place, market in enumerate(self._markets):
            self._places.setdefault(str(market.get("id")), []).append(place)
        self._live = live
        self._lock = threading.Lock()
        self._overrides: dict[str, dict[str, Any]] = {}
        self.requests: list[httpx.Request] = []

    def set_fields(self, market_id: str, fields: Mapping[str, Any]) -> None:
        """Replace some fields of one market from now on (prices, closed, UMA status)."""
        with self._lock:
            self._overrides.setdefault(str(market_id), {}).update(fields)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def _current(self, ids: set[str]) -> list[dict[str, Any]]:
        if ids:
            places = sorted(p for i in ids for p in self._places.get(i, ()))
            chosen = [self._markets[p] for p in places]
        else:
            chosen = self._markets
        with self._lock:
            current = [m | self._overrides.get(str(m.get("id")), {}) for m in chosen]
        if self._live is not None:
            current = [m | dict(self._live(str(m.get("id")))) for m in current]
        return current

    def handle(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            self.requests.append(request)
        if request.url.path.rstrip("/") != "/markets" or request.method != "GET":
            return httpx.Response(404, text="404 page not found")
        params = request.url.params
        markets = self._current(set(params.get_list("id")))
        closed = _flag(params.get("closed"), default=False)
        if closed is not None:
            markets = [m for m in markets if bool(m.get("closed")) == closed]
        markets = _in_window(markets, params)
        if params.get("order") == "volumeNum":
            descending = _flag(params.get("ascending"), default=True) is False
            markets.sort(key=_volume, reverse=descending)
        offset = int(params.get("offset", "0"))
        limit = int(params.get("limit", "100"))
        page = markets[offset : offset + limit]
        return httpx.Response(
            200, content=json.dumps(page).encode(), headers={"Content-Type": "application/json"}
        )
