"""``arena lineup show|set|retire|check`` against a "deployed" stack on embedded AWS."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.domain.lineup import LINEUP_V1
from arena_core.errors import UpstreamError
from arena_core.ports.stores import Stores
from arena_local import catalogue
from arena_local.cli import main
from tests.conftest import ROOT
from tests.support.aws import dynamo_client, embedded_aws
from tests.support.stack import create_stack, create_table

MODELS = ROOT / "tests" / "fixtures" / "openrouter_models_constructed.json"


@pytest.fixture
def deployed() -> Iterator[Stores]:
    with embedded_aws():
        table = create_table()
        create_stack({"TableName": table})
        yield dynamo_stores(dynamo_client(), table)


def test_show_seeds_release_one_and_lists_the_v1_table(
    deployed: Stores, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lineup", "show"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Release 1 in force since")
    for family in LINEUP_V1:
        assert f"{family.id} " in out and family.openrouter_id in out
    assert [r.release for r in deployed.lineups.releases()] == [1]


def test_set_and_retire_write_the_next_releases(
    deployed: Stores, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lineup", "set", "claude-opus-4.5", "anthropic/claude-opus-4.6"]) == 0
    argv = ["lineup", "set", "mistral-large", "mistralai/mistral-large-3", "--display", "Mistral"]
    assert main(argv) == 0
    assert main(["lineup", "retire", "grok-4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out] == ["Release 2", "Release 3", "Release 4"]
    latest = deployed.lineups.releases()[-1]
    claude = latest.family("claude-opus-4.5")
    mistral = latest.family("mistral-large")
    assert claude is not None and claude.model_id == "anthropic/claude-opus-4.6"
    assert mistral is not None and mistral.display_name == "Mistral"
    assert latest.family("grok-4") is None
    assert main(["lineup", "show"]) == 0
    shown = capsys.readouterr().out
    assert "anthropic/claude-opus-4.6" in shown and "release 2 (" in shown


def test_an_impossible_change_is_one_line_and_exit_2(
    deployed: Stores, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lineup", "retire", "no-such-family"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena lineup: ") and err.count("\n") == 1
    assert [r.release for r in deployed.lineups.releases()] == [1]


def test_check_finds_the_retired_model_and_the_newer_releases(
    deployed: Stores, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lineup", "check", "--models-file", str(MODELS)]) == 0
    lines = capsys.readouterr().out.splitlines()
    grok = next(line for line in lines if line.startswith("grok-4 "))
    assert "x-ai/grok-4.1-fast" in grok and "NOT LISTED" in grok
    newer = [line.split("newer: ")[1].split()[0] for line in lines if "newer: " in line]
    assert newer == ["google/gemini-3.1-pro-preview", "anthropic/claude-opus-4.6"]
    assert lines[-1] == "1 retired or unknown, 2 with a newer release"


def test_the_model_list_is_read_from_openrouter() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, content=MODELS.read_bytes())

    with httpx.Client(transport=httpx.MockTransport(answer)) as http:
        models = catalogue.fetch_catalogue(http, "https://openrouter.test/api/v1/")
    assert seen == ["https://openrouter.test/api/v1/models"]
    assert "anthropic/claude-opus-4.6" in {m.model_id for m in models}
    failing = httpx.MockTransport(lambda _: httpx.Response(503))
    with httpx.Client(transport=failing) as http, pytest.raises(UpstreamError, match="list"):
        catalogue.fetch_catalogue(http)


def test_versions_compare_within_the_same_name_shape_only() -> None:
    listed = catalogue.parse_catalogue(
        {
            "data": [
                {"id": "openai/gpt-5.2", "created": 10},
                {"id": "openai/gpt-5.10", "created": 5},
                {"id": "openai/gpt-5.2-mini", "created": 20},
                {"id": "x-ai/grok-5", "created": 30},
            ]
        }
    )
    assert [m.model_id for m in catalogue.newer_releases("openai/gpt-5.2", listed)] == [
        "openai/gpt-5.10"
    ]
