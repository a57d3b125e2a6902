"""The ``arena`` command: ``demo``, ``serve`` and ``cost`` locally; ``rerun``, ``export``,
``lineup``, ``preview`` and ``status`` against a deployed stack (``status --dir`` also reads a
demo's output); ``verify`` and ``analyze`` on any published site or dataset, a folder or a
URL. Errors the system can explain (``ArenaError``) print one line and exit 2, as argparse
does for a malformed invocation; library exceptions are translated into them where they arise,
so an operator's mistake never ends in a traceback.

``demo`` needs the repository checkout beside the installed package (it synthesizes the CDK app
in ``infra/`` and drives it on embedded AWS); the other commands need only this package and
boto3. Not shipped in the Lambda layer.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path

from arena_core.domain import ids
from arena_core.domain.panel_design import PANEL_SIZE
from arena_core.errors import ArenaError, ConfigurationError
from arena_local import analyze_cli, cost_cli, lineup_cli, preview_cli, status_cli, verify_cli
from arena_local.arguments import add_panel_options, positive, week
from arena_local.serve import SiteHandler

DEFAULT_STACK = "ForecasterArena"


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0 (0 = all agents at once): {text}")
    return value


def _port(text: str) -> int:
    # socket.bind raises OverflowError (not OSError) outside 0-65535, and port 0 would bind a
    # random port that the printed URL could not name.
    value = int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be between 1 and 65535: {text}")
    return value


def _agents(text: str) -> tuple[str, ...]:
    return tuple(a.strip() for a in text.split(",") if a.strip())


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="arena", description=__doc__.split("\n\n")[0])
    commands = root.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="simulate whole weeks offline on embedded AWS")
    demo.add_argument("--weeks", type=positive, default=2, help="simulated weeks (default 2)")
    demo.add_argument(
        "--seed", type=int, default=7, help="prices, baselines, stand-ins, faults (default 7)"
    )
    demo.add_argument("--markets", type=Path, help="a Gamma /markets JSON dump to replay")
    demo.add_argument("--out", type=Path, default=Path("site"), help="site folder (./site)")
    demo.add_argument(
        "--agents",
        type=_agents,
        default=(),
        help="family ids or groups (baselines, standins), comma-separated; default: the seven "
        "stand-ins (the real models with OPENROUTER_API_KEY or --llm-base-url) and the baselines",
    )
    demo.add_argument("--faults", action="store_true", help="inject faults, compare ledgers")
    demo.add_argument("--offline", action="store_true", help="never ask the live Gamma API")
    demo.add_argument("--start", type=week, help="a day in the first week (default: today)")
    demo.add_argument("--llm-base-url", help="an OpenAI-compatible server instead of OpenRouter")
    demo.add_argument("--llm-model", help="send every model family to this one model")
    add_panel_options(
        demo,
        methodology_help="the protocol the cohorts freeze: v1 (default) or v1+panel (plus the "
        "forecast panel)",
        panel_help=f"K, the forecast panel's questions a week under v1+panel "
        f"(default {PANEL_SIZE})",
    )
    demo.add_argument(
        "--site-refresh",
        type=int,
        default=10080,
        help="minutes between scheduled site publications (default 10080: weekly)",
    )
    demo.add_argument(
        "--dynamodb-endpoint",
        help="a real DynamoDB endpoint (DynamoDB Local: http://127.0.0.1:PORT) instead of moto",
    )

    serve = commands.add_parser("serve", help="serve the generated site on localhost")
    serve.add_argument("--dir", type=Path, default=Path("site"))
    serve.add_argument("--port", type=_port, default=8000, help="1-65535 (default 8000)")

    rerun = commands.add_parser("rerun", help="start a deployed decision run for one week")
    rerun.add_argument(
        "--week",
        type=week,
        required=True,
        help="the week's Sunday, YYYY-MM-DD (this week or earlier)",
    )
    rerun.add_argument("--agent", action="append", dest="agents", help="agent id (repeatable)")
    rerun.add_argument("--max-concurrency", type=_non_negative, help="0 = all agents at once")
    rerun.add_argument("--stack", default=DEFAULT_STACK)

    export = commands.add_parser("export", help="download the public dataset of a deployment")
    export.add_argument("--out", type=Path, required=True)
    export.add_argument("--stack", default=DEFAULT_STACK)
    lineup_cli.add_parser(commands, DEFAULT_STACK)
    preview_cli.add_parser(commands, DEFAULT_STACK)
    status_cli.add_parser(commands, DEFAULT_STACK)
    cost_cli.add_parser(commands)
    verify_cli.add_parser(commands)
    analyze_cli.add_parser(commands)
    return root


def main(
    argv: Sequence[str] | None = None, *, today: date | None = None, now: datetime | None = None
) -> int:
    """Run one command; ``today`` (UTC by default) decides which weeks have begun, ``now``
    (default: the clock) is when a preview's decision would run."""
    args = parser().parse_args(argv)
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "demo": _demo,
        "serve": _serve,
        "rerun": functools.partial(_rerun, today=today or datetime.now(UTC).date()),
        "export": _export,
        "lineup": lineup_cli.run,
        "preview": functools.partial(preview_cli.run, now=now),
        "status": functools.partial(status_cli.run, now=now),
        "cost": cost_cli.run,
        "verify": verify_cli.run,
        "analyze": analyze_cli.run,
    }
    try:
        return handlers[args.command](args)
    except ArenaError as exc:
        print(f"arena {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _demo(args: argparse.Namespace) -> int:
    try:
        from arena_local.demo.main import DemoRequest, run_demo  # noqa: PLC0415 - repository only
    except ModuleNotFoundError as exc:
        raise ConfigurationError(
            "arena demo runs from the repository checkout (it needs infra/): run `make demo`"
        ) from exc
    request = DemoRequest(
        weeks=args.weeks,
        seed=args.seed,
        markets=args.markets,
        out=args.out,
        agents=args.agents,
        faults=args.faults,
        offline=args.offline,
        start=args.start,
        llm_base_url=args.llm_base_url,
        llm_model=args.llm_model,
        site_refresh_minutes=args.site_refresh,
        methodology=args.methodology,
        panel_size=args.panel_size,
        dynamodb_endpoint=args.dynamodb_endpoint,
    )
    run_demo(request)  # a fault run whose ledger differs raises: exit 2 with the reason
    return 0


def _serve(args: argparse.Namespace) -> int:
    folder: Path = args.dir
    if not (folder / "index.html").is_file():
        raise ConfigurationError(f"no site in {folder}: run `arena demo` first")
    with _bind(args.port, folder) as server:
        print(f"Serving {folder.resolve()} at http://127.0.0.1:{args.port}/ (Ctrl-C to stop)")
        server.serve_forever()
    return 0


def _bind(port: int, folder: Path) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(SiteHandler, directory=str(folder))
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:  # the port is taken, or reserved for root
        raise ConfigurationError(
            f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}; choose another --port"
        ) from exc


def _rerun(args: argparse.Namespace, today: date) -> int:
    from arena_local import operations  # noqa: PLC0415

    # Refuse a week the workflow would misread, or a name that is no agent id, before asking
    # AWS anything.
    operations.check_rerun_week(args.week, today)
    for agent_id in args.agents or ():
        ids.agent_id(agent_id)
    payload = operations.rerun_input(args.week, args.agents, args.max_concurrency)
    cloudformation, stepfunctions = operations.clients("cloudformation", "stepfunctions")
    outputs = operations.stack_outputs(cloudformation, args.stack)
    arn = operations.start_rerun(stepfunctions, outputs.get("StateMachineArn"), payload)
    print(f"Started {arn}\nInput: {payload}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from arena_local import operations  # noqa: PLC0415

    cloudformation, s3 = operations.clients("cloudformation", "s3")
    outputs = operations.stack_outputs(cloudformation, args.stack)
    written = operations.export_dataset(s3, outputs.get("SiteBucket"), args.out)
    print(f"Wrote {len(written)} files under {args.out / 'data'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
