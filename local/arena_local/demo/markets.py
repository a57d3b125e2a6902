"""Where the demo's markets come from, in order: a ``--markets`` file (a Gamma ``/markets`` JSON
dump), the live Gamma API if it answers within a short timeout, the recorded dump in
``../shared/fixtures`` when present, else a seeded synthetic universe. Every choice yields raw
Gamma payloads: they reach the real Polymarket client through ``GammaReplay``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from arena_local.demo.errors import MarketsFileError

# The recorded payloads: ../shared/fixtures beside the repository checkout.
FIXTURES = Path(__file__).resolve().parents[3].parent / "shared" / "fixtures"
GAMMA_URL = "https://gamma-api.polymarket.com"
LIVE_TIMEOUT_SECONDS = 3.0
LIVE_PAGES = (0, 250)  # two pages of 250: today's top 500 open markets by volume
RECORDED_DUMP = "polymarket/gamma/wom_gamma_markets_top_volume_closed300_open300_2026-02.json"
SYNTHETIC_MARKETS = 120


@dataclass(frozen=True)
class MarketChoice:
    payloads: list[dict[str, Any]]
    origin: str  # what the run says it used
    live: bool = False  # today's markets: no recorded outcome, they settle by their end date
    settle: frozenset[str] = frozenset()  # markets settled at their end date (a listing's)

    def describe(self) -> str:
        return f"{len(self.payloads)} markets from {self.origin}"

    def with_listing(self, listing: list[dict[str, Any]], note: str) -> MarketChoice:
        """These markets and a panel listing's besides, settled at their end dates."""
        ids = frozenset(str(p["id"]) for p in listing)
        return replace(
            self, payloads=[*self.payloads, *listing], origin=f"{self.origin} and {note}",
            settle=self.settle | ids,
        )  # fmt: skip


def _dump(payloads: Any, origin: str) -> MarketChoice:
    if not isinstance(payloads, list) or not payloads:
        raise MarketsFileError(f"{origin}: expected a non-empty JSON list of Gamma markets")
    usable = [p for p in payloads if isinstance(p, Mapping) and p.get("id") and p.get("question")]
    if not usable:
        raise MarketsFileError(f"{origin}: no entry has the Gamma fields id and question")
    return MarketChoice([dict(p) for p in usable], origin)


def from_file(path: Path) -> MarketChoice:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise MarketsFileError(f"markets file not found: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise MarketsFileError(f"markets file unreadable: {path}: {exc}") from exc
    try:
        payloads = json.loads(text)
    except ValueError as exc:
        raise MarketsFileError(f"markets file is not JSON: {path}: {exc}") from exc
    return _dump(payloads, f"file {path}")


def from_live_gamma(
    http: httpx.Client, base_url: str = GAMMA_URL, timeout: float = LIVE_TIMEOUT_SECONDS
) -> MarketChoice | None:
    """Today's top markets, or None when Gamma does not answer in time (offline machines)."""
    payloads: list[dict[str, Any]] = []
    try:
        for offset in LIVE_PAGES:
            response = http.get(
                f"{base_url.rstrip('/')}/markets",
                params={
                    "closed": "false",
                    "order": "volumeNum",
                    "ascending": "false",
                    "limit": 250,
                    "offset": offset,
                },
                timeout=timeout,
            )
            response.raise_for_status()
            payloads.extend(response.json())
    except (httpx.HTTPError, ValueError):
        return None
    try:
        found = _dump(payloads, f"the live Gamma API ({base_url})")
    except MarketsFileError:
        return None
    return MarketChoice(found.payloads, found.origin, live=True)


def from_recorded(fixtures_dir: Path) -> MarketChoice | None:
    path = fixtures_dir / RECORDED_DUMP
    if not path.is_file():
        return None
    return _dump(json.loads(path.read_text()), f"the recorded dump {path}")


def synthetic(seed: int, count: int = SYNTHETIC_MARKETS) -> MarketChoice:
    """A seeded universe in Gamma's shape: open markets, and closed ones that will resolve to a
    winner, to 50/50, or stay unresolved (disputed), so every path of the system is exercised."""
    rng = random.Random(f"{seed}:synthetic")
    rare = max(1, count // 24)  # about 4% each: 50/50 and disputed endings always occur
    kinds = ["split"] * rare + ["disputed"] * rare
    kinds += ["winner"] * ((count - len(kinds)) * 45 // 100)
    kinds += ["open"] * (count - len(kinds))
    rng.shuffle(kinds)
    payloads = []
    for index, kind in enumerate(kinds):
        yes = round(rng.uniform(0.05, 0.95), 3)
        prices = [str(yes), str(round(1 - yes, 3))]
        if kind == "winner":
            prices = ["1", "0"] if rng.random() < yes else ["0", "1"]
        elif kind == "split":
            prices = ["0.5", "0.5"]
        payloads.append(
            {
                "id": str(900_000 + index),
                "question": f"Synthetic question {index + 1}: will event {index + 1} happen?",
                "slug": f"synthetic-{index + 1}",
                "outcomes": json.dumps(["Yes", "No"]),
                "outcomePrices": json.dumps(prices),
                "volumeNum": round(rng.lognormvariate(11, 1.5), 2),
                "active": True,
                "closed": kind != "open",
                "umaResolutionStatus": {"open": None, "disputed": "disputed"}.get(kind, "resolved"),
                "endDate": "2026-12-31T00:00:00Z",
            }
        )
    return MarketChoice(payloads, f"a seeded synthetic universe (seed {seed})")


PANEL_CATEGORIES = ("Politics", "Sports", "Crypto", "Economy", "Science", "Culture")


def panel_listing(
    seed: int, start: datetime, weeks: int, size: int, days: float = 7.0
) -> list[dict[str, Any]]:
    """A seeded panel listing for the forecast panel, when the markets chosen hold too few that
    qualify (the recorded dump's closed markets record no liquidity): for each simulated week,
    ``size`` open Yes/No markets closing within ``days`` of its decision run (the design's
    horizon), each an event of its own, liquid, priced in the band, with a volume too small
    for the top-500 trading universe. They settle at their end date to an outcome drawn with
    their price."""
    rng = random.Random(f"{seed}:panel-listing")
    payloads = []
    for week in range(weeks):
        run = start + timedelta(weeks=week, minutes=5)
        for index in range(size):
            number = week * size + index
            ends = run + timedelta(days=0.1 + (days - 0.2) * rng.random())
            yes = round(rng.uniform(0.08, 0.92), 3)
            payloads.append(
                {
                    "id": str(800_000_000 + number),
                    "question": f"Synthetic panel question {number + 1}: will it happen?",
                    "slug": f"synthetic-panel-{number + 1}",
                    "outcomes": json.dumps(["Yes", "No"]),
                    "outcomePrices": json.dumps([str(yes), str(round(1 - yes, 3))]),
                    "volumeNum": round(rng.uniform(1.0, 5.0), 2),
                    "liquidityNum": round(rng.lognormvariate(8.5, 1.0) + 1000, 2),
                    "active": True,
                    "closed": False,
                    "endDate": ends.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "events": [
                        {
                            "id": str(900_000_000 + number),
                            "slug": f"synthetic-panel-event-{number + 1}",
                            "category": PANEL_CATEGORIES[number % len(PANEL_CATEGORIES)],
                        }
                    ],
                }
            )
    return payloads


def choose_markets(
    *,
    path: Path | None,
    seed: int,
    fixtures_dir: Path | None,
    http: httpx.Client | None,
) -> MarketChoice:
    if path is not None:
        return from_file(path)
    if http is not None:
        live = from_live_gamma(http)
        if live is not None:
            return live
    if fixtures_dir is not None:
        recorded = from_recorded(fixtures_dir)
        if recorded is not None:
            return recorded
    return synthetic(seed)


def counts(payloads: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    closed = sum(1 for p in payloads if str(p.get("closed")).lower() == "true")
    return {"markets": len(payloads), "closed_when_recorded": closed}
