"""Issue 26 acceptance: the Lambda events fuzzed at every handler, invoked as Lambda would
(in-process, the real adapters on embedded AWS).

Property: whatever event a handler is given, it returns or raises an ``ArenaError`` (a typed
refusal the workflow's Catch records), never another exception; and an event that is refused
leaves nothing behind: no decision claimed, no universe captured, no run sealed. Hostile
fields are the issue's: ids outside their alphabet (empty, blank, ``a#DECISION#b``,
``../../x``, a final newline, 100,000 characters, other JSON types), times without a zone or
outside the calendar (``0001-01-01``, ``9999-12-31``), runs in the future, universes of
another week."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from moto import mock_aws

from arena_core import bootstrap
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.adapters.site_publishers import S3SitePublisher
from arena_core.constants import universe_key
from arena_core.errors import ArenaError
from arena_core.ports.clock import FixedClock
from arena_core.ports.stores import Stores
from arena_core.settings import ArenaSettings
from arena_local.memory import InMemoryCommitmentStore
from arena_local.workflow import LambdaContext
from functions.decide import handler as decide_handler
from functions.open_cohort import handler as open_cohort_handler
from functions.resolve import handler as resolve_handler
from functions.snapshot import handler as snapshot_handler
from tests.support.aws import FAKE_ENV, TABLE, create_stores
from tests.support.builders import binary
from tests.support.markets import StaticMarketSource

SUNDAY = datetime(2026, 3, 1, tzinfo=UTC)
RUN_AT = SUNDAY + timedelta(minutes=5)
CONTEXT: Any = LambdaContext()
EXAMPLES = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

HOSTILE_IDS = [
    "",
    "  ",
    "a#DECISION#b",
    "../../x",
    "c2026-03-01.baseline-random\n",
    "c2026-03-01.baseline-random ",
    "C2026-03-01.Baseline-Random",
    "c2026-03-01.anthropic/claude-opus-4.6",
    "c2026-03-01.Claude Opus 4.6",
    "c2026-03-01." + "x" * 100_000,
    "c2026-03-01.baseline-random\x00",
    "c2026-03-01..w001",
]
hostile_ids = st.sampled_from(HOSTILE_IDS) | st.text(max_size=30).filter(
    lambda t: "." not in t or "\n" in t or " " in t
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)
not_text = st.none() | st.integers() | st.lists(st.text(max_size=5), max_size=2) | st.booleans()
BAD_TIMES = [
    "2026-03-01T00:05:00",  # no time zone
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "2099-01-04T00:05:00Z",  # the future
    "2026-02-28T00:05:00Z",  # before the cohort opened
    "not a time",
    "2026-13-01T00:00:00Z",
    "1e999999999",
    "0001-01-01T00:00:00+01:00",  # no time in UTC (was an untyped OverflowError)
    "9999-12-31T23:59:59-14:00",
]
BAD_WEEKS = ["0001-01-01", "0001-01-07", "9999-12-31", "2020-01-05", "2026-03-04", "2099-01-04"]


@dataclass
class Deployment:
    clock: FixedClock
    s3: Any
    stores: Stores
    commitments: InMemoryCommitmentStore
    item: dict[str, Any]  # a good decide event (the baseline the hostile ones break)

    def decisions(self) -> int:
        return sum(len(self.stores.decisions.decisions(a.agent_id)) for a in self.agents())

    def agents(self) -> list[Any]:
        return self.stores.cohorts.agents("c2026-03-01")

    def universes(self) -> list[str]:
        listed = self.s3.list_objects_v2(Bucket="audit", Prefix="universes/")
        return sorted(o["Key"] for o in listed.get("Contents", []))


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    monkeypatch = pytest.MonkeyPatch()
    for key, value in {**FAKE_ENV, "POWERTOOLS_TRACE_DISABLED": "true"}.items():
        monkeypatch.setenv(key, value)
    with mock_aws():
        stores = create_stores()
        s3 = boto3.client("s3")
        for bucket in ("audit", "site"):
            s3.create_bucket(Bucket=bucket)
        clock = FixedClock(SUNDAY)
        commitments = InMemoryCommitmentStore()
        settings_ = ArenaSettings(
            table_name=TABLE, audit_bucket="audit", site_bucket="site", include_llms=False
        )
        bootstrap.reset(
            bootstrap.Container(
                settings_,
                clock=clock,
                injected=bootstrap.Injected(
                    stores=stores,
                    blobs=S3BlobStore(s3, "audit"),
                    market_source=StaticMarketSource([binary("m1", "0.40")]),
                    publisher=S3SitePublisher(s3, "site"),
                    commitments=commitments,
                ),
            )
        )
        open_cohort_handler.handler({}, CONTEXT)
        clock.set(RUN_AT)
        prepared = decide_handler.prepare({}, CONTEXT)
        item = {**prepared["items"][0], "execution_id": "run-1"}
        yield Deployment(clock, s3, stores, commitments, item)
        bootstrap.reset()
    monkeypatch.undo()


def refused(call: Callable[[], Any]) -> None:
    """The handler refuses with a typed error (never another exception)."""
    try:
        call()
    except ArenaError:
        return
    raise AssertionError("a hostile event was accepted")


def typed(call: Callable[[], Any]) -> None:
    """The handler returns, or raises a typed error."""
    with suppress(ArenaError):
        call()


def decide_events(base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A good decide event with one field made hostile (or missing)."""
    breakers = {
        "agent_id": hostile_ids | not_text,
        "run_at": st.sampled_from(BAD_TIMES) | not_text,
        "universe_ref": st.sampled_from(
            [
                "",
                "universes/week-2026-02-22.json",
                "universes/../decisions/x.json",
                "s3://other/universes/week-2026-03-01.json",
                "universes/week-2026-03-01.json\n",
                "u" * 100_000,
            ]
        )
        | not_text,
        "execution_id": st.sampled_from(["", " ", "a/b", "x" * 81, "run\n1", "$(id)"]) | not_text,
    }
    return st.sampled_from(sorted(breakers)).flatmap(
        lambda field: st.one_of(
            breakers[field].map(lambda value: {**base, field: value}),
            st.just({k: v for k, v in base.items() if k != field}),
        )
    )


@EXAMPLES
@given(data=st.data())
def test_a_hostile_decide_event_claims_nothing(deployment: Deployment, data: st.DataObject) -> None:
    event = data.draw(decide_events(deployment.item))
    if "execution_id" not in event:
        event["execution_id"] = 7  # the one field with a default: break it instead
    refused(lambda: decide_handler.decide(event, CONTEXT))
    assert deployment.decisions() == 0


@EXAMPLES
@given(event=json_values)
def test_any_json_as_a_decide_event_is_refused(deployment: Deployment, event: Any) -> None:
    refused(lambda: decide_handler.decide(event, CONTEXT))
    assert deployment.decisions() == 0


not_none = not_text.filter(lambda v: v is not None)  # None is the default: a scheduled run
prepare_events = st.one_of(
    st.fixed_dictionaries({"week_start": st.sampled_from(BAD_WEEKS) | not_none}),
    st.fixed_dictionaries({"cohort_ids": st.lists(hostile_ids, min_size=1, max_size=2)}),
    st.fixed_dictionaries({"agent_ids": st.lists(hostile_ids, min_size=1, max_size=2)}),
    st.fixed_dictionaries({"agent_ids": st.just(["c2026-03-01.no-such-family"])}),
    st.fixed_dictionaries({"max_concurrency": st.integers(max_value=-1) | st.just(10**9)}),
    # Misspelled keys: read as "this week, every agent", they sealed a second run.
    st.sampled_from(
        [
            {"week": "2026-03-01"},
            {"agent_id": "c2026-03-01.baseline-random"},
            {"week_start": "2026-03-01", "agents": ["c2026-03-01.baseline-random"]},
            {"Comment": "Insert your JSON here"},
        ]
    ),
)


@EXAMPLES
@given(event=prepare_events)
@example(event={"week": "2026-03-01"})
@example(event={"agent_id": "c2026-03-01.baseline-random"})
def test_a_hostile_prepare_event_captures_nothing(
    deployment: Deployment, event: dict[str, Any]
) -> None:
    before = deployment.universes()
    refused(lambda: decide_handler.prepare(event, CONTEXT))
    assert deployment.universes() == before == [universe_key(SUNDAY.date())]


finalize_events = st.one_of(
    st.fixed_dictionaries({"run_at": st.sampled_from(BAD_TIMES[:4]) | not_none}),
    st.fixed_dictionaries({"execution_id": st.sampled_from(["", "a/b", "x" * 81]) | not_none}),
    st.fixed_dictionaries(
        {
            "results": st.lists(
                st.fixed_dictionaries(
                    {
                        "agent_id": hostile_ids,
                        "decision_id": hostile_ids,
                        "status": st.just("succeeded"),
                    }
                ),
                min_size=1,
                max_size=2,
            )
        }
    ),
    st.fixed_dictionaries({"results": json_values.filter(lambda v: v != [] and v is not None)}),
)


@EXAMPLES
@given(event=finalize_events)
@example(event={"run_at": 946771200})  # Unix seconds: was read as a time (found by hypothesis)
@example(event={"run_at": "0001-01-01T00:00:00+01:00"})  # no UTC time: was an OverflowError
@example(event={"run_at": "9999-12-31T23:59:59-14:00"})
@example(event={"run_at": "2026-03-01T00:05:00Z", "execution": "run-2"})  # misspelled key
def test_a_hostile_finalize_event_seals_nothing(
    deployment: Deployment, event: dict[str, Any]
) -> None:
    refused(lambda: decide_handler.finalize(event, CONTEXT))
    assert deployment.commitments.keys("commitments/") == []


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(event=json_values)
def test_the_scheduled_handlers_take_any_event(deployment: Deployment, event: Any) -> None:
    """open_cohort, snapshot and resolve read nothing from their event: any event is the
    schedule's, and each ends in its result or a typed error."""
    for handler in (
        open_cohort_handler.handler,
        snapshot_handler.handler,
        resolve_handler.handler,
    ):
        typed(lambda handler=handler: handler(event, CONTEXT))  # type: ignore[misc]


def test_the_good_events_still_go_through(deployment: Deployment, tmp_path: Path) -> None:
    """The baseline every property breaks: the good decide event decides, and Finalize seals."""
    result = decide_handler.decide(dict(deployment.item), CONTEXT)
    assert result["status"] == "succeeded"
    deployment.clock.set(RUN_AT + timedelta(minutes=1))
    finalize = decide_handler.finalize(
        {"results": [result], "run_at": RUN_AT.isoformat(), "execution_id": "run-1"}, CONTEXT
    )
    assert finalize["run_root"] is not None
