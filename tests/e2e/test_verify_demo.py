"""End to end: ``arena verify`` on the demo's site (a simulated week of the three baselines on
the recorded markets, through the synthesized state machine on embedded AWS). It passes as
published, and fails naming the decision when one exported reply, trade or completion time is
altered."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from arena_local.cli import main
from arena_local.demo.main import DemoRequest, run_demo

COHORT = "c2026-03-01"
FOLLOWER = f"{COHORT}.baseline-market-follower.w001"  # bets: its trades are committed
Rows = list[dict[str, Any]]


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "site"
    request = DemoRequest(
        weeks=1,
        seed=7,
        out=out,
        agents=("baselines",),
        offline=True,
        start=date(2026, 3, 1),
        pass_minutes=60,  # commitments, not marking: a sixth of the passes (suite time)
    )
    run_demo(request, io.StringIO())
    return out


def verify(site: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["verify", "--site", str(site)])
    return code, capsys.readouterr().out


def altered(demo_site: Path, tmp_path: Path, table: str, change: Callable[[Rows], None]) -> Path:
    copy = tmp_path / "site"
    shutil.copytree(demo_site, copy)
    path = copy / f"data/cohorts/{COHORT}/{table}.json"
    rows: Rows = json.loads(path.read_text())
    change(rows)
    path.write_text(json.dumps(rows, ensure_ascii=False, indent=1))
    return copy


def first(rows: Rows, decision_id: str = FOLLOWER) -> dict[str, Any]:
    return next(r for r in rows if r["decision_id"] == decision_id)


def test_the_demo_site_verifies(demo_site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Given the demo's site: every decision committed at once, the run sealed by Finalize
    decisions = json.loads((demo_site / f"data/cohorts/{COHORT}/decisions.json").read_text())
    assert {d["status"] for d in decisions} == {"succeeded"}
    assert all(len(d["commitment"]) == 64 for d in decisions)
    assert len(list((demo_site / "commitments/runs").glob("*.json"))) == 1
    # When it is verified, then every commitment matches
    code, out = verify(demo_site, capsys)
    assert code == 0, out
    assert f"OK: all {len(decisions)} commitments match" in out


def reply(rows: Rows) -> None:
    first(rows)["raw_body"] += " "  # one space more in the raw body as received


def amount(rows: Rows) -> None:
    first(rows)["amount"] = "1.00"


def price(rows: Rows) -> None:
    first(rows)["price"] = "0.999"


def timestamp(rows: Rows) -> None:
    first(rows)["completed_at"] = "2026-03-01T00:04:59Z"  # a second before the run


@pytest.mark.parametrize(
    ("table", "change", "differs"),
    [
        ("replies", reply, "reply_sha256[0]"),
        ("trades", amount, "trades[0].amount"),
        ("trades", price, "trades[0].price"),
        ("decisions", timestamp, "completed_at"),
    ],
    ids=["reply", "trade amount", "trade price", "timestamp"],
)
def test_an_altered_export_fails_naming_the_decision(
    demo_site: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    table: str,
    change: Callable[[Rows], None],
    differs: str,
) -> None:
    site = altered(demo_site, tmp_path, table, change)
    code, out = verify(site, capsys)
    assert code == 1
    mismatches = [x.strip() for x in out.splitlines() if x.startswith("  ")]
    assert mismatches and all(m.startswith(f"{FOLLOWER}: ") for m in mismatches)
    assert differs in mismatches[0]
    assert out.rstrip().endswith("FAILED")
