"""parse_market against the real recorded Gamma payloads in ../shared/fixtures."""

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_core.adapters.polymarket import parse_market
from arena_core.domain.market import MarketStatus, ResolutionKind
from arena_core.errors import MarketPayloadError

TOP = "polymarket/gamma/wom_gamma_markets_top_volume_closed300_open300_2026-02.json"


def load(fixtures_dir: Path, name: str) -> Any:
    return json.loads((fixtures_dir / name).read_text())


def test_every_market_of_the_600_dump_parses_and_counts_match_the_readme(
    fixtures_dir: Path,
) -> None:
    raw = load(fixtures_dir, TOP)
    assert len(raw) == 600
    statuses: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for payload in raw:
        market = parse_market(payload)
        statuses[market.status] += 1
        if market.resolution:
            kinds[market.resolution.kind] += 1
    # README: 294 closed+resolved; 288 open + 11 open+proposed + 1 open+disputed;
    # 5 closed without UMA status + 1 closed+proposed.
    assert statuses == {MarketStatus.RESOLVED: 294, MarketStatus.OPEN: 300, MarketStatus.CLOSED: 6}
    # Among the resolved: one 50/50 (0.5/0.5), every other has exactly one outcome priced ~1.
    assert kinds == {ResolutionKind.WINNER: 293, ResolutionKind.SPLIT: 1}


def test_uma_status_is_kept_and_open_proposed_markets_stay_open(fixtures_dir: Path) -> None:
    raw = load(fixtures_dir, TOP)
    proposed_open = [
        parse_market(p)
        for p in raw
        if not p["closed"] and p.get("umaResolutionStatus") == "proposed"
    ]
    assert len(proposed_open) == 11
    assert all(m.status is MarketStatus.OPEN and m.uma_status == "proposed" for m in proposed_open)


EXTRACTED = "polymarket/gamma/extracted/"


def extracted(fixtures_dir: Path, stem: str) -> Any:
    (path,) = (fixtures_dir / EXTRACTED).glob(f"{stem}*.json")
    return parse_market(json.loads(path.read_text()))


def test_active_but_missing_prices_and_volume(fixtures_dir: Path) -> None:
    market = extracted(fixtures_dir, "active_but_missing_outcomePrices_and_volume")
    assert market.status is MarketStatus.OPEN
    assert market.volume is None
    assert market.side_price("YES") is None
    assert market.neg_risk and market.group_item_title == "Draw"


def test_closed_but_proposed_is_not_resolved_despite_0_1_prices(fixtures_dir: Path) -> None:
    market = extracted(fixtures_dir, "closed_but_proposed_not_resolved")
    assert market.status is MarketStatus.CLOSED
    assert market.resolution is None
    assert market.side_price("NO") == Decimal("1")


def test_legacy_amm_without_uma_status_stays_closed_with_long_decimals(fixtures_dir: Path) -> None:
    market = extracted(fixtures_dir, "closed_legacy_amm_no_uma_status")
    assert market.status is MarketStatus.CLOSED
    assert market.side_price("YES") == Decimal("0.9999997005287313540028152153997362")


def test_missing_end_date_is_unknown_not_invented(fixtures_dir: Path) -> None:
    assert extracted(fixtures_dir, "closed_legacy_missing_endDate").end_date is None
    assert extracted(fixtures_dir, "open_missing_endDate").end_date is None


def test_legacy_category_is_kept(fixtures_dir: Path) -> None:
    assert extracted(fixtures_dir, "closed_legacy_missing_endDate").category == "US-current-affairs"


def test_legacy_three_outcome_market(fixtures_dir: Path) -> None:
    market = extracted(fixtures_dir, "closed_legacy_multi_outcome_3_outcomes")
    assert not market.is_binary
    assert market.sides == ("Jeff Bezos", "Elon Musk", "Other")
    assert market.status is MarketStatus.CLOSED


def test_open_binary(fixtures_dir: Path) -> None:
    market = extracted(fixtures_dir, "open_binary_israel_syria")
    assert market.status is MarketStatus.OPEN
    assert market.side_price("YES") == Decimal("0.325")
    assert market.side_price("NO") == Decimal("0.675")
    assert market.end_date is not None and market.end_date.tzinfo is not None
    assert market.outcomes[0].token_id is not None and len(market.outcomes[0].token_id) > 70


@pytest.mark.parametrize("stem", ["open_disputed_ucl_inter", "open_disputed_us_iran"])
def test_disputed_markets_are_open(fixtures_dir: Path, stem: str) -> None:
    market = extracted(fixtures_dir, stem)
    assert market.status is MarketStatus.OPEN
    assert market.uma_status == "disputed"


def test_open_proposed_is_open(fixtures_dir: Path) -> None:
    assert extracted(fixtures_dir, "open_proposed_trump_approval").status is MarketStatus.OPEN


def test_open_neg_risk_grouping_fields(fixtures_dir: Path) -> None:
    market = extracted(fixtures_dir, "open_negrisk_peru_election")
    assert market.neg_risk
    assert market.neg_risk_market_id is not None and market.neg_risk_market_id.startswith("0x")
    assert market.group_item_title == "José Luna"


def test_open_market_at_half_half_is_not_a_split(fixtures_dir: Path) -> None:
    market = extracted(fixtures_dir, "open_updown_priced_0.5_0.5")
    assert market.status is MarketStatus.OPEN
    assert market.sides == ("Up", "Down")


def test_resolved_50_50(fixtures_dir: Path) -> None:
    market = extracted(fixtures_dir, "resolved_50_50_cricket")
    assert market.resolution is not None
    assert market.resolution.kind is ResolutionKind.SPLIT


@pytest.mark.parametrize(
    ("stem", "winner"),
    [
        ("resolved_no_btc_above_110k", "NO"),
        ("resolved_no_negrisk_soccer", "NO"),
        ("resolved_yes_trump_sleazebag", "YES"),
        ("resolved_team_outcomes_cs2_first_won", "Acend"),
    ],
)
def test_resolved_winners(fixtures_dir: Path, stem: str, winner: str) -> None:
    market = extracted(fixtures_dir, stem)
    assert market.status is MarketStatus.RESOLVED
    assert market.resolution is not None
    assert market.resolution.winner == winner


def test_every_extracted_file_is_covered_by_a_test(fixtures_dir: Path) -> None:
    stems = {p.name.split("__")[0] for p in (fixtures_dir / EXTRACTED).glob("*.json")}
    covered = {
        "active_but_missing_outcomePrices_and_volume",
        "closed_but_proposed_not_resolved_nh_primary",
        "closed_legacy_amm_no_uma_status_fractional_prices",
        "closed_legacy_missing_endDate",
        "closed_legacy_multi_outcome_3_outcomes",
        "open_binary_israel_syria",
        "open_disputed_ucl_inter",
        "open_disputed_us_iran",
        "open_missing_endDate",
        "open_negrisk_peru_election",
        "open_proposed_trump_approval",
        "open_updown_priced_0.5_0.5",
        "resolved_50_50_cricket",
        "resolved_no_btc_above_110k",
        "resolved_no_negrisk_soccer",
        "resolved_team_outcomes_cs2_first_won",
        "resolved_yes_trump_sleazebag",
    }
    assert stems == covered


def test_resolved_with_missing_prices_is_indeterminate(fixtures_dir: Path) -> None:
    raw = json.loads(next((fixtures_dir / EXTRACTED).glob("resolved_yes_trump*.json")).read_text())
    del raw["outcomePrices"]
    market = parse_market(raw)
    assert market.resolution is not None
    assert market.resolution.kind is ResolutionKind.INDETERMINATE


def test_resolved_without_a_clear_winner_is_indeterminate(fixtures_dir: Path) -> None:
    raw = json.loads(next((fixtures_dir / EXTRACTED).glob("resolved_yes_trump*.json")).read_text())
    raw["outcomePrices"] = '["0.7", "0.3"]'
    market = parse_market(raw)
    assert market.resolution is not None
    assert market.resolution.kind is ResolutionKind.INDETERMINATE


BASE: dict[str, Any] = {
    "id": "42",
    "question": "Will it?",
    "outcomes": '["Yes", "No"]',
    "outcomePrices": '["0.3", "0.7"]',
    "closed": False,
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"id": None}, "id"),
        ({"question": ""}, "question"),
        ({"outcomes": "not json"}, "outcomes"),
        ({"outcomes": '["Only"]'}, "outcomes"),
        ({"outcomes": '["A", "a"]'}, "outcomes"),
        ({"outcomePrices": '["0.3"]'}, "outcomePrices"),
        ({"outcomePrices": '["1.3", "0.7"]'}, "outcomePrices"),
        ({"outcomePrices": '["abc", "0.7"]'}, "outcomePrices"),
        ({"outcomePrices": '{"a": 1}'}, "outcomePrices"),
        ({"endDate": "next tuesday"}, "endDate"),
        ({"volumeNum": "lots"}, "volumeNum"),
        ({"closed": "maybe"}, "closed"),
        ({"question": {"nested": True}}, "question"),
    ],
)
def test_unusable_payloads_raise_a_typed_error_naming_the_field(
    change: dict[str, Any], field: str
) -> None:
    with pytest.raises(MarketPayloadError) as caught:
        parse_market(BASE | change)
    assert caught.value.field == field
    assert field in str(caught.value)


def test_non_object_payload() -> None:
    with pytest.raises(MarketPayloadError):
        parse_market(["not", "a", "market"])  # type: ignore[arg-type]


def test_numbers_and_strings_are_both_accepted() -> None:
    market = parse_market(BASE | {"outcomePrices": [0.25, "0.75"], "volume": "1234.5", "id": 7})
    assert market.market_id == "7"
    assert market.volume == Decimal("1234.5")
    assert market.side_price("YES") == Decimal("0.25")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [*BASE, "endDate", "volumeNum", "umaResolutionStatus", "clobTokenIds", "negRisk"]
        ),
        json_values,
    )
)
def test_arbitrary_payloads_parse_or_raise_only_the_typed_error(changes: dict[str, Any]) -> None:
    try:
        market = parse_market(BASE | changes)
    except MarketPayloadError as exc:
        assert exc.field
    else:
        assert len(market.outcomes) >= 2
