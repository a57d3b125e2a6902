"""A decision in full, for the dataset: its prompts, every raw reply with what it cost, and
every instruction with what became of it (declared like every other table)."""

from __future__ import annotations

Column = tuple[str, str]

DECISION_KEYS: tuple[Column, ...] = (
    ("decision_id", "The decision (agent id + week)."),
    ("agent_id", "Agent id."),
    ("cohort_id", "Cohort id."),
    ("week", "Decision week."),
)

DECISION_COST: tuple[Column, ...] = (
    ("tokens_in", "Prompt tokens over every reply (format retries included), as reported."),
    ("tokens_out", "Completion tokens over every reply, as reported."),
    ("cost_usd", "What the replies cost in US dollars, as the provider reported (usage.cost)."),
    ("latency_ms", "Time spent waiting for the replies, in milliseconds."),
    ("retries", "Format retries: replies after the first."),
    ("completed_at", "When the decision was closed (succeeded, exhausted or failed)."),
)

DECISION_TABLES: dict[str, tuple[str, tuple[Column, ...]]] = {
    "prompts": (
        "Per cohort: the exact system and user prompt each agent was sent, per decision (they "
        "are public data; the prompt is the same for every format retry, followed by feedback).",
        (
            *DECISION_KEYS,
            ("system_prompt", "The system prompt, verbatim."),
            ("user_prompt", "The user prompt, verbatim (portfolio, markets, panel)."),
        ),
    ),
    "replies": (
        "Per cohort: every reply of every decision, raw, with who answered and what it cost.",
        (
            *DECISION_KEYS,
            ("attempt", "1 for the first reply, then one per format retry."),
            ("model", "Model that answered."),
            ("provider", "Provider that answered."),
            ("finish_reason", "Why the model stopped."),
            ("tokens_in", "Prompt tokens."),
            ("tokens_out", "Completion tokens."),
            ("cost_usd", "Cost in US dollars, as reported."),
            ("latency_ms", "Milliseconds until the reply."),
            ("transport_attempts", "HTTP requests it took (transport retries included)."),
            ("error", "Why the reply could not be used (fed back to the model), else empty."),
            (
                "reply_text",
                "The assistant message in the reply; empty when the raw body is the message.",
            ),
            ("raw_body", "The raw response body as received (the whole completion JSON)."),
        ),
    ),
    "instructions": (
        "Per cohort: every instruction of every answer, executed or rejected with its rule.",
        (
            *DECISION_KEYS,
            ("index", "Position of the instruction in the answer (0-based)."),
            ("trade_id", "The trade it became when executed (deterministic: decision + index)."),
            ("kind", "bet or sell."),
            ("market_id", "Bet: the market."),
            ("side", "Bet: the side."),
            ("amount", "Bet: the dollars asked."),
            ("position_id", "Sell: the position."),
            ("percentage", "Sell: the percentage asked."),
            ("executed", "true when it executed."),
            ("rule", "The rule that rejected it, else empty."),
            ("reason", "Why it was rejected, else empty."),
            ("price", "Executed: the side's price."),
            ("shares", "Executed: shares bought or sold."),
            ("filled_amount", "Executed: dollars spent or received."),
        ),
    ),
    "costs": (
        "What the models cost: per family, cohort and decision week, the decisions' tokens, "
        "dollars (the provider's reported usage.cost) and waiting time. Site-wide; the rows "
        "of every cohort are kept.",
        (
            ("methodology", "Methodology version of the cohort."),
            ("family_id", "Family id."),
            ("cohort_id", "Cohort id."),
            ("week", "Decision week of the cohort."),
            ("model_id", "The provider model id the cohort's lineup asked for."),
            (
                "answered_by",
                "The model ids the provider reported answering (a dated version or a "
                "fallback can differ from the one asked for), space-separated.",
            ),
            ("decisions", "Decisions (one per agent and week)."),
            ("replies", "Replies (format retries included)."),
            ("tokens_in", "Prompt tokens, as reported."),
            ("tokens_out", "Completion tokens, as reported."),
            ("cost_usd", "US dollars, as reported."),
            ("latency_ms", "Milliseconds spent waiting for the replies."),
        ),
    ),
}
