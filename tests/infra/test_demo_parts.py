"""The demo's parts: the schedule read from the template, market sources, the ledger, the CLI."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena_core.adapters.polymarket import parse_market
from arena_core.adapters.site_publishers import LocalFolderPublisher, state_folder
from arena_local.cli import main
from arena_local.demo.errors import DemoError, MarketsFileError
from arena_local.demo.ledger import differences, write_ledger
from arena_local.demo.main import DemoRequest, choose_lineup, prepare_out
from arena_local.demo.markets import choose_markets, from_file, from_live_gamma, synthetic
from arena_local.demo.schedule import Schedule, firings, schedules_from
from tests.support.buckets import publish

SUNDAY = datetime(2026, 3, 1, tzinfo=UTC)


def test_the_deployed_schedule_fires_as_the_methodology_says(raw: dict[str, Any]) -> None:
    schedules = schedules_from(raw)
    fired = list(firings(schedules, SUNDAY, SUNDAY + timedelta(weeks=1)))
    counts = Counter(schedule.target for _, schedule in fired)
    assert counts == {"OpenCohort": 1, "workflow": 1, "Snapshot": 1008, "Resolve": 168}
    first = [(moment, schedule.target) for moment, schedule in fired[:4]]
    assert first[0] == (SUNDAY, "OpenCohort")  # opened before the first snapshot marks it
    assert (SUNDAY + timedelta(minutes=5), "workflow") in first
    run = next(s for s in schedules if s.target == "workflow")
    assert run.payload == {}  # the deployment's ARENA_RUN_CONCURRENCY decides


def test_an_expression_the_app_does_not_use_is_refused() -> None:
    odd = Schedule("Odd", "cron(0/15 * * * ? *)", "Snapshot", {})
    with pytest.raises(DemoError):
        odd.fires_at(SUNDAY)


def test_a_markets_file_must_exist_and_be_a_gamma_dump(tmp_path: Path) -> None:
    with pytest.raises(MarketsFileError, match="not found"):
        from_file(tmp_path / "missing.json")
    garbled = tmp_path / "garbled.json"
    garbled.write_text("{not json")
    with pytest.raises(MarketsFileError, match="not JSON"):
        from_file(garbled)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps([{"name": "no id"}]))
    with pytest.raises(MarketsFileError, match="id and question"):
        from_file(wrong)
    good = tmp_path / "good.json"
    good.write_text(json.dumps([{"id": "1", "question": "Q?"}, "junk"]))
    assert len(from_file(good).payloads) == 1


def test_live_gamma_is_used_when_it_answers_and_skipped_when_not(fixtures_dir: Path) -> None:
    def answering(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params["offset"])
        return httpx.Response(200, json=[{"id": str(offset + i), "question": "Q"} for i in (1, 2)])

    live = from_live_gamma(httpx.Client(transport=httpx.MockTransport(answering)))
    assert live is not None
    assert live.origin.startswith("the live Gamma API")
    assert live.live  # today's markets settle by their end dates in the simulation
    assert len(live.payloads) == 4

    def offline(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("no route to host", request=request)

    http = httpx.Client(transport=httpx.MockTransport(offline))
    chosen = choose_markets(path=None, seed=1, fixtures_dir=fixtures_dir, http=http)
    assert chosen.origin.startswith("the recorded dump")
    assert not chosen.live
    assert len(chosen.payloads) == 600
    fallback = choose_markets(path=None, seed=1, fixtures_dir=fixtures_dir / "nowhere", http=http)
    assert fallback.origin.startswith("a seeded synthetic universe")


def test_the_synthetic_universe_is_seeded_and_covers_every_ending() -> None:
    first, again, other = synthetic(3), synthetic(3), synthetic(4)
    assert first.payloads == again.payloads
    assert first.payloads != other.payloads
    markets = [parse_market(p) for p in first.payloads]  # the real parser accepts every one
    statuses = Counter(p["umaResolutionStatus"] for p in first.payloads)
    assert set(statuses) == {None, "resolved", "disputed"}
    splits = [p for p in first.payloads if json.loads(p["outcomePrices"]) == ["0.5", "0.5"]]
    assert splits
    assert len(markets) == 120


def test_ledger_differences_name_the_table_and_row() -> None:
    left = {"trades": [{"trade_id": "t1", "amount": "100.00"}], "agents": []}
    right = {"trades": [{"trade_id": "t1", "amount": "100.01"}], "agents": []}
    assert differences(left, left) == []
    assert differences(left, right) == ["trades: row t1 differs in ['amount']"]
    assert differences(left, {"trades": [], "agents": []}) == ["trades: 1 rows vs 0"]


def test_agents_are_chosen_by_family_id() -> None:
    baselines = {"baseline-market-follower", "baseline-always-hold", "baseline-random"}
    default = choose_lineup(DemoRequest(), with_llms=False)  # no model server: the stand-ins
    assert {s.family_id for s in default if not s.stand_in} == baselines
    assert len([s for s in default if s.stand_in]) == 7
    chosen = choose_lineup(DemoRequest(agents=("baselines",)), with_llms=False)
    assert {s.family_id for s in chosen} == baselines
    assert len(choose_lineup(DemoRequest(), with_llms=True)) == 10
    one = choose_lineup(DemoRequest(agents=("baseline-random",)), with_llms=False)
    assert [s.family_id for s in one] == ["baseline-random"]
    with pytest.raises(DemoError, match="unknown agent"):
        choose_lineup(DemoRequest(agents=("gpt-9",)), with_llms=False)
    with pytest.raises(DemoError, match="OPENROUTER_API_KEY"):
        choose_lineup(DemoRequest(agents=("kimi-k2",)), with_llms=False)


def test_the_output_folder_is_never_someone_elses(tmp_path: Path) -> None:
    mine = tmp_path / "site"
    prepare_out(mine)
    publish(LocalFolderPublisher(mine), {"stale.html": b"old run"})  # a previous demo's site
    write_ledger({"old": "run"}, state_folder(mine) / "ledger.json")
    prepare_out(mine)
    assert list(mine.iterdir()) == [] and not state_folder(mine).exists()
    legacy = tmp_path / "legacy"  # a site of before the state folder: its manifest inside
    legacy.mkdir()
    (legacy / ".site-manifest.json").write_text("{}")
    prepare_out(legacy)
    assert list(legacy.iterdir()) == []
    other = tmp_path / "documents"
    other.mkdir()
    (other / "thesis.tex").write_text("precious")
    with pytest.raises(DemoError, match="not touching"):
        prepare_out(other)
    assert (other / "thesis.tex").read_text() == "precious"
    # Nor the folder beside it that happens to carry the state folder's name
    fresh = tmp_path / "fresh"
    state_folder(fresh).mkdir()
    (state_folder(fresh) / "notes.txt").write_text("mine")
    with pytest.raises(DemoError, match="not touching"):
        prepare_out(fresh)
    assert (state_folder(fresh) / "notes.txt").read_text() == "mine"


def test_cli_errors_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "nope.json")
    assert main(["demo", "--markets", missing, "--out", str(tmp_path / "s")]) == 2
    assert "markets file not found" in capsys.readouterr().err
    assert main(["demo", "--agents", "gpt-9", "--offline", "--out", str(tmp_path / "s")]) == 2
    assert "unknown agent 'gpt-9'" in capsys.readouterr().err
    assert main(["demo", "--site-refresh", "5", "--out", str(tmp_path / "s")]) == 2
    assert "--site-refresh must be between" in capsys.readouterr().err
    assert main(["serve", "--dir", str(tmp_path / "empty")]) == 2
    assert "no site" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["demo", "--weeks", "0"])
    assert usage.value.code == 2
    with pytest.raises(SystemExit):
        main(["rerun", "--week", "next sunday"])
    assert "not a date" in capsys.readouterr().err
