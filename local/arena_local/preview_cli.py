"""``arena preview --family ID [--week DATE] [--offline] [--call] [--llm-base-url URL]``.

With ``--offline`` and no AWS configuration at all (no region, or no credentials), no stack is
looked for: the preview is the prompt a fresh agent of the family gets from the seeded lineup
(release 1, as the first cohort would freeze it) on the recorded dump, so a newcomer sees what
an agent is asked without deploying anything. With a configuration, the deployed stack's agent,
as before."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import boto3
import httpx

from arena_core.adapters.openrouter import OPENROUTER_URL, OpenRouterClient
from arena_core.adapters.polymarket import GammaMarketSource
from arena_core.adapters.secrets import parameter_api_key
from arena_core.agents.llm import LLMAgent
from arena_core.domain import ids
from arena_core.domain.cohort import date_in_calendar
from arena_core.domain.panel_design import PANEL_SIZE
from arena_core.errors import ConfigurationError
from arena_core.ports.market_source import MarketSource
from arena_core.services.panel import PanelSettings
from arena_local import operations
from arena_local.arguments import add_panel_options, week
from arena_local.cost.model import load_prices
from arena_local.demo.markets import FIXTURES, RECORDED_DUMP, from_file
from arena_local.memory import memory_stores
from arena_local.preview import (
    build_preview,
    call_model,
    find_member,
    lineup_in_force,
    price_lines,
    print_prompt,
)
from arena_local.replay import GammaReplay

UNIVERSE_SIZE = 500  # the deployed default (ARENA_UNIVERSE_SIZE)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser], stack: str) -> None:
    preview = commands.add_parser(
        "preview", help="print the prompt an agent would get now; --call asks its model"
    )
    preview.add_argument("--family", required=True, help="stable family id, e.g. kimi-k2")
    preview.add_argument("--week", type=week, help="the cohort's Sunday (default: the newest)")
    preview.add_argument("--offline", action="store_true", help="the recorded Gamma dump")
    preview.add_argument("--call", action="store_true", help="send it to the family's model")
    preview.add_argument("--llm-base-url", help="an OpenAI-compatible server instead of OpenRouter")
    preview.add_argument("--stack", default=stack)
    add_panel_options(
        preview,
        methodology_help="the protocol of a cohort not opened yet (a stored agent keeps its "
        "cohort's)",
        panel_help=f"K under v1+panel (default {PANEL_SIZE}, the deployed setting's default)",
    )


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    moment = now or datetime.now(UTC)
    ids.family_id(args.family)  # both checked before AWS is asked anything
    if args.week is not None:
        date_in_calendar(args.week, "--week")
    if args.offline and not aws_configured():
        stores, outputs = memory_stores(), None  # no deployment: the seeded lineup, read only
    else:
        stores, found = operations.stack_stores(args.stack)
        outputs = found
    member = find_member(stores, args.family, args.week, moment, args.methodology)
    source, origin = _source(args.offline)
    markets = source.top_markets(UNIVERSE_SIZE).ordered()
    settings = PanelSettings(args.panel_size)
    design = settings.design
    closes_by = moment + timedelta(days=design.horizon_days)
    preview = build_preview(
        stores,
        member,
        markets,
        moment,
        listing=lambda: source.panel_listing(moment, closes_by, design.min_liquidity).ordered(),
        settings=settings,
    )
    print_prompt(preview, origin, sys.stdout)
    lineup = member.cohort.lineup if member.stored else lineup_in_force(stores, moment)
    for line in price_lines(preview, lineup, load_prices()["llm"]):
        print(line)
    if args.call:
        key = _api_key(args.llm_base_url, lambda: _parameter(outputs))
        with httpx.Client() as http:
            client = OpenRouterClient(http, key, base_url=args.llm_base_url or OPENROUTER_URL)
            call_model(preview, LLMAgent(client, member.agent.model_id), sys.stdout)
    return 0


def aws_configured() -> bool:
    """Whether boto3 finds a region and credentials (environment, profile or instance): what
    looking for a deployed stack needs."""
    session = boto3.session.Session()
    return session.region_name is not None and session.get_credentials() is not None


def _parameter(outputs: operations.StackOutputs | None) -> str:
    if outputs is None:
        raise ConfigurationError(
            "no AWS configuration: set OPENROUTER_API_KEY (or --llm-base-url) to --call a model"
        )
    return outputs.get("OpenRouterParameterName")


def _source(offline: bool) -> tuple[MarketSource, str]:
    if not offline:
        return GammaMarketSource(httpx.Client()), "the live Gamma API"
    dump = FIXTURES / RECORDED_DUMP
    if not dump.is_file():
        raise ConfigurationError(f"--offline needs the recorded dump {dump} (../shared beside)")
    replay = GammaReplay(from_file(dump).payloads)
    return GammaMarketSource(
        httpx.Client(transport=replay.transport())
    ), f"the recorded {dump.name}"


def _api_key(base_url: str | None, parameter: Callable[[], str]) -> Callable[[], str | None]:
    """OPENROUTER_API_KEY, else (OpenRouter only) the deployed SSM parameter; a local server
    needs none."""
    key = os.environ.get("OPENROUTER_API_KEY") or None
    if key is not None or base_url is not None:
        return lambda: key
    return parameter_api_key(parameter())
