"""``arena verify --site DIR_OR_URL``: recompute every decision's commitment from a published
site's exports and check it against the commitments log and each run's Merkle root. Prints a
summary and every mismatch; exits 1 when there is any (2 when the site cannot be read)."""

from __future__ import annotations

import argparse

from arena_local.verify import render, verify
from arena_local.verify_site import open_site


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = commands.add_parser(
        "verify", help="check that every decision was committed before its outcome"
    )
    command.add_argument(
        "--site",
        required=True,
        metavar="DIR_OR_URL",
        help="the site: a folder (a demo's ./site, a downloaded copy) or its http(s) URL",
    )


def run(args: argparse.Namespace) -> int:
    report = verify(open_site(args.site))
    for line in render(report):
        print(line)
    return 0 if report.ok else 1
