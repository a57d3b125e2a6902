"""Issue 26 §4: what crashed the ``arena`` command with a traceback is one line on stderr and
exit status 2 (or, for what an operator may well ask, a refused usage).

Before: ``arena status --dir`` read whatever ``status.json`` pointed to (a link to /dev/zero
exhausted memory, a FIFO hung, a file outside the folder was echoed); ``arena lineup check``
crashed on hostile model lists (deep nesting, ``created`` of 10**20, 5,000-digit versions);
``OpenRouterClient`` let ``RecursionError`` escape on a deeply nested body; ``--start`` and
``--week`` of 0001-01-01 or 9999-12-31 overflowed in ``demo``, ``preview`` and ``rerun``; a NUL
in an export key crashed ``arena export``; ``arena cost`` took a negative snapshot TTL and
priced it cheaper."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest

from arena_core.adapters.openrouter import OpenRouterClient
from arena_core.adapters.retry import Retrier, RetryPolicy
from arena_core.adapters.site_publishers import state_folder
from arena_core.errors import ArenaError
from arena_core.ports.llm import ChatMessage, LLMRequest
from arena_local import operations
from arena_local.cli import main
from arena_local.status import STATUS_FILE, Status
from tests.support.aws import dynamo_client, embedded_aws
from tests.support.stack import create_stack, create_table

DEEP = "[" * 100_000 + "]" * 100_000


def one_line(err: str, command: str) -> str:
    assert err.startswith(f"arena {command}: "), err[:300]
    assert err.count("\n") == 1, err[:300]
    return err


@pytest.fixture
def no_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a boto3 client was created for an invocation that must be refused")

    monkeypatch.setattr(boto3, "client", refuse)


# --- arena status --dir ---------------------------------------------------------------------


def status_file(tmp_path: Path) -> Path:
    """Where ``arena status --dir <tmp_path>/site`` reads: the demo's state folder beside it."""
    state = state_folder(tmp_path / "site")
    state.mkdir(exist_ok=True)
    return state / STATUS_FILE


def good_status() -> str:
    status = Status(
        at=datetime(2026, 3, 1, tzinfo=UTC),
        cohorts=(),
        last_snapshot=None,
        last_resolve=None,
        last_run=None,
        last_run_agents=(),
        last_execution=None,
        failed_executions=(),
        dead_letters=None,
        site=None,
    )
    return status.model_dump_json()


def test_status_refuses_a_link_to_dev_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status_file(tmp_path).symlink_to("/dev/zero")
    assert main(["status", "--dir", str(tmp_path / "site")]) == 2
    assert "link" in one_line(capsys.readouterr().err, "status")


def test_status_refuses_a_link_to_a_file_outside_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(good_status().replace("null}", '"the secret"}'))
    status_file(tmp_path).symlink_to(secret)
    assert main(["status", "--dir", str(tmp_path / "site")]) == 2
    out, err = capsys.readouterr()
    assert "the secret" not in out + err
    one_line(err, "status")


def test_status_refuses_a_fifo_without_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(status_file(tmp_path))
    result: list[int] = []
    worker = threading.Thread(
        target=lambda: result.append(main(["status", "--dir", str(tmp_path / "site")])), daemon=True
    )
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():  # unblock the reader, then fail
        with open(status_file(tmp_path), "wb"):
            pass
        worker.join(timeout=5)
        pytest.fail("arena status --dir waited on a FIFO")
    assert result == [2]
    assert "not a regular file" in one_line(capsys.readouterr().err, "status")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b" " * (2 * 1024 * 1024), "larger than"),
        (DEEP.encode(), "not a status"),
        (b"\xff\xfe\x00garbage", "not a status"),
    ],
)
def test_status_refuses_an_oversized_or_garbled_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, why: str
) -> None:
    status_file(tmp_path).write_bytes(content)
    assert main(["status", "--dir", str(tmp_path / "site")]) == 2
    assert why in one_line(capsys.readouterr().err, "status")


def test_status_prints_stored_text_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = json.loads(good_status())
    document["site"] = "\x1b[2Jhttps://evil\nSite: forged"
    document["cohorts"] = [
        {
            "cohort_id": "c\x1b[31m",
            "agents": [
                {
                    "agent_id": "a",
                    "display_name": "\x1b]0;title\x07Name\rOver",
                    "value": "10000.5",
                    "pnl_pct": "-1.25",
                }
            ],
        }
    ]
    status_file(tmp_path).write_text(json.dumps(document))
    assert main(["status", "--dir", str(tmp_path / "site")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\x07" not in out
    assert not any(line.startswith("Site: forged") for line in out.splitlines())
    assert "$10,000.50 (-1.25%)" in out


# --- arena lineup check --models-file ---------------------------------------------------------


@pytest.fixture
def deployed() -> Iterator[None]:
    with embedded_aws():
        table = create_table()
        create_stack({"TableName": table})
        dynamo_client()
        yield


HOSTILE_LISTS = {
    "nested 100,000 deep": DEEP,
    "data nested deep": '{"data": ' + DEEP + "}",
    "created of 10**20": json.dumps({"data": [{"id": "openai/gpt-5.2", "created": 10**20}]}),
    "created of -10**20": json.dumps({"data": [{"id": "openai/gpt-5.2", "created": -(10**20)}]}),
    "a 5,000-digit version": json.dumps({"data": [{"id": "openai/gpt-" + "5" * 5000}]}),
    "versions of 5,000 dots": json.dumps({"data": [{"id": "openai/gpt-5" + ".1" * 5000}]}),
    "an id and a name with escapes": json.dumps(
        {"data": [{"id": "openai/gpt-5.3\x1b[2J\n", "name": "\x1b]0;x\x07n", "created": 1}]}
    ),
    "names and ids of every type": json.dumps(
        {"data": [{"id": 5}, {"id": ["a"]}, {"id": "x/y", "name": {"a": 1}, "created": "1"}]}
    ),
    "data as text": json.dumps({"data": "none"}),
    "a list at the top": json.dumps([1, 2]),
}


@pytest.mark.usefixtures("deployed")
@pytest.mark.parametrize("case", HOSTILE_LISTS)
def test_lineup_check_reads_a_hostile_model_list_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    models = tmp_path / "models.json"
    models.write_text(HOSTILE_LISTS[case])
    status = main(["lineup", "check", "--models-file", str(models)])
    out, err = capsys.readouterr()
    assert status in (0, 2)
    if status == 2:
        one_line(err, "lineup")
    assert "\x1b" not in out and "\x07" not in out


# --- OpenRouterClient on a deeply nested body --------------------------------------------------


@pytest.mark.parametrize("status", [200, 400, 503])
def test_a_deeply_nested_completion_is_a_typed_error(status: int) -> None:
    body = '{"error": {"message": "x", "metadata": {"raw": "' + "[" * 100_000 + '"}}}'
    for text in (DEEP, '{"choices": ' + DEEP + "}", body):
        transport = httpx.MockTransport(lambda _, text=text: httpx.Response(status, text=text))
        with httpx.Client(transport=transport) as http:
            client = OpenRouterClient(
                http,
                lambda: "k",
                retrier=Retrier(RetryPolicy(max_attempts=2, base_delay=0), sleep=lambda _: None),
            )
            request = LLMRequest(model="m/x", messages=(ChatMessage(role="user", content="q"),))
            with pytest.raises(ArenaError):
                client.complete(request)


# --- dates outside the calendar ---------------------------------------------------------------


@pytest.mark.usefixtures("no_aws")
@pytest.mark.parametrize("day", ["0001-01-01", "0001-01-07", "9999-12-31"])
def test_preview_and_rerun_refuse_a_week_outside_the_calendar(
    capsys: pytest.CaptureFixture[str], day: str
) -> None:
    assert main(["preview", "--family", "kimi-k2", "--week", day]) == 2
    assert "outside" in one_line(capsys.readouterr().err, "preview")
    assert main(["rerun", "--week", day]) == 2
    assert "outside" in one_line(capsys.readouterr().err, "rerun")


@pytest.mark.usefixtures("no_aws")
@pytest.mark.parametrize("agent", ["../../x", "c2026-03-01.Claude Opus", "c2026-03-01.x\n", ""])
def test_rerun_refuses_an_agent_that_is_no_agent_id(
    capsys: pytest.CaptureFixture[str], agent: str
) -> None:
    assert main(["rerun", "--week", "2026-03-01", "--agent", agent]) == 2
    assert "agent id" in one_line(capsys.readouterr().err, "rerun")


@pytest.mark.usefixtures("no_aws")
@pytest.mark.parametrize("family", ["../../x", "anthropic/claude-opus-4.6", "", "a\nb"])
def test_preview_refuses_a_family_that_is_no_family_id(
    capsys: pytest.CaptureFixture[str], family: str
) -> None:
    assert main(["preview", "--family", family]) == 2
    assert "family id" in one_line(capsys.readouterr().err, "preview")


@pytest.mark.parametrize("day", ["0001-01-01", "9999-12-31", "2999-12-30"])
def test_demo_refuses_a_start_outside_the_calendar_before_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], day: str
) -> None:
    markets = tmp_path / "markets.json"
    markets.write_text('[{"id": "1", "question": "Will it rain?"}]')
    out = tmp_path / "site"
    assert main(["demo", "--markets", str(markets), "--out", str(out), "--start", day]) == 2
    assert "outside" in one_line(capsys.readouterr().err, "demo")
    assert not out.exists()


# --- arena export: a NUL in a key ----------------------------------------------------------------


class Listing:
    """An S3 client whose listing holds hostile keys beside a good one."""

    KEYS = ("data/good.csv", "data/a\x00b.csv", "data/../../escape.csv", "/data/abs.csv")

    def get_paginator(self, name: str) -> Any:
        keys = self.KEYS

        class Pages:
            def paginate(self, **kwargs: Any) -> list[dict[str, Any]]:
                return [{"Contents": [{"Key": k} for k in keys]}]

        return Pages()

    def get_object(self, **kwargs: Any) -> dict[str, Any]:
        class Body:
            def read(self) -> bytes:
                return b"a,b\n"

        return {"Body": Body()}


def test_export_skips_keys_that_are_no_path(tmp_path: Path) -> None:
    written = operations.export_dataset(Listing(), "site", tmp_path / "out")
    assert written == [(tmp_path / "out/data/good.csv").resolve()]
    assert not (tmp_path / "escape.csv").exists()


# --- arena cost: a negative snapshot TTL ---------------------------------------------------------


def test_cost_refuses_a_negative_snapshot_ttl(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as usage:
        main(["cost", "--snapshot-ttl-days", "-1"])
    assert usage.value.code == 2
    err = capsys.readouterr().err
    assert "--snapshot-ttl-days: must be at least 0: -1" in err.splitlines()[-1]
