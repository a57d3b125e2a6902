"""Ask an agent for its answer: prompt, reply, parse; feed format errors back; fall back to HOLD.

The exact prompt and every raw reply are stored as blobs (the audit keeps references), each
reply with its attempt number. A reply that still cannot be parsed after the configured retries
becomes a HOLD marked as a fallback with the reason, never passed off as the model's choice.
Transport failures are not format errors: they propagate for the caller to record and retry.
"""

from __future__ import annotations

from arena_core.domain.answer import Action, Answer
from arena_core.domain.decisions import Consultation, ResponseAudit
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


def _response_audit(
    attempt: int, ref: str, response: LLMResponse, error: str | None
) -> ResponseAudit:
    return ResponseAudit(
        attempt=attempt,
        response_ref=ref,
        model=response.model,
        provider=response.provider,
        finish_reason=response.finish_reason,
        prompt_tokens=response.prompt_tokens,
        completion_tokens=response.completion_tokens,
        cost=response.cost,
        latency_ms=response.latency_ms,
        transport_attempts=response.attempts,
        error=error,
    )


def excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


def _parsed(text: str) -> tuple[Answer | None, str | None]:
    try:
        return parse_answer(text), None
    except DecisionFormatError as exc:
        return None, str(exc)


def consult(
    agent: ForecastAgent,
    prompt: Prompt,
    context: AgentContext,
    *,
    blobs: BlobStore,
    blob_prefix: str,
    format_retries: int,
    excerpt_chars: int = 600,
) -> Consultation:
    prompt_ref = blobs.put(
        f"{blob_prefix}/prompt.txt",
        f"=== system ===\n{prompt.system}\n=== user ===\n{prompt.user}\n".encode(),
        content_type="text/plain; charset=utf-8",
    )
    messages = [
        ChatMessage(role="system", content=prompt.system),
        ChatMessage(role="user", content=prompt.user),
    ]
    responses: list[ResponseAudit] = []
    error = "no reply"
    for attempt in range(1, format_retries + 2):
        response = agent.respond(messages, context)
        body = response.raw_body or response.content
        ref = blobs.put(f"{blob_prefix}/response-{attempt}.json", body.encode())
        answer, problem = _parsed(response.text)
        responses.append(_response_audit(attempt, ref, response, problem))
        if answer is not None:
            return Consultation(
                answer=answer,
                fallback=False,
                fallback_reason=None,
                prompt_ref=prompt_ref,
                responses=tuple(responses),
            )
        error = problem or error
        messages += [
            ChatMessage(role="assistant", content=response.text[: excerpt_chars * 4] or "(empty)"),
            ChatMessage(
                role="user",
                content=FEEDBACK.format(error=error, excerpt=excerpt(response.text, excerpt_chars)),
            ),
        ]
    reason = f"no valid decision after {len(responses)} replies; last error: {error}"
    return Consultation(
        answer=Answer(action=Action.HOLD, reasoning=f"[fallback HOLD] {reason}"),
        fallback=True,
        fallback_reason=reason,
        prompt_ref=prompt_ref,
        responses=tuple(responses),
    )
