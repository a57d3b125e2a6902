"""``arena preview``: the exact prompt an agent would get now, and (``--call``) what its model
answers and what that answer would trade, writing nothing anywhere.

The agent is the family's member of the newest active cohort (or of ``--week``'s cohort): its
cash and positions as the deployed table holds them. A family with no member yet (just added
to the lineup) is previewed as a new cohort would start it. The universe is today's top markets
from Gamma, or the recorded dump (``--offline``), read through the same client and parser as
the decision run. The prompt comes from the decide path's own builder
(``arena_core.services.prompting``); the reply goes through its own consult loop (format
retries included) into an in-memory audit, and its trades are planned, never applied. Under
v1+panel the panel is drawn from the panel listing as the decision run draws it. After the
prompt: its size and tokens, and what a decision costs for each model family of the lineup.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TextIO

from arena_core.domain.cohort import Agent, Cohort, cohort_id_for, decision_week
from arena_core.domain.decisions import Consultation
from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_core.domain.market import Market
from arena_core.domain.panel import Methodology, Panel
from arena_core.domain.portfolio import Position
from arena_core.domain.releases import first_lineup, release_in_force
from arena_core.errors import NotFoundError
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.stores import Stores
from arena_core.protocol.budget import BYTES_PER_TOKEN, completion_budget, expected_completion
from arena_core.protocol.prompt import Prompt
from arena_core.services.consult import consult
from arena_core.services.panel import PanelSettings, captured_panel
from arena_core.services.prompting import decision_prompt
from arena_core.services.trading import TradeOutcome, TradeRun, plan_all
from arena_local.memory import InMemoryBlobStore


@dataclass(frozen=True)
class Member:
    """Who is previewed: the agent as stored (or as a new cohort would start it)."""

    agent: Agent
    cohort: Cohort
    positions: list[Position]
    stored: bool


def find_member(
    stores: Stores,
    family_id: str,
    week: date | None,
    now: datetime,
    methodology: Methodology = Methodology.V1,
) -> Member:
    """The family's agent in ``week``'s cohort, else in the newest active cohort that has it,
    else a new member of this week's cohort from the lineup in force (read, never seeded),
    opened under ``methodology``."""
    if week is not None:
        cohort_id = cohort_id_for(datetime(week.year, week.month, week.day, tzinfo=UTC))
        found = stores.cohorts.get_cohort(cohort_id)
        if found is None:
            raise NotFoundError(f"no cohort {cohort_id} in this deployment")
        cohorts = [found]
    else:
        cohorts = [c for c in stores.cohorts.active_cohorts() if c.week_start <= now]
    for cohort in reversed(cohorts):
        if any(spec.family_id == family_id for spec in cohort.lineup):
            agent = stores.ledger.get_agent(Agent.id_for(cohort.cohort_id, family_id))
            return Member(agent, cohort, stores.ledger.positions(agent.agent_id), stored=True)
    if week is not None:
        raise NotFoundError(f"family {family_id} is not in cohort {cohorts[0].cohort_id}")
    lineup = lineup_in_force(stores, now)
    spec = next((s for s in lineup if s.family_id == family_id), None)
    if spec is None:
        known = ", ".join(s.family_id for s in lineup)
        raise NotFoundError(f"family {family_id} is in no active cohort nor the lineup: {known}")
    cohort = Cohort.open(now, (spec,), methodology.value)
    return Member(Agent.start(cohort, spec), cohort, [], stored=False)


def lineup_in_force(stores: Stores, now: datetime) -> tuple[AgentSpec, ...]:
    release = release_in_force(stores.lineups.releases(), now)
    return release.lineup if release else first_lineup()


@dataclass(frozen=True)
class Preview:
    member: Member
    week: int
    run_at: datetime
    markets: list[Market]
    panel: Panel | None
    prompt: Prompt

    @property
    def size(self) -> int:
        return len(self.prompt.system.encode()) + len(self.prompt.user.encode())


def build_preview(
    stores: Stores,
    member: Member,
    markets: list[Market],
    now: datetime,
    *,
    listing: Callable[[], Sequence[Market]] | None = None,
    settings: PanelSettings | None = None,
) -> Preview:
    """The prompt; under v1+panel with the week's panel drawn as the decision run draws it,
    from ``listing`` (the panel listing; the universe when None), into a store thrown away."""
    week = decision_week(member.cohort.week_start, now)
    panel = None
    if member.cohort.methodology_version == Methodology.V1_PANEL:
        source = listing or (lambda: markets)
        panel = captured_panel(InMemoryBlobStore(), source, now, settings or PanelSettings())
    prompt, _ = decision_prompt(
        stores.markets,
        member.agent,
        week=week,
        run_at=now,
        markets=markets,
        positions=member.positions,
        panel=panel,
    )
    return Preview(member, week, now, markets, panel, prompt)


def print_prompt(preview: Preview, origin: str, out: TextIO) -> None:
    agent, cohort = preview.member.agent, preview.member.cohort
    state = "as stored" if preview.member.stored else "not opened yet: as a new cohort starts it"
    out.write(
        f"Preview: {agent.agent_id} ({agent.display_name}, model {agent.model_id}), cohort "
        f"{cohort.cohort_id} ({state}), decision week {preview.week}, at "
        f"{preview.run_at:%Y-%m-%d %H:%M} UTC; {len(preview.markets)} markets from {origin}\n"
    )
    out.write(preview.prompt.transcript())
    system, user = (len(t.encode()) for t in (preview.prompt.system, preview.prompt.user))
    panel = len(preview.panel.markets) if preview.panel is not None else 0
    out.write(
        f"Size: system {system:,} bytes, user {user:,} bytes, total {preview.size:,} bytes "
        f"(about {preview.size // BYTES_PER_TOKEN:,} tokens); panel {panel} markets, "
        f"completion budget {completion_budget(panel):,} tokens\n"
    )


def price_lines(
    preview: Preview, lineup: Sequence[AgentSpec], prices: Mapping[str, Sequence[float]]
) -> list[str]:
    """What one decision of each model family of ``lineup`` costs at this prompt: its prompt
    tokens, and the completion at the answer and K forecasts without thinking (expected) and
    at the whole budget (a reasoning model that thinks to its limit), at the per-model prices
    of ``arena cost``'s table."""
    panel = len(preview.panel.markets) if preview.panel is not None else 0
    tokens_in = preview.size // BYTES_PER_TOKEN
    expected, budget = expected_completion(panel), completion_budget(panel)
    lines = [
        f"Price per decision by family (prompt about {tokens_in:,} tokens; completion "
        f"{expected:,} expected, {budget:,} at most):"
    ]
    for spec in lineup:
        if spec.kind is not AgentKind.LLM:
            continue
        price_in, price_out = prices.get(spec.model_id, (math.nan, math.nan))
        low = (tokens_in * price_in + expected * price_out) / 1e6
        high = (tokens_in * price_in + budget * price_out) / 1e6
        shown = "no price listed" if math.isnan(low) else f"${low:.4f} to ${high:.4f}"
        lines.append(f"  {spec.family_id:<20} {spec.model_id:<32} {shown}")
    return lines


def call_model(preview: Preview, agent: ForecastAgent, out: TextIO) -> list[TradeOutcome]:
    """Send the prompt through the decide path's consult loop; print the raw replies, the
    parsed decision and the trades it would make. Nothing is stored outside this process."""
    member = preview.member
    audit = InMemoryBlobStore()
    context = AgentContext(
        member.agent.agent_id,
        preview.week,
        preview.run_at,
        member.agent.cash,
        [],
        preview.markets,
        preview.panel,
    )
    consultation = consult(
        agent,
        preview.prompt,
        context,
        blobs=audit,
        blob_prefix="preview",
        format_retries=2,
        panel=preview.panel,
    )
    _print_replies(consultation, audit, out)
    run = TradeRun(
        agent_id=member.agent.agent_id,
        decision_id=f"{member.agent.agent_id}.preview",
        owner="preview",
        markets={m.market_id: m for m in preview.markets},
        at=preview.run_at,
    )
    answer = consultation.answer
    outcomes = plan_all(member.agent, member.positions, run, [*answer.bets, *answer.sells])
    out.write(f"Trades it would make ({len(outcomes)}; nothing was applied):\n")
    for outcome in outcomes:
        out.write(f"  {_trade_line(outcome)}\n")
    return outcomes


def _print_replies(consultation: Consultation, audit: InMemoryBlobStore, out: TextIO) -> None:
    for response in consultation.responses:
        body = audit.get(response.response_ref).decode("utf-8", "replace")
        cost = f", cost ${response.cost}" if response.cost is not None else ""
        out.write(
            f"=== raw reply {response.attempt} (model {response.model}, "
            f"{response.prompt_tokens} prompt + {response.completion_tokens} completion tokens"
            f"{cost}) ===\n{body}\n"
        )
        if response.error:
            out.write(f"    not usable: {response.error}\n")
    fallback = f" (fallback: {consultation.fallback_reason})" if consultation.fallback else ""
    out.write(f"=== parsed decision{fallback} ===\n")
    out.write(consultation.answer.model_dump_json(indent=1, exclude_defaults=True) + "\n")


def _trade_line(outcome: TradeOutcome) -> str:
    trade = outcome.trade
    if trade is None:
        return f"#{outcome.index} rejected ({outcome.rejected_rule}): {outcome.reason}"
    return (
        f"#{outcome.index} {trade.kind.value} {trade.side} on {trade.market_id}: "
        f"${trade.amount} at {trade.price} = {trade.shares} shares; cash "
        f"{trade.cash_before} → {trade.cash_after}"
    )
