"""``arena cost``: the deployment's monthly cost, line by line (meters a simulated steady state
offline: a year's completed cohorts, the live ones, and a sample at the deployed cadence)."""

from __future__ import annotations

import argparse
import sys

from arena_local.arguments import non_negative, positive


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cost = commands.add_parser("cost", help="the deployment's monthly AWS cost, line by line")
    cost.add_argument("--cohorts", type=positive, default=5, help="live cohorts (default 5)")
    cost.add_argument("--universe", type=positive, default=500, help="markets a run sees")
    cost.add_argument(
        "--snapshot-ttl-days",
        type=non_negative,
        default=30,
        help="raw snapshots' TTL in days (0 keeps them; default 30)",
    )
    cost.add_argument(
        "--history-weeks",
        type=non_negative,
        default=47,
        help="completed cohorts before the live ones (default 47)",
    )
    cost.add_argument(
        "--sample-hours", type=positive, default=6, help="hours metered from Sunday 00:00"
    )


def run(args: argparse.Namespace) -> int:
    from arena_local.cost.main import cost_report  # noqa: PLC0415 - pulls in moto and the CDK app
    from arena_local.cost.steady import SteadyState  # noqa: PLC0415

    print("Metering a simulated steady state offline (a few minutes)...", file=sys.stderr)
    steady = SteadyState(
        live_cohorts=args.cohorts,
        history_weeks=args.history_weeks,
        sample_hours=args.sample_hours,
        universe_size=args.universe,
        ttl_days=args.snapshot_ttl_days,
    )
    for line in cost_report(steady):
        print(line)
    return 0
