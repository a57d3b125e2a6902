"""``arena verify``: on a site built through the services (v1 and v1+panel), on its folder and
over HTTP; every alteration of an export, a committed object, the log or a run's root fails,
naming the decision (or the run) and what differs."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena_core.domain.commitment_log import LOG_KEY
from arena_core.domain.panel import Methodology
from arena_core.services.commitments import append_to_log, unlisted_entries
from arena_local.cli import main
from arena_local.memory import FolderCommitmentStore
from arena_local.verify import Report, render, verify
from arena_local.verify_records import differences
from arena_local.verify_site import HttpSite, open_site
from tests.support.commitment_site import BETTOR, FAILING, FALLBACK, CommittedSite, build_site

Rows = list[dict[str, Any]]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> CommittedSite:
    return build_site(tmp_path_factory.mktemp("site"))


@pytest.fixture
def site(built: CommittedSite, tmp_path: Path) -> CommittedSite:
    """A copy of the built site, for a test to alter."""
    root = tmp_path / "site"
    shutil.copytree(built.root, root)
    return CommittedSite(root, built.stores, built.cohort)


def check(root: Path) -> Report:
    return verify(open_site(str(root)))


def alter(site: CommittedSite, table: str, change: Callable[[Rows], None]) -> None:
    path = site.root / f"data/cohorts/{site.cohort.cohort_id}/{table}.json"
    rows: Rows = json.loads(path.read_text())
    change(rows)
    path.write_text(json.dumps(rows, ensure_ascii=False, indent=1))


def of(rows: Rows, decision_id: str) -> dict[str, Any]:
    return next(r for r in rows if r["decision_id"] == decision_id)


def problems_of(report: Report, decision_id: str) -> list[str]:
    return [p for p in report.problems if p.startswith(f"{decision_id}:")]


def test_a_published_site_verifies(built: CommittedSite) -> None:
    report = check(built.root)
    # Nine decisions succeeded and are committed; the failing family's is not (no trade)
    assert report.ok, report.problems
    assert (report.decisions, len(report.commitments), report.uncommitted) == (10, 9, 1)
    assert FAILING not in " ".join(report.commitments)
    assert report.runs == 1 and report.sealed == set(report.commitments)
    assert render(report)[-1].startswith("OK: all 9 commitments match")
    # the data page explains the check and names the command
    page = (built.root / "data/index.html").read_text()
    assert 'id="commitments"' in page and "arena verify --site DIR_OR_URL" in page


def test_an_altered_reply_fails_naming_the_decision(site: CommittedSite) -> None:
    decision_id = site.decision_id(BETTOR)
    alter(site, "replies", lambda rows: of(rows, decision_id).update(raw_body="{}"))
    report = check(site.root)
    # the reasoning exported is no longer what its (altered) reply says, and the hash differs
    reasoning, problem = report.problems
    assert reasoning == f"{decision_id}: reasoning: not what any of its committed replies says"
    assert problem.startswith(f"{decision_id}: the exports hash to ")
    assert "reply_sha256[0]" in problem


@pytest.mark.parametrize(("column", "value"), [("amount", "600.01"), ("price", "0.41")])
def test_an_altered_trade_fails_naming_the_decision(
    site: CommittedSite, column: str, value: str
) -> None:
    decision_id = site.decision_id(BETTOR)
    alter(site, "trades", lambda rows: of(rows, decision_id).update({column: value}))
    report = check(site.root)
    problems = problems_of(report, decision_id)
    assert problems and len(problems) == len(report.problems)
    assert f"trades[0].{column}: committed" in problems[0] and f"exported '{value}'" in problems[0]
    # the instructions table, unaltered, now disagrees with the trades table too
    assert any("instruction 0" in p for p in problems[1:])


def test_an_altered_completion_time_fails_naming_the_decision(site: CommittedSite) -> None:
    decision_id = site.decision_id(FALLBACK)
    earlier = "2026-03-01T00:04:00Z"
    alter(site, "decisions", lambda rows: of(rows, decision_id).update(completed_at=earlier))
    (problem,) = check(site.root).problems
    assert problem.startswith(f"{decision_id}: the exports hash to ")
    assert "completed_at: committed '2026-03-01T00:05:" in problem


def test_an_altered_instruction_or_prompt_fails(site: CommittedSite) -> None:
    decision_id = site.decision_id(BETTOR)
    alter(site, "instructions", lambda rows: of(rows, decision_id).update(side="NO"))
    alter(site, "prompts", lambda rows: of(rows, decision_id).update(user_prompt="(edited)"))
    (problem,) = check(site.root).problems
    assert "instructions[0].side" in problem and "prompt_sha256" in problem


def test_a_rewritten_commitment_column_or_object_fails(site: CommittedSite) -> None:
    decision_id = site.decision_id(BETTOR)
    column = site.decision_id(FALLBACK)
    alter(site, "decisions", lambda rows: of(rows, column).update(commitment="0" * 64))
    (committed,) = (site.root / "commitments/decisions" / decision_id).glob("*.json")
    committed.write_bytes(committed.read_bytes().replace(b'"600"', b'"60"'))
    report = check(site.root)
    assert any(p.startswith(f"{decision_id}: the committed object") for p in report.problems)
    mine = problems_of(report, column)
    assert any("no committed object" in p for p in mine)
    assert any("not to its commitment 0000" in p for p in mine)
    assert any("is not the one under run run-1's root" in p for p in mine)


def test_a_missing_log_line_or_a_forged_root_fails(site: CommittedSite) -> None:
    decision_id = site.decision_id(BETTOR)
    log = site.root / LOG_KEY
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(x for x in lines if decision_id not in x))
    (run,) = (site.root / "commitments/runs").glob("*.json")
    document = json.loads(run.read_text())
    document["root"] = "f" * 64
    run.write_text(json.dumps(document))
    report = check(site.root)
    assert f"{decision_id}: its commitment" in report.problems[0]
    assert "is not in the log" in report.problems[0]
    assert any(p.startswith("run run-1: ") and "does not hash" in p for p in report.problems)
    assert any(p.startswith("run run-1: the root of its leaves is ") for p in report.problems)


def test_a_completion_retried_after_a_crash_is_reported_as_superseded(site: CommittedSite) -> None:
    # Given the object of a completion that did not close its decision (it crashed before;
    # the retry completed later), listed in the log as Finalize lists it
    decision_id = site.decision_id(BETTOR)
    (committed,) = (site.root / "commitments/decisions" / decision_id).glob("*.json")
    earlier = committed.read_bytes().replace(b"00:05:0", b"00:04:0")
    (committed.parent / f"{hashlib.sha256(earlier).hexdigest()}.json").write_bytes(earlier)
    store = FolderCommitmentStore(site.root)
    assert append_to_log(store, unlisted_entries(store).entries) == 1
    # Then the site still verifies, and the other completion is counted
    report = check(site.root)
    assert report.ok, report.problems
    assert report.superseded == 1


def serving(root: Path, stored_at: datetime) -> httpx.Client:
    """The folder over HTTP as CloudFront serves it: 403 for a missing key, Last-Modified."""

    def handle(request: httpx.Request) -> httpx.Response:
        path = root / request.url.path.removeprefix("/arena/")
        if not path.is_file():
            return httpx.Response(403)
        headers = {"last-modified": format_datetime(stored_at, usegmt=True)}
        return httpx.Response(200, content=path.read_bytes(), headers=headers)

    return httpx.Client(transport=httpx.MockTransport(handle))


def test_over_http_the_objects_must_be_stored_when_they_say(built: CommittedSite) -> None:
    on_time = datetime(2026, 3, 1, 0, 6, tzinfo=UTC)
    report = verify(HttpSite("https://example.test/arena", serving(built.root, on_time)))
    assert report.ok, report.problems
    late = datetime(2026, 3, 8, tzinfo=UTC)  # a week later: after the markets could resolve
    report = verify(HttpSite("https://example.test/arena/", serving(built.root, late)))
    assert len(report.problems) == 10  # nine decisions and the run
    assert all("was stored at 2026-03-08" in p for p in report.problems)


def test_the_command_exits_0_1_or_2(
    built: CommittedSite, site: CommittedSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--site", str(built.root)]) == 0
    assert "OK: all 9 commitments" in capsys.readouterr().out
    alter(site, "trades", lambda rows: rows[0].update(shares="1"))
    assert main(["verify", "--site", str(site.root)]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "trades[0].shares" in out
    assert main(["verify", "--site", str(tmp_path / "nothing")]) == 2
    assert "arena verify: no site folder at" in capsys.readouterr().err


def test_a_panel_site_commits_the_forecasts(tmp_path: Path) -> None:
    site = build_site(tmp_path / "panel", Methodology.V1_PANEL)
    assert check(site.root).ok
    decision_id = site.decision_id(BETTOR)
    alter(site, "panel_forecasts", lambda rows: of(rows, decision_id).update(p_yes="0.7"))
    (problem,) = check(site.root).problems
    assert problem.startswith(decision_id) and "forecasts[0].p_yes" in problem


def test_differences_name_the_paths_that_differ() -> None:
    committed = {"trades": [{"price": "0.4"}], "reply_sha256": ["a"], "week": "1"}
    exported = {"trades": [{"price": "0.41"}], "reply_sha256": ["a", "b"], "week": "1"}
    assert differences(committed, exported) == [
        "reply_sha256: 1 entries committed, 2 exported",
        "trades[0].price: committed '0.4', exported '0.41'",
    ]


def test_a_cohort_published_before_commitments_is_noted_not_failed(site: CommittedSite) -> None:
    # Given a decisions export without the commitment column (published before commitments)
    def drop(rows: Rows) -> None:
        for row in rows:
            del row["commitment"]

    alter(site, "decisions", drop)
    # When the log names its decisions, then dropping the column is a mismatch
    logged = check(site.root)
    assert len(logged.problems) == 9 + 9  # each logged decision, and each leaf of the run
    assert all("logged, but its export has no commitment" in p for p in logged.problems[:9])
    assert all("under run run-1's root, no commitment exported" in p for p in logged.problems[9:])
    # When nothing names them (no log, no run), they are noted, not failed
    shutil.rmtree(site.root / "commitments")
    report = check(site.root)
    assert report.ok, report.problems
    assert report.predating == 10
    assert "Note: 10 decisions were published before commitments" in render(report)


def test_a_garbled_table_or_listing_is_reported_in_one_line(
    site: CommittedSite, capsys: pytest.CaptureFixture[str]
) -> None:
    cohort = site.root / f"data/cohorts/{site.cohort.cohort_id}"
    (cohort / "trades.json").write_text("[1, 2]")
    (cohort / "replies.json").unlink()
    report = check(site.root)
    assert f"cohort {site.cohort.cohort_id}: trades.json cannot be read" in report.problems[0]
    assert f"cohort {site.cohort.cohort_id}: replies.json is missing" in report.problems[1]
    assert not report.ok  # and every decision that needed them fails too
    (site.root / "data/cohorts.json").write_text('{"not": "a list"}')
    assert main(["verify", "--site", str(site.root)]) == 2
    assert "data/cohorts.json at" in capsys.readouterr().err
