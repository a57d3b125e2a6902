"""The LLM client on OpenRouter's OpenAI-compatible chat completions (any compatible server works:
the base URL is configurable and the API key optional).

- Timeouts bound the whole response, not only the headers: the body is streamed and the attempt
  is abandoned once ``total_timeout`` has passed (each wait for bytes is itself bounded by the
  read timeout, so an attempt lasts at most ``total_timeout`` plus one read timeout).
- 429, 5xx, timeouts and connection errors are retried (Retry-After honoured, total time
  bounded); 400, 401/403, 402 and 404 are typed fatal errors carrying the upstream message.
- An ``error`` object inside an HTTP 200 body is an error, classified by its code.
- ``content: null`` with reasoning present is kept: the response's ``text`` falls back to the
  reasoning so a model that answered there can still be parsed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx

from arena_core.adapters.retry import Retrier, Transient, is_retryable_status, parse_retry_after
from arena_core.domain.money import significant_digits, to_decimal
from arena_core.errors import (
    FatalUpstreamError,
    UpstreamAuthError,
    UpstreamBadRequestError,
    UpstreamCreditsError,
    UpstreamNotFoundError,
)
from arena_core.ports.llm import LLMClient, LLMRequest, LLMResponse

OPENROUTER_URL = "https://openrouter.ai/api/v1"
# A request's cost in dollars: more digits, or a million dollars and up, is garbage, not a price.
MAX_COST_DIGITS = 20
MAX_COST = Decimal(1_000_000)

_FATAL_BY_STATUS: dict[int, type[FatalUpstreamError]] = {
    400: UpstreamBadRequestError,
    401: UpstreamAuthError,
    402: UpstreamCreditsError,
    403: UpstreamAuthError,
    404: UpstreamNotFoundError,
}


def request_body(request: LLMRequest) -> dict[str, Any]:
    """The JSON body of a chat completion; optional settings appear only when set."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [m.model_dump() for m in request.messages],
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "usage": {"include": True},
    }
    for key in ("response_format", "provider", "reasoning"):
        value = getattr(request, key)
        if value is not None:
            body[key] = value
    return body


def upstream_message(body: Any) -> str:
    """The human message of an error body, with the provider's nested message when present."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return _shown(body)
    message = _shown(error.get("message", "unknown error"))
    metadata = error.get("metadata")
    raw = metadata.get("raw") if isinstance(metadata, dict) else None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, or nested beyond the decoder's depth
            return f"{message[:200]} ({raw[:200]})"
    if isinstance(raw, dict):
        inner = raw.get("error", raw)
        detail = inner.get("message") if isinstance(inner, dict) else None
        if detail:
            return f"{message} ({_shown(detail)})"
    return message


def _shown(value: Any) -> str:
    """A value of an upstream body as bounded text (a nested one as its type: printing a
    structure nested a thousand deep would itself recurse too deep)."""
    if isinstance(value, str):
        return value[:300]
    if isinstance(value, (dict, list)):
        return f"<{type(value).__name__}>"
    return str(value)[:300]


def _error_for(status: int, message: str, retry_after: float | None) -> Exception:
    if is_retryable_status(status):
        return Transient(f"HTTP {status}: {message}", retry_after=retry_after)
    error_type = _FATAL_BY_STATUS.get(status, FatalUpstreamError)
    return error_type(f"HTTP {status}: {message}", status=status)


class OpenRouterClient(LLMClient):
    def __init__(
        self,
        http: httpx.Client,
        api_key: Callable[[], str | None],
        *,
        base_url: str = OPENROUTER_URL,
        total_timeout: float = 240.0,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        retrier: Retrier | None = None,
        clock: Callable[[], float] = time.monotonic,
        title: str = "Forecaster Arena",
    ) -> None:
        self._http = http
        self._api_key = api_key
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._total_timeout = total_timeout
        self._timeout = httpx.Timeout(
            min(read_timeout, total_timeout), connect=min(connect_timeout, total_timeout)
        )
        self._retrier = retrier or Retrier()
        self._clock = clock
        self._title = title

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "X-Title": self._title}
        key = self._api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _read_within_deadline(self, response: httpx.Response, deadline: float) -> bytes:
        chunks = []
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            if self._clock() > deadline:
                raise Transient(f"response not complete within {self._total_timeout:g}s")
        return b"".join(chunks)

    def _attempt(self, body: dict[str, Any], requested: str) -> LLMResponse:
        deadline = self._clock() + self._total_timeout
        try:
            with self._http.stream(
                "POST", self._url, json=body, headers=self._headers(), timeout=self._timeout
            ) as response:
                raw = self._read_within_deadline(response, deadline)
                status = response.status_code
                retry_after = parse_retry_after(response.headers.get("Retry-After"))
        except httpx.TimeoutException as exc:
            raise Transient(f"timeout: {exc}") from exc
        except httpx.TransportError as exc:
            raise Transient(f"connection error: {exc}") from exc
        text = raw.decode("utf-8", errors="replace")
        try:
            parsed = json.loads(text) if text.strip() else None
        except (ValueError, RecursionError):  # not JSON, or nested beyond the decoder's depth
            parsed = None
        if status != 200:
            raise _error_for(
                status, upstream_message(parsed) if parsed else text[:300], retry_after
            )
        if not isinstance(parsed, dict):
            raise Transient(f"HTTP 200 with a body that is not a JSON object: {text[:120]!r}")
        if parsed.get("error"):
            code = parsed["error"].get("code") if isinstance(parsed["error"], dict) else None
            raise _error_for(code if isinstance(code, int) else 502, upstream_message(parsed), None)
        return to_response(parsed, text, requested=requested)

    def complete(self, request: LLMRequest) -> LLMResponse:
        body = request_body(request)
        started = self._clock()
        response, attempts = self._retrier.run(
            lambda _: self._attempt(body, request.model), what=f"chat completion ({request.model})"
        )
        latency_ms = int((self._clock() - started) * 1000)
        return response.model_copy(update={"latency_ms": latency_ms, "attempts": attempts})


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _optional_text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _content(message: dict[str, Any]) -> str:
    """The reply text: a string, or nothing; any other shape is a malformed completion."""
    content = message.get("content")
    if content is None or isinstance(content, str):
        return content or ""
    raise Transient(f"completion content is a {type(content).__name__}, not text")


def _count(usage: dict[str, Any], field: str) -> int:
    """A token count: absent is 0; anything but a non-negative whole number is malformed."""
    value = usage.get(field)
    if value is None:
        return 0
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole or value < 0:
        raise Transient(f"usage.{field} is not a token count: {str(value)[:40]!r}")
    return int(value)


def _cost(usage: dict[str, Any]) -> Decimal | None:
    value = usage.get("cost")
    if value is None:
        return None
    try:
        cost = to_decimal(value)
    except ValueError as exc:
        raise Transient(f"usage.cost is not an amount: {str(value)[:40]!r}") from exc
    if not 0 <= cost < MAX_COST or significant_digits(cost) > MAX_COST_DIGITS:
        raise Transient(f"usage.cost is not an amount: {str(value)[:40]!r}")
    return cost


def to_response(body: dict[str, Any], raw: str, *, requested: str) -> LLMResponse:
    """Map a successful completion body. A body without a usable choice, or whose content or
    usage has the wrong shape, is malformed: retried, then a ``RetryableUpstreamError``."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise Transient("completion without choices")
    choice: dict[str, Any] = choices[0]
    message = _mapping(choice.get("message"))
    usage = body.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise Transient(f"usage is a {type(usage).__name__}, not an object")
    usage = usage or {}
    return LLMResponse(
        content=_content(message),
        reasoning=_optional_text(message.get("reasoning")),
        model=_optional_text(body.get("model")) or requested,
        provider=_optional_text(body.get("provider")),
        finish_reason=_optional_text(choice.get("finish_reason")),
        response_id=_optional_text(body.get("id")),
        prompt_tokens=_count(usage, "prompt_tokens"),
        completion_tokens=_count(usage, "completion_tokens"),
        total_tokens=_count(usage, "total_tokens"),
        cost=_cost(usage),
        raw_body=raw,
    )
