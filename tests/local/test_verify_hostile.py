"""Issue 26 §3 and §4: ``arena verify`` against hostile sites.

Before: it exited 0 "OK" on a log carrying a forged line for a decision whose object did not
exist, and did not notice an altered ``reasoning`` (derived from the raw reply, which is
committed, but never checked against it); 13 of 52 hostile sites crashed it with a traceback
(JSON nested 100,000 deep, times without a zone or out of range, ``sNaN``/``Infinity`` prices,
``1e999999999``, a naive ``Last-Modified``, an endless HTTP body). Now every one is a report
(exit 1, naming what differs) or one line with exit 2; what it downloads is capped."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena_core.domain.commitment_log import LOG_KEY
from arena_local.cli import main
from arena_local.verify import verify
from arena_local.verify_records import CohortExports, derived_problems
from arena_local.verify_site import HttpSite, open_site
from tests.support.commitment_site import BETTOR, FALLBACK, CommittedSite, build_site

Rows = list[dict[str, Any]]
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> CommittedSite:
    return build_site(tmp_path_factory.mktemp("site"))


@pytest.fixture
def site(built: CommittedSite, tmp_path: Path) -> CommittedSite:
    root = tmp_path / "site"
    shutil.copytree(built.root, root)
    return CommittedSite(root, built.stores, built.cohort)


def table(site: CommittedSite, name: str) -> Path:
    return site.root / f"data/cohorts/{site.cohort.cohort_id}/{name}.json"


def alter(site: CommittedSite, name: str, change: Callable[[Rows], None]) -> None:
    path = table(site, name)
    rows: Rows = json.loads(path.read_text())
    change(rows)
    path.write_text(json.dumps(rows, ensure_ascii=False))


def of(rows: Rows, decision_id: str) -> dict[str, Any]:
    return next(r for r in rows if r["decision_id"] == decision_id)


def test_a_forged_log_line_for_an_object_that_does_not_exist_fails(site: CommittedSite) -> None:
    forged = {
        "at": "2026-03-01T00:05:01.000000Z",
        "decision_id": site.decision_id("kimi-k2"),
        "key": f"commitments/decisions/{site.decision_id('kimi-k2')}/{'a' * 64}.json",
        "kind": "decision",
        "sha256": "a" * 64,
    }
    with (site.root / LOG_KEY).open("a") as log:
        log.write(json.dumps(forged, separators=(",", ":"), sort_keys=True) + "\n")
    report = verify(open_site(str(site.root)))
    assert not report.ok
    assert any("a" * 64 in p and "no committed object" in p for p in report.problems)


def test_a_log_line_whose_key_is_not_its_decision_s_fails(site: CommittedSite) -> None:
    log = site.root / LOG_KEY
    lines = log.read_text().splitlines()
    entry = json.loads(lines[0])
    entry["decision_id"] = site.decision_id("kimi-k2")  # a line that says another decision
    log.write_text("\n".join([json.dumps(entry), *lines[1:]]) + "\n")
    report = verify(open_site(str(site.root)))
    assert any("log line 1" in p and "not the key of" in p for p in report.problems)


@pytest.mark.parametrize("family", [BETTOR, FALLBACK, "kimi-k2"])
def test_an_altered_reasoning_fails_naming_the_decision(site: CommittedSite, family: str) -> None:
    decision_id = site.decision_id(family)
    alter(site, "decisions", lambda rows: of(rows, decision_id).update(reasoning="I was right"))
    report = verify(open_site(str(site.root)))
    assert [p for p in report.problems if p.startswith(f"{decision_id}: reasoning")]


def test_the_built_site_still_verifies(built: CommittedSite) -> None:
    report = verify(open_site(str(built.root)))
    assert report.ok, report.problems


# Hostile sites: each one change to a good site. None may crash the command.
def rewrite(name: str, text: str) -> Callable[[CommittedSite], object]:
    return lambda site: table(site, name).write_text(text)


def field_of(name: str, column: str, value: Any, family: str = BETTOR) -> Callable[..., None]:
    def change(site: CommittedSite) -> None:
        alter(site, name, lambda rows: of(rows, site.decision_id(family)).update({column: value}))

    return change


def raw_field(name: str, column: str, text: str) -> Callable[[CommittedSite], object]:
    """Put ``text`` as raw JSON (not a string) into the bettor's row."""

    def change(site: CommittedSite) -> None:
        path = table(site, name)
        rows = json.loads(path.read_text())
        of(rows, site.decision_id(BETTOR))[column] = "@@RAW@@"
        path.write_text(json.dumps(rows).replace('"@@RAW@@"', text))

    return change


def committed_object(text: bytes) -> Callable[[CommittedSite], object]:
    def change(site: CommittedSite) -> None:
        for path in (site.root / "commitments/decisions").rglob("*.json"):
            path.write_bytes(text)

    return change


def run_object(document: Any) -> Callable[[CommittedSite], object]:
    def change(site: CommittedSite) -> None:
        for path in (site.root / "commitments/runs").glob("*.json"):
            body = json.loads(path.read_text())
            body.update(document) if isinstance(document, dict) else None
            path.write_text(json.dumps(body if isinstance(document, dict) else document))

    return change


def log_text(text: str) -> Callable[[CommittedSite], object]:
    return lambda site: (site.root / LOG_KEY).write_text(text)


HOSTILE: dict[str, Callable[[CommittedSite], object]] = {
    "cohorts.json nested 100,000 deep": lambda s: (s.root / "data/cohorts.json").write_text(DEEP),
    "decisions.json nested 100,000 deep": rewrite("decisions", DEEP),
    "trades.json nested 100,000 deep": rewrite("trades", DEEP),
    "replies.json nested 100,000 deep": rewrite("replies", DEEP),
    "a log line nested 100,000 deep": log_text(DEEP + "\n"),
    "a committed object nested 100,000 deep": committed_object(DEEP.encode()),
    "a run object nested 100,000 deep": run_object(json.loads("[" * 50 + "]" * 50)),
    "a completion time without a zone": field_of("decisions", "completed_at", "2026-03-01T00:05"),
    "a completion time out of range": field_of(
        "decisions", "completed_at", "0001-01-01T00:00:00+05:00"
    ),
    "a completion time of 9999-12-31": field_of(
        "decisions", "completed_at", "9999-12-31T23:59:59-05:00"
    ),
    "a completion time that is no time": field_of("decisions", "completed_at", "yesterday"),
    "a price of sNaN": field_of("trades", "price", "sNaN"),
    "a price of Infinity": field_of("trades", "price", "Infinity"),
    "a price of NaN": field_of("trades", "price", "NaN"),
    "an amount of 1e999999999": field_of("trades", "amount", "1e999999999"),
    "an amount of -1e-999999999": field_of("trades", "amount", "-1e-999999999"),
    "a share count as a number 1e999": raw_field("trades", "shares", "1e999"),
    "an instruction amount of sNaN": field_of("instructions", "amount", "sNaN"),
    "an instruction index of 10**5000": raw_field("instructions", "index", "1" * 5000),
    "a week as text": field_of("decisions", "week", "first"),
    "a week of 10**5000": raw_field("decisions", "week", "9" * 5000),
    "an attempt as a list": field_of("replies", "attempt", [1]),
    "a raw body as a number": field_of("replies", "raw_body", 12),
    "a raw body nested deep": field_of("replies", "raw_body", DEEP),
    "a reasoning as an object": field_of("decisions", "reasoning", {"a": 1}),
    "a commitment as a number": field_of("decisions", "commitment", 12),
    "a commitment with a newline": field_of("decisions", "commitment", "a" * 64 + "\n"),
    "a decision id climbing a path": field_of("decisions", "decision_id", "../../etc/passwd"),
    "a decision id as a list": field_of("decisions", "decision_id", ["x"]),
    "a run sealed without a zone": run_object({"sealed_at": "2026-03-01T00:06"}),
    "a run sealed out of range": run_object({"sealed_at": "0001-01-01T00:00:00+05:00"}),
    "a run with leaves as text": run_object({"leaves": "everything"}),
    "a run with a leaf not hex": run_object({"leaves": [{"decision_id": "x", "commitment": "z"}]}),
    "a run as a list": run_object([1, 2]),
    "a log line with a list decision id": log_text(
        '{"kind":"decision","key":"k","sha256":"s","at":"t","decision_id":[1]}\n'
    ),
    "a log line with a key outside": log_text(
        '{"kind":"run","key":"../../../etc/passwd","sha256":"s","at":"t","run_id":"r","root":"x"}\n'
    ),
    "a log of binary junk": lambda s: (s.root / LOG_KEY).write_bytes(bytes(range(256)) * 4),
    "cohorts listing a cohort id climbing a path": lambda s: (
        s.root / "data/cohorts.json"
    ).write_text('[{"cohort_id": "../../..", "files": ["x"]}]'),
    "cohorts listing files as a number": lambda s: (s.root / "data/cohorts.json").write_text(
        '[{"cohort_id": "c1", "files": 7}]'
    ),
    "cohorts.json as binary": lambda s: (s.root / "data/cohorts.json").write_bytes(b"\xff\xfe\x00"),
    "instructions without an index": field_of("instructions", "index", None),
    "trades without a trade id": field_of("trades", "trade_id", None),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_site_is_a_report_or_one_line_never_a_traceback(
    site: CommittedSite, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    HOSTILE[case](site)
    status = main(["verify", "--site", str(site.root)])
    out, err = capsys.readouterr()
    assert status in (1, 2), out[-500:]
    if status == 2:
        assert err.startswith("arena verify: ") and err.count("\n") == 1, err[:300]
    else:
        assert out.rstrip().endswith("FAILED")


def serving(
    root: Path, headers: dict[str, str], body: Callable[[Path], Any] | None = None
) -> httpx.Client:
    def handle(request: httpx.Request) -> httpx.Response:
        path = root / request.url.path.removeprefix("/arena/")
        if not path.is_file():
            return httpx.Response(404)
        content = body(path) if body else path.read_bytes()
        return httpx.Response(200, content=content, headers=headers)

    return httpx.Client(transport=httpx.MockTransport(handle))


def test_a_naive_last_modified_is_read_as_gmt(built: CommittedSite) -> None:
    naive = {"last-modified": "Sun, 01 Mar 2026 00:06:00"}  # no zone
    report = verify(HttpSite("https://example.test/arena", serving(built.root, naive)))
    assert report.ok, report.problems
    late = {"last-modified": "Sun, 08 Mar 2026 00:06:00"}
    report = verify(HttpSite("https://example.test/arena", serving(built.root, late)))
    assert len(report.problems) == 10


@pytest.mark.parametrize("header", ["garbage", "Sun, 01 Mar 99999 00:06:00 GMT", "-1"])
def test_an_unreadable_last_modified_is_unknown(built: CommittedSite, header: str) -> None:
    report = verify(
        HttpSite("https://example.test/arena", serving(built.root, {"last-modified": header}))
    )
    assert report.ok, report.problems


def endless(path: Path) -> Iterator[bytes]:
    if not path.name.endswith(".jsonl"):
        yield path.read_bytes()
        return
    while True:  # the log never ends
        yield b" " * 65_536


def test_an_endless_body_is_cut_at_the_cap(
    built: CommittedSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena_local import verify_site  # noqa: PLC0415

    monkeypatch.setattr(verify_site, "MAX_OBJECT_BYTES", 1_000_000)
    stored = {"last-modified": format_datetime(datetime(2026, 3, 1, 0, 6, tzinfo=UTC), True)}
    client = serving(built.root, stored, endless)
    with pytest.raises(Exception) as refused:
        verify(HttpSite("https://example.test/arena", client))
    assert type(refused.value).__name__ == "UpstreamError"
    assert "more than 1000000 bytes" in str(refused.value)


def completion(**usage: Any) -> str:
    return json.dumps(
        {
            "model": "openai/gpt-5.2-2026",
            "provider": "OpenAI",
            "choices": [{"message": {"content": "{}"}, "finish_reason": "stop"}],
            "usage": usage,
        }
    )


def exported(**changes: Any) -> tuple[dict[str, Any], Any]:
    """A decision row and its reply and instruction rows, as the exports hold them."""
    body = completion(prompt_tokens=1000, completion_tokens=50, cost=1.4e-05)
    reply = {
        "decision_id": "c1.f.w001",
        "attempt": 1,
        "model": "openai/gpt-5.2-2026",
        "provider": "OpenAI",
        "finish_reason": "stop",
        "tokens_in": 1000,
        "tokens_out": 50,
        "cost_usd": "0.00001400",
        "raw_body": body,
    }
    instruction = {"decision_id": "c1.f.w001", "index": 0, "executed": True}
    row = {
        "decision_id": "c1.f.w001",
        "replies": 1,
        "tokens_in": 1000,
        "tokens_out": 50,
        "cost_usd": "0.00001400",
        "executed": 1,
        "rejected": 0,
    }
    tables: dict[str, list[dict[str, Any]]] = {"replies": [reply], "instructions": [instruction]}
    for key, value in changes.items():
        table, column = key.split("__")
        target = row if table == "decision" else tables[table][0]
        target[column] = value
    return row, CohortExports.of("c1", {"decisions": [row], **tables})


def test_derived_fields_match_what_the_committed_rows_say() -> None:
    assert derived_problems(*exported()) == []


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"replies__tokens_in": 10}, "tokens_in 10 but its raw body says 1000"),
        ({"replies__model": "anthropic/claude-opus-4.6"}, "model 'anthropic/claude-opus-4.6'"),
        ({"replies__cost_usd": "0.5"}, "cost_usd '0.5' but its raw body"),
        ({"replies__finish_reason": "length"}, "finish_reason 'length'"),
        ({"decision__tokens_out": 5}, "tokens_out 5 but its replies add up to 50"),
        ({"decision__replies": 3}, "replies 3 but its replies add up to 1"),
        ({"decision__executed": 2}, "executed 2 but its instructions say 1"),
        ({"decision__rejected": 1}, "rejected 1 but its instructions say 0"),
    ],
)
def test_a_derived_field_that_lies_is_named(change: dict[str, Any], named: str) -> None:
    problems = derived_problems(*exported(**change))
    assert any(named in p for p in problems), problems
