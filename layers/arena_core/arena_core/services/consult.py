"""Ask an agent for its answer: prompt, reply, parse; feed format errors back; fall back to HOLD.

The exact prompt and every raw reply are stored as blobs (the audit keeps references and the
SHA-256 of the bytes stored, which the decision's commitment covers), each reply with its
attempt number. A reply that still cannot be parsed after the configured retries
becomes a HOLD marked as a fallback with the reason, never passed off as the model's choice.
Transport failures are not format errors: they propagate for the caller to record and retry.

Under ``v1+panel`` the reply also states a probability for every panel market. Missing,
duplicated, unknown, unreadable or out-of-range forecasts are fed back like format errors; once
the retries are spent, the last usable answer stands, its valid forecasts kept and the rest
filled in with the market's price at capture (flagged, with what was wrong).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena_core.domain.answer import Action, Answer
from arena_core.domain.commitments import sha256_hex
from arena_core.domain.decisions import Consultation, ResponseAudit
from arena_core.domain.panel import Panel, complete_forecasts, forecast_problems
from arena_core.errors import DecisionFormatError
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.llm import ChatMessage, LLMResponse
from arena_core.protocol import parse_answer
from arena_core.protocol.prompt import Prompt

FEEDBACK = (
    "Your previous reply could not be used: {error}.\n"
    "It began: {excerpt}\n"
    "Reply again with exactly one JSON object (BET, SELL or HOLD) and nothing else."
)
PANEL_FEEDBACK = " Include 'forecasts' with one p_yes between 0 and 1 for every panel market."
MAX_PROBLEMS = 8  # forecast problems quoted back to the model, and recorded
UPSTREAM_CHARS = 100  # a reply's model, provider and finish reason, as recorded
ERROR_CHARS = 500  # why a reply could not be used, the fallback's reason, forecast problems


def bounded_text(text: str | None, limit: int) -> str | None:
    """Text from a model or its provider, as recorded: at most ``limit`` characters."""
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + "…"


def _response_audit(
    attempt: int, ref: str, body: bytes, response: LLMResponse, error: str | None
) -> ResponseAudit:
    return ResponseAudit(
        attempt=attempt,
        response_ref=ref,
        body_sha256=sha256_hex(body),
        model=bounded_text(response.model, UPSTREAM_CHARS),
        provider=bounded_text(response.provider, UPSTREAM_CHARS),
        finish_reason=bounded_text(response.finish_reason, UPSTREAM_CHARS),
        prompt_tokens=response.prompt_tokens,
        completion_tokens=response.completion_tokens,
        cost=response.cost,
        latency_ms=response.latency_ms,
        transport_attempts=response.attempts,
        error=bounded_text(error, ERROR_CHARS),
    )


def excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


def _parsed(text: str) -> tuple[Answer | None, str | None]:
    try:
        return parse_answer(text), None
    except DecisionFormatError as exc:
        return None, str(exc)


def _forecast_issue(answer: Answer, panel: Panel | None) -> str | None:
    if panel is None:
        return None
    issues = [*answer.forecast_errors, *forecast_problems(answer.forecasts, panel)]
    if not issues:
        return None
    more = f" (and {len(issues) - MAX_PROBLEMS} more)" if len(issues) > MAX_PROBLEMS else ""
    return bounded_text("forecasts: " + "; ".join(issues[:MAX_PROBLEMS]) + more, ERROR_CHARS)


@dataclass(frozen=True)
class _Stored:
    """The prompt as stored: its reference and the SHA-256 of its bytes."""

    ref: str
    sha256: str


def _accepted(
    answer: Answer,
    panel: Panel | None,
    issue: str | None,
    prompt: _Stored,
    responses: list[ResponseAudit],
) -> Consultation:
    if panel is None:  # v1: whatever forecasts a reply carries are not part of the record
        if answer.forecasts or answer.forecast_errors:
            answer = answer.model_copy(update={"forecasts": (), "forecast_errors": ()})
        return Consultation(
            answer=answer,
            fallback=False,
            fallback_reason=None,
            prompt_ref=prompt.ref,
            prompt_sha256=prompt.sha256,
            responses=tuple(responses),
        )
    # The stated forecasts for panel markets are what completing them used; the rest (unknown
    # ids, up to the parser's limit) are described in ``issue``, not stored a second time.
    known = panel.by_id()
    stated = tuple(f for f in answer.forecasts if f.market_id in known)
    return Consultation(
        answer=answer.model_copy(update={"forecasts": stated}),
        fallback=False,
        fallback_reason=None,
        prompt_ref=prompt.ref,
        prompt_sha256=prompt.sha256,
        responses=tuple(responses),
        forecasts=complete_forecasts(stated, panel),
        forecast_problems=issue,
    )


def consult(
    agent: ForecastAgent,
    prompt: Prompt,
    context: AgentContext,
    *,
    blobs: BlobStore,
    blob_prefix: str,
    format_retries: int,
    excerpt_chars: int = 600,
    panel: Panel | None = None,
) -> Consultation:
    transcript = prompt.transcript().encode()
    stored = _Stored(
        blobs.put(
            f"{blob_prefix}/prompt.txt", transcript, content_type="text/plain; charset=utf-8"
        ),
        sha256_hex(transcript),
    )
    messages = [
        ChatMessage(role="system", content=prompt.system),
        ChatMessage(role="user", content=prompt.user),
    ]
    responses: list[ResponseAudit] = []
    error = "no reply"
    usable: tuple[Answer, str] | None = None  # the last answer whose forecasts fell short
    feedback = FEEDBACK + (PANEL_FEEDBACK if panel is not None else "")
    for attempt in range(1, format_retries + 2):
        response = agent.respond(messages, context)
        body = (response.raw_body or response.content).encode()
        ref = blobs.put(f"{blob_prefix}/response-{attempt}.json", body)
        answer, problem = _parsed(response.text)
        issue = _forecast_issue(answer, panel) if answer is not None else None
        responses.append(_response_audit(attempt, ref, body, response, problem or issue))
        if answer is not None and issue is None:
            return _accepted(answer, panel, None, stored, responses)
        if answer is not None and issue is not None:
            usable = (answer, issue)
        error = problem or issue or error
        messages += [
            ChatMessage(role="assistant", content=response.text[: excerpt_chars * 4] or "(empty)"),
            ChatMessage(
                role="user",
                content=feedback.format(error=error, excerpt=excerpt(response.text, excerpt_chars)),
            ),
        ]
    if usable is not None:
        return _accepted(usable[0], panel, usable[1], stored, responses)
    reason = f"no valid decision after {len(responses)} replies; last error: {error}"
    reason = bounded_text(reason, ERROR_CHARS) or reason
    return Consultation(
        answer=Answer(action=Action.HOLD, reasoning=f"[fallback HOLD] {reason}"),
        fallback=True,
        fallback_reason=reason,
        prompt_ref=stored.ref,
        prompt_sha256=stored.sha256,
        responses=tuple(responses),
        forecasts=complete_forecasts((), panel) if panel is not None else (),
        forecast_problems=None if panel is None else "no usable reply: every forecast filled in",
    )
