"""``arena rerun`` refuses a week it cannot mean, and ``rerun``/``export`` explain a missing
region, all in one line with exit status 2 and before AWS is asked anything it need not be."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import NoRegionError

from arena_local.cli import main

TUESDAY = date(2026, 3, 10)  # in the week of Sunday 2026-03-08


def one_line(err: str, command: str) -> str:
    """The message of a refused invocation: exactly one line, prefixed by the command."""
    assert err.startswith(f"arena {command}: ")
    assert err.count("\n") == 1
    assert err.endswith("\n")
    return err


@pytest.fixture
def no_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any boto3 client fails the test: a refused invocation must not reach AWS."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a boto3 client was created for an invocation that must be refused")

    monkeypatch.setattr(boto3, "client", refuse)


@pytest.mark.usefixtures("no_aws")
def test_a_week_that_is_not_a_sunday_names_its_sunday(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rerun", "--week", "2026-03-04"]) == 2
    assert one_line(capsys.readouterr().err, "rerun") == (
        "arena rerun: 2026-03-04 is a Wednesday; weeks start on Sunday: did you mean 2026-03-01?\n"
    )


@pytest.mark.usefixtures("no_aws")
def test_a_future_week_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rerun", "--week", "2099-01-04"]) == 2
    err = one_line(capsys.readouterr().err, "rerun")
    assert "2099-01-04" in err
    assert "has not started" in err


@pytest.mark.usefixtures("no_aws")
def test_the_week_after_today_s_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rerun", "--week", "2026-03-15"], today=TUESDAY) == 2
    err = one_line(capsys.readouterr().err, "rerun")
    assert "2026-03-15 has not started" in err
    assert "2026-03-08" in err  # the current week, which is the latest a rerun can replay


@pytest.mark.usefixtures("no_aws")
def test_a_future_weekday_is_refused_as_future_not_corrected(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Suggesting its Sunday would only lead to the next refusal.
    assert main(["rerun", "--week", "2026-03-18"], today=TUESDAY) == 2
    err = one_line(capsys.readouterr().err, "rerun")
    assert "has not started" in err
    assert "did you mean" not in err


@pytest.mark.usefixtures("no_aws")
def test_a_negative_max_concurrency_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rerun", "--week", "2026-03-01", "--max-concurrency", "-3"]
    with pytest.raises(SystemExit) as usage:
        main(argv)
    assert usage.value.code == 2
    assert "--max-concurrency: must be at least 0 (0 = all agents at once): -3" in (
        capsys.readouterr().err
    )


@pytest.fixture
def no_region(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Credentials but no region anywhere: not in the environment, not in a config file."""
    for name in ("AWS_DEFAULT_REGION", "AWS_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)  # a cached session keeps its region


@pytest.mark.usefixtures("no_region")
@pytest.mark.parametrize("argv", [["export", "--out", "unused"], ["rerun", "--week", "2026-03-01"]])
def test_no_region_when_creating_clients_is_explained(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert "no AWS region configured" in one_line(capsys.readouterr().err, argv[0])


class RegionlessClient:
    """A client created with a region that the call then finds missing (botocore raises
    ``NoRegionError`` from either place, depending on the service and the endpoint)."""

    def describe_stacks(self, **kwargs: Any) -> Any:
        raise NoRegionError

    def get_paginator(self, name: str) -> Any:
        raise NoRegionError


def test_no_region_from_the_call_is_explained(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(boto3, "client", lambda *args, **kwargs: RegionlessClient())
    assert main(["export", "--out", "unused"]) == 2
    assert "no AWS region configured" in one_line(capsys.readouterr().err, "export")


class PublishedStack(RegionlessClient):
    """``describe_stacks`` answers; listing the site bucket finds no region."""

    def describe_stacks(self, **kwargs: Any) -> Any:
        outputs = [{"OutputKey": "SiteBucket", "OutputValue": "site-bucket"}]
        return {"Stacks": [{"Outputs": outputs}]}


def test_no_region_when_listing_the_bucket_is_explained(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(boto3, "client", lambda *args, **kwargs: PublishedStack())
    assert main(["export", "--out", "unused"]) == 2
    assert "no AWS region configured" in one_line(capsys.readouterr().err, "export")
