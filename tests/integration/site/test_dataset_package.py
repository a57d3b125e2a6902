"""The dataset as a package: datapackage.json validates as a Frictionless Data Package against
the exported files themselves (types, keys, foreign keys), describes every exported table, and
dataset.zip, read with pandas alone, recomputes the leaderboard."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from frictionless import Package

from arena_core.analysis.figures import Rules
from tests.support.scenario import Scenario, build

RULES = Rules(min_forecasts=8, min_cohorts=2, min_weeks=2, min_events=4)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    built = build(tmp_path_factory.mktemp("package"), weeks=2, extra=4, rules=RULES)
    built.publish()
    return built


def test_the_package_validates_against_the_files(site: Scenario) -> None:
    report = Package(str(site.site_dir / "data" / "datapackage.json")).validate()
    errors = [(t.name, e.type, e.note[:120]) for t in report.tasks for e in t.errors]
    assert errors == [] and report.valid
    assert len(report.tasks) > 30  # every site-wide table, each cohort's, each universe


def test_every_exported_table_is_described(site: Scenario) -> None:
    data = site.site_dir / "data"
    package = json.loads((data / "datapackage.json").read_text())
    described = {r["path"] for r in package["resources"]}
    exported = {str(p.relative_to(data)) for p in data.rglob("*.csv")}
    assert exported == described
    for resource in package["resources"]:
        fields = resource["schema"]["fields"]
        header = (data / resource["path"]).read_text().splitlines()[0].split(",")
        assert [f["name"] for f in fields] == header
        assert all(f["description"] and f["type"] for f in fields)
    units = {f.get("unit") for r in package["resources"] for f in r["schema"]["fields"]}
    assert {"USD", "probability", "percent"} <= units
    decisions = next(r for r in package["resources"] if r["name"].startswith("decisions-"))
    assert decisions["schema"]["primaryKey"] == ["decision_id"]
    trades = next(r for r in package["resources"] if r["name"].startswith("trades-"))
    targets = {k["reference"]["resource"] for k in trades["schema"]["foreignKeys"]}
    assert targets == {decisions["name"], "markets"}


def test_numbers_keep_one_precision_per_column(site: Scenario) -> None:
    data = site.site_dir / "data"
    package = json.loads((data / "datapackage.json").read_text())
    checked = 0
    for resource in package["resources"]:
        frame = pd.read_csv(data / resource["path"], dtype=str, keep_default_na=False)
        for f in resource["schema"]["fields"]:
            places = f.get("decimalPlaces")
            values = [v for v in frame[f["name"]] if v != ""] if places is not None else []
            for value in values:
                assert len(value.partition(".")[2]) == places, (resource["path"], f["name"], value)
                checked += 1
    assert checked > 1000


def test_the_zip_alone_recomputes_the_leaderboard(site: Scenario) -> None:
    archive = zipfile.ZipFile(io.BytesIO((site.site_dir / "data" / "dataset.zip").read_bytes()))
    names = set(archive.namelist())
    assert "dataset/datapackage.json" in names and "dataset/leaderboard.csv" in names
    assert any(n.startswith("dataset/cohorts/") and n.endswith("/prompts.csv") for n in names)

    def table(name: str) -> pd.DataFrame:
        return pd.read_csv(archive.open(f"dataset/{name}.csv"), dtype={"market_id": str})

    board = table("leaderboard").set_index("family_id")
    forecasts = table("forecasts")
    forecasts["brier"] = (forecasts["p_yes"] - forecasts["outcome"]) ** 2
    matured = forecasts[forecasts["matured"]]
    # pandas alone, no arena code: mean Brier over matured forecasts (the ranked figure) and
    # over every resolved bet (the provisional v1 figure), per family.
    recomputed = 0
    for family, group in forecasts.groupby("family_id"):
        row = board.loc[family]
        assert round(group["brier"].mean(), 6) == pytest.approx(row["provisional_brier"], abs=1e-9)
        mine = matured[matured["family_id"] == family]
        if mine.empty:
            assert pd.isna(row["brier"])
            continue
        assert round(mine["brier"].mean(), 6) == pytest.approx(row["brier"], abs=1e-9)
        assert int(row["forecasts"]) == len(mine)
        recomputed += 1
    assert recomputed >= 3


def test_citation_file_and_how_to_cite(site: Scenario) -> None:
    citation = (Path(__file__).parents[3] / "CITATION.cff").read_text()
    assert citation.startswith("cff-version: 1.2.0") and "preferred-citation" in citation
    page = (site.site_dir / "data" / "index.html").read_text()
    assert 'id="cite"' in page and "datapackage.json" in page and "dataset.zip" in page
