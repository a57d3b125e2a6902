"""``arena demo``: choose markets and agents, run the simulation, print what happened.

With ``--faults`` the same weeks run twice from the same seed, once clean (its site is the one
written to ``--out``) and once with faults injected, and the two ledgers are compared.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TextIO

import httpx

from arena_core.adapters.site_publishers import (
    EARLIER_ROOTS,
    LEGACY_MANIFEST,
    ROOT,
    state_folder,
)
from arena_core.domain.cohort import date_in_calendar
from arena_core.domain.lineup import BASELINES, AgentKind, AgentSpec, default_lineup
from arena_core.domain.panel import Methodology
from arena_core.domain.panel_design import PANEL_SIZE, panel_design
from arena_core.ports.publisher import INTERNAL
from arena_local.demo.errors import DemoError, LedgerMismatchDemoError
from arena_local.demo.faults import FaultInjector
from arena_local.demo.ledger import differences, export_differences, totals, write_ledger
from arena_local.demo.markets import FIXTURES, MarketChoice, choose_markets, panel_listing
from arena_local.demo.printout import print_leaderboards
from arena_local.demo.progress import ProgressBar
from arena_local.demo.runner import LLMOptions, RunOptions, RunReport, demo_start
from arena_local.standins import standin_lineup
from arena_local.status import STATUS_FILE
from arena_local.workflow import synthesized_template

REPO = Path(__file__).resolve().parents[3]
OPENROUTER_URL = "https://openrouter.ai/api/v1"
LEDGER_FILE = "ledger.json"
STAND_IN_NOTE = (
    "the standin-* families are simulated, not the real models: seeded forecasters that know "
    "how the simulation resolves its markets, each to its own degree"
)
GROUPS = ("baselines", "standins")  # --agents names for several agents at once


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
    methodology: Methodology = Methodology.V1
    pass_minutes: int = 10  # snapshot passes this often (tests: fewer, see RunOptions)
    panel_size: int = PANEL_SIZE  # K under v1+panel (the deployed default)


def llm_options(request: DemoRequest) -> LLMOptions | None:
    """Real models when OPENROUTER_API_KEY is set or a base URL is given; else none."""
    key = os.environ.get("OPENROUTER_API_KEY") or None
    if request.llm_base_url is None and key is None:
        return None
    return LLMOptions(key, request.llm_base_url or OPENROUTER_URL, request.llm_model)


def choose_lineup(request: DemoRequest, with_llms: bool) -> tuple[AgentSpec, ...]:
    """By default the seven model families (the real ones when configured, else their
    stand-ins) and the baselines; ``--agents`` picks family ids or the groups above."""
    models = default_lineup(include_baselines=False) if with_llms else standin_lineup()
    if not request.agents:
        return models + BASELINES
    groups = dict(zip(GROUPS, (BASELINES, standin_lineup()), strict=True))
    available = default_lineup(include_baselines=False) + standin_lineup() + BASELINES
    by_id = {spec.family_id: spec for spec in available}
    chosen: dict[str, AgentSpec] = {}  # in the order asked, each agent once
    for name in request.agents:
        specs = groups.get(name) or ((by_id[name],) if name in by_id else ())
        if not specs:
            choices = ", ".join([*groups, *by_id])
            raise DemoError(f"unknown agent {name!r}; choose from {choices}")
        chosen.update((spec.family_id, spec) for spec in specs)
    lineup = tuple(chosen.values())
    _check_runnable(lineup, with_llms)
    return lineup


def _check_runnable(lineup: tuple[AgentSpec, ...], with_llms: bool) -> None:
    """Real families need a real model server; stand-ins replace them only when none is set
    (one client serves a run, so the two cannot be mixed)."""
    if not with_llms and any(s.kind is AgentKind.LLM and not s.stand_in for s in lineup):
        raise DemoError(
            "model families need OPENROUTER_API_KEY or --llm-base-url; their stand-ins "
            "(standin-<id>) and the baselines need neither"
        )
    if with_llms and any(s.stand_in for s in lineup):
        raise DemoError(
            "stand-ins run only without real models: unset OPENROUTER_API_KEY and drop "
            "--llm-base-url, or choose the real families"
        )


def prepare_out(out: Path) -> None:
    """An empty folder, or a previous demo site (recognised by its manifest) to replace, and
    its state folder beside it (``site.state``: the manifest, the ledger and the status, which
    are not for readers and so never in the site folder).

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
    state = state_folder(out)
    ours = (
        any((state / key.removeprefix(INTERNAL)).exists() for key in (ROOT, *EARLIER_ROOTS))
        or (out / LEGACY_MANIFEST).exists()
    )
    for folder in (out, state):
        if folder.is_dir() and any(folder.iterdir()):
            if not ours:
                raise DemoError(f"{folder} is not empty and not a previous demo's; not touching")
            shutil.rmtree(folder)


def _why(exc: OSError) -> str:
    """The reason alone: the message already names ``--out``, which the OSError repeats."""
    return exc.strerror or str(exc)


def check_weeks(start: date | None, weeks: int) -> None:
    """The weeks simulated lie in the arena's calendar (``--start 0001-01-01`` or
    ``9999-12-31`` would overflow the week arithmetic): refused before anything is touched."""
    day = start or datetime.now(UTC).date()
    date_in_calendar(day, "--start")
    date_in_calendar(day + timedelta(days=7 * weeks), "the last simulated week")


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
    check_weeks(request.start, request.weeks)
    llm = llm_options(request)
    lineup = choose_lineup(request, with_llms=llm is not None)
    markets = load_markets(request)
    prepare_out(request.out)
    stream.write(f"Markets: {markets.describe()}\n")
    stream.write(f"Agents: {', '.join(spec.family_id for spec in lineup)}\n")
    if any(spec.stand_in for spec in lineup):
        stream.write(f"Stand-ins: served on 127.0.0.1 for this run; {STAND_IN_NOTE}\n")
    start = first_sunday(request.start, stream)
    if request.methodology == Methodology.V1_PANEL:
        horizon = panel_design(request.panel_size).horizon_days
        listing = panel_listing(request.seed, start, request.weeks, request.panel_size, horizon)
        markets = markets.with_listing(listing, "a seeded synthetic panel listing")
        stream.write(
            f"Panel: K = {request.panel_size}, from every market of the listing that qualifies: "
            f"the recorded ones, and a seeded synthetic listing of {request.panel_size} a week "
            "(the recorded dump records no liquidity for the markets it replays as open)\n"
        )
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
        methodology=request.methodology,
        panel_size=request.panel_size,
        pass_minutes=request.pass_minutes,
        # What the site must say is simulated: the clock and the prices always; the markets
        # when they are recorded ones replayed (live Gamma markets are today's).
        simulation="clock,prices" if markets.live else "clock,prices,replayed-markets",
    )
    clean = _run(options, markets, template, None, stream)
    state = state_folder(request.out)  # beside the site: nothing a reader is served
    write_ledger(clean.ledger, state / LEDGER_FILE)
    if clean.status is not None:  # for `arena status --dir`
        (state / STATUS_FILE).write_text(clean.status.model_dump_json(indent=1) + "\n")
    outcome = DemoOutcome(clean)
    if request.faults:
        outcome = _compare_with_faults(options, markets, template, clean, stream)
    print_leaderboards(request.out, stream)
    _print_summary(clean, lineup, stream)
    stream.write(f"Site: {request.out.resolve()} (ledger and status: {state.resolve()})\n")
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
        exports = export_differences(options.site_dir / "data", faulty_options.site_dir / "data")
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
    if exports:
        stream.write("Exported dataset with faults DIFFERS from the clean run:\n")
        for line in exports:
            stream.write(f"  {line}\n")
        raise LedgerMismatchDemoError(
            "the fault run's exported dataset differs from the clean run's"
        )
    files = sum(1 for p in (options.site_dir / "data").rglob("*") if p.is_file())
    stream.write(
        f"Exported dataset with faults is identical to the clean run ({files} files; the "
        "replies' measured latencies aside)\n"
    )
    return DemoOutcome(clean, faulty, injector)


def _print_summary(report: RunReport, lineup: tuple[AgentSpec, ...], stream: TextIO) -> None:
    weeks = ", ".join(f"{s:.0f} s" for s in report.week_seconds)
    stream.write(f"Wall time per simulated week: {weeks}\n")
    if any(spec.stand_in for spec in lineup):
        stream.write(f"Note: {STAND_IN_NOTE}.\n")
