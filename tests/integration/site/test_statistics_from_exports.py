"""Every statistic the site shows recomputes from the published dataset alone.

``arena analyze`` on the site's ``data/`` folder (or its ``dataset.zip``) writes the
leaderboard, panel leaderboard and pairwise files byte for byte; the pages print exactly the
figures of the board recomputed from the input tables; a truncated or garbled dataset is one
line on stderr and exit status 2.
"""

from __future__ import annotations

import csv
import io
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from arena_core.analysis.families import FamilyResult
from arena_core.analysis.figures import Figure, Rules
from arena_core.dataset.boards import BoardResult
from arena_core.scoring.calibration import murphy_decomposition
from arena_local.analyze import FolderSource, analyse
from arena_local.cli import main
from tests.support.html_tables import table, tables
from tests.support.market_verdicts import market_verdicts
from tests.support.scenario import PROVISIONAL_FAMILY, Scenario, build

RULES = Rules(min_forecasts=8, min_cohorts=2, min_weeks=2, min_events=4, min_return_cohorts=2)
OUTPUTS = ("leaderboard.json", "panel_leaderboard.json", "comparisons.json", "pairwise.json")


def read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def shown(value: float | None, places: int, signed: bool = False) -> str:
    """How a page prints a statistic: fixed places, no "-0", a plus sign where asked."""
    if value is None:
        return "—"
    text = f"{value:.{places}f}"
    if float(text) == 0:
        return text.lstrip("-")
    return f"+{text}" if signed and not text.startswith("-") else text


def shown_figure(f: Figure | None, places: int, signed: bool = False, unit: str = "") -> str:
    """The cell as a reader sees it: an interval in brackets, a zero-width one said in words."""
    if f is None:
        return "—"
    head = f"{shown(f.estimate, places, signed)}{unit}"
    if f.low is None or f.high is None:
        return f"{head} ({f.missing})" if f.missing else head
    if f.low == f.high:
        return f"{head} (no spread)"
    return f"{head} [{shown(f.low, places, signed)}, {shown(f.high, places, signed)}]"


def skill_cell(f: Figure | None, verdict: str) -> str:
    """The skill cell: its size, and the paired test's verdict against the market (the market's
    own forecasts: zero by construction, said so)."""
    if f is None:
        return "—"
    if f.low == f.high == f.estimate == 0:
        return "0 (the market’s forecasts)"
    head = shown(f.estimate, 3, True)
    return f"{head} {verdict}" if verdict else head


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    built = build(tmp_path_factory.mktemp("site"), weeks=3, extra=6, rules=RULES)
    built.publish()
    return built


@pytest.fixture(scope="module")
def recomputed(site: Scenario) -> BoardResult:
    """The board from the published input tables and analysis.json, nothing else."""
    (board,) = analyse(FolderSource(site.site_dir / "data"))
    return board


def test_the_scenario_exercises_every_standing_and_both_kinds_of_figure(
    recomputed: BoardResult,
) -> None:
    standings = {r.standing.value for r in recomputed.rows}
    assert standings == {"ranked", "provisional", "unscored", "reference"}
    provisional = recomputed.row(PROVISIONAL_FAMILY)
    assert provisional is not None and provisional.standing.value == "provisional"
    figures = [r.result.brier for r in recomputed.rows if r.result and r.result.brier]
    assert any(f.shown for f in figures) and any(not f.shown for f in figures)
    assert sum(p.difference is not None for p in recomputed.bets.pairs) >= 10


@pytest.mark.parametrize("where", ["data", "site", "zip"])
def test_arena_analyze_writes_the_sites_files_byte_for_byte(
    site: Scenario, tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = {
        "data": site.site_dir / "data",
        "site": site.site_dir,
        "zip": site.site_dir / "data" / "dataset.zip",
    }[where]
    assert main(["analyze", str(dataset), "--json", str(tmp_path)]) == 0
    for name in OUTPUTS:
        assert (tmp_path / name).read_bytes() == (site.site_dir / "data" / name).read_bytes()
    printed = capsys.readouterr().out
    assert "Leaderboard" in printed and "Wrote leaderboard.json" in printed


def test_a_subset_is_reanalysed_from_its_rows(site: Scenario, tmp_path: Path) -> None:
    data = site.site_dir / "data"
    keep = [r["family_id"] for r in read_csv(data / "families.csv")][:2]
    assert main(["analyze", str(data), "--families", ",".join(keep), "--json", str(tmp_path)]) == 0
    board = read_csv_json(tmp_path / "leaderboard.json")
    assert {r["family_id"] for r in board} == {*keep, "market"}
    first_week = read_csv(data / "forecasts.csv")[0]["run_week"][1:]
    assert main(["analyze", str(data), "--until", first_week, "--json", str(tmp_path)]) == 0
    (market,) = [r for r in read_csv_json(tmp_path / "leaderboard.json") if r["kind"] == "market"]
    weeks = {r["run_week"] for r in read_csv(data / "forecasts.csv")}
    assert len(weeks) > 1 and int(str(market["weeks"])) <= 1


def read_csv_json(path: Path) -> list[dict[str, object]]:
    import json  # noqa: PLC0415

    return list(json.loads(path.read_text()))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("truncate-zip", "not a readable zip file"),
        ("garble-csv", "forecasts.csv line"),
        ("drop-settings", "no analysis.json"),
        ("drop-table", "no forecasts.csv"),
        ("missing", "no dataset at"),
    ],
)
def test_a_damaged_dataset_is_one_line_and_exit_2(
    site: Scenario, tmp_path: Path, damage: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "data"
    shutil.copytree(site.site_dir / "data", copy)
    target = str(copy)
    if damage == "truncate-zip":
        body = (copy / "dataset.zip").read_bytes()
        (copy / "dataset.zip").write_bytes(body[: len(body) // 2])
        target = str(copy / "dataset.zip")
    elif damage == "garble-csv":
        lines = (copy / "forecasts.csv").read_text().splitlines()
        cells = lines[1].split(",")
        cells[9] = "two"  # p_yes
        (copy / "forecasts.csv").write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]))
    elif damage == "drop-settings":
        (copy / "analysis.json").unlink()
    elif damage == "drop-table":
        (copy / "forecasts.csv").unlink()
    else:
        target = str(tmp_path / "nowhere")
    assert main(["analyze", target]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_leaderboard_page_prints_the_recomputed_figures(
    site: Scenario, recomputed: BoardResult
) -> None:
    board = table((site.site_dir / "index.html").read_text(), "leaderboard")
    header = list(board.head[-1])  # the column names (above them, the column groups)
    column = {name: header.index(name) for name in header}
    rows = list(recomputed.rows)
    assert len(board.rows) == len(rows)
    verdicts = market_verdicts(site.site_dir / "data", recomputed.methodology, "brier")
    for cells, row in zip(board.rows, rows, strict=True):
        f: FamilyResult | None = row.result
        rank = cells[column["Rank"]]
        if row.rank is None:
            assert rank in ("prov.", "unranked", "ref")
        else:
            best, worst = row.rank_range or (0, 0)
            assert rank == f"{row.rank} ({best}–{worst})"
        assert cells[column["Brier"]] == shown_figure(f.brier if f else None, 3)
        verdict = verdicts.get(row.family_id, "") if row.kind in ("llm", "baseline") else ""
        assert cells[column["Skill vs market"]] == skill_cell(f.skill if f else None, verdict)
        assert cells[column["Log score"]] == shown_figure(f.log_score if f else None, 3)
        expected = shown_figure(f.returns if f else None, 2, True, "%")
        if f is not None and f.returns is None and f.provisional_return is not None:
            expected = f"{shown(f.provisional_return, 2, True)}% [live]"  # no matured cohort
        assert cells[column["Return %"]] == expected
        provisional = f.provisional.get("brier") if f else None
        assert cells[column["Brier, all resolved"]] == shown(provisional, 4)
        ece = f.calibration.ece if f else None
        assert cells[column["Calib. error"]] == shown(ece, 3)


def test_pairwise_page_prints_the_recomputed_verdicts(
    site: Scenario, recomputed: BoardResult
) -> None:
    page = table((site.site_dir / "pairwise.html").read_text(), "pairs-table")
    pairs = [*recomputed.bets.pairs, *recomputed.bets.return_pairs]
    shared = [p for p in pairs if p.difference is not None]
    assert len(page.rows) == len(shared)
    for cells, pair in zip(page.rows, shared, strict=True):
        d = pair.difference
        assert d is not None
        expected = shown(d.estimate, 4, signed=True)
        if d.shown:
            expected += f" [{shown(d.low, 4, True)}, {shown(d.high, 4, True)}]"
        assert cells[4] == expected
        assert (cells[5], cells[6]) == (shown(pair.p_value, 3), shown(pair.p_holm, 3))
        verdict, more = cells[9], cells[8]
        if verdict == "undecided so far":
            assert more.startswith("about") or more == "no difference established: no week promised"
        elif verdict == "too few shared for a verdict":
            assert more.endswith("needed") and d.low is None
        else:
            assert verdict.endswith("better") and more == "—" and pair.p_holm is not None
            assert pair.p_holm < 0.05


def test_model_pages_print_the_recomputed_calibration(
    site: Scenario, recomputed: BoardResult
) -> None:
    data = site.site_dir / "data"
    forecasts: dict[str, list[tuple[float, float, int]]] = {}
    for r in read_csv(data / "forecasts.csv"):
        if r["matured"] == "true":
            forecasts.setdefault(r["family_id"], []).append(
                (float(Decimal(r["p_yes"])), float(Decimal(r["market_p_yes"])), int(r["outcome"]))
            )
    for row in recomputed.rows:
        if row.kind not in ("llm", "baseline"):
            continue
        found = tables((site.site_dir / f"models/{row.family_id}.html").read_text())
        murphy = next(t for t in found if "murphy" in t.classes)
        rows = forecasts.get(row.family_id)
        if not rows:
            assert murphy.rows[0][1:] == ["—"]
            continue
        outcomes = [o for _, _, o in rows]
        for cells, probabilities in zip(
            murphy.rows, ([p for p, _, _ in rows], [m for _, m, _ in rows]), strict=True
        ):
            parts = murphy_decomposition(probabilities, outcomes)
            assert cells[1:] == [
                shown(parts[k], 4) for k in ("reliability", "resolution", "uncertainty", "brier")
            ]


def test_the_primary_comparisons_are_published_beside_the_secondary_pairs(site: Scenario) -> None:
    """Each ranked model against the market (the pair's difference, oriented model minus
    market, at its own Holm level over the models) and which could be the best; the pairwise
    page shows them first and calls the pairs secondary."""
    data = site.site_dir / "data"
    rows = [r for r in read_csv(data / "comparisons.csv") if r["methodology"] == "v1"]
    board = next(b for b in analyse(FolderSource(data)) if b.methodology == "v1")
    ranked = [r.family_id for r in board.rows if r.rank is not None]
    assert ranked and [r["family_id"] for r in rows] == ranked + ranked
    assert [r["comparison"] for r in rows] == ["versus_market"] * len(ranked) + ["best"] * len(
        ranked
    )
    pairs = {(p["family_a"], p["family_b"]): p for p in read_csv(data / "pairwise.csv")}
    for row in rows[: len(ranked)]:
        pair = pairs.get((row["family_id"], "market"))
        sign = Decimal(1)
        if pair is None:
            pair, sign = pairs[("market", row["family_id"])], Decimal(-1)
        assert Decimal(row["estimate"]) == sign * Decimal(pair["difference"])
        assert Decimal(row["confidence"]) >= Decimal(pair["confidence"]) - Decimal("0.05")
        assert "Holm over" in row["correction"] and "alpha 0.025" in row["correction"]
    for row in rows[len(ranked) :]:
        assert row["verdict"] in {"the best", "not the best", "could be the best", "too few shared"}
        assert "MCB" in row["correction"]
        if row["estimate_low"]:
            assert Decimal(row["estimate_low"]) <= 0 <= Decimal(row["estimate_high"])
    page = (site.site_dir / "pairwise.html").read_text()
    assert page.index("Primary comparisons") < page.index("Secondary: every pair")


def test_every_pair_is_labelled_secondary_with_its_own_correction(site: Scenario) -> None:
    rows = read_csv(site.site_dir / "data" / "pairwise.csv")
    tested: dict[tuple[str, str], int] = {}
    for row in rows:
        if row["p_value"]:
            key = (row["methodology"], row["measure"])
            tested[key] = tested.get(key, 0) + 1
    for row in rows:
        m = tested.get((row["methodology"], row["measure"]), 0)
        assert row["correction"] == f"secondary: Holm over {m} pairs at alpha 0.05"
