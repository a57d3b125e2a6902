"""Issue 26 §1: ``arena lineup set`` refuses an id that is not one, in one line with exit status
2, and writes no release. Before, each of these was accepted: an operator typo (the model id
typed as the family id, a display name typed as an id) then broke every decision of that family
for the life of every cohort; ``../`` in a family id made the local publisher write outside its
folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.ports.stores import Stores
from arena_local.cli import main
from tests.support.aws import dynamo_client, embedded_aws
from tests.support.stack import create_stack, create_table


@pytest.fixture(scope="module")
def refusing() -> Iterator[Stores]:
    """One deployment for every refused change (a refused change writes nothing), with
    release 1 seeded by a first ``lineup show``."""
    with embedded_aws():
        table = create_table()
        create_stack({"TableName": table})
        assert main(["lineup", "show"]) == 0
        yield dynamo_stores(dynamo_client(), table)


def refused(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("arena lineup: "), err[:200]
    assert err.count("\n") == 1, err[:200]
    assert len(err) < 400
    return err


BAD_SETS = {
    "model id as family id": ["anthropic/claude-opus-4.6", "anthropic/claude-opus-4.6"],
    "display name as family id": ["Claude Opus 4.6", "anthropic/claude-opus-4.6"],
    "empty family id": ["", "anthropic/claude-opus-4.6"],
    "blank family id": ["  ", "anthropic/claude-opus-4.6"],
    "key separators in family id": ["a#DECISION#b", "anthropic/claude-opus-4.6"],
    "path in family id": ["../../x", "anthropic/claude-opus-4.6"],
    "family id with a final newline": ["claude-opus-4.6\n", "anthropic/claude-opus-4.6"],
    "model id with a newline": ["claude-opus-4.5", "anthropic/claude\nopus"],
    "empty model id": ["claude-opus-4.5", ""],
    "100,000-character model id": ["claude-opus-4.5", "a/" + "b" * 100_000],
    "model id climbing a path": ["claude-opus-4.5", "../../x"],
    "200,000-character display name": [
        "claude-opus-4.5",
        "anthropic/claude-opus-4.6",
        "--display",
        "D" * 200_000,
    ],
    "display name with an escape sequence": [
        "claude-opus-4.5",
        "anthropic/claude-opus-4.6",
        "--display",
        "\x1b[2J\x1b[31mOpus",
    ],
    "blank display name": ["claude-opus-4.5", "anthropic/claude-opus-4.6", "--display", " "],
    "provider with a newline": [
        "claude-opus-4.5",
        "anthropic/claude-opus-4.6",
        "--provider",
        "Anthropic\nforged",
    ],
}


@pytest.mark.parametrize("argv", BAD_SETS.values(), ids=BAD_SETS.keys())
def test_lineup_set_refuses_what_is_not_an_id(
    refusing: Stores, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    capsys.readouterr()
    assert main(["lineup", "set", *argv]) == 2
    refused(capsys)
    assert [r.release for r in refusing.lineups.releases()] == [1]
