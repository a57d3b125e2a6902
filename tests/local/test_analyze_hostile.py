"""``arena analyze`` on hostile datasets and arguments: each is one line on stderr and exit
status 2, never a traceback, a hang or a silent empty analysis; a harmless variation of the
files (a spreadsheet's byte order mark) reads as the original."""

from __future__ import annotations

import http.server
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from arena_core.analysis.figures import Rules
from arena_core.errors import DatasetError
from arena_local import analyze
from arena_local.analyze import UrlSource
from arena_local.cli import main
from tests.support.scenario import Scenario, build

RULES = Rules(min_forecasts=8, min_cohorts=2, min_weeks=2, min_events=4, min_return_cohorts=2)
OUTPUTS = ("leaderboard.json", "panel_leaderboard.json", "comparisons.json", "pairwise.json")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    built = build(tmp_path_factory.mktemp("site"), weeks=3, extra=6, rules=RULES)
    built.publish()
    return built


@pytest.fixture
def data(site: Scenario, tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(site.site_dir / "data", copy)
    return copy


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def replace_once(path: Path, old: str, new: str) -> None:
    body = path.read_text()
    assert old in body
    path.write_text(body.replace(old, new, 1))


def test_an_outcome_in_superscript_digits_is_one_line(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_once(data / "forecasts.csv", ",1,true,", ",²,true,")  # was a ValueError traceback
    one_line(capsys, ["analyze", str(data)], "column outcome: '²' is not an integer")


def test_a_return_too_large_to_print_is_one_line(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_once(data / "family_returns.csv", ",0.0000,", ",1e308,")  # was InvalidOperation
    one_line(capsys, ["analyze", str(data)], "column return_pct: '1e308' is out of range")


def test_since_after_until_is_one_line(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyze", str(data), "--since", "2026-03-20", "--until", "2026-03-01"]
    one_line(capsys, argv, "--since 2026-03-20 is after --until 2026-03-01")


def test_unknown_families_are_one_line_not_an_empty_board(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["analyze", str(data), "--families", "nobody,gpt-5.1,nothing"]
    one_line(capsys, argv, "has no family nobody, nothing")


def test_json_onto_a_file_is_one_line(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one_line(capsys, ["analyze", str(data), "--json", str(data / "families.csv")], "cannot write")


def test_a_methodology_named_twice_is_one_line(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_once(data / "analysis.json", '"v1"', '"v1", "v1"')
    one_line(capsys, ["analyze", str(data)], "names a methodology twice")


def test_a_tiny_alpha_is_analysed_not_a_traceback(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_once(data / "analysis.json", "0.05", "1e-300")  # was a StatisticsError traceback
    assert main(["analyze", str(data), "--json", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "pairwise.json").is_file()


@pytest.mark.parametrize("subset", [[], ["--families", "gpt-5.1,gemini-2.5-flash"]])
def test_a_byte_order_mark_reads_as_the_same_table(
    site: Scenario, data: Path, tmp_path: Path, subset: list[str]
) -> None:
    """Excel writes one before the header; it made the first column unknown ("lacks the
    column(s) methodology")."""
    for table in ("forecasts", "families", "family_returns"):
        path = data / f"{table}.csv"
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    clean, marked = tmp_path / "clean", tmp_path / "marked"
    assert main(["analyze", str(site.site_dir / "data"), *subset, "--json", str(clean)]) == 0
    assert main(["analyze", str(data), *subset, "--json", str(marked)]) == 0
    for name in OUTPUTS:
        assert (marked / name).read_bytes() == (clean / name).read_bytes()


Reply = Callable[[http.server.BaseHTTPRequestHandler], None]


@pytest.fixture
def serve() -> Iterator[Callable[[Reply], str]]:
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(reply: Reply) -> str:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                reply(self)

            def log_message(self, *_: object) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _drip(handler: http.server.BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/csv")
    handler.end_headers()
    try:
        for _ in range(600):  # a byte every 50 ms for half a minute: never a read timeout
            handler.wfile.write(b"x")
            handler.wfile.flush()
            time.sleep(0.05)
    except OSError:
        pass  # the client gave up


def _html(handler: http.server.BaseHTTPRequestHandler) -> None:
    body = b"<!doctype html><title>Not found</title><p>Try the home page"
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def test_a_server_that_drips_forever_is_given_up_on(serve: Callable[[Reply], str]) -> None:
    """httpx's timeout is between two reads: a byte every few seconds kept it waiting."""
    source = UrlSource(serve(_drip), httpx.Client(timeout=5.0), deadline=1.0)
    started = time.monotonic()
    with pytest.raises(DatasetError, match=r"analysis\.json took over 1 s to arrive"):
        source.get("analysis.json")
    assert time.monotonic() - started < 10.0


def test_a_site_answering_html_is_one_line(
    serve: Callable[[Reply], str], capsys: pytest.CaptureFixture[str]
) -> None:
    one_line(capsys, ["analyze", serve(_html)], "analysis.json cannot be read")


def test_a_dataset_over_the_total_limit_is_one_line(
    data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each file under the limit, all of them together over it: refused, not parsed (a table
    takes about ten times its size in memory)."""
    sizes = sorted((p.stat().st_size for p in data.glob("*.csv")), reverse=True)
    monkeypatch.setattr(analyze, "MAX_BYTES", sizes[0] + sizes[1] // 2)
    one_line(capsys, ["analyze", str(data)], "the dataset passes")


def test_a_forecast_listed_twice_is_one_line(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = data / "forecasts.csv"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([*lines, lines[1]]))
    one_line(capsys, ["analyze", str(data)], f"line {len(lines) + 1} repeats line 2 (trade_id)")


def _headers_changed(zipped: bytes, local: tuple[int, int], central: tuple[int, int]) -> bytes:
    """``zipped`` with a 16-bit field of every local header (at ``local[0]``) and central
    directory entry (at ``central[0]``) set by ``local[1]`` / ``central[1]``: a flag bit ORed
    in, or a value written (its sign says which: negative ORs in its absolute value)."""
    body = bytearray(zipped)
    for signature, (offset, value) in ((b"PK\x03\x04", local), (b"PK\x01\x02", central)):
        at = body.find(signature)
        while at != -1:
            old = int.from_bytes(body[at + offset : at + offset + 2], "little")
            new = old | -value if value < 0 else value
            body[at + offset : at + offset + 2] = new.to_bytes(2, "little")
            at = body.find(signature, at + 4)
    return bytes(body)


@pytest.mark.parametrize(
    ("local", "central", "message"),
    [
        ((6, -1), (8, -1), "is encrypted: a dataset never is"),  # was RuntimeError
        ((8, 9), (10, 9), "is compressed with Deflate64"),  # was NotImplementedError
    ],
)
def test_an_encrypted_or_deflate64_zip_is_one_line(
    site: Scenario,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    local: tuple[int, int],
    central: tuple[int, int],
    message: str,
) -> None:
    zipped = (site.site_dir / "data" / "dataset.zip").read_bytes()
    hostile = tmp_path / "dataset.zip"
    hostile.write_bytes(_headers_changed(zipped, local, central))
    one_line(capsys, ["analyze", str(hostile)], message)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://[::1", "Invalid port"),  # was httpx.InvalidURL
        ("http://xn--a.example/", "not allowed"),  # was idna.InvalidCodepoint
        ("http://\u2603.com/", "Invalid IDNA hostname"),
        ("http://a..b/", "label empty or too long"),  # was UnicodeError from the resolver
        ("http://" + "a" * 70 + ".com/", "label empty or too long"),
        ("http://:80/", "no host"),
    ],
)
def test_a_malformed_url_or_idna_host_is_one_line(
    url: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", url]) == 2
    err = capsys.readouterr().err
    assert "is not a usable URL: " in err and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("alpha", ["5e-324", "0", "1", "nan", "-0.05", "five"])
def test_an_alpha_that_is_no_level_is_one_line(
    data: Path, alpha: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """5e-324 (a subnormal) divided over the comparisons is 0.0: critical_value raised."""
    one_line(capsys, ["analyze", str(data), "--alpha", alpha], "--alpha")


def test_a_subnormal_alpha_in_the_dataset_is_one_line(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_once(data / "analysis.json", "0.05", "5e-324")  # was a ValueError traceback
    one_line(capsys, ["analyze", str(data)], "an alpha outside [1e-300, 1)")


def test_another_alpha_reanalyses_at_that_level(data: Path, tmp_path: Path) -> None:
    assert main(["analyze", str(data), "--json", str(tmp_path / "a")]) == 0
    assert main(["analyze", str(data), "--alpha", "0.05", "--json", str(tmp_path / "b")]) == 0
    assert main(["analyze", str(data), "--alpha", "0.5", "--json", str(tmp_path / "c")]) == 0
    same = (tmp_path / "a" / "pairwise.json").read_bytes()
    assert (tmp_path / "b" / "pairwise.json").read_bytes() == same
    assert (tmp_path / "c" / "pairwise.json").read_bytes() != same
