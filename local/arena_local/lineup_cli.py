"""``arena lineup show|set|retire|check``: the lineup releases of a deployed stack.

``set`` and ``retire`` write the next release, effective now: cohorts that open from now on
freeze it, cohorts already open keep theirs. ``check`` compares the release in force with
OpenRouter's model list (or a saved copy, ``--models-file``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import httpx

from arena_core.domain.lineup import AgentKind
from arena_core.domain.releases import LineupRelease, family_changes
from arena_core.domain.text import terminal_text
from arena_core.ports.clock import SystemClock
from arena_core.services.lineup import LineupService
from arena_local import catalogue, operations


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser], stack: str) -> None:
    lineup = commands.add_parser("lineup", help="the model lineup: releases, changes, checks")
    actions = lineup.add_subparsers(dest="lineup_command", required=True)
    show = actions.add_parser("show", help="the release in force and every earlier release")
    change = actions.add_parser("set", help="move a family to a model (or add a family)")
    change.add_argument("family", help="stable family id (a new id adds a family)")
    change.add_argument("model", help="OpenRouter model id, e.g. anthropic/claude-opus-4.6")
    change.add_argument("--display", help="display name (default: the family's current one)")
    change.add_argument("--provider", help="provider name (default: the family's, or the id's)")
    retire = actions.add_parser("retire", help="drop a family from future cohorts")
    retire.add_argument("family")
    check = actions.add_parser("check", help="compare the lineup with OpenRouter's model list")
    check.add_argument("--models-file", type=Path, help="a saved GET /models response")
    check.add_argument("--api-url", default=catalogue.OPENROUTER_API)
    for sub in (show, change, retire, check):
        sub.add_argument("--stack", default=stack)


def run(args: argparse.Namespace) -> int:
    stores, _ = operations.stack_stores(args.stack)
    service = LineupService(stores.lineups, SystemClock())
    actions: dict[str, Callable[[argparse.Namespace, LineupService], int]] = {
        "show": _show,
        "set": _set,
        "retire": _retire,
        "check": _check,
    }
    return actions[args.lineup_command](args, service)


def _show(args: argparse.Namespace, service: LineupService) -> int:
    del args
    releases = service.releases()
    for line in describe(releases, service.in_force()):
        print(line)
    return 0


def describe(releases: list[LineupRelease], current: LineupRelease) -> list[str]:
    lines = [
        f"Release {current.release} in force since {current.effective_from:%Y-%m-%d %H:%M} UTC",
        f"{'family':<26} {'display name':<30} {'provider':<12} {'model':<38} since",
    ]
    for spec in current.lineup:
        changed = [r for r, s in family_changes(releases, spec.family_id) if s is not None]
        since = changed[-1] if changed else current
        model = spec.model_id if spec.kind is AgentKind.LLM else f"({spec.kind.value})"
        # Stored text is shown inert: no name can run an escape sequence or forge a line.
        name, provider = terminal_text(spec.display_name, 80), terminal_text(spec.provider, 40)
        lines.append(
            f"{spec.family_id:<26} {name:<30} {provider:<12} {terminal_text(model):<38} "
            f"release {since.release} ({since.effective_from:%Y-%m-%d})"
        )
    lines.append("Releases:")
    lines += [
        f"  {r.release}: from {r.effective_from:%Y-%m-%d %H:%M} UTC, {len(r.lineup)} agents"
        + (f" ({terminal_text(r.note)})" if r.note else "")
        for r in releases
    ]
    return lines


def _set(args: argparse.Namespace, service: LineupService) -> int:
    release = service.set_model(
        args.family, args.model, display_name=args.display, provider=args.provider
    )
    print(
        f"Release {release.release}: {release.note}; cohorts opening from "
        f"{release.effective_from:%Y-%m-%d %H:%M} UTC on get it (open cohorts keep theirs)"
    )
    return 0


def _retire(args: argparse.Namespace, service: LineupService) -> int:
    release = service.retire(args.family)
    print(f"Release {release.release}: {release.note}; open cohorts keep it until they complete")
    return 0


def _check(args: argparse.Namespace, service: LineupService) -> int:
    if args.models_file is not None:
        models = catalogue.load_catalogue(args.models_file)
    else:
        with httpx.Client() as http:
            models = catalogue.fetch_catalogue(http, args.api_url)
    current = service.in_force()
    print(f"Release {current.release} against {len(models)} models listed by OpenRouter")
    for line in catalogue.report(catalogue.check(current.lineup, models)):
        print(line)
    return 0
