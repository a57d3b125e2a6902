"""A reader's verdict of each family against the market, from the published CSVs alone: the
primary comparison (comparisons.csv, versus_market) where there is one, else the family's pair
with the market in pairwise.csv; in the site's words for the skill cell."""

from __future__ import annotations

import csv
from pathlib import Path

PRIMARY = {
    "better than the market": "better",
    "worse than the market": "worse",
    "undecided": "undecided",
    "too few shared": "too few shared",
    "nothing shared": "nothing shared",
}


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def market_verdicts(data: Path, methodology: str, measure: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for pair in _rows(data / "pairwise.csv"):
        if pair["methodology"] != methodology or pair["measure"] != measure:
            continue
        if "market" not in (pair["family_a"], pair["family_b"]):
            continue
        family = pair["family_b"] if pair["family_a"] == "market" else pair["family_a"]
        verdict = pair["verdict"]
        if verdict in ("A better", "B better"):
            won = (verdict == "A better") == (pair["family_a"] == family)
            found[family] = "better" if won else "worse"
        else:
            found[family] = verdict
    for row in _rows(data / "comparisons.csv"):
        if row["methodology"] == methodology and row["comparison"] == "versus_market":
            found[row["family_id"]] = PRIMARY[row["verdict"]]
    return found
