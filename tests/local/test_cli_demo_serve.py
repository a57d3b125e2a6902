"""``arena demo`` and ``arena serve`` refuse what they cannot do in one line with exit status 2,
and the demo says which Sunday it simulates from when ``--start`` is another day."""

from __future__ import annotations

import errno
import http.server
import os
import socket
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from arena_local.cli import main
from arena_local.demo import main as demo_main
from arena_local.demo.runner import RunOptions, RunReport, Tally


def one_line(err: str, command: str) -> str:
    """The message of a refused invocation: exactly one line, prefixed by the command."""
    assert err.startswith(f"arena {command}: ")
    assert err.count("\n") == 1
    return err


@pytest.fixture(autouse=True)
def baselines_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model family, so nothing here could call a provider."""
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)


@pytest.fixture
def markets(tmp_path: Path) -> Path:
    """A one-market Gamma dump: the demo gets past market loading at once."""
    path = tmp_path / "markets.json"
    path.write_text('[{"id": "1", "question": "Will it rain?"}]')
    return path


def demo(markets: Path, out: Path, *extra: str) -> int:
    return main(["demo", "--markets", str(markets), "--out", str(out), *extra])


def test_out_under_a_regular_file_is_refused(
    tmp_path: Path, markets: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    somefile = tmp_path / "somefile"
    somefile.write_text("not a folder")
    assert demo(markets, somefile / "site") == 2
    err = one_line(capsys.readouterr().err, "demo")
    assert f"--out {somefile / 'site'}" in err
    assert "cannot be created" in err


def test_out_that_cannot_be_created_is_refused(
    tmp_path: Path,
    markets: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Works as root too, where a read-only folder would not stop the write.
    def refuse(self: Path, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    assert demo(markets, tmp_path / "site") == 2
    err = one_line(capsys.readouterr().err, "demo")
    assert f"--out {tmp_path / 'site'} cannot be created" in err
    assert "Permission denied" in err


def test_an_existing_folder_that_refuses_files_is_refused(
    tmp_path: Path,
    markets: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The root-proof stand-in for an empty read-only folder: it exists, but no file can be made.
    site = tmp_path / "site"
    site.mkdir()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(site))

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    assert demo(markets, site) == 2
    assert f"--out {site} is not writable: Permission denied" in one_line(
        capsys.readouterr().err, "demo"
    )


def test_zero_weeks_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as usage:
        main(["demo", "--weeks", "0"])
    assert usage.value.code == 2
    assert "--weeks: must be at least 1: 0" in capsys.readouterr().err


@pytest.fixture
def simulated(monkeypatch: pytest.MonkeyPatch) -> list[RunOptions]:
    """The demo without its simulation: records the options each run was given."""
    runs: list[RunOptions] = []

    def run(options: RunOptions, *args: Any) -> RunReport:
        runs.append(options)
        return RunReport(ledger={}, tally=Tally())

    monkeypatch.setattr(demo_main, "synthesized_template", dict)
    monkeypatch.setattr(demo_main, "_run", run)
    return runs


def test_a_weekday_start_says_which_sunday_it_simulates_from(
    tmp_path: Path,
    markets: Path,
    simulated: list[RunOptions],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert demo(markets, tmp_path / "site", "--start", "2026-11-18") == 0
    out = capsys.readouterr().out
    assert "--start 2026-11-18 is a Wednesday: simulating from Sunday 2026-11-15\n" in out
    assert [run.start for run in simulated] == [datetime.fromisoformat("2026-11-15T00:00+00:00")]


def test_a_sunday_start_needs_no_notice(
    tmp_path: Path,
    markets: Path,
    simulated: list[RunOptions],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert demo(markets, tmp_path / "site", "--start", "2026-11-15") == 0
    assert "simulating from Sunday" not in capsys.readouterr().out


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text("<html></html>")
    return folder


@pytest.fixture
def never_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    """If a server were bound after all, fail instead of serving forever."""

    def serve_forever(self: Any, poll_interval: float = 0.5) -> None:
        raise AssertionError("the server was bound")

    monkeypatch.setattr(http.server.ThreadingHTTPServer, "serve_forever", serve_forever)


@pytest.mark.usefixtures("never_serve")
@pytest.mark.parametrize("port", ["70000", "-1", "0"])
def test_a_port_out_of_range_is_a_usage_error(
    site: Path, port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as usage:
        main(["serve", "--dir", str(site), "--port", port])
    assert usage.value.code == 2
    assert f"--port: must be between 1 and 65535: {port}" in capsys.readouterr().err


@pytest.mark.usefixtures("never_serve")
def test_a_taken_port_is_refused(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--dir", str(site), "--port", str(port)]) == 2
    err = one_line(capsys.readouterr().err, "serve")
    assert f"cannot serve on 127.0.0.1:{port}" in err
    assert "Address already in use" in err
