"""``arena analyze``: the command line of ``arena_local.analyze``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena_core.analysis.figures import alpha_problem
from arena_core.errors import ConfigurationError
from arena_local.analyze import Subset, analyse, json_files, open_source, rows_of
from arena_local.arguments import week
from arena_local.demo.printout import print_tables


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = commands.add_parser(
        "analyze", help="recompute the leaderboards and pairs from a published dataset"
    )
    command.add_argument(
        "dataset", metavar="DATASET", help="a dataset.zip, a site's data/ folder, or a site URL"
    )
    command.add_argument("--json", type=Path, metavar="DIR", help="write the JSON files here")
    command.add_argument(
        "--families", help="only these family ids, comma-separated (the market is always in)"
    )
    command.add_argument("--since", type=week, help="only weeks from this date (YYYY-MM-DD)")
    command.add_argument("--until", type=week, help="only weeks up to this date (YYYY-MM-DD)")
    command.add_argument(
        "--alpha", help="familywise error rate of the verdicts (default: the dataset's, 0.05)"
    )


def alpha_of(text: str | None) -> float | None:
    """``--alpha`` as a level, or None (the dataset's); refused in one line when it cannot be
    one (not a number, outside [1e-300, 1): a subnormal leaves no comparison a level)."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError as exc:
        raise ConfigurationError(f"--alpha {text[:40]!r} is not a number") from exc
    problem = alpha_problem(value)
    if problem is not None:
        raise ConfigurationError(f"--alpha: {problem}")
    return value


def run(args: argparse.Namespace) -> int:
    alpha = alpha_of(args.alpha)
    families = None
    if args.families is not None:
        families = frozenset(f.strip() for f in args.families.split(",") if f.strip())
    source = open_source(args.dataset)
    try:
        results = analyse(source, Subset(families, args.since, args.until), alpha=alpha)
    finally:
        source.close()
    rows = rows_of(results)
    print_tables(rows("leaderboard"), rows("panel_leaderboard"), sys.stdout)
    if args.json is not None:
        files = json_files(results)
        try:
            args.json.mkdir(parents=True, exist_ok=True)
            for name, body in files.items():
                (args.json / name).write_bytes(body)
        except OSError as exc:  # a file in the way, no permission, a full disk
            raise ConfigurationError(f"cannot write to {args.json}: {exc.strerror or exc}") from exc
        print(f"Wrote {', '.join(files)} to {args.json}")
    return 0
