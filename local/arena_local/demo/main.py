"""``arena demo``: choose markets and agents, run the simulation, print what happened.

With ``--faults`` the same weeks run twice from the same seed, once clean (its site is the one
written to ``--out``) and once with faults injected, and the two ledgers are compared.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TextIO

import httpx

from arena_core.adapters.site_publishers import MANIFEST
from arena_core.domain.lineup import AgentKind, AgentSpec, default_lineup
from arena_local.demo.errors import DemoError, LedgerMismatchDemoError
from arena_local.demo.faults import FaultInjector
from arena_local.demo.ledger import differences, totals, write_ledger
from arena_local.demo.markets import MarketChoice, choose_markets
from arena_local.demo.progress import ProgressBar
from arena_local.demo.runner import LLMOptions, RunOptions, RunReport, demo_start
from arena_local.workflow import synthesized_template

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO.parent / "shared" / "fixtures"
OPENROUTER_URL = "https://openrouter.ai/api/v1"
LEDGER_FILE = "ledger.json"


@dataclass(frozen=True)
class DemoRequest:
    weeks: int = 2
    seed: int = 7
    markets: Path | None = None
    out: Path = Path("site")
    agents: tuple[str, ...] = ()
    faults: bool = False
    offline: bool = False
    start: date | None = None
    llm_base_url: str | None = None
    llm_model: str | None = None
    site_refresh_minutes: int = 10080
    dynamodb_endpoint: str | None = None


def llm_options(request: DemoRequest) -> LLMOptions | None:
    """Real models when OPENROUTER_API_KEY is set or a base URL is given; else none."""
    key = os.environ.get("OPENROUTER_API_KEY") or None
    if request.llm_base_url is None and key is None:
        return None
    return LLMOptions(key, request.llm_base_url or OPENROUTER_URL, request.llm_model)


def choose_lineup(request: DemoRequest, with_llms: bool) -> tuple[AgentSpec, ...]:
    available = default_lineup(include_llms=True)
    if not request.agents:
        return default_lineup(include_llms=with_llms)
    by_id = {spec.family_id: spec for spec in available}
    unknown = [a for a in request.agents if a not in by_id]
    if unknown:
        raise DemoError(f"unknown agent {unknown[0]!r}; choose from {', '.join(by_id)}")
    chosen = tuple(by_id[a] for a in request.agents)
    if not with_llms and any(spec.kind is AgentKind.LLM for spec in chosen):
        raise DemoError(
            "model families need OPENROUTER_API_KEY or --llm-base-url; the baselines need neither"
        )
    return chosen


def prepare_out(out: Path) -> None:
    """An empty folder, or a previous demo site (recognised by its manifest) to replace.

    Checked before the simulation starts, so that a folder the demo cannot write fails at once
    in one line instead of as a traceback from the first publication, minutes later.
    """
    if out.exists() and not out.is_dir():
        raise DemoError(f"--out {out} exists and is not a folder")
    try:
        _clear_previous_site(out)
    except OSError as exc:
        raise DemoError(f"--out {out}: the previous site cannot be replaced: {_why(exc)}") from exc
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a regular file on the path, or a folder we may not write into
        raise DemoError(f"--out {out} cannot be created: {_why(exc)}") from exc
    try:
        tempfile.TemporaryFile(dir=out).close()  # an existing folder may still be read-only
    except OSError as exc:
        raise DemoError(f"--out {out} is not writable: {_why(exc)}") from exc


def _clear_previous_site(out: Path) -> None:
    if out.is_dir() and any(out.iterdir()):
        if not (out / MANIFEST).exists():
            raise DemoError(f"--out {out} is not empty and not a previous demo site; not touching")
        shutil.rmtree(out)


def _why(exc: OSError) -> str:
    """The reason alone: the message already names ``--out``, which the OSError repeats."""
    return exc.strerror or str(exc)


def first_sunday(start: date | None, stream: TextIO) -> datetime:
    """The Sunday the simulation starts from; a ``--start`` on another day says which it is."""
    sunday = demo_start(start or datetime.now(UTC).date())  # weeks are UTC weeks
    if start is not None and sunday.date() != start:
        stream.write(f"--start {start} is a {start:%A}: simulating from Sunday {sunday:%Y-%m-%d}\n")
    return sunday


def load_markets(request: DemoRequest) -> MarketChoice:
    if request.markets is not None or request.offline:
        return choose_markets(
            path=request.markets, seed=request.seed, fixtures_dir=FIXTURES, http=None
        )
    with httpx.Client() as http:
        return choose_markets(path=None, seed=request.seed, fixtures_dir=FIXTURES, http=http)


@dataclass(frozen=True)
class DemoOutcome:
    clean: RunReport
    faulty: RunReport | None = None
    injector: FaultInjector | None = None


def run_demo(request: DemoRequest, stream: TextIO | None = None) -> DemoOutcome:
    """Run the demo; raises ``LedgerMismatchDemoError`` when the fault run's ledger differs.

    ``stream`` defaults to ``sys.stdout`` as it is at the call, not at import: a default bound
    at import would keep writing to a stream that has since been replaced or redirected.
    """
    stream = stream or sys.stdout
    if not 1 <= request.weeks <= 52:
        raise DemoError("--weeks must be between 1 and 52")
    if not 10 <= request.site_refresh_minutes <= 10080:
        raise DemoError("--site-refresh must be between 10 and 10080 minutes")
    llm = llm_options(request)
    lineup = choose_lineup(request, with_llms=llm is not None)
    markets = load_markets(request)
    prepare_out(request.out)
    stream.write(f"Markets: {markets.describe()}\n")
    stream.write(f"Agents: {', '.join(spec.family_id for spec in lineup)}\n")
    start = first_sunday(request.start, stream)
    stream.write(f"Simulating {request.weeks} week(s) from {start:%Y-%m-%d}, seed {request.seed}\n")
    template = synthesized_template()
    options = RunOptions(
        weeks=request.weeks,
        seed=request.seed,
        start=start,
        site_dir=request.out,
        lineup=lineup,
        llm=llm,
        site_refresh_minutes=request.site_refresh_minutes,
        dynamodb_endpoint=request.dynamodb_endpoint,
    )
    clean = _run(options, markets, template, None, stream)
    write_ledger(clean.ledger, request.out / LEDGER_FILE)
    outcome = DemoOutcome(clean)
    if request.faults:
        outcome = _compare_with_faults(options, markets, template, clean, stream)
    _print_leaderboard(request.out, stream)
    _print_summary(clean, stream)
    stream.write(f"Site: {request.out.resolve()} (ledger: {LEDGER_FILE} beside it)\n")
    stream.write(f"Serve it: .venv/bin/arena serve --dir {request.out}\n")
    return outcome


def _run(
    options: RunOptions,
    markets: MarketChoice,
    template: dict[str, object],
    injector: FaultInjector | None,
    stream: TextIO,
) -> RunReport:
    from arena_local.demo.runner import DemoRun  # noqa: PLC0415 - pulls in moto

    bar = ProgressBar(stream, "faults" if injector else "clean ")
    report = DemoRun(options, markets, dict(template), injector, bar).execute()
    bar.finish()
    return report


def _compare_with_faults(
    options: RunOptions,
    markets: MarketChoice,
    template: dict[str, object],
    clean: RunReport,
    stream: TextIO,
) -> DemoOutcome:
    injector = FaultInjector(seed=options.seed)
    with tempfile.TemporaryDirectory(prefix="arena-faults-") as tmp:
        faulty_options = RunOptions(**{**options.__dict__, "site_dir": Path(tmp) / "site"})
        faulty = _run(faulty_options, markets, template, injector, stream)
    stream.write(
        f"Faults injected: crashes {', '.join(injector.fired) or 'none'}; "
        f"{injector.retries} retried deliveries; {injector.duplicates} duplicate deliveries "
        f"(plus the cohort opener twice a week); {injector.concurrent_runs} concurrent "
        f"decision executions\n"
    )
    found = differences(clean.ledger, faulty.ledger)
    if found:
        stream.write("Ledger with faults DIFFERS from the clean run:\n")
        for line in found:
            stream.write(f"  {line}\n")
        raise LedgerMismatchDemoError("the fault run's ledger differs from the clean run's")
    stream.write(
        "Ledger with faults is identical to the clean run "
        f"({', '.join(f'{k} {v}' for k, v in totals(clean.ledger).items())})\n"
    )
    return DemoOutcome(clean, faulty, injector)


def _print_leaderboard(out: Path, stream: TextIO) -> None:
    path = out / "data" / "leaderboard.json"
    if not path.exists():
        return
    rows = json.loads(path.read_text())
    stream.write("\nLeaderboard\n")
    stream.write(f"{'rank':>4}  {'family':34} {'return %':>9} {'P/L $':>10} {'Brier':>7} bets\n")
    for row in rows:
        rank = row["rank"] if row["rank"] is not None else "-"
        ret = _num(row["return_pct_mean"], 2)
        brier = _num(row["brier"], 3)
        stream.write(
            f"{rank:>4}  {row['display_name'][:34]:34} {ret:>9} {_num(row['total_pnl'], 2):>10} "
            f"{brier:>7} {row['resolved_bets']}\n"
        )
    stream.write("\n")


def _num(value: str | None, places: int) -> str:
    return "-" if value is None else f"{float(value):.{places}f}"


def _print_summary(report: RunReport, stream: TextIO) -> None:
    weeks = ", ".join(f"{s:.0f} s" for s in report.week_seconds)
    stream.write(f"Wall time per simulated week: {weeks}\n")
