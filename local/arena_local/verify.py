"""``arena verify --site DIR_OR_URL``: check that every decision preceded its outcome.

For every decision of every cohort in ``data/cohorts.json``, rebuild its canonical record from
the exports (``verify_records``), hash it, and check the hash against the decision's
``commitment`` column, against the committed object named by it (which must hash to its name
and hold exactly the rebuilt bytes) and against the commitments log; then check every run's
object in the log: its bytes, its Merkle root, and each leaf against the exports; and every
decision line of the log: its key is its decision's, and its object exists with its hash. The
exported reasoning is checked against the committed replies. Over HTTP, each committed object
must have been stored (S3's ``Last-Modified``) within ``STORE_DELAY`` of the time it commits to.
Every mismatch names the decision (or the run, or the log line) and what differs.

A hostile site never crashes the check: whatever one decision, run or line holds (JSON nested
beyond any depth, times without a zone or out of range, numbers that are not finite or have a
billion digits), it is that item's problem, reported; what is downloaded is capped
(``verify_site``). Only a site with no readable ``data/cohorts.json`` is an error (exit 2).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from arena_core.domain.commitment_log import LOG_KEY, LogEntry, decision_key, log_lines, merkle_root
from arena_core.domain.commitments import sha256_hex
from arena_core.errors import ConfigurationError
from arena_local.verify_records import (
    DECISION_TABLES,
    PANEL_TABLE,
    CohortExports,
    derived_problems,
    differences,
    inconsistencies,
    reasoning_problems,
    rebuild,
)
from arena_local.verify_site import Fetched, SiteReader

STORE_DELAY = timedelta(minutes=5)  # from the committed time to S3's Last-Modified, at most
SHOWN_DIFFERENCES = 6
# What garbled data raises while it is checked: one item's problem, never the command's crash.
DATA_ERRORS = (
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    ArithmeticError,
    RecursionError,
)


@dataclass
class Report:
    location: str
    cohorts: int = 0
    decisions: int = 0
    uncommitted: int = 0  # not succeeded: nothing committed yet
    predating: int = 0  # in exports published before commitments (no commitment column)
    runs: int = 0
    log_lines: int = 0
    superseded: int = 0  # log lines of completions that did not close their decision
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    commitments: dict[str, str] = field(default_factory=dict)  # decision id -> commitment
    sealed: set[str] = field(default_factory=set)  # decisions under some run's root
    checked: set[str] = field(default_factory=set)  # committed objects read and hashed

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(site: SiteReader) -> Report:
    report = Report(site.location)
    listing = site.get("data/cohorts.json")
    if listing is None:
        raise ConfigurationError(f"no data/cohorts.json at {site.location}: not an arena site")
    try:
        cohorts = [(str(c["cohort_id"]), " ".join(c.get("files", []))) for c in listing.json()]
    except DATA_ERRORS as exc:
        raise ConfigurationError(f"data/cohorts.json at {site.location} is unreadable") from exc
    entries = _log(site, report)
    logged = {(e.decision_id, e.sha256) for e in entries if e.kind == "decision"}
    for cohort_id, listed in cohorts:
        report.cohorts += 1
        exports = _exports(site, cohort_id, listed, report)
        for row in exports.decisions:
            try:
                _check_decision(site, row, exports, logged, report)
            except DATA_ERRORS as exc:
                report.problems.append(f"{_name(row)}: cannot be checked: {_why(exc)}")
    for number, entry in enumerate(entries, start=1):
        try:
            if entry.kind == "run":
                _check_run(site, entry, report)
            elif entry.kind == "decision":
                _check_logged_decision(site, number, entry, report)
        except DATA_ERRORS as exc:
            report.problems.append(f"log line {number}: cannot be checked: {_why(exc)}")
    _note_log_only(entries, report)
    return report


def _name(row: Mapping[str, Any]) -> str:
    return repr(row.get("decision_id"))[:80]


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:160]}"


def _check_logged_decision(site: SiteReader, number: int, entry: LogEntry, report: Report) -> None:
    """A decision line of the log names its decision's object, which exists with its hash (a
    line forged for an object that was never written fails here)."""
    where = f"log line {number}"
    try:
        key = decision_key(str(entry.decision_id), entry.sha256)
    except ValueError as exc:
        report.problems.append(f"{where}: {exc}")
        return
    if entry.key != key:
        report.problems.append(f"{where}: {entry.key[:120]!r} is not the key of its decision")
        return
    if key in report.checked:
        return
    fetched = site.get(key)
    if fetched is None:
        report.problems.append(f"{where}: {entry.decision_id}: no committed object at {key}")
    elif sha256_hex(fetched.body) != entry.sha256:
        report.problems.append(f"{where}: the object at {key} does not hash to its name")


def _log(site: SiteReader, report: Report) -> list[LogEntry]:
    fetched = site.get(LOG_KEY)
    if fetched is None:
        report.notes.append(f"no commitments log at {LOG_KEY}")
        return []
    entries = []
    for number, line in enumerate(log_lines(fetched.body), start=1):
        report.log_lines += 1
        try:
            entries.append(LogEntry.parse(line))
        except ValueError:
            report.problems.append(f"log line {number} cannot be read: {line[:80]!r}")
    return entries


def _exports(site: SiteReader, cohort_id: str, listed: str, report: Report) -> CohortExports:
    """The cohort's tables (``listed``: its files, as cohorts.json names them); a table that
    is missing or unreadable is a problem, and counts as empty."""
    tables: dict[str, list[dict[str, Any]]] = {}
    for table in (*DECISION_TABLES, PANEL_TABLE):
        fetched = site.get(f"data/cohorts/{cohort_id}/{table}.json")
        if fetched is None:
            if table in DECISION_TABLES or f"/{table}.csv" in listed:
                report.problems.append(f"cohort {cohort_id}: {table}.json is missing")
            continue
        try:
            rows = fetched.json()
            if not all(isinstance(r, dict) and "decision_id" in r for r in rows):
                raise ValueError("rows without a decision_id")
        except (ValueError, TypeError) as exc:
            report.problems.append(f"cohort {cohort_id}: {table}.json cannot be read: {exc}")
            continue
        tables[table] = rows
    return CohortExports.of(cohort_id, tables)


def _check_decision(
    site: SiteReader,
    row: Mapping[str, Any],
    exports: CohortExports,
    logged: set[tuple[str | None, str]],
    report: Report,
) -> None:
    report.decisions += 1
    decision_id, commitment = str(row["decision_id"]), row.get("commitment")
    report.problems += [f"{decision_id}: {p}" for p in reasoning_problems(row, exports)]
    report.problems += [f"{decision_id}: {p}" for p in derived_problems(row, exports)]
    if "commitment" not in row:  # published before commitments existed: nothing to check
        report.predating += 1
        if any(logged_id == decision_id for logged_id, _ in logged):
            report.problems.append(f"{decision_id}: logged, but its export has no commitment")
        return
    if not commitment:
        if row.get("status") == "succeeded":
            report.problems.append(f"{decision_id}: succeeded without a commitment")
        else:
            report.uncommitted += 1
        return
    report.commitments[decision_id] = str(commitment)
    mismatches = _mismatches(site, row, exports, logged, report.checked)
    report.problems += [f"{decision_id}: {p}" for p in mismatches]


def _mismatches(
    site: SiteReader,
    row: Mapping[str, Any],
    exports: CohortExports,
    logged: set[Any],
    checked: set[str],
) -> Iterator[str]:
    decision_id, commitment = str(row["decision_id"]), str(row["commitment"])
    try:
        key = decision_key(decision_id, commitment)
        rebuilt = rebuild(row, exports)
        rebuilt_sha256 = rebuilt.sha256
    except DATA_ERRORS as exc:
        yield f"cannot rebuild its record from the exports: {_why(exc)}"
        return
    committed = site.get(key)
    if committed is None:
        yield f"no committed object at {key}"
    elif sha256_hex(committed.body) != commitment:
        yield f"the committed object {key} does not hash to its name"
    else:
        checked.add(key)  # its log line need not read it again
    if rebuilt_sha256 != commitment:
        shown = _differences(committed, rebuilt.document())
        yield (
            f"the exports hash to {rebuilt.sha256}, not to its commitment {commitment}"
            + (f"; {'; '.join(shown)}" if shown else "")
        )
    if (decision_id, commitment) not in logged:
        yield f"its commitment {commitment} is not in the log"
    yield from inconsistencies(decision_id, exports)
    if committed is not None:
        yield from _late(committed, rebuilt.completed_at, "completion")


def _differences(committed: Fetched | None, rebuilt: dict[str, Any]) -> list[str]:
    if committed is None:
        return []
    try:
        found = differences(committed.json(), rebuilt)
    except DATA_ERRORS:
        return ["the committed object is not a record"]
    more = len(found) - SHOWN_DIFFERENCES
    return found[:SHOWN_DIFFERENCES] + ([f"and {more} more"] if more > 0 else [])


def _late(fetched: Fetched, committed_at: datetime, what: str) -> Iterator[str]:
    if fetched.stored_at is not None and fetched.stored_at > committed_at + STORE_DELAY:
        yield (
            f"its commitment was stored at {fetched.stored_at.isoformat()}, after its "
            f"{what} time {committed_at.isoformat()} (more than {STORE_DELAY} later)"
        )


def _check_run(site: SiteReader, entry: LogEntry, report: Report) -> None:
    report.runs += 1
    name = f"run {entry.run_id}"
    fetched = site.get(entry.key)
    if fetched is None:
        report.problems.append(f"{name}: no object at {entry.key}")
        return
    if sha256_hex(fetched.body) != entry.sha256:
        report.problems.append(f"{name}: {entry.key} does not hash to the log's sha256")
    try:
        document = fetched.json()
        leaves = [(str(x["decision_id"]), str(x["commitment"])) for x in document["leaves"]]
        root = merkle_root([c for _, c in leaves])
        sealed_at = datetime.fromisoformat(str(document["sealed_at"]))
        if sealed_at.tzinfo is None:
            raise ValueError("its sealing time has no time zone")
    except DATA_ERRORS as exc:
        report.problems.append(f"{name}: {entry.key} cannot be read: {_why(exc)}")
        return
    if leaves != sorted(leaves):
        report.problems.append(f"{name}: its leaves are not in decision-id order")
    if not root == document.get("root") == entry.root:
        report.problems.append(
            f"{name}: the root of its leaves is {root}; its object says {document.get('root')}, "
            f"the log {entry.root}"
        )
    for decision_id, commitment in leaves:
        exported = report.commitments.get(decision_id)
        if exported is None:
            report.problems.append(f"{decision_id}: under {name}'s root, no commitment exported")
        elif exported != commitment:
            report.problems.append(
                f"{decision_id}: its commitment {exported} is not the one under {name}'s root "
                f"({commitment})"
            )
        report.sealed.add(decision_id)
    report.problems += [f"{name}: {p}" for p in _late(fetched, sealed_at, "sealing")]


def _note_log_only(entries: list[LogEntry], report: Report) -> None:
    """What the log holds beyond the exports: completions retried after a crash (superseded),
    and decisions no run has sealed yet (a run still going, or whose Finalize failed)."""
    decided = [e for e in entries if e.kind == "decision"]
    report.superseded = sum(
        1
        for e in decided
        if e.decision_id in report.commitments and report.commitments[e.decision_id] != e.sha256
    )
    unknown = sorted({str(e.decision_id) for e in decided} - set(report.commitments))
    if unknown:
        report.notes.append(f"{len(unknown)} logged decisions are not in the exports")
    unsealed = sorted(set(report.commitments) - report.sealed)
    if unsealed:
        report.notes.append(f"not under any run's root yet: {', '.join(unsealed)}")


def render(report: Report) -> list[str]:
    committed = len(report.commitments)
    lines = [
        f"Site: {report.location}",
        f"Decisions: {report.decisions} in {report.cohorts} cohorts; {committed} committed, "
        f"{report.uncommitted} without a commitment (not succeeded)",
        f"Log: {report.log_lines} lines; {report.runs} run roots; "
        f"{report.superseded} superseded completions (retried after a crash)",
        *(f"Note: {n}" for n in report.notes),
    ]
    if report.predating:
        lines.append(f"Note: {report.predating} decisions were published before commitments")
    if report.ok:
        return [*lines, f"OK: all {committed} commitments match the exports, the log and the roots"]
    return [
        *lines,
        f"{len(report.problems)} mismatches:",
        *(f"  {p}" for p in report.problems),
        "FAILED",
    ]
