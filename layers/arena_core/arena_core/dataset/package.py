"""The dataset as one package: ``datapackage.json`` (a Frictionless Data Package describing every
exported table, column, type, unit, primary and foreign key, from the same column definitions
as the schema page) and ``dataset.zip`` (every file under ``data/`` with the package).

The package lists the site-wide tables, each cohort's tables and each week's universe. The zip
is rebuilt after each weekly decision run: it carries over the files earlier publications left
(read back from the site) and the ones being published now.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

from arena_core.dataset.exports import TABLES, cell, columns
from arena_core.dataset.fields import FOREIGN_KEYS, GLOBAL_REFERENCES, KEYS, field
from arena_core.domain.cohort import Cohort

PACKAGE = "data/datapackage.json"
BUNDLE = "data/dataset.zip"
LICENSE = {
    "name": "CC-BY-4.0",
    "path": "https://creativecommons.org/licenses/by/4.0/",
    "title": "Creative Commons Attribution 4.0",
}
SITE_TABLES = ("markets", "costs")  # site-wide tables carried over between publications


def _schema(table: str, resource_of: Callable[[str], str]) -> dict[str, Any]:
    meanings = dict(TABLES[table][1])
    fields = []
    for name in columns(table):
        found = field(table, name)
        entry: dict[str, Any] = {"name": name, "type": found.type, "description": meanings[name]}
        if found.unit:
            entry["unit"] = found.unit
        if found.places is not None:
            entry["decimalPlaces"] = found.places
        fields.append(entry)
    schema: dict[str, Any] = {"fields": fields, "missingValues": [""]}
    if table in KEYS:
        schema["primaryKey"] = list(KEYS[table])
    references = [
        {
            "fields": list(mine),
            "reference": {"resource": resource_of(other), "fields": list(theirs)},
        }
        for mine, other, theirs in FOREIGN_KEYS.get(table, ())
    ]
    if references:
        schema["foreignKeys"] = references
    return schema


def _resource(name: str, path: str, table: str, resolve: Callable[[str], str]) -> dict[str, Any]:
    return {
        "name": name,
        "path": path,
        "profile": "tabular-data-resource",
        "format": "csv",
        "mediatype": "text/csv",
        "encoding": "utf-8",
        "description": TABLES[table][0],
        "schema": _schema(table, resolve),
    }


def _global(other: str) -> str:
    """A site-wide table references site-wide tables by their own names."""
    return other


def _of_cohort(cohort_id: str) -> Callable[[str], str]:
    return lambda other: other if other in GLOBAL_REFERENCES else f"{other}-{cohort_id}"


def datapackage(
    global_tables: Iterable[str],
    cohort_tables: Mapping[str, Sequence[str]],
    weeks: Iterable[date],
    created: datetime,
) -> bytes:
    """The package: every site-wide table, each cohort's tables, each week's universe."""
    resources = [_resource(t, f"{t}.csv", t, _global) for t in global_tables]
    for cohort_id, tables in sorted(cohort_tables.items()):
        resources += [
            _resource(f"{t}-{cohort_id}", f"cohorts/{cohort_id}/{t}.csv", t, _of_cohort(cohort_id))
            for t in tables
        ]
    resources += [
        _resource(
            f"universe-{w.isoformat()}", f"universes/{w.isoformat()}.csv", "universe", _global
        )
        for w in sorted(weeks)
    ]
    package = {
        "profile": "tabular-data-package",
        "name": "forecaster-arena",
        "title": "Forecaster Arena: LLM agents forecasting Polymarket markets with paper money",
        "description": (
            "Every cohort, decision, prompt, reply, trade, position, settlement, score and "
            "snapshot of the benchmark, and the statistics computed from them. Methodology "
            "versions are never mixed: every site-wide row names its own."
        ),
        "licenses": [LICENSE],
        "created": cell(created),
        "resources": resources,
    }
    return json.dumps(package, indent=1, ensure_ascii=False).encode()


def cohort_ids(cohorts: Iterable[Cohort]) -> list[str]:
    return [c.cohort_id for c in cohorts]


def bundle(paths: Iterable[str], read: Callable[[str], bytes | None]) -> bytes:
    """A zip of the given data files (paths under data/, stored under ``dataset/``), each read
    with ``read``; files that cannot be read are left out."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(set(paths)):
            body = read(path)
            if body is None:
                continue
            info = zipfile.ZipInfo("dataset/" + path.removeprefix("data/"), (2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, body)  # a fixed date: the same data gives the same zip
    return buffer.getvalue()
