"""Argument types the ``arena`` subcommands share."""

from __future__ import annotations

import argparse
from datetime import date

from arena_core.domain.panel import Methodology
from arena_core.domain.panel_design import MAX_PANEL_SIZE, PANEL_SIZE


def week(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from exc


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0: {text}")
    return value


def panel_size(text: str) -> int:
    """K, the forecast panel's size: between 1 and the largest allowed."""
    value = int(text)
    if not 1 <= value <= MAX_PANEL_SIZE:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_PANEL_SIZE}: {text}")
    return value


def add_panel_options(
    parser: argparse.ArgumentParser, *, methodology_help: str, panel_help: str
) -> None:
    """``--methodology`` (v1 by default) and ``--panel-size`` (K, the deployed default)."""
    parser.add_argument(
        "--methodology",
        type=Methodology,
        choices=list(Methodology),
        default=Methodology.V1,
        help=methodology_help,
    )
    parser.add_argument("--panel-size", type=panel_size, default=PANEL_SIZE, help=panel_help)
