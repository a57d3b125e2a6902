"""Where a simulated week's time goes: the run profiled, the time grouped by component.

A week runs on several threads: the clock's (snapshot, resolution, publication), Step
Functions' executions on moto (the decision run's handlers) and the stand-ins' HTTP server.
``ThreadProfiles`` runs ``cProfile`` over all of them. Two views of the profile:

- ``stage_seconds``: inclusive seconds of the demo's stages (a snapshot tick, of which the
  pass and the publication; the decision run; resolution), read from the cumulative time of
  the function that runs each stage;
- ``component_seconds``: self seconds grouped by where the code lives (moto's DynamoDB, the
  publication, botocore, pydantic, ...). A C function (``json.dumps``, a ``Decimal`` method) is
  charged to the component of the Python function that called it; time spent waiting (sleep,
  a lock, a socket) is a component of its own, ``waiting``, kept out of the CPU total.

Profiling slows the code it watches (each Python call costs more): shares are the figure to
read, not seconds.
"""

from __future__ import annotations

import cProfile
import pstats
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

Function = tuple[str, int, str]  # (file, line, name), as pstats keys its entries
WAITING = "waiting (sleep, locks, sockets)"

# Where the code lives (a path fragment) -> its component; the first match wins.
COMPONENTS: tuple[tuple[str, str], ...] = (
    ("/arena_core/services/publish_site", "publication (arena_core site, publication, dataset)"),
    ("/arena_core/publication/", "publication (arena_core site, publication, dataset)"),
    ("/arena_core/site/", "publication (arena_core site, publication, dataset)"),
    ("/arena_core/dataset/", "publication (arena_core site, publication, dataset)"),
    ("/arena_core/adapters/manifest", "publication (arena_core site, publication, dataset)"),
    ("/arena_core/adapters/site_publishers", "publication (arena_core site, publication, dataset)"),
    ("/arena_core/analysis/", "statistics (arena_core analysis)"),
    ("/arena_core/services/snapshot", "snapshot pass (arena_core service)"),
    ("/arena_core/services/", "other services (decide, resolve, open, trade)"),
    ("/arena_core/adapters/dynamodb/", "DynamoDB adapter (arena_core)"),
    ("/arena_core/adapters/", "other adapters (Polymarket, OpenRouter, S3)"),
    ("/arena_core/", "domain, scoring and the rest of arena_core"),
    ("/functions/", "Lambda handlers"),
    ("/arena_local/standins/", "stand-in models"),
    ("/arena_local/", "demo harness (runner, replay, simulation, moto shims)"),
    ("/moto/dynamodb/", "moto: DynamoDB"),
    ("/moto/stepfunctions/", "moto: Step Functions"),
    ("/moto/s3/", "moto: S3"),
    ("/moto/", "moto: core (routing, responses) and other services"),
    ("/responses/", "moto: core (routing, responses) and other services"),
    ("/werkzeug/", "moto: core (routing, responses) and other services"),
    ("/botocore/", "botocore and boto3 (requests, parsing)"),
    ("/boto3/", "botocore and boto3 (requests, parsing)"),
    ("/pydantic", "pydantic"),
    ("/httpx/", "httpx"),
    ("/httpcore/", "httpx"),
    ("/h11/", "httpx"),
    ("/jinja2/", "jinja2 (site templates)"),
    ("/markupsafe/", "jinja2 (site templates)"),
    ("/aws_lambda_powertools/", "Powertools (logging, tracing)"),
    ("/http/server.py", "stdlib HTTP server (the stand-ins')"),
    ("/socketserver.py", "stdlib HTTP server (the stand-ins')"),
    ("/json/", "stdlib json"),
)
# C functions that wait rather than compute (their names as cProfile prints them).
WAITS = ("sleep", "acquire", "select", "poll", ".wait", "recv", "accept", "sendall")


def component_of(function: Function) -> str | None:
    """The component of a Python function, by the file it is defined in (None: the standard
    library or a C function, charged to their callers)."""
    path = function[0].replace("\\", "/")
    for fragment, component in COMPONENTS:
        if fragment in path:
            return component
    if function[0] == "~" or path.startswith("<") or "site-packages" not in path:
        return None
    return OTHER


OTHER = "other libraries"
UNCALLED = "the standard library, uncalled from the above"


def is_waiting(function: Function) -> bool:
    return function[0] == "~" and any(word in function[2] for word in WAITS)


def component_seconds(stats: pstats.Stats) -> dict[str, float]:
    """Self seconds by component, largest first (see the module's docstring)."""
    table: dict[Function, Any] = stats.stats  # type: ignore[attr-defined]
    shares = _Shares(table)
    found: dict[str, float] = {}
    for function, entry in table.items():
        if is_waiting(function) or component_of(function) is not None:
            charged = shares.of(function)
        else:  # its time by caller, each caller's part by that caller's components
            charged = {}
            for caller, times in entry[4].items():
                for component, share in shares.of(caller).items():
                    charged[component] = charged.get(component, 0.0) + share * times[2]
            total = sum(charged.values())
            charged = {c: v / total for c, v in charged.items()} if total > 0 else {UNCALLED: 1.0}
        for component, share in charged.items():
            found[component] = found.get(component, 0.0) + share * entry[2]
    return dict(sorted(found.items(), key=lambda item: -item[1]))


class _Shares:
    """Which components a function's time belongs to, as fractions: its own component; for
    a standard-library or C function, its callers' components weighted by the time each
    caller spent in it (memoized; a cycle of callers is cut)."""

    def __init__(self, table: dict[Function, Any]) -> None:
        self._table = table
        self._known: dict[Function, dict[str, float]] = {}

    def of(
        self, function: Function, visiting: frozenset[Function] = frozenset()
    ) -> dict[str, float]:
        known = self._known.get(function)
        if known is not None:
            return known
        if is_waiting(function):
            return {WAITING: 1.0}
        component = component_of(function)
        if component is not None:
            return {component: 1.0}
        entry = self._table.get(function)
        callers: dict[Function, Any] = entry[4] if entry else {}
        found: dict[str, float] = {}
        if len(visiting) < MAX_DEPTH:
            for caller, times in callers.items():
                if caller in visiting or caller == function:
                    continue
                weight = max(times[3], 0.0)
                for name, share in self.of(caller, visiting | {function}).items():
                    found[name] = found.get(name, 0.0) + share * weight
        total = sum(found.values())
        result = {c: v / total for c, v in found.items()} if total > 0 else {UNCALLED: 1.0}
        self._known[function] = result  # with its cycle cut where first met: a fair share
        return result


MAX_DEPTH = 8  # callers followed up from a standard-library or C function


@dataclass(frozen=True)
class Stage:
    label: str
    file: str  # a path fragment of the file defining the function that runs the stage
    name: str  # the function's name


STAGES: tuple[Stage, ...] = (
    Stage("snapshot ticks (functions/snapshot)", "/functions/snapshot/handler.py", "handler"),
    Stage("  the snapshot pass (SnapshotService.run)", "/services/snapshot.py", "run"),
    Stage("  publication (PublishSiteService.run)", "/services/publish_site.py", "run"),
    Stage("resolution (functions/resolve)", "/functions/resolve/handler.py", "handler"),
    Stage("cohort opening (functions/open_cohort)", "/functions/open_cohort/handler.py", "handler"),
    Stage("decision runs (Step Functions on moto, wall)", "/demo/runner.py", "_decision_run"),
    Stage("  prepare (functions/decide)", "/functions/decide/handler.py", "prepare"),
    Stage("  decide, each agent (functions/decide)", "/functions/decide/handler.py", "decide"),
    Stage("    stand-in models' answers (their server)", "/standins/server.py", "do_POST"),
    Stage("  finalize, with its publication", "/functions/decide/handler.py", "finalize"),
    Stage("the closing publication and ledger", "/demo/runner.py", "_finish"),
)


def stage_seconds(stats: pstats.Stats, stages: Sequence[Stage] = STAGES) -> list[float]:
    """Each stage's inclusive seconds (summed over the threads that ran it)."""
    table: dict[Function, Any] = stats.stats  # type: ignore[attr-defined]
    seconds = []
    for stage in stages:
        path = stage.file
        seconds.append(
            sum(
                entry[3]
                for function, entry in table.items()
                if function[2] == stage.name and path in function[0].replace("\\", "/")
            )
        )
    return seconds


class ThreadProfiles:
    """cProfile over the whole process while ``active``; ``stats()`` once it has exited.

    From Python 3.12 cProfile watches through ``sys.monitoring``, whose events come from
    every thread, and one profiler at a time: the one enabled here sees the clock's thread,
    Step Functions' and the stand-ins' server. It keeps one call stack for all of them, so
    time spent while threads interleave (the decision run's minutes of a week) is charged to
    whichever function was on top: its stage figures are approximate, the week's others not.
    """

    def __init__(self) -> None:
        self._profile = cProfile.Profile()

    @contextmanager
    def active(self) -> Iterator[None]:
        self._profile.enable()
        try:
            yield
        finally:
            self._profile.disable()

    def stats(self) -> pstats.Stats:
        return pstats.Stats(self._profile)


def report_lines(stats: pstats.Stats, top: int = 14) -> list[str]:
    """The two views as printed lines: stages (share of the week's wall time is not known
    here: shares of the first stage's total) and components (share of CPU, waiting apart)."""
    lines = ["by stage (inclusive seconds under the profiler, threads summed):"]
    for stage, seconds in zip(STAGES, stage_seconds(stats), strict=True):
        lines.append(f"  {stage.label:<52} {seconds:8.1f} s")
    components = component_seconds(stats)
    busy = sum(s for c, s in components.items() if c != WAITING) or 1.0
    lines.append(f"by component (self seconds, all threads; CPU total {busy:.1f} s):")
    shown = [(c, s) for c, s in components.items() if c != WAITING][:top]
    for component, seconds in shown:
        lines.append(f"  {component:<60} {seconds:8.1f} s {seconds / busy:6.1%}")
    lines.append(f"  {WAITING:<60} {components.get(WAITING, 0.0):8.1f} s (not CPU)")
    return lines
