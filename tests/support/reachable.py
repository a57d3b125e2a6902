"""What a reader can reach in a published site folder: from the home page, every link and
source of every page reached (``href``, ``src``, the live figures a cohort page's script
reads), every file the dataset's listings name
(``data/cohorts.json``, ``data/datapackage.json``, the commitment log) and the JSON twin of
every CSV reached (the data page says every table is exported as both), transitively."""

from __future__ import annotations

import json
import posixpath
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.extend(value for name, value in attrs if name in ("href", "src") and value)
        if tag == "meta" and ("name", "live-values") in attrs:  # what the page's script reads
            self.found.extend(value for name, value in attrs if name == "content" and value)


def _targets(page: str, body: str) -> set[str]:
    parser = _Links()
    parser.feed(body)
    found = set()
    for link in parser.found:
        parts = urlsplit(link)
        if parts.scheme or parts.netloc or not parts.path:
            continue  # outside the site, or a fragment of the same page
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
        found.add(path + "index.html" if link.endswith("/") else path)
    return found


LISTINGS = ("data/cohorts.json", "data/datapackage.json")  # their paths are under data/
LOG = "commitments/log.jsonl"  # the key of every commitment object


def reachable(site: Path) -> set[str]:
    """Every file of ``site`` a reader reaches by following links from ``index.html``."""
    seen: set[str] = set()
    todo = ["index.html"]
    while todo:
        page = todo.pop()
        if page in seen or not (site / page).is_file():
            continue
        seen.add(page)
        if page.endswith(".html"):
            todo.extend(_targets(page, (site / page).read_text()) - seen)
        elif page in LISTINGS:
            listed = json.loads((site / page).read_text())
            todo.extend({f"data/{path}" for path in _paths(listed)} - seen)
        elif page == LOG:
            lines = (site / page).read_text().splitlines()
            todo.extend({json.loads(line)["key"] for line in lines} - seen)
        elif page.endswith(".csv"):
            todo.append(page.removesuffix(".csv") + ".json")
    return seen


def _paths(listing: object) -> set[str]:
    """The paths a listing names: ``files`` of each cohort, ``path`` of each resource."""
    if isinstance(listing, dict):
        return {resource["path"] for resource in listing.get("resources", ())}
    assert isinstance(listing, list)
    return {path for cohort in listing for path in cohort["files"]}


def published(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
