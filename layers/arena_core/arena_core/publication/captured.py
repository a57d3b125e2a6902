"""A panel question's market as the panel captured it: what its page and its row in the markets
table show until the arena stores the market itself (the first resolution pass after the run
fetches every market a panel asked about)."""

from __future__ import annotations

from decimal import Decimal

from arena_core.domain.market import Market, OutcomeQuote
from arena_core.domain.panel import PanelMarket


def captured_market(question: PanelMarket) -> Market:
    """The market at capture: open, its question, category, end date and event, and its two
    outcomes priced at the captured P(YES) (the first outcome's price) and its complement."""
    return Market(
        market_id=question.market_id,
        question=question.question,
        outcomes=(
            OutcomeQuote(name="Yes", price=question.p_yes),
            OutcomeQuote(name="No", price=Decimal(1) - question.p_yes),
        ),
        category=question.category,
        end_date=question.end_date,
        event_id=question.event_id,
    )
