"""Issue 26 §1: one definition of every id, checked where it enters, relied on by keys, paths
and commitments.

Before: Gamma's plain-id check (``^...$``) let ``"1\\n"`` through and the prompt got a forged
second row; ``decision_key`` accepted ``"c.x.w001\\n"``; the folder publisher wrote wherever a
key led (``../``); a lineup whose every family was retired opened cohorts of zero agents that
never complete; a decide event naming no agent id reached the stores."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from arena_core.adapters.polymarket.parse import parse_market
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.commitment_log import decision_key
from arena_core.domain.lineup import AgentKind
from arena_core.errors import ArenaError, ConfigurationError, MarketPayloadError
from arena_core.ports.clock import FixedClock
from arena_core.protocol.prompt import build_prompt
from arena_core.services.lineup import LineupService
from arena_core.services.open_cohort import OpenCohortService
from arena_local.memory import memory_stores
from tests.support.buckets import publish

DIGEST = "0" * 64


def gamma(market_id: Any) -> dict[str, Any]:
    return {
        "id": market_id,
        "question": "Will it rain?",
        "outcomes": '["Yes", "No"]',
        "outcomePrices": '["0.4", "0.6"]',
        "closed": False,
    }


@pytest.mark.parametrize("market_id", ["1\n", "1\r", " 1", "1 ", "1\x00", "x" * 129, "", "a/b"])
def test_gamma_refuses_an_id_that_is_not_plain(market_id: str) -> None:
    with pytest.raises(MarketPayloadError, match="'id'"):
        parse_market(gamma(market_id))


def test_gamma_keeps_a_plain_id_whole() -> None:
    assert parse_market(gamma("0x12ab:CD.3-4_5")).market_id == "0x12ab:CD.3-4_5"
    assert parse_market(gamma(12345)).market_id == "12345"


@pytest.mark.parametrize(
    "decision_id",
    ["c2026-03-01.x.w001\n", "c2026-03-01.x.w001\r", "../c.x.w001", "c.x/y.w001", "c.x.w1"],
)
def test_a_commitment_key_needs_a_decision_id(decision_id: str) -> None:
    with pytest.raises(ValueError, match="not a"):
        decision_key(decision_id, DIGEST)


def test_a_commitment_key_of_a_real_decision_id() -> None:
    key = decision_key("c2026-03-01.claude-opus-4.5.w001", DIGEST)
    assert key == f"commitments/decisions/c2026-03-01.claude-opus-4.5.w001/{DIGEST}.json"


@pytest.mark.parametrize(
    "key",
    ["../outside.html", "agents/../../outside.html", "ABSOLUTE", "a/\x00b.html", "", "a//b"],
)
def test_the_folder_publisher_never_leaves_its_folder(tmp_path: Path, key: str) -> None:
    root = tmp_path / "site"
    root.mkdir()
    key = str(tmp_path / "outside.html") if key == "ABSOLUTE" else key
    publisher = LocalFolderPublisher(root)
    with pytest.raises(ArenaError):
        publish(publisher, {"index.html": b"ok", key: b"escaped"})
    # Nothing outside the site and its bookkeeping beside it, which holds the lease alone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "site.state"]
    assert [p.name for p in (tmp_path / "site.state").iterdir()] == ["publication"]
    assert list(root.iterdir()) == []  # refused before a file was written


def test_the_folder_publisher_reads_inside_its_folder_only(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("secret")
    root = tmp_path / "site"
    root.mkdir()
    assert LocalFolderPublisher(root).get("../secret.txt") is None


def test_no_cohort_of_zero_agents_opens() -> None:
    """A lineup with no agent the deployment runs (every family retired before the rule, or
    baselines only with baselines switched off) is refused: such a cohort never completes."""
    stores = memory_stores()
    clock = FixedClock(datetime(2026, 3, 1, tzinfo=UTC))
    lineups = LineupService(stores.lineups, clock)
    service = OpenCohortService(stores.cohorts, clock, lineups, include_llms=False)
    release = lineups.in_force()
    for spec in release.lineup:
        if spec.kind is AgentKind.BASELINE:
            lineups.retire(spec.family_id)
    with pytest.raises(ConfigurationError, match="no agent"):
        service.open()
    assert stores.cohorts.cohorts() == []


def test_gamma_ids_forge_no_prompt_row() -> None:
    """``"1\\n"`` beside a real ``"1"`` used to give the prompt two rows for market 1."""
    markets = []
    for payload in (gamma("1\n"), gamma("1")):
        try:
            markets.append(parse_market(payload))
        except MarketPayloadError:
            continue
    prompt = build_prompt(
        now=datetime(2026, 3, 1, tzinfo=UTC),
        cohort_id="c2026-03-01",
        week=1,
        cash=Decimal(10000),
        positions=[],
        markets=markets,
    )
    assert [line for line in prompt.user.splitlines() if line.startswith("1|")] == [
        "1|Will it rain?|-|YES 0.4|?|?"
    ]
