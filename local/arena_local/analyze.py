"""``arena analyze DATASET``: the leaderboards recomputed from a published dataset alone.

A dataset is a ``dataset.zip``, a site's ``data/`` folder (or the site folder holding it), or a
site's URL. Its input tables (``families``, ``forecasts``, ``family_returns``,
``position_returns`` and, under v1+panel, ``panel_scores`` and ``coherence``) and its
``analysis.json`` (the rules and the methodology versions) go through the very code the site
uses (``arena_core.dataset.boards``), so the leaderboard, panel leaderboard and pairwise files
written with ``--json`` are byte for byte the site's. ``--families``, ``--since`` and ``--until``
re-analyse a subset (the peer scores stay those published: among all the cohort's models).
Anything unreadable is a ``DatasetError``: one line, exit status 2.
"""

from __future__ import annotations

import csv
import io
import time
import zipfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

import httpx

from arena_core.analysis.board import MARKET
from arena_core.analysis.dataset import parse_table, text
from arena_core.dataset import board_inputs, boards, exports, tables
from arena_core.dataset.boards import BoardResult
from arena_core.errors import ConfigurationError, DatasetError

# All the files of one dataset together, at most: a year of data is tens of megabytes, and a
# table takes about ten times its size in memory once parsed.
MAX_BYTES = 128 * 1024 * 1024
TIMEOUT = httpx.Timeout(30.0)  # between two reads: a server may still drip bytes forever
DEADLINE = 300.0  # seconds for one file over HTTP, however it arrives
INPUTS = (*boards.INPUT_TABLES, *boards.PANEL_INPUT_TABLES)
OUTPUTS = ("leaderboard", "panel_leaderboard", "comparisons", "pairwise")


class Source(ABC):
    """Files of a dataset's ``data/`` folder, by name, at most ``MAX_BYTES`` of them in all."""

    location: str
    taken = 0  # bytes read so far

    @abstractmethod
    def get(self, name: str) -> bytes | None:
        """The file, or None when the dataset has none."""

    def take(self, name: str, size: int) -> None:
        """Count ``size`` more bytes of ``name``; refused once the dataset passes the limit."""
        self.taken += size
        if self.taken > MAX_BYTES:
            raise DatasetError(f"{self.location}: the dataset passes {MAX_BYTES:,} bytes at {name}")

    def close(self) -> None:  # noqa: B027 - a folder holds nothing open; the others override
        """Release what the source holds open."""


class FolderSource(Source):
    def __init__(self, root: Path) -> None:
        data = root / "data" if (root / "data").is_dir() else root
        self._root = data.resolve()
        self.location = str(root)

    def get(self, name: str) -> bytes | None:
        target = self._root / name
        if not target.is_file():
            return None
        self.take(name, target.stat().st_size)
        return target.read_bytes()


# What Python's zipfile reads; anything else (Deflate64, PPMd, ...) it cannot decompress.
READABLE = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "lzma",
}
METHODS = {9: "Deflate64", 93: "Zstandard", 98: "PPMd", 99: "AES"}
ENCRYPTED = 0x1  # bit 0 of a member's general purpose flags


class ZipSource(Source):
    """A ``dataset.zip``: its files sit under one folder (``dataset/``). A published dataset is
    never encrypted and is deflated; a member that is encrypted or compressed with a method
    zipfile cannot read is refused by name, before anything is read."""

    def __init__(self, path: Path) -> None:
        self.location = str(path)
        try:
            self._zip = zipfile.ZipFile(path)
            names = self._zip.namelist()
        except (zipfile.BadZipFile, OSError) as exc:
            raise DatasetError(f"{path} is not a readable zip file: {exc}") from exc
        self._members = {n.split("/", 1)[-1]: n for n in names if not n.endswith("/")}

    def get(self, name: str) -> bytes | None:
        member = self._members.get(name)
        if member is None:
            return None
        info = self._zip.getinfo(member)
        _readable(info, self.location)
        self.take(name, info.file_size)
        try:
            return self._zip.read(member)
        except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError) as exc:
            # A truncated or garbled zip; or a local header that contradicts the directory.
            raise DatasetError(f"{name} cannot be read from {self.location}: {exc}") from exc

    def close(self) -> None:
        self._zip.close()


def _readable(info: zipfile.ZipInfo, location: str) -> None:
    """Refuse a member zipfile would fail on (it raises RuntimeError or NotImplementedError)."""
    if info.flag_bits & ENCRYPTED:
        raise DatasetError(f"{info.filename} in {location} is encrypted: a dataset never is")
    if info.compress_type not in READABLE:
        method = METHODS.get(info.compress_type, f"method {info.compress_type}")
        raise DatasetError(
            f"{info.filename} in {location} is compressed with {method}, which cannot be read"
            " here: zip it again with deflate"
        )


class UrlSource(Source):
    """A published site (or its ``data/`` folder) over HTTP; bodies are capped in size."""

    def __init__(self, url: str, client: httpx.Client, deadline: float = DEADLINE) -> None:
        base = url.rstrip("/")
        self._base = base if base.endswith("/data") else base + "/data"
        checked_url(f"{self._base}/{board_inputs.SETTINGS}", url)
        self._client = client
        self._deadline = deadline
        self.location = url

    def get(self, name: str) -> bytes | None:
        url = f"{self._base}/{name}"
        give_up = time.monotonic() + self._deadline
        try:
            checked_url(url, self.location)
            with self._client.stream("GET", url) as response:
                if response.status_code in (403, 404):
                    return None
                if response.status_code != 200:
                    raise DatasetError(f"cannot fetch {url}: HTTP {response.status_code}")
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    self.take(name, len(chunk))
                    if time.monotonic() > give_up:
                        raise DatasetError(f"{url} took over {self._deadline:g} s to arrive")
                return bytes(body)
        except httpx.HTTPError as exc:
            raise DatasetError(f"cannot fetch {url}: {exc}") from exc

    def close(self) -> None:
        self._client.close()


def checked_url(url: str, given: str) -> httpx.URL:
    """``url`` parsed, with a host that can be looked up; a malformed one (a bad port, a host
    that is no IDNA name, an empty label) is a ``DatasetError`` here, not an httpx, idna or
    socket exception later."""
    try:
        parsed = httpx.URL(url)
        if not parsed.host:
            raise ValueError("no host")
        parsed.host.encode("idna")  # what the resolver does: an empty or 64-byte label fails
    except (httpx.InvalidURL, UnicodeError, ValueError) as exc:
        why = " ".join(str(exc).split()) or type(exc).__name__
        raise DatasetError(f"{given[:200]!r} is not a usable URL: {why}") from exc
    return parsed


def open_source(location: str, client: httpx.Client | None = None) -> Source:
    if location.startswith(("http://", "https://")):
        return UrlSource(location, client or httpx.Client(timeout=TIMEOUT))
    path = Path(location)
    if path.is_file():
        return ZipSource(path)
    if path.is_dir():
        return FolderSource(path)
    raise DatasetError(f"no dataset at {location}: give a dataset.zip, a data/ folder or a URL")


@dataclass(frozen=True)
class Subset:
    """What to re-analyse: some families, a range of weeks (None: everything)."""

    families: frozenset[str] | None = None
    since: date | None = None
    until: date | None = None

    def __post_init__(self) -> None:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ConfigurationError(
                f"--since {self.since.isoformat()} is after --until {self.until.isoformat()}:"
                " no week is in between"
            )

    @property
    def everything(self) -> bool:
        return self.families is None and self.since is None and self.until is None

    def keeps(self, table: str, row: Mapping[str, str]) -> bool:
        family = text(row.get("family_id", ""))
        if self.families is not None and family not in self.families:
            return False
        week = _week_of(table, row)
        return week is None or (
            (self.since is None or week >= self.since)
            and (self.until is None or week <= self.until)
        )


def _week_of(table: str, row: Mapping[str, str]) -> date | None:
    """The week a row belongs to: its run week, or its cohort's (None: no week)."""
    raw = row.get("run_week") or (row.get("cohort_id") if table != "families" else None)
    if not raw:
        return None
    try:
        return date.fromisoformat(raw[1:11])
    except ValueError as exc:
        raise DatasetError(f"{table}.csv: {raw[:40]!r} is not a week") from exc


def _subset(name: str, data: bytes, subset: Subset) -> tuple[bytes, set[str]]:
    """The table's rows the subset keeps, and every family id the whole table names."""
    rows = parse_table(name, data, ())
    kept = [r for r in rows if subset.keeps(name, r)]
    buffer = io.StringIO()
    header = list(rows[0]) if rows else next(csv.reader(io.StringIO(data.decode())), [])
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(kept)
    return buffer.getvalue().encode(), {text(r.get("family_id") or "") for r in rows}


def analyse(
    source: Source, subset: Subset = Subset(), *, alpha: float | None = None
) -> list[BoardResult]:
    """Every leaderboard of the dataset (the current methodology first); ``alpha``: the
    verdicts' familywise level instead of the dataset's."""
    settings = source.get(board_inputs.SETTINGS)
    if settings is None:
        raise DatasetError(f"{source.location} has no {board_inputs.SETTINGS}: is it a dataset?")
    rules, versions = board_inputs.read_settings(settings)
    if alpha is not None:
        rules = replace(rules, alpha=alpha)
    found: dict[str, bytes] = {}
    named = {MARKET}  # every family the dataset has rows of, and the market
    for name in INPUTS:
        data = source.get(f"{name}.csv")
        if data is None:
            continue
        if subset.everything:
            found[name] = data
        else:
            found[name], families = _subset(name, data, subset)
            named |= families
    unknown = sorted((subset.families or frozenset()) - named)
    if unknown:  # a typo would otherwise analyse nothing and say nothing
        raise DatasetError(f"{source.location} has no family {', '.join(unknown)}")
    return [boards.build(found, version, rules) for version in versions]


def json_files(results: Sequence[BoardResult]) -> dict[str, bytes]:
    """The leaderboard, panel leaderboard and pairwise files, exactly as the site writes them."""
    computed = tables.output_tables(results)
    return {f"{name}.json": exports.to_json(name, computed[name]) for name in OUTPUTS}


def rows_of(results: Sequence[BoardResult]) -> Callable[[str], list[dict[str, object]]]:
    computed = tables.output_tables(results)
    return lambda name: exports.project(name, computed[name])
