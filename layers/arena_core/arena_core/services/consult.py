"""Ask an agent for its decision: prompt, reply, parse; feed format errors back; fall back to HOLD.

The exact prompt and every raw reply are stored as blobs (the audit keeps references), each
reply with its attempt number. A reply that still cannot be parsed after the configured retries
becomes a HOLD marked as a fallback with the reason, never passed off as the model's choice.
Transport failures are not format errors: they propagate for the caller to record and retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena_core.decision import parse_decision
from arena_core.decision.prompt import Prompt
from arena_core.domain.decision import Action, Decision
from arena_core.errors import DecisionFormatError
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.llm import ChatMessage, LLMResponse

FEEDBACK = (
    "Your previous reply could not be used: {error}.\n"
    "It began: {excerpt}\n"
    "Reply again with exactly one JSON object (BET, SELL or HOLD) and nothing else."
)


@dataclass(frozen=True)
class Consultation:
    decision: Decision
    fallback: bool
    fallback_reason: str | None
    prompt_ref: str
    responses: list[dict[str, Any]]

    def to_checkpoint(self) -> dict[str, Any]:
        return {
            "decision": self.decision.model_dump(mode="json"),
            "fallback": self.fallback,
            "fallback_reason": self.fallback_reason,
            "prompt_ref": self.prompt_ref,
            "responses": self.responses,
        }

    @classmethod
    def from_checkpoint(cls, data: dict[str, Any]) -> Consultation:
        return cls(
            decision=Decision.model_validate(data["decision"]),
            fallback=bool(data["fallback"]),
            fallback_reason=data.get("fallback_reason"),
            prompt_ref=str(data["prompt_ref"]),
            responses=list(data.get("responses", [])),
        )


def _response_audit(attempt: int, ref: str, response: LLMResponse) -> dict[str, Any]:
    return {
        "attempt": attempt,
        "response_ref": ref,
        "model": response.model,
        "provider": response.provider,
        "finish_reason": response.finish_reason,
        "prompt_tokens": response.prompt_tokens,
        "completion_tokens": response.completion_tokens,
        "cost": None if response.cost is None else str(response.cost),
        "latency_ms": response.latency_ms,
        "transport_attempts": response.attempts,
        "error": None,
    }


def excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


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
    responses: list[dict[str, Any]] = []
    error = "no reply"
    for attempt in range(1, format_retries + 2):
        response = agent.respond(messages, context)
        body = response.raw_body or response.content
        ref = blobs.put(f"{blob_prefix}/response-{attempt}.json", body.encode())
        audit = _response_audit(attempt, ref, response)
        responses.append(audit)
        try:
            decision = parse_decision(response.text)
        except DecisionFormatError as exc:
            error = str(exc)
            audit["error"] = error
            messages += [
                ChatMessage(
                    role="assistant", content=response.text[: excerpt_chars * 4] or "(empty)"
                ),
                ChatMessage(
                    role="user",
                    content=FEEDBACK.format(
                        error=error, excerpt=excerpt(response.text, excerpt_chars)
                    ),
                ),
            ]
            continue
        return Consultation(decision, False, None, prompt_ref, responses)
    reason = f"no valid decision after {len(responses)} replies; last error: {error}"
    fallback = Decision(action=Action.HOLD, reasoning=f"[fallback HOLD] {reason}")
    return Consultation(fallback, True, reason, prompt_ref, responses)
