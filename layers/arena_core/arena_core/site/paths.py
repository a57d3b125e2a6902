"""The file names of the pages named by an id (a market's, a model's)."""

from __future__ import annotations

# File names an index page takes in a folder of pages named by id: a page whose id is one of them
# is named with a ``~`` after it (no id's alphabet holds ``~``), so no id can replace an index.
RESERVED_STEMS = frozenset({"index"})


def page_stem(identifier: str) -> str:
    """The file name (without ``.html``) of the page of a market or model named ``identifier``:
    the id itself, unless an index page takes that name (compared case-blind, as a folder on a
    case-blind disk would)."""
    return f"{identifier}~" if identifier.casefold() in RESERVED_STEMS else identifier


def page_path(folder: str, identifier: str) -> str:
    return f"{folder}/{page_stem(identifier)}.html"
