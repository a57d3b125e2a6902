"""The table's key schema and item keys: the single source the CDK table and the tests use.

One table, on-demand, generic key names (``PK``/``SK``) and two overloaded global secondary
indexes (``GSI1``, ``GSI2``). Every key prefix is defined here once and every key the adapter
writes is built here (see ACCESS_PATTERNS.md beside this file).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

PK, SK = "PK", "SK"
GSI1, GSI1PK, GSI1SK = "GSI1", "GSI1PK", "GSI1SK"
GSI2, GSI2PK, GSI2SK = "GSI2", "GSI2PK", "GSI2SK"

TABLE_SCHEMA: dict[str, Any] = {
    "partition_key": PK,
    "sort_key": SK,
    "indexes": {GSI1: (GSI1PK, GSI1SK), GSI2: (GSI2PK, GSI2SK)},
}

# Partition key prefixes.
COHORT = "COHORT#"
AGENT = "AGENT#"
MARKET = "MARKET#"
MARKET_CAPTURES = "MARKETPX#"  # a market's prices in each captured universe
SNAPSHOT = "SNAP#"
HOURLY_SNAPSHOT = "SNAPH#"
SERIES = "SERIES#"
AGGREGATES = "AGGREGATES"
PANEL = "PANEL#"  # a cohort's forecast-panel questions and scores
LINEUP = "LINEUP"  # the lineup releases, one item each
JOBS = "JOBS"  # when each scheduled job last ran
FINALS = "FINALS"  # completed cohorts' final snapshots summed per family
MARKS = "MARKS"  # each hour's sheet of the held markets' prices, one item an hour
# Sort keys and sort key prefixes.
COHORT_ITEM = "COHORT"
PROFILE = "PROFILE"
STATE = "STATE"
DECISION = "DECISION#"
POSITION = "POSITION#"
OPEN_GUARD = "OPEN#"
TRADE = "TRADE#"
SETTLEMENT = "SETTLEMENT#"
SCORE = "SCORE#"
LATEST = "LATEST#"
FAMILY = "FAMILY#"
PANEL_QUESTION = "Q#"
PANEL_SCORE = "S#"
PANEL_COHERENCE = "C#"
RELEASE = "RELEASE#"
JOB = "JOB#"
# Items carrying this attribute (epoch seconds) are deleted by DynamoDB's TTL once it passes:
# raw 10-minute snapshots only (hourly snapshots and family series are kept).
EXPIRES_AT = "expires_at"
# Index partitions.
COHORTS_BY_STATUS = "COHORTS#"
FAMILY_SCORES = "FAMILYSCORES#"
FAMILY_COHERENCE = "FAMILYCOHERENCE#"
OPEN_POSITIONS = "OPENPOS#"
MARKET_POSITIONS = "MARKETPOS#"
# Markets that hold or held a position and are not marked resolved (the name predates sold-out
# positions staying in it: resolution still scores their buys).
OPEN_MARKETS = "MARKETS#OPEN"
PANEL_PENDING = "PANEL#PENDING"  # panel questions not scored yet

# The agent partition's sort keys between these are its positions, profile and bet scores.
HOLDINGS_FIRST, HOLDINGS_LAST = POSITION, SCORE + "\uffff"


def create_table_kwargs(table_name: str) -> dict[str, Any]:
    """``create_table`` arguments matching the deployed table (string keys, on-demand)."""
    attributes = [PK, SK, GSI1PK, GSI1SK, GSI2PK, GSI2SK]
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in attributes],
        "KeySchema": [
            {"AttributeName": PK, "KeyType": "HASH"},
            {"AttributeName": SK, "KeyType": "RANGE"},
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": name,
                "KeySchema": [
                    {"AttributeName": hash_key, "KeyType": "HASH"},
                    {"AttributeName": range_key, "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
            for name, (hash_key, range_key) in TABLE_SCHEMA["indexes"].items()
        ],
    }


def stamp(moment: datetime) -> str:
    """Fixed-width UTC timestamp: string order is time order (sort keys, lease comparisons)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_stamp(text: str) -> datetime:
    """The inverse of ``stamp``."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def sort_kind(sort_key: str) -> str:
    """The prefix that says what an item of a partition is (``POSITION#``, ``PROFILE``...)."""
    head, hash_, _ = sort_key.partition("#")
    return head + hash_


def key(pk: str, sk: str) -> dict[str, str]:
    return {PK: pk, SK: sk}


# --- cohorts ------------------------------------------------------------------------------------


def cohort_pk(cohort_id: str) -> str:
    return f"{COHORT}{cohort_id}"


def cohort_key(cohort_id: str) -> dict[str, str]:
    return key(cohort_pk(cohort_id), COHORT_ITEM)


def cohorts_index(status: str) -> str:
    """GSI1 partition of the cohorts in one status (``active`` or ``completed``)."""
    return f"{COHORTS_BY_STATUS}{status}"


def family_index(family_id: str) -> str:
    """GSI2 partition of a family's agents."""
    return f"{FAMILY}{family_id}"


def family_agent_sort(cohort_id: str) -> str:
    return f"{AGENT}{cohort_id}"


# --- the agent partition ------------------------------------------------------------------------


def agent_pk(agent_id: str) -> str:
    return f"{AGENT}{agent_id}"


def agent_key(agent_id: str) -> dict[str, str]:
    return key(agent_pk(agent_id), PROFILE)


def decision_key(agent_id: str, decision_id: str) -> dict[str, str]:
    return key(agent_pk(agent_id), f"{DECISION}{decision_id}")


def position_key(agent_id: str, position_id: str) -> dict[str, str]:
    return key(agent_pk(agent_id), f"{POSITION}{position_id}")


def open_guard_key(agent_id: str, market_id: str, side: str) -> dict[str, str]:
    return key(agent_pk(agent_id), f"{OPEN_GUARD}{market_id}#{side}")


def trade_key(agent_id: str, trade_id: str) -> dict[str, str]:
    return key(agent_pk(agent_id), f"{TRADE}{trade_id}")


def settlement_key(agent_id: str, settlement_id: str) -> dict[str, str]:
    return key(agent_pk(agent_id), f"{SETTLEMENT}{settlement_id}")


def score_key(agent_id: str, trade_id: str) -> dict[str, str]:
    return key(agent_pk(agent_id), f"{SCORE}{trade_id}")


def open_position_index(market_id: str) -> str:
    """GSI1 partition of a market's open positions (positions leave it when they close)."""
    return f"{OPEN_POSITIONS}{market_id}"


def market_position_index(market_id: str) -> str:
    """GSI2 partition of every position on a market, whatever its status."""
    return f"{MARKET_POSITIONS}{market_id}"


# --- markets, snapshots, read models ------------------------------------------------------------


def family_scores_index(family_id: str) -> str:
    """GSI2 partition of every bet score of a family (the statistics read it whole)."""
    return f"{FAMILY_SCORES}{family_id}"


def market_key(market_id: str) -> dict[str, str]:
    return key(f"{MARKET}{market_id}", STATE)


def snapshot_pk(agent_id: str) -> str:
    return f"{SNAPSHOT}{agent_id}"


def snapshot_key(agent_id: str, taken_at: datetime) -> dict[str, str]:
    return key(snapshot_pk(agent_id), stamp(taken_at))


def hourly_snapshot_pk(agent_id: str) -> str:
    return f"{HOURLY_SNAPSHOT}{agent_id}"


def hourly_snapshot_key(agent_id: str, hour: datetime) -> dict[str, str]:
    return key(hourly_snapshot_pk(agent_id), stamp(hour))


def latest_key(cohort_id: str, agent_id: str) -> dict[str, str]:
    return key(cohort_pk(cohort_id), f"{LATEST}{agent_id}")


def aggregate_key(family_id: str) -> dict[str, str]:
    return key(AGGREGATES, f"{FAMILY}{family_id}")


def series_pk(family_id: str, resolution: str) -> str:
    return f"{SERIES}{family_id}#{resolution}"


def series_key(family_id: str, resolution: str, bucket: datetime) -> dict[str, str]:
    return key(series_pk(family_id, resolution), stamp(bucket))


# --- the forecast panel (v1+panel) ---------------------------------------------------------------


def panel_pk(cohort_id: str) -> str:
    return f"{PANEL}{cohort_id}"


def panel_question_key(cohort_id: str, week: int, market_id: str) -> dict[str, str]:
    return key(panel_pk(cohort_id), f"{PANEL_QUESTION}{week:03d}#{market_id}")


def panel_score_key(cohort_id: str, week: int, market_id: str, agent_id: str) -> dict[str, str]:
    return key(panel_pk(cohort_id), f"{PANEL_SCORE}{week:03d}#{market_id}#{agent_id}")


def panel_coherence_key(cohort_id: str, decision_id: str) -> dict[str, str]:
    return key(panel_pk(cohort_id), f"{PANEL_COHERENCE}{decision_id}")


def family_coherence_index(family_id: str) -> str:
    return f"{FAMILY_COHERENCE}{family_id}"


# --- lineup releases -----------------------------------------------------------------------------


def lineup_release_key(release: int) -> dict[str, str]:
    """Zero-padded: sort-key order is release order."""
    return key(LINEUP, f"{RELEASE}{release:06d}")


def final_totals_key(cohort_id: str, family_id: str) -> dict[str, str]:
    return key(FINALS, f"{cohort_id}#{family_id}")


def job_key(job: str) -> dict[str, str]:
    return key(JOBS, f"{JOB}{job}")


def capture_key(market_id: str, at: datetime) -> dict[str, str]:
    return key(f"{MARKET_CAPTURES}{market_id}", stamp(at))


def marks_key(hour: datetime) -> dict[str, str]:
    return key(MARKS, stamp(hour))
