"""The demo's stand-in models: served on loopback to the real OpenRouter client, answering the
real prompt in the v1 format within the capital rules, deterministic, malformed at the seeded
rates, skilled as profiled; and the demo's lineup and leaderboard with them."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena_core.adapters.openrouter import OpenRouterClient
from arena_core.agents.llm import LLMAgent
from arena_core.domain.answer import Action, Answer
from arena_core.domain.holdings import PositionLine
from arena_core.domain.lineup import BASELINES, LINEUP_V1, AgentKind
from arena_core.domain.market import Market, MarketStatus, OutcomeQuote
from arena_core.domain.rules import MAX_BET_FRACTION, check_bet_amount
from arena_core.errors import DecisionFormatError, UpstreamNotFoundError
from arena_core.ports.agent import AgentContext
from arena_core.ports.llm import ChatMessage, LLMRequest
from arena_core.protocol import parse_answer
from arena_core.protocol.prompt import SYSTEM_PROMPT, build_prompt
from arena_core.services.consult import FEEDBACK, consult
from arena_local.cli import main
from arena_local.demo import main as demo_main
from arena_local.demo.printout import print_leaderboards
from arena_local.demo.runner import RunOptions, RunReport, Tally
from arena_local.memory.blobs import InMemoryBlobStore
from arena_local.simulation import PriceSimulation
from arena_local.standins import (
    PROFILES,
    Foresight,
    Profile,
    StandInModels,
    StandInServer,
    foresight_from,
    standin_lineup,
)
from arena_local.standins.completions import Message
from arena_local.standins.reading import PositionRow, Quote, read_prompt

NOW = datetime(2026, 11, 15, 0, 5, tzinfo=UTC)
FAMILY = LINEUP_V1[0].id
MODEL = f"standin/{FAMILY}"


def binary(market_id: str, yes: float) -> Market:
    return Market(
        market_id=market_id,
        question=f"Will event {market_id} happen?",
        outcomes=(
            OutcomeQuote(name="Yes", price=Decimal(str(yes))),
            OutcomeQuote(name="No", price=Decimal(str(round(1 - yes, 4)))),
        ),
        volume=Decimal(100_000),
        end_date=NOW + timedelta(days=20),
    )


def named(market_id: str, prices: Sequence[float]) -> Market:
    outcomes = tuple(
        OutcomeQuote(name=f"Team {chr(65 + i)}", price=Decimal(str(p)))
        for i, p in enumerate(prices)
    )
    return Market(market_id=market_id, question=f"Who wins {market_id}?", outcomes=outcomes)


MARKETS = (
    binary("101", 0.30),
    binary("102", 0.55),
    binary("103", 0.80),
    named("104", (0.5, 0.3, 0.2)),
    binary("105", 0.10),
)
FORESIGHT = {
    "101": Foresight(resolves=True, winner=0),
    "102": Foresight(resolves=True, winner=1),
    "103": Foresight(resolves=True, winner=None),  # a 50/50 split: nothing more to know
    "104": Foresight(resolves=True, winner=2),
}


def user_prompt(
    markets: Sequence[Market] = MARKETS,
    *,
    decision: int = 0,
    cash: Decimal = Decimal("10000.00"),
    positions: Sequence[PositionLine] = (),
) -> str:
    """A real prompt; ``decision`` tells decisions apart (another date, cohort and week)."""
    return build_prompt(
        now=NOW + timedelta(minutes=decision),
        cohort_id=f"c{decision:05d}",
        week=1 + decision % 4,
        cash=cash,
        positions=positions,
        markets=markets,
    ).user


def conversation(user: str, failed: Sequence[str] = ()) -> list[Message]:
    """The prompt, then per failed reply the reply and consult's feedback, as a retry sends."""
    messages = [Message("system", SYSTEM_PROMPT), Message("user", user)]
    for reply in failed:
        feedback = FEEDBACK.format(error="something", excerpt=repr(reply[:40]))
        messages += [Message("assistant", reply), Message("user", feedback)]
    return messages


def attempts(models: StandInModels, user: str, profile: Profile) -> list[str]:
    """The three replies a decision gets when each is fed back as failed (format_retries=2)."""
    replies: list[str] = []
    for _ in range(3):
        replies.append(models.reply(profile, conversation(user, replies)))
    return replies


def parsed(text: str) -> Answer | None:
    try:
        return parse_answer(text)
    except DecisionFormatError:
        return None


@pytest.fixture
def models() -> StandInModels:
    return StandInModels(FORESIGHT, seed=7)


@pytest.fixture
def server(models: StandInModels) -> Iterator[StandInServer]:
    with StandInServer(models) as running:
        yield running


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client() as client:
        yield client


def client(server: StandInServer, http: httpx.Client) -> OpenRouterClient:
    return OpenRouterClient(http, lambda: None, base_url=server.base_url)


def request(user: str, model: str = MODEL) -> LLMRequest:
    messages = (
        ChatMessage(role="system", content=SYSTEM_PROMPT),
        ChatMessage(role="user", content=user),
    )
    return LLMRequest(model=model, messages=messages, response_format={"type": "json_object"})


def first_valid_decision(models: StandInModels, profile: Profile) -> int:
    return next(
        d
        for d in range(100)
        if parsed(models.reply(profile, conversation(user_prompt(decision=d)))) is not None
    )


# --- the server and the real client -------------------------------------------------------


def test_the_real_client_gets_a_completion_it_can_parse(
    server: StandInServer, http: httpx.Client, models: StandInModels
) -> None:
    decision = first_valid_decision(models, PROFILES[FAMILY])
    user = user_prompt(decision=decision)
    response = client(server, http).complete(request(user))
    answer = parse_answer(response.text)
    assert answer.action in {Action.BET, Action.HOLD, Action.SELL}
    assert response.provider == "stand-in"
    assert response.model == MODEL
    assert response.finish_reason == "stop"
    assert response.prompt_tokens == (len(SYSTEM_PROMPT) + len(user)) // 4  # 4 chars a token
    assert response.total_tokens == response.prompt_tokens + response.completion_tokens
    assert response.cost is not None and response.cost > 0
    assert response.response_id and response.response_id.startswith("gen-standin-")


def test_the_v1_path_answers_too_and_a_retried_request_gets_the_same_body(
    server: StandInServer, http: httpx.Client
) -> None:
    body = {"model": MODEL, "messages": [{"role": "user", "content": user_prompt()}]}
    url = server.base_url.removesuffix("/v1")
    first = http.post(f"{url}/chat/completions", json=body)
    again = http.post(f"{url}/v1/chat/completions", json=body)
    assert first.status_code == again.status_code == 200
    assert first.content == again.content


def test_an_unknown_model_is_a_404_the_client_reports(
    server: StandInServer, http: httpx.Client
) -> None:
    with pytest.raises(UpstreamNotFoundError, match="no stand-in model"):
        client(server, http).complete(request(user_prompt(), model="openai/gpt-5.2"))


def test_a_body_that_is_not_a_request_is_a_400(server: StandInServer, http: httpx.Client) -> None:
    response = http.post(f"{server.base_url}/chat/completions", json={"model": MODEL})
    assert response.status_code == 400
    assert "messages" in response.json()["error"]["message"]


def test_the_format_retry_and_the_hold_fallback_go_through_consult(
    server: StandInServer, http: httpx.Client, models: StandInModels
) -> None:
    """A decision malformed once recovers on the retry; one malformed throughout falls back."""
    profile = PROFILES[FAMILY]
    retried = fallback = None
    for decision in range(2000):
        texts = attempts(models, user_prompt(decision=decision), profile)
        valid = [parsed(t) is not None for t in texts]
        if valid == [False, True, True] and retried is None:
            retried = decision
        if valid == [False, False, False] and fallback is None:
            fallback = decision
        if retried is not None and fallback is not None:
            break
    assert retried is not None and fallback is not None
    agent = LLMAgent(client(server, http), MODEL)
    outcomes = {}
    for decision in (retried, fallback):
        built = build_prompt(
            now=NOW + timedelta(minutes=decision),
            cohort_id=f"c{decision:05d}",
            week=1 + decision % 4,
            cash=Decimal("10000.00"),
            positions=(),
            markets=MARKETS,
        )
        context = AgentContext("a", 1, NOW, Decimal(10_000), (), MARKETS)
        outcomes[decision] = consult(
            agent, built, context, blobs=InMemoryBlobStore(), blob_prefix="x", format_retries=2
        )
    assert not outcomes[retried].fallback
    assert len(outcomes[retried].responses) == 2
    assert outcomes[fallback].fallback
    assert len(outcomes[fallback].responses) == 3


def test_the_prompt_reads_back_as_the_stand_in_needs_it() -> None:
    held = PositionLine(
        position_id="p1",
        market_id="104",
        side="Team B",
        shares=Decimal(10),
        avg_price=Decimal("0.4"),
        price=Decimal("0.3"),
        value=Decimal(3),
        unrealized_pnl=Decimal(-1),
        market_status=MarketStatus.OPEN,
    )
    view = read_prompt(user_prompt(cash=Decimal("1234.56"), positions=[held]))
    assert view is not None
    assert (view.cash, view.min_bet, view.moment) == (Decimal("1234.56"), 50, "2026-11-15 00:05")
    assert view.positions == (PositionRow("p1", "104", "Team B", 0.4, 0.3),)
    assert [m.market_id for m in view.markets] == ["101", "102", "103", "104", "105"]
    assert view.markets[0].quotes == (Quote("YES", 0, 0.3), Quote("NO", 1, 0.7))
    assert [(q.side, q.outcome) for q in view.markets[3].quotes] == [
        ("Team A", 0),
        ("Team B", 1),
        ("Team C", 2),
    ]
    assert read_prompt("Your previous reply could not be used") is None


# --- replies within the rules ---------------------------------------------------------------


def check_bets(answer: Answer, cash: Decimal, markets: Sequence[Market]) -> None:
    """Every bet a known market and side, at least the minimum, at most 25% of the cash left."""
    by_id = {m.market_id: m for m in markets}
    for bet in answer.bets:
        market = by_id[bet.market_id]
        market.canonical_side(bet.side)
        check_bet_amount(bet.amount, cash)  # raises below the minimum, above max_bet or cash
        cash -= bet.amount


@pytest.mark.parametrize("cash", ["10000.00", "2400.00", "610.00", "199.00"])
def test_every_reply_parses_and_keeps_to_min_bet_max_bet_and_cash(
    models: StandInModels, cash: str
) -> None:
    actions = []
    for profile in PROFILES.values():
        for decision in range(40):
            user = user_prompt(decision=decision, cash=Decimal(cash))
            answer = parsed(attempts(models, user, profile)[-1]) or parsed(
                models.reply(profile, conversation(user))
            )
            if answer is None:
                continue  # a decision malformed throughout: the HOLD fallback's case
            check_bets(answer, Decimal(cash), MARKETS)
            actions.append(answer.action)
    if Decimal(cash) < 200:  # even a 0.98 belief is below $50 at 25% of the cash
        assert set(actions) == {Action.HOLD}
    else:
        assert actions.count(Action.BET) > 0.8 * len(actions)


def test_bets_follow_the_cash_down_with_the_belief_as_implied_confidence(
    models: StandInModels,
) -> None:
    """amount / (25% of the cash before it) is the stated belief, to the cent."""
    profile = PROFILES[FAMILY]
    decision = first_valid_decision(models, profile)
    answer = parse_answer(models.reply(profile, conversation(user_prompt(decision=decision))))
    assert answer.action is Action.BET
    cash = Decimal(10_000)
    for bet in answer.bets:
        confidence = bet.amount / (cash * MAX_BET_FRACTION)
        assert Decimal("0.02") - Decimal("0.001") < confidence <= Decimal("0.98")
        cash -= bet.amount
    assert "vs" in answer.reasoning  # its probabilities against the prices


def test_a_position_that_fell_is_sometimes_sold_and_the_stand_in_sometimes_holds(
    models: StandInModels,
) -> None:
    fallen = PositionLine(
        position_id="p0123456789a",
        market_id="102",
        side="YES",
        shares=Decimal(100),
        avg_price=Decimal("0.75"),
        price=Decimal("0.55"),
        value=Decimal(55),
        unrealized_pnl=Decimal(-20),
        market_status=MarketStatus.OPEN,
    )
    actions = []
    for decision in range(300):
        user = user_prompt(decision=decision, positions=[fallen])
        answer = parsed(models.reply(PROFILES[FAMILY], conversation(user)))
        if answer is not None:
            actions.append(answer.action)
            if answer.action is Action.SELL:
                assert [s.position_id for s in answer.sells] == ["p0123456789a"]
                assert answer.sells[0].percentage == 100  # fell 0.2: all of it
    assert 0.15 < actions.count(Action.SELL) / len(actions) < 0.45
    assert 0 < actions.count(Action.HOLD) / len(actions) < 0.1


# --- determinism and malformed rates --------------------------------------------------------


def test_the_same_request_gets_the_same_reply_and_another_seed_another(
    models: StandInModels,
) -> None:
    body = {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": user_prompt()},
        ],
    }
    again = StandInModels(FORESIGHT, seed=7)
    assert models.handle(body) == models.handle(json.loads(json.dumps(body))) == again.handle(body)
    other = StandInModels(FORESIGHT, seed=8)
    replies = {
        seed_models.handle({**body, "model": f"standin/{family}"})[1]["choices"][0]["message"][
            "content"
        ]
        for seed_models in (models, other)
        for family in PROFILES
    }
    assert len(replies) == 2 * len(PROFILES)  # each family and seed answers its own way


def test_malformed_replies_come_at_the_seeded_rates(models: StandInModels) -> None:
    """About 5% of first replies are malformed, about 1% of decisions throughout; every
    malformed reply is one the parser refuses."""
    profile = PROFILES[LINEUP_V1[3].id]
    decisions = 3000
    first = throughout = 0
    small = MARKETS[:2]
    for decision in range(decisions):
        user = user_prompt(small, decision=decision)
        replies = [models.reply(profile, conversation(user))]
        if parsed(replies[0]) is None:
            first += 1
            replies += attempts(models, user, profile)[1:]
            throughout += all(parsed(r) is None for r in replies)
    assert 0.035 < first / decisions < 0.065
    assert 0.004 < throughout / decisions < 0.018


# --- skill ----------------------------------------------------------------------------------


def resolved_universe(count: int = 120) -> tuple[list[Market], dict[str, Foresight]]:
    """Binary markets priced fairly (winners drawn with the market's own odds)."""
    rng = random.Random("universe")
    markets, foresight = [], {}
    for index in range(count):
        yes = round(rng.uniform(0.05, 0.95), 2)
        market_id = str(1000 + index)
        markets.append(binary(market_id, yes))
        foresight[market_id] = Foresight(resolves=True, winner=0 if rng.random() < yes else 1)
    return markets, foresight


def brier(profile: Profile, decisions: int = 25) -> float:
    """Mean Brier of the stand-in's stated confidence (amount / max_bet) against the outcome."""
    markets, foresight = resolved_universe()
    models = StandInModels(foresight, seed=7, profiles={profile.family_id: profile})
    scores = []
    for decision in range(decisions):
        answer = parsed(
            models.reply(profile, conversation(user_prompt(markets, decision=decision)))
        )
        cash = Decimal(10_000)
        for bet in answer.bets if answer else ():
            confidence = float(bet.amount / (cash * MAX_BET_FRACTION))
            winner = foresight[bet.market_id].winner
            won = (bet.side == "YES") == (winner == 0)
            scores.append((confidence - won) ** 2)
            cash -= bet.amount
    assert len(scores) > 200
    return sum(scores) / len(scores)


def profile(family_id: str, skill: float, noise: float) -> Profile:
    return Profile(family_id, skill, noise, Decimal(1), Decimal(4))


def test_more_skill_gives_a_lower_brier() -> None:
    assert (
        brier(profile("x", 0.6, 0.05))
        < brier(profile("x", 0.3, 0.05))
        < brier(profile("x", 0.0, 0.05))
    )


def test_the_profiled_families_differ_and_the_most_skilful_forecasts_best() -> None:
    ordered = sorted(PROFILES.values(), key=lambda p: p.skill)
    assert all(0 <= p.skill <= 0.6 and 0.02 <= p.noise <= 0.25 for p in ordered)
    assert ordered[-1].skill - ordered[0].skill > 0.5
    assert len({p.skill for p in ordered}) == len(ordered)
    assert brier(ordered[-1]) < brier(ordered[len(ordered) // 2]) < brier(ordered[0])


def test_foresight_comes_from_the_simulation_plans() -> None:
    start = NOW.replace(minute=0)
    payloads = [
        {"id": "1", "question": "q", "outcomePrices": '["0.4", "0.6"]', "closed": False},
        {
            "id": "2",
            "question": "q",
            "outcomePrices": '["0", "1"]',
            "closed": True,
            "umaResolutionStatus": "resolved",
        },
        {
            "id": "3",
            "question": "q",
            "outcomePrices": '["0.5", "0.5"]',
            "closed": True,
            "umaResolutionStatus": "resolved",
        },
        {"id": "4", "question": "q", "outcomePrices": '["0", "1"]', "closed": True},
    ]
    simulation = PriceSimulation(payloads, seed=7, start=start, horizon=timedelta(weeks=2))
    assert foresight_from(simulation) == {
        "1": Foresight(resolves=False),
        "2": Foresight(resolves=True, winner=1),
        "3": Foresight(resolves=True, winner=None),
        "4": Foresight(resolves=False),  # closed without a resolution: it never resolves
    }


# --- the demo's lineup and leaderboard ------------------------------------------------------


@pytest.fixture
def simulated(monkeypatch: pytest.MonkeyPatch) -> list[RunOptions]:
    """The demo without its simulation: records the options each run was given."""
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    runs: list[RunOptions] = []

    def run(options: RunOptions, *args: Any) -> RunReport:
        runs.append(options)
        return RunReport(ledger={}, tally=Tally())

    monkeypatch.setattr(demo_main, "synthesized_template", dict)
    monkeypatch.setattr(demo_main, "_run", run)
    return runs


def demo(tmp_path: Path, *extra: str) -> int:
    markets = tmp_path / "markets.json"
    markets.write_text('[{"id": "1", "question": "Will it rain?"}]')
    return main(["demo", "--markets", str(markets), "--out", str(tmp_path / "site"), *extra])


def test_the_default_lineup_is_the_seven_stand_ins_and_the_baselines(
    tmp_path: Path, simulated: list[RunOptions], capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo(tmp_path) == 0
    lineup = simulated[0].lineup
    assert lineup == standin_lineup() + BASELINES
    assert len(lineup) == 10
    assert all(s.stand_in and s.family_id.startswith("standin-") for s in lineup[:7])
    assert {s.family_id.removeprefix("standin-") for s in lineup[:7]} == {f.id for f in LINEUP_V1}
    assert all(s.kind is AgentKind.LLM and s.model_id.startswith("standin/") for s in lineup[:7])
    out = capsys.readouterr().out
    assert out.count("simulated, not the real models") == 2  # at the start and in the summary


def test_agents_baselines_keeps_the_baseline_run(
    tmp_path: Path, simulated: list[RunOptions], capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo(tmp_path, "--agents", "baselines") == 0
    assert simulated[0].lineup == BASELINES
    assert "not the real models" not in capsys.readouterr().out


def test_agents_picks_stand_ins_and_baselines_by_id(
    tmp_path: Path, simulated: list[RunOptions]
) -> None:
    chosen = f"standin-{LINEUP_V1[2].id},baseline-random"
    assert demo(tmp_path, "--agents", chosen) == 0
    assert [s.family_id for s in simulated[0].lineup] == chosen.split(",")


def test_real_families_still_need_a_model_server(
    tmp_path: Path, simulated: list[RunOptions], capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo(tmp_path, "--agents", LINEUP_V1[0].id) == 2
    assert "OPENROUTER_API_KEY or --llm-base-url" in capsys.readouterr().err


def test_a_model_server_replaces_the_stand_ins(
    tmp_path: Path, simulated: list[RunOptions], capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo(tmp_path, "--llm-base-url", "http://127.0.0.1:9/v1") == 0
    lineup = simulated[0].lineup
    assert [s.family_id for s in lineup[:7]] == [f.id for f in LINEUP_V1]
    assert not any(s.stand_in for s in lineup)
    assert demo(tmp_path, "--llm-base-url", "http://127.0.0.1:9/v1", "--agents", "standins") == 2
    assert "stand-ins run only without real models" in capsys.readouterr().err


def test_the_leaderboard_marks_stand_ins(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [
        {
            "family_id": "standin-grok-4",
            "display_name": "Grok 4.1 stand-in (simulated)",
            "kind": "llm",
            "stand_in": True,
        },
        {
            "family_id": "standin-kimi-k2",
            "display_name": "Kimi K2 stand-in (simulated)",
            "kind": "llm",
        },  # written before the field existed: read by the id prefix
        {"family_id": "grok-4", "display_name": "Grok 4.1", "kind": "llm"},
        {"family_id": "baseline-random", "display_name": "Random (baseline)", "kind": "baseline"},
        {"family_id": "market", "display_name": "Market price at bet time", "kind": "market"},
    ]
    for rank, row in enumerate(rows[:-1], 1):
        row |= {
            "rank": rank,
            "return_pct_mean": "1.5",
            "total_pnl": "150",
            "brier": "0.2",
            "resolved_bets": 31,
        }
    rows[-1] |= {"rank": None, "return_pct_mean": None, "total_pnl": None, "brier": 0.3}
    rows[-1] |= {"resolved_bets": None}  # a reference row: no bets of its own
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "leaderboard.json").write_text(json.dumps(rows))
    stream = io.StringIO()
    print_leaderboards(tmp_path, stream)
    header, *printed, legend = stream.getvalue().strip().splitlines()[1:]
    assert header.endswith("bets  agent")
    assert legend.startswith("rank: best-worst rank")
    assert "Grok 4.1 stand-in (simulated)" in printed[0]
    kinds = [line.split()[-1] for line in printed]
    assert kinds == ["stand-in", "stand-in", "model", "baseline", "market"]
    assert [line.split()[0] for line in printed] == ["1", "2", "3", "4", "-"]


def test_the_printed_leaderboard_shows_rank_ranges_and_intervals(tmp_path: Path) -> None:
    common = {"kind": "llm", "stand_in": True, "total_pnl": "10", "resolved_bets": 40}
    rows: list[dict[str, Any]] = [
        common
        | {"display_name": "Leader", "rank": 1, "rank_best": 1, "rank_worst": 2}
        | {"brier": "0.1", "brier_low": "0.05", "brier_high": "0.15", "standing": "ranked"}
        | {"return_pct_mean": "2.5", "return_low": "-1.25", "return_high": "6"},
        common
        | {"display_name": "Second", "rank": 2, "rank_best": 1, "rank_worst": 2}
        | {"tied_with_leader": True, "brier": "0.12", "brier_skill_vs_market": "-0.0001"}
        | {"return_pct_mean": None, "standing": "ranked"},
        common
        | {"display_name": "Few bets", "rank": None, "standing": "provisional"}
        | {"brier": "0.3", "return_pct_mean": "1"},
    ]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "leaderboard.json").write_text(json.dumps(rows))
    stream = io.StringIO()
    print_leaderboards(tmp_path, stream)
    leader, second, few = stream.getvalue().strip().splitlines()[2:5]
    assert leader.startswith("1-2 ") and "0.100 [0.050, 0.150]" in leader
    assert "2.50 [-1.25, 6.00]" in leader
    assert second.startswith("1-2* ") and " 0.000 " in second  # never "-0.000"
    assert few.startswith("prov. ") and "0.300 " in few
