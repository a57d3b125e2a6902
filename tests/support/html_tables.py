"""Read a generated page's tables back as text, the way a reader sees them (standard library
only), so tests can compare every figure a page shows with one recomputed independently."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Table:
    id: str | None
    classes: tuple[str, ...]
    head: list[list[str]] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)  # body rows, every tbody in order
    row_ids: list[str | None] = field(default_factory=list)  # each body row's first link target


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self._stack: list[Table] = []
        self._section = ""
        self._row: list[str] | None = None
        self._link: str | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            table = Table(found.get("id"), tuple((found.get("class") or "").split()))
            self.tables.append(table)
            self._stack.append(table)
        elif tag in ("thead", "tbody"):
            self._section = tag
        elif tag == "tr" and self._stack:
            self._row, self._link = [], None
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "a" and self._row is not None and self._link is None:
            self._link = found.get("href")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._stack:
            self._stack.pop()
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._stack:
            table = self._stack[-1]
            if self._section == "thead":
                table.head.append(self._row)
            else:
                table.rows.append(self._row)
                table.row_ids.append(self._link)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables(html: str) -> list[Table]:
    reader = _Reader()
    reader.feed(html)
    return reader.tables


def table(html: str, table_id: str) -> Table:
    (found,) = [t for t in tables(html) if t.id == table_id]
    return found
