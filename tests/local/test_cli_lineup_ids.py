"""Issue 26 §1: ``arena lineup`` refuses an id that is not one, in one line with exit status 2,
and writes no release: an operator typo (the model id typed as the family id, a display name
typed as an id) used to be accepted, then broke every decision of that family for the life of
every cohort (the refusals themselves: ``test_cli_lineup_refusals.py``). Retiring every family
is refused, and what ``lineup show`` prints of a release holds no control or escape sequence."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_core.domain.releases import LineupRelease
from arena_core.ports.stores import Stores
from arena_local.cli import main
from tests.support.aws import dynamo_client, embedded_aws
from tests.support.stack import create_stack, create_table


@pytest.fixture
def deployed() -> Iterator[Stores]:
    with embedded_aws():
        table = create_table()
        create_stack({"TableName": table})
        yield dynamo_stores(dynamo_client(), table)


def refused(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("arena lineup: "), err[:200]
    assert err.count("\n") == 1, err[:200]
    assert len(err) < 400
    return err


def test_a_good_id_still_goes_through(deployed: Stores) -> None:
    argv = ["lineup", "set", "claude-opus-4.6", "anthropic/claude-opus-4.6:beta", "--display", "Ø"]
    assert main(argv) == 0
    added = deployed.lineups.releases()[-1].family("claude-opus-4.6")
    assert added is not None and added.model_id == "anthropic/claude-opus-4.6:beta"


def test_retiring_every_family_is_refused(
    deployed: Stores, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lineup", "show"]) == 0
    release = deployed.lineups.releases()[-1]
    families = [s.family_id for s in release.lineup if s.kind is AgentKind.LLM]
    for family in families[:-1]:
        assert main(["lineup", "retire", family]) == 0
    capsys.readouterr()
    assert main(["lineup", "retire", families[-1]]) == 2
    assert "last model family" in refused(capsys)
    latest = deployed.lineups.releases()[-1]
    assert [s.family_id for s in latest.lineup if s.kind is AgentKind.LLM] == families[-1:]


def test_show_prints_no_control_or_escape_sequence(
    deployed: Stores, capsys: pytest.CaptureFixture[str]
) -> None:
    """A release stored before names were checked (or written around the command) is shown
    inert: an escape sequence cannot clear the operator's screen or forge a line."""
    assert main(["lineup", "show"]) == 0
    first = deployed.lineups.releases()[0]
    hostile = AgentSpec.model_construct(
        family_id="x-family",
        display_name="\x1b[2J\x1b[31mOwned\nRelease 99 in force",
        kind=AgentKind.LLM,
        model_id="x/y",
        provider="P\rQ",
        stand_in=False,
    )
    release = LineupRelease.model_construct(
        release=2,
        effective_from=datetime(2026, 1, 1, tzinfo=UTC),
        lineup=(*first.lineup, hostile),
        note="forged\x1b[1m",
    )
    deployed.lineups.add_release(release)
    capsys.readouterr()
    assert main(["lineup", "show"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out
    assert not any(line.startswith("Release 99") for line in out.splitlines())
