"""Issue 26's hostile inputs, replayed: how many end in an unhandled exception or leave lasting
damage. Prints one line per section and every case that is not a typed outcome, then totals.

    PYTHONPATH=. .venv/bin/python bench/hostile_inputs.py

A case is *typed* when the code answers with an ``ArenaError`` (or the command exits 2 with
one line), or does what it should; a *crash* is any other exception (or a traceback from the
command); *damage* is a typed or silent outcome that leaves a wrong state behind: a release
written under a bad id, a file outside the site, a claim or a universe taken by a bad request,
a decision left with trades applied and no outcome or never final, a verify that says OK to a
forgery, a CSV row split in two, a $0.00 trade. Stores are the in-memory ones and moto (and
DynamoDB Local with ``--dynamodb-local``), as the tests use them; nothing leaves the machine.
The cases are the issue's, grouped by its sections; it is not the issue's exact set of 770.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

from arena_core.adapters.polymarket.parse import parse_market
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.dataset.exports import to_csv
from arena_core.domain.cohort import Cohort
from arena_core.domain.commitment_log import decision_key
from arena_core.domain.decisions import DecisionRecord, DecisionStatus
from arena_core.domain.lineup import AgentKind, default_lineup
from arena_core.domain.market import ResolutionKind
from arena_core.domain.panel import Methodology
from arena_core.errors import ArenaError
from arena_core.ports.clock import FixedClock
from arena_core.ports.publisher import lazy_files
from arena_core.services.commitments import seal_run
from arena_core.services.decide import DecideRequest, DecideService, DecideSettings
from arena_core.services.lineup import LineupService
from arena_core.services.panel import PanelSettings
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.book import Book
from arena_local.cli import main
from arena_local.memory import InMemoryBlobStore, InMemoryCommitmentStore, memory_stores
from tests.support.agents import ScriptedAgent
from tests.support.builders import RUN_AT, WEEK0, binary
from tests.support.markets import StaticMarketSource

Verdict = str | None  # None: as it should be; text: the damage left behind


@dataclass
class Tally:
    tried: int = 0
    crashes: list[str] = field(default_factory=list)
    damages: list[str] = field(default_factory=list)


SECTIONS: dict[str, Tally] = {}


def case(section: str, name: str, run: Callable[[], Verdict]) -> None:
    tally = SECTIONS.setdefault(section, Tally())
    tally.tried += 1
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            verdict = run()
    except ArenaError:
        return
    except SystemExit as exit_:
        if exit_.code != 2:
            tally.crashes.append(f"{name}: exit {exit_.code}")
        return
    except BaseException as exc:  # what is counted is exactly this
        where = traceback.extract_tb(exc.__traceback__)[-1]
        tally.crashes.append(f"{name}: {type(exc).__name__} at {Path(where.filename).name}")
        return
    if verdict is not None:
        tally.damages.append(f"{name}: {verdict}")


class NotOneLineError(Exception):
    """The command refused, but not in one line: counted with the crashes."""


def cli(*argv: str) -> Verdict:
    """A command that must answer in one line with exit 2 (a traceback is a crash)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(list(argv))
    if status != 2:
        return f"exit {status}"
    if err.getvalue().count("\n") != 1:
        raise NotOneLineError(err.getvalue()[:60])
    return None


# --- worlds ------------------------------------------------------------------------------------


@dataclass
class World:
    stores: Any
    blobs: InMemoryBlobStore
    clock: FixedClock
    cohort: Cohort
    items: list[tuple[str, str]]

    def service(self, **settings: Any) -> DecideService:
        return DecideService(self.stores, self.blobs, self.clock, DecideSettings(**settings))


def make_world(stores: Any = None, methodology: Methodology = Methodology.V1) -> World:
    stores = stores or memory_stores()
    blobs, clock = InMemoryBlobStore(), FixedClock(RUN_AT)
    cohort = Cohort.open(WEEK0, default_lineup(), methodology.value)
    stores.cohorts.create_cohort(cohort, cohort.agents())
    ends = RUN_AT + timedelta(days=3)
    universe = [
        binary(m, p).model_copy(update={"end_date": ends, "category": f"c-{m}"})
        for m, p in (("m1", "0.40"), ("m2", "0.25"), ("m3", "0.70"), ("m4", "0.55"))
    ]
    prepare = PrepareRunService(
        stores, StaticMarketSource(universe), blobs, clock, panel=PanelSettings(size=4)
    )
    run = prepare.prepare(RunRequest())
    items = [(i.agent_id, i.universe_ref) for i in run.items]
    return World(stores, blobs, clock, cohort, items)


@contextlib.contextmanager
def engines(local: bool) -> Iterator[list[tuple[str, Callable[[], Any]]]]:
    """Store factories: memory and moto, and DynamoDB Local when asked for."""
    from tests.support.aws import create_stores, embedded_aws  # noqa: PLC0415

    found: list[tuple[str, Callable[[], Any]]] = [("memory", memory_stores)]
    with embedded_aws():
        tables = iter(range(1_000))
        found.append(("moto", lambda: create_stores(f"arena-{next(tables)}")))
        if not local:
            yield found
            return
        from arena_core.adapters.dynamodb import dynamo_stores  # noqa: PLC0415
        from tests.support.dynamodb_local import DynamoDBLocal  # noqa: PLC0415
        from tests.support.dynamodb_local_fixture import create_local_table  # noqa: PLC0415

        with DynamoDBLocal() as server:
            client = server.client()
            found.append(
                ("dynamodb-local", lambda: dynamo_stores(client, create_local_table(client)))
            )
            yield found


def decide_until_final(world: World, text: str, attempts: int = 3) -> tuple[Any, int]:
    agent = ScriptedAgent(text)
    agent_id, ref = world.items[0]
    record = None
    for attempt in range(attempts + 1):
        with contextlib.suppress(ArenaError):
            world.service(max_attempts=attempts).decide(
                DecideRequest(agent_id, RUN_AT, ref, f"invocation-{attempt}"), agent
            )
        record = world.stores.decisions.get_decision(DecisionRecord.id_for(agent_id, 1))
        if record is not None and record.status in FINAL:
            break
    return record, agent.calls


FINAL = {DecisionStatus.SUCCEEDED, DecisionStatus.EXHAUSTED, DecisionStatus.FAILED}


def item_verdict(world: World, record: Any, calls: int, *, panel: bool = False) -> Verdict:
    if record is None or record.status not in FINAL:
        return f"never final ({record.status.value if record else 'no record'}) after {calls} calls"
    trades = world.stores.ledger.trades(record.agent_id)
    if trades and (record.outcome is None or record.outcome.executed != len(trades)):
        return (
            f"{len(trades)} trades applied, outcome {'lost' if record.outcome is None else 'wrong'}"
        )
    if panel and calls > 3:
        return f"{calls} model calls"
    return None


def reply(action: str, reasoning: str = "r", **fields: Any) -> str:
    return json.dumps({"action": action, **fields, "reasoning": reasoning})


# --- §1 ids ------------------------------------------------------------------------------------

BAD_SETS = [
    ("anthropic/claude-opus-4.6", "anthropic/claude-opus-4.6", None),
    ("Claude Opus 4.6", "anthropic/claude-opus-4.6", None),
    ("", "anthropic/claude-opus-4.6", None),
    ("  ", "anthropic/claude-opus-4.6", None),
    ("a#DECISION#b", "anthropic/claude-opus-4.6", None),
    ("../../x", "anthropic/claude-opus-4.6", None),
    ("claude-opus-4.6\n", "anthropic/claude-opus-4.6", None),
    ("claude-opus-4.5", "anthropic/claude\nopus", None),
    ("claude-opus-4.5", "a/" + "b" * 100_000, None),
    ("claude-opus-4.5", "../../x", None),
    ("claude-opus-4.5", "anthropic/claude-opus-4.6", "D" * 200_000),
    ("claude-opus-4.5", "anthropic/claude-opus-4.6", "\x1b[2JOpus"),
]


def lineup_set(family: str, model: str, display: str | None) -> Verdict:
    stores = memory_stores()
    service = LineupService(stores.lineups, FixedClock(WEEK0))
    service.set_model(family, model, display_name=display)
    return "release written"


def retire_all() -> Verdict:
    stores = memory_stores()
    service = LineupService(stores.lineups, FixedClock(WEEK0))
    for spec in service.in_force().lineup:
        if spec.kind is AgentKind.LLM:
            service.retire(spec.family_id)
    return "every model family retired"


def gamma_id(market_id: Any) -> Verdict:
    """Every id tried is no plain id: a market parsed under it is the damage."""
    market = parse_market({"id": market_id, "question": "Q?", "outcomes": '["Yes","No"]'})
    return f"market id {market.market_id!r} accepted"


def key_of(decision_id: str) -> Verdict:
    return f"key {decision_key(decision_id, '0' * 64)!r}"


def publish_key(key: str) -> Verdict:
    root = Path(tempfile.mkdtemp())
    try:
        (root / "site").mkdir()
        with contextlib.suppress(ArenaError):
            session = LocalFolderPublisher(root / "site").open(
                "bench", RUN_AT, timedelta(minutes=6)
            )
            session.publish(lazy_files({key: b"x"}))
            session.commit(b"")
        outside = [p for p in root.rglob("*") if p.is_file() and "site" not in p.parts]
        return f"wrote {outside[0]}" if outside else None
    finally:
        shutil.rmtree(root)


def section_ids() -> None:
    for family, model, display in BAD_SETS:
        case(
            "1 ids",
            f"lineup set {family[:20]!r} {model[:20]!r}",
            partial(lineup_set, family, model, display),
        )
    case("1 ids", "retire every family", retire_all)
    for market_id in ["1\n", "1\r\n", "x" * 200, "1 ", "a/b", "a#b"]:
        case("1 ids", f"gamma id {market_id[:12]!r}", partial(gamma_id, market_id))
    for decision_id in ["c.x.w001\n", "c2026-03-01.x.w001\n", "../c.x.w001", "c.x/y.w001"]:
        case("1 ids", f"decision key {decision_id!r}", partial(key_of, decision_id))
    for key in ["../outside.html", "a/../../outside.html", "/tmp/hostile-26-outside.html"]:
        case("1 ids", f"publish {key!r}", partial(publish_key, key))


# --- §2 whole items and CSV --------------------------------------------------------------------

WIDE = "\U0001d54f"


def big_replies() -> dict[str, tuple[str, Methodology]]:
    bet = {"market_id": "m1", "side": "YES", "amount": 500}
    return {
        "190,000-character id beside a valid bet": (
            reply("BET", bets=[bet, {**bet, "market_id": "x" * 190_000}]),
            Methodology.V1,
        ),
        "50 bets on 3,900-character 4-byte ids": (
            reply("BET", "", bets=[bet, *({**bet, "market_id": WIDE * 3_900} for _ in range(49))]),
            Methodology.V1,
        ),
        "66,000 junk forecasts": (reply("HOLD", forecasts=[1] * 66_000), Methodology.V1_PANEL),
        "a 150,000-character unknown forecast id": (
            reply(
                "HOLD",
                forecasts=[{"market_id": "u" * 150_000, "p_yes": 0.5}]
                + [{"market_id": m, "p_yes": 0.5} for m in ("m1", "m2", "m3", "m4")],
            ),
            Methodology.V1_PANEL,
        ),
    }


def csv_split(table: str, column: str, text: str) -> Verdict:
    rows = list(csv.reader(io.StringIO(to_csv(table, [{column: text}]).decode(), newline="")))
    if len(rows) != 2:
        return f"{len(rows) - 1} rows for one"
    if any(cell.lstrip().startswith(("=", "+", "-", "@", "＝", "＋", "－")) for cell in rows[1]):
        return "a formula runs"
    return None


def section_items(local: bool) -> None:
    with engines(local) as found:
        for engine, make in found:
            for name, (text, methodology) in big_replies().items():
                panel = methodology is Methodology.V1_PANEL

                def run(
                    text: str = text,
                    methodology: Methodology = methodology,
                    make: Any = make,
                    panel: bool = panel,
                ) -> Verdict:
                    world = make_world(make(), methodology)
                    return item_verdict(world, *decide_until_final(world, text), panel=panel)

                case("2 items", f"{engine}: {name}", run)
    splitters = [
        ("decisions", "reasoning", "fine so far\r=2+5+cmd|' /C calc'!A0"),
        ("agents", "display_name", "\r=1+1"),
        ("leaderboard", "display_name", "\r=1+1"),
        ("decisions", "reasoning", " =1+1"),
        ("decisions", "reasoning", "＝1+1"),
        ("decisions", "reasoning", "－1"),
    ]
    for table, column, text in splitters:
        case(
            "2 items",
            f"csv {table}.{column} {text[:12]!r}",
            partial(csv_split, table, column, text),
        )

    def long_question(field: str, value: Any) -> Verdict:
        payload = {"id": "1", "question": "Q?", "outcomes": '["Yes","No"]', field: value}
        market = parse_market(payload)
        return f"a market item of {len(market.model_dump_json())} bytes to store"

    for field_, value in (
        ("question", "Q" * 500_000),
        ("outcomes", json.dumps(["Y" * 500_000, "No"])),
    ):
        case(
            "2 items",
            f"gamma {field_} of 500,000 characters",
            partial(long_question, field_, value),
        )

    def long_cell() -> Verdict:
        data = to_csv("replies", [{"raw_body": "x" * 300_000}]).decode()
        list(csv.reader(io.StringIO(data, newline="")))  # raises over 131,072
        return None

    case("2 items", "csv cell of 300,000 characters", long_cell)


# --- §3 requests first -------------------------------------------------------------------------


def wrong_universes() -> Verdict:
    world = make_world()
    agent_id, ref = world.items[0]
    for attempt in range(3):
        with contextlib.suppress(ArenaError):
            world.service().decide(
                DecideRequest(
                    agent_id, RUN_AT, "universes/week-1999-01-03.json", f"forged-{attempt}"
                ),
                ScriptedAgent(reply("HOLD")),
            )
    result = world.service().decide(
        DecideRequest(agent_id, RUN_AT, ref, "real"), ScriptedAgent(reply("HOLD"))
    )
    return (
        None
        if result.status is DecisionStatus.SUCCEEDED
        else f"the real run: {result.status.value}"
    )


def future_seal() -> Verdict:
    store = InMemoryCommitmentStore()
    with contextlib.suppress(ArenaError):
        seal_run(
            memory_stores().decisions,
            store,
            run_id="x",
            run_at=datetime(2099, 1, 4, tzinfo=UTC),
            decision_ids=[],
            now=RUN_AT,
        )
    return "a run sealed in 2099" if store.keys("commitments/runs/") else None


def prepare_before(week: datetime) -> Verdict:
    world = make_world()
    blobs = InMemoryBlobStore()
    service = PrepareRunService(
        world.stores, StaticMarketSource([binary("m1")]), blobs, world.clock
    )
    with contextlib.suppress(ArenaError):
        service.prepare(RunRequest(week_start=week))
    return (
        "a universe captured"
        if blobs.find(f"universes/week-{week.date().isoformat()}.json")
        else None
    )


def unreadable_commitment() -> Verdict:
    world = make_world()
    store = InMemoryCommitmentStore()
    store.create("commitments/decisions/c.x.w001/" + "f" * 64 + ".json", b"not json")
    seal_run(world.stores.decisions, store, run_id="r", run_at=RUN_AT, decision_ids=[], now=RUN_AT)
    return None


def section_requests() -> None:
    case("3 requests", "three wrong universe_refs, then the real run", wrong_universes)
    case("3 requests", "finalize run_at 2099-01-04", future_seal)
    case(
        "3 requests", "prepare 2020-01-05", lambda: prepare_before(datetime(2020, 1, 5, tzinfo=UTC))
    )
    case("3 requests", "prepare 0001-01-07", lambda: prepare_before(datetime(1, 1, 7, tzinfo=UTC)))
    case("3 requests", "an unreadable committed object", unreadable_commitment)
    section_verify()


def section_verify() -> None:
    from tests.local.test_verify_hostile import HOSTILE  # noqa: PLC0415 - the hostile sites
    from tests.support.commitment_site import CommittedSite, build_site  # noqa: PLC0415

    base = Path(tempfile.mkdtemp())
    built = build_site(base / "site")

    def copy() -> CommittedSite:
        root = base / f"copy-{next(serial)}"
        shutil.copytree(built.root, root)
        return CommittedSite(root, built.stores, built.cohort)

    serial = iter(range(10_000))

    def forged_line() -> Verdict:
        site = copy()
        decision_id = site.decision_id("kimi-k2")
        line = {
            "at": "2026-03-01T00:05:01.000000Z",
            "decision_id": decision_id,
            "key": f"commitments/decisions/{decision_id}/{'a' * 64}.json",
            "kind": "decision",
            "sha256": "a" * 64,
        }
        with (site.root / "commitments/log.jsonl").open("a") as log:
            log.write(json.dumps(line) + "\n")
        return "verify says OK" if main(["verify", "--site", str(site.root)]) == 0 else None

    def rewritten_reasoning() -> Verdict:
        site = copy()
        path = site.root / f"data/cohorts/{site.cohort.cohort_id}/decisions.json"
        rows = json.loads(path.read_text())
        rows[0]["reasoning"] = "I was right all along"
        path.write_text(json.dumps(rows))
        return "verify says OK" if main(["verify", "--site", str(site.root)]) == 0 else None

    case("3 requests", "verify: a forged log line", forged_line)
    case("3 requests", "verify: a rewritten reasoning", rewritten_reasoning)
    for name, change in HOSTILE.items():

        def hostile(change: Any = change) -> Verdict:
            site = copy()
            change(site)
            status = main(["verify", "--site", str(site.root)])
            return "verify says OK" if status == 0 else None

        case("4 cli", f"verify: {name}", hostile)
    shutil.rmtree(base)


# --- §4 the command ----------------------------------------------------------------------------


def status_dir(build: Callable[[Path], object]) -> Verdict:
    folder = Path(tempfile.mkdtemp())
    try:
        build(folder)
        result: list[Verdict | BaseException] = []

        def run() -> None:
            try:
                result.append(cli("status", "--dir", str(folder)))
            except BaseException as exc:  # handed to the main thread
                result.append(exc)

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(timeout=5)
        if worker.is_alive():
            with open(folder / "status.json", "wb"):
                pass
            worker.join(timeout=5)
            return "hangs on a FIFO"
        if isinstance(result[0], BaseException):
            raise result[0]
        return result[0]
    finally:
        shutil.rmtree(folder)


def section_cli() -> None:
    from tests.local.test_cli_hostile import DEEP, HOSTILE_LISTS  # noqa: PLC0415

    outside = Path(tempfile.mkdtemp()) / "secret.json"
    outside.write_text('{"secret": true}')
    builds: dict[str, Callable[[Path], object]] = {
        "a FIFO": lambda f: os.mkfifo(f / "status.json"),
        "a link outside": lambda f: (f / "status.json").symlink_to(outside),
        "2 MiB": lambda f: (f / "status.json").write_bytes(b" " * 2 * 1024 * 1024),
        "nested deep": lambda f: (f / "status.json").write_text(DEEP),
    }
    for name, build in builds.items():
        case("4 cli", f"status --dir: {name}", partial(status_dir, build))
    from tests.support.aws import embedded_aws  # noqa: PLC0415
    from tests.support.stack import create_stack, create_table  # noqa: PLC0415

    with embedded_aws():
        create_stack({"TableName": create_table()})
        for name, text in HOSTILE_LISTS.items():

            def check(text: str = text) -> Verdict:
                models = outside.parent / "models.json"
                models.write_text(text)
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    status = main(["lineup", "check", "--models-file", str(models)])
                return (
                    None if status == 0 or err.getvalue().count("\n") == 1 else "no one-line answer"
                )

            case("4 cli", f"lineup check: {name}", check)
    shutil.rmtree(outside.parent)
    for day in ("0001-01-01", "9999-12-31"):
        case("4 cli", f"rerun --week {day}", partial(cli, "rerun", "--week", day))
        case(
            "4 cli",
            f"preview --week {day}",
            partial(cli, "preview", "--family", "kimi-k2", "--week", day),
        )

        def demo(d: str = day) -> Verdict:
            folder = Path(tempfile.mkdtemp())
            markets = folder / "m.json"
            markets.write_text('[{"id": "1", "question": "Q?"}]')
            try:
                return cli(
                    "demo", "--markets", str(markets), "--out", str(folder / "site"), "--start", d
                )
            finally:
                shutil.rmtree(folder)

        case("4 cli", f"demo --start {day}", demo)
    case("4 cli", "cost --snapshot-ttl-days -1", _parsed_ttl)
    case("4 cli", "openrouter: a body nested 100,000 deep", _deep_completion)


def _parsed_ttl() -> Verdict:
    from arena_local.cli import parser  # noqa: PLC0415

    args = parser().parse_args(["cost", "--snapshot-ttl-days", "-1"])
    return f"a TTL of {args.snapshot_ttl_days} accepted"


def _deep_completion() -> Verdict:
    import httpx  # noqa: PLC0415

    from arena_core.adapters.openrouter import OpenRouterClient  # noqa: PLC0415
    from arena_core.adapters.retry import Retrier, RetryPolicy  # noqa: PLC0415
    from arena_core.ports.llm import ChatMessage, LLMRequest  # noqa: PLC0415

    deep = "[" * 100_000 + "]" * 100_000
    with httpx.Client(
        transport=httpx.MockTransport(lambda _: httpx.Response(200, text=deep))
    ) as http:
        client = OpenRouterClient(
            http, lambda: "k", retrier=Retrier(RetryPolicy(max_attempts=1), sleep=lambda _: None)
        )
        client.complete(LLMRequest(model="m/x", messages=(ChatMessage(role="user", content="q"),)))
    return "a reply from a body that is none"


# --- §5 smaller defects ------------------------------------------------------------------------


def tiny_sell() -> Verdict:
    book = Book("a1")
    trade = book.buy(binary("m1", "0.01"), "YES", Decimal(2500), decision_id="d1", at=RUN_AT)
    sold = book.sell(
        binary("m1", "0.01"), trade.position_id, Decimal("0.0000001"), decision_id="d2", at=RUN_AT
    )
    return f"a ${sold.amount} trade executed"


def buy_at_unchanged_price() -> Verdict:
    book = Book("a1")
    book.buy(binary("m1", "0.30"), "YES", Decimal(100), decision_id="d1", at=RUN_AT)
    total = book.totals({"m1": binary("m1", "0.30")}).total_value
    return None if total == Decimal("10000.00") else f"worth ${total}"


def sold_out_scored() -> Verdict:
    from tests.unit.domain.factories import resolved  # noqa: PLC0415

    book = Book("a1")
    trade = book.buy(binary("m1", "0.40"), "YES", Decimal(500), decision_id="d1", at=RUN_AT)
    book.sell(binary("m1", "0.40"), trade.position_id, Decimal(100), decision_id="d2", at=RUN_AT)
    book.settle(resolved(binary("m1"), ResolutionKind.WINNER, "YES"), at=RUN_AT)
    return None if book.bet_scores else "a sold-out buy left unscored"


def deep_body() -> Verdict:
    from arena_core.ports.llm import LLMResponse  # noqa: PLC0415
    from arena_core.services.publish_site import PublishSiteService  # noqa: PLC0415

    world = make_world()

    class Deep(ScriptedAgent):
        def respond(self, messages: Any, context: Any) -> LLMResponse:  # noqa: ARG002
            text = reply("HOLD")
            deep = '{"choices": ' + "[" * 100_000 + "]" * 100_000 + "}"
            return LLMResponse(content=text, model="m/x", provider="p", raw_body=deep)

    agent_id, ref = world.items[0]
    world.service().decide(DecideRequest(agent_id, RUN_AT, ref, "o"), Deep(""))
    folder = Path(tempfile.mkdtemp())
    try:
        PublishSiteService(
            world.stores, LocalFolderPublisher(folder), world.blobs, world.clock
        ).run()
    finally:
        shutil.rmtree(folder)
    return None


def section_small() -> None:
    case("5 smaller", "sell 0.0000001%", tiny_sell)
    case("5 smaller", "portfolio after a $100 buy at an unchanged price", buy_at_unchanged_price)
    case("5 smaller", "book: a buy sold out before resolution", sold_out_scored)
    case("5 smaller", "publish a raw body nested 100,000 deep", deep_body)


def main_() -> int:
    local = "--dynamodb-local" in sys.argv
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    section_ids()
    section_items(local)
    section_requests()
    section_cli()
    section_small()
    tried = crashes = damages = 0
    for name, tally in SECTIONS.items():
        crashed, damaged = len(tally.crashes), len(tally.damages)
        print(
            f"{name:<12} {tally.tried:>4} inputs  {crashed:>3} unhandled exceptions  "
            f"{damaged:>3} lasting damages"
        )
        for line in tally.crashes:
            print(f"    crash   {line}")
        for line in tally.damages:
            print(f"    damage  {line}")
        tried, crashes, damages = (
            tried + tally.tried,
            crashes + len(tally.crashes),
            damages + len(tally.damages),
        )
    print(
        f"Total: {tried} hostile inputs, {crashes} unhandled exceptions, {damages} lasting damages"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main_())
