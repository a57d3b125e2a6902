"""``arena cost``: the deployment's monthly cost, line by line (runs a metered simulated week
offline, about a minute)."""

from __future__ import annotations

import argparse
import sys

from arena_local.arguments import non_negative, positive


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cost = commands.add_parser("cost", help="the deployment's monthly AWS cost, line by line")
    cost.add_argument("--cohorts", type=positive, default=5, help="active cohorts (default 5)")
    cost.add_argument("--universe", type=positive, default=500, help="markets a run sees")
    cost.add_argument(
        "--snapshot-ttl-days",
        type=non_negative,
        default=30,
        help="raw snapshots' TTL in days (0 keeps them; default 30)",
    )


def run(args: argparse.Namespace) -> int:
    from arena_local.cost.main import cost_report  # noqa: PLC0415 - pulls in moto and the CDK app

    print("Simulating a metered week offline (about a minute)...", file=sys.stderr)
    for line in cost_report(
        cohorts=args.cohorts, universe_size=args.universe, ttl_days=args.snapshot_ttl_days
    ):
        print(line)
    return 0
