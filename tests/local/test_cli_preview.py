"""``arena preview`` against a "deployed" stack on embedded AWS: the prompt it prints is, byte
for byte, the one the decide path then sends for the same inputs, and nothing is written."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import boto3
import httpx
import pytest

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.adapters.polymarket import GammaMarketSource
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.domain.cohort import Agent
from arena_core.domain.panel import Methodology
from arena_core.ports.clock import FixedClock
from arena_core.ports.stores import Stores
from arena_core.protocol.budget import completion_budget
from arena_core.services.decide import DecideRequest, DecideService
from arena_core.services.lineup import LineupService
from arena_core.services.open_cohort import OpenCohortService
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.cli import main
from arena_local.demo.markets import FIXTURES, RECORDED_DUMP, from_file
from arena_local.memory import InMemoryBlobStore, memory_stores
from arena_local.replay import GammaReplay
from tests.support.agents import ScriptedAgent
from tests.support.aws import dynamo_client, embedded_aws
from tests.support.builders import RUN_AT, WEEK0
from tests.support.stack import create_stack, create_table

AUDIT, SITE = "arena-audit", "arena-site"
NEXT_RUN = RUN_AT + timedelta(days=7)  # the cohort's second decision run
FAMILY = "kimi-k2"


@dataclass
class Deployment:
    stores: Stores
    clock: FixedClock
    blobs: S3BlobStore

    def decide(self, agent: ScriptedAgent) -> None:
        """The decision run as deployed: prepare (captures the universe), then decide."""
        source = _offline_source()
        prepared = PrepareRunService(self.stores, source, self.blobs, self.clock).prepare(
            RunRequest(agent_ids=[Agent.id_for("c2026-03-01", FAMILY)])
        )
        (item,) = prepared.items
        request = DecideRequest(item.agent_id, item.run_at, item.universe_ref, "owner-1")
        DecideService(self.stores, self.blobs, self.clock).decide(request, agent)


def _offline_source() -> GammaMarketSource:
    replay = GammaReplay(from_file(FIXTURES / RECORDED_DUMP).payloads)
    return GammaMarketSource(httpx.Client(transport=replay.transport()))


def _first_open_market() -> str:
    source = _offline_source()
    return source.top_markets(500).ordered()[0].market_id


@pytest.fixture
def deployment() -> Iterator[Deployment]:
    """A stack whose cohort of 2026-03-01 opened and whose Kimi agent bet in week 1."""
    with embedded_aws():
        table = create_table()
        s3 = boto3.client("s3")
        for bucket in (AUDIT, SITE):
            s3.create_bucket(Bucket=bucket)
        create_stack({"TableName": table, "AuditBucket": AUDIT, "SiteBucket": SITE})
        stores = dynamo_stores(dynamo_client(), table)
        clock = FixedClock(WEEK0)
        OpenCohortService(stores.cohorts, clock, LineupService(stores.lineups, clock)).open()
        deployment = Deployment(stores, clock, S3BlobStore(s3, AUDIT))
        clock.set(RUN_AT)
        bet = {
            "action": "BET",
            "bets": [{"market_id": _first_open_market(), "side": "YES", "amount": 500}],
            "reasoning": "week one",
        }
        deployment.decide(ScriptedAgent(json.dumps(bet)))
        clock.set(NEXT_RUN)
        yield deployment


def _everything() -> dict[str, Any]:
    """Every item of every table and every object of every bucket."""
    dynamodb, s3 = boto3.client("dynamodb"), boto3.client("s3")
    state: dict[str, Any] = {}
    for table in dynamodb.list_tables()["TableNames"]:
        items = dynamodb.scan(TableName=table)["Items"]
        state[table] = sorted(json.dumps(i, sort_keys=True) for i in items)
    for bucket in s3.list_buckets()["Buckets"]:
        listed = s3.list_objects_v2(Bucket=bucket["Name"]).get("Contents", [])
        state[bucket["Name"]] = sorted((o["Key"], o["ETag"]) for o in listed)
    return state


def _printed_transcript(out: str) -> str:
    """The prompt part of the preview: between its header line and its size line."""
    body = out.split("\n", 1)[1]
    return body[: body.rindex("Size: ")]


def test_the_offline_preview_is_the_decide_paths_prompt_and_writes_nothing(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the state of the deployment before the preview
    before = _everything()
    # When the week-2 prompt of the Kimi agent is previewed on the recorded dump
    assert main(["preview", "--family", FAMILY, "--offline"], now=NEXT_RUN) == 0
    out = capsys.readouterr().out
    # Then nothing was written anywhere
    assert _everything() == before
    printed = _printed_transcript(out)
    assert "decision week 2" in out.splitlines()[0]
    assert "1 open positions" in printed  # the week-1 bet, as stored
    (size_line,) = [line for line in out.splitlines() if line.startswith("Size: ")]
    size = int(size_line.split("total ")[1].split(" bytes")[0].replace(",", ""))
    # And the decide path, run now on the same inputs, sends exactly those bytes
    agent = ScriptedAgent(json.dumps({"action": "HOLD", "reasoning": "r"}))
    deployment.decide(agent)
    ((system, user),) = [(c[0].content, c[1].content) for c in agent.conversations]
    assert printed.encode() == f"=== system ===\n{system}\n=== user ===\n{user}\n".encode()
    assert size == len(system.encode()) + len(user.encode())
    decision = deployment.stores.decisions.get_decision(
        f"{Agent.id_for('c2026-03-01', FAMILY)}.w002"
    )
    assert decision is not None and decision.outcome is not None
    stored = deployment.blobs.get(decision.outcome.prompt_ref)
    assert stored == printed.encode()


class _Model(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible server answering one BET (and counting what it was asked)."""

    asked: ClassVar[list[dict[str, Any]]] = []
    reply: ClassVar[str] = ""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).asked.append(body)
        payload = {
            "id": "gen-1",
            "model": body["model"],
            "choices": [{"message": {"role": "assistant", "content": self.reply}}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "cost": 0.002},
        }
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


def test_call_prints_the_reply_the_decision_and_its_trades_without_applying_them(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    market = _first_open_market()
    bets = [
        {"market_id": market, "side": "YES", "amount": 1000},
        {"market_id": "no-such-market", "side": "YES", "amount": 100},
    ]
    _Model.asked, _Model.reply = [], json.dumps({"action": "BET", "bets": bets, "reasoning": "x"})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    before = _everything()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        argv = ["preview", "--family", FAMILY, "--offline", "--call", "--llm-base-url", url]
        assert main(argv, now=NEXT_RUN) == 0
    finally:
        server.shutdown()
    out = capsys.readouterr().out
    assert _everything() == before
    assert [a["model"] for a in _Model.asked] == ["moonshotai/kimi-k2-thinking"]
    assert _Model.asked[0]["messages"][1]["content"] in out  # the user prompt it was sent
    assert "=== raw reply 1 (model moonshotai/kimi-k2-thinking" in out
    assert '"action": "BET"' in out.split("=== parsed decision ===")[1]
    trades = out.split("Trades it would make (2; nothing was applied):\n")[1].splitlines()
    assert trades[0].startswith(f"  #0 buy YES on {market}: $1000")
    assert trades[1].startswith("  #1 rejected (unknown_market)")


def test_an_unknown_family_is_one_line_and_exit_2(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["preview", "--family", "gpt-9", "--offline"], now=NEXT_RUN) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena preview: ") and err.count("\n") == 1
    assert "kimi-k2" in err  # it names the families it knows


def test_a_family_added_since_the_cohort_opened_previews_as_a_new_member(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    LineupService(deployment.stores.lineups, deployment.clock).set_model(
        "mistral-large", "mistralai/mistral-large-3"
    )
    before = _everything()
    assert main(["preview", "--family", "mistral-large", "--offline"], now=NEXT_RUN) == 0
    out = capsys.readouterr().out
    assert _everything() == before
    assert "not opened yet" in out.splitlines()[0]
    assert "cash=10000.00" in out and "no open positions" in out


NO_AWS = (
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_PROFILE",
)


def test_without_any_aws_configuration_the_offline_preview_is_a_fresh_agents_prompt(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """No region, no credentials, no stack: the prompt a fresh agent of the seeded lineup
    gets on the recorded dump, byte for byte what the decide path builds for it."""
    for name in NO_AWS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    assert main(["preview", "--family", FAMILY, "--offline"], now=RUN_AT) == 0
    out = capsys.readouterr().out
    assert "not opened yet: as a new cohort starts it" in out.splitlines()[0]
    assert "decision week 1" in out.splitlines()[0]
    printed = _printed_transcript(out)
    # The decide path, for the same family's agent of a cohort opened from the seeded lineup
    stores, clock, blobs = memory_stores(), FixedClock(WEEK0), InMemoryBlobStore()
    OpenCohortService(stores.cohorts, clock, LineupService(stores.lineups, clock)).open()
    clock.set(RUN_AT)
    agent_id = Agent.id_for("c2026-03-01", FAMILY)
    prepared = PrepareRunService(stores, _offline_source(), blobs, clock).prepare(
        RunRequest(agent_ids=[agent_id])
    )
    (item,) = prepared.items
    agent = ScriptedAgent(json.dumps({"action": "HOLD", "reasoning": "r"}))
    request = DecideRequest(item.agent_id, item.run_at, item.universe_ref, "owner-1")
    DecideService(stores, blobs, clock).decide(request, agent)
    ((system, user),) = [(c[0].content, c[1].content) for c in agent.conversations]
    assert printed.encode() == f"=== system ===\n{system}\n=== user ===\n{user}\n".encode()


PANEL_RUN = datetime(2026, 2, 1, 0, 5, tzinfo=UTC)  # the dump's week: its markets are open


def test_a_panel_prompt_is_the_decide_paths_with_its_size_budget_and_price_per_family(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """v1+panel, offline: the panel drawn from the dump's panel listing as the decision run
    draws it, one line per question; then the size, the completion budget at that K and what a
    decision costs for each family of the lineup."""
    for name in NO_AWS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    argv = ["preview", "--family", FAMILY, "--offline", "--methodology", "v1+panel"]
    assert main(argv, now=PANEL_RUN) == 0
    out = capsys.readouterr().out
    printed = _printed_transcript(out)
    header = next(line for line in printed.splitlines() if line.startswith("FORECAST PANEL ("))
    k = int(header.split("(")[1].split(" ")[0])
    assert k > 10
    rows = printed.split(header + "\n")[1].split("\n\n")[0].splitlines()
    assert len(rows) == k and all(row.count("|") == 4 for row in rows)  # one line each
    (size,) = [line for line in out.splitlines() if line.startswith("Size: ")]
    assert f"panel {k} markets, completion budget {completion_budget(k):,} tokens" in size
    prices = out.split("Price per decision by family")[1].splitlines()[1:]
    assert len(prices) == 7 and all("$" in line for line in prices)
    assert any("moonshotai/kimi-k2-thinking" in line for line in prices)
    # The decide path, for that agent of a v1+panel cohort, asks exactly this
    stores, clock, blobs = memory_stores(), FixedClock(PANEL_RUN), InMemoryBlobStore()
    OpenCohortService(
        stores.cohorts, clock, LineupService(stores.lineups, clock), Methodology.V1_PANEL
    ).open()
    agent_id = Agent.id_for("c2026-02-01", FAMILY)
    prepared = PrepareRunService(stores, _offline_source(), blobs, clock).prepare(
        RunRequest(agent_ids=[agent_id])
    )
    (item,) = prepared.items
    agent = ScriptedAgent(json.dumps({"action": "HOLD", "reasoning": "r"}))
    request = DecideRequest(item.agent_id, item.run_at, item.universe_ref, "owner-1")
    DecideService(stores, blobs, clock).decide(request, agent)
    system, user = (m.content for m in agent.conversations[0][:2])  # then format retries
    assert printed.encode() == f"=== system ===\n{system}\n=== user ===\n{user}\n".encode()


def test_offline_without_aws_configuration_cannot_call_the_deployed_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in (*NO_AWS, "OPENROUTER_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    assert main(["preview", "--family", FAMILY, "--offline", "--call"], now=RUN_AT) == 2
    assert "no AWS configuration: set OPENROUTER_API_KEY" in capsys.readouterr().err
