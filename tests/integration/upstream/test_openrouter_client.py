"""OpenRouterClient against the real recorded bodies in ../shared/fixtures/openrouter."""

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from moto import mock_aws

from arena_core.adapters.openrouter import OpenRouterClient, request_body
from arena_core.adapters.retry import Retrier, RetryPolicy
from arena_core.adapters.secrets import parameter_api_key
from arena_core.errors import (
    ConfigurationError,
    FatalUpstreamError,
    RetryableUpstreamError,
    UpstreamAuthError,
    UpstreamBadRequestError,
    UpstreamCreditsError,
    UpstreamNotFoundError,
)
from arena_core.ports.llm import ChatMessage, LLMRequest
from tests.support.fake_time import FakeTime

OR = "openrouter/"


def body(fixtures_dir: Path, name: str) -> Any:
    return json.loads((fixtures_dir / OR / name).read_text())


REQUEST = LLMRequest(
    model="openai/gpt-5.2",
    messages=(ChatMessage(role="system", content="rules"), ChatMessage(role="user", content="go")),
    max_tokens=2000,
)


def client(
    handler: Any,
    time: FakeTime | None = None,
    *,
    total_timeout: float = 240.0,
    key: str | None = "sk-test",
) -> OpenRouterClient:
    time = time or FakeTime()
    retrier = Retrier(
        RetryPolicy(max_attempts=3, total_budget=60), sleep=time.sleep, clock=time.clock
    )
    return OpenRouterClient(
        httpx.Client(transport=httpx.MockTransport(handler)),
        lambda: key,
        retrier=retrier,
        clock=time.clock,
        total_timeout=total_timeout,
        base_url="https://example.test/api/v1",
    )


def answer(status: int, payload: Any, headers: dict[str, str] | None = None) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=payload, headers=headers)

    return handler


def test_success_with_cost(fixtures_dir: Path) -> None:
    response = client(
        answer(200, body(fixtures_dir, "extracted/test_openrouter_usage__1.response_200.json"))
    ).complete(REQUEST)
    assert response.content.startswith("Here’s a concise")
    assert response.model == "openai/gpt-5-mini"
    assert response.provider == "OpenAI"
    assert response.cost == Decimal("0.00435825")
    assert (response.prompt_tokens, response.completion_tokens, response.total_tokens) == (
        17,
        2177,
        2194,
    )
    assert response.attempts == 1
    assert response.finish_reason == "stop"
    assert json.loads(response.raw_body)["id"] == response.response_id


def test_success_without_cost_and_scientific_cost(fixtures_dir: Path) -> None:
    plain = client(
        answer(200, body(fixtures_dir, "extracted/test_openrouter_usage__0.response_200.json"))
    ).complete(REQUEST)
    assert plain.cost is None
    tiny = client(
        answer(
            200,
            body(
                fixtures_dir,
                "extracted/test_openrouter_thinking_false_profile_gated_model__0.response_200.json",
            ),
        )
    ).complete(REQUEST)
    assert tiny.cost == Decimal("0.000014")
    zero = client(
        answer(
            200,
            body(
                fixtures_dir, "extracted/test_openrouter_google_nested_schema__0.response_200.json"
            ),
        )
    ).complete(REQUEST)
    assert zero.cost == Decimal("0")


def test_reasoning_is_recorded(fixtures_dir: Path) -> None:
    response = client(
        answer(
            200, body(fixtures_dir, "extracted/test_openrouter_with_reasoning__0.response_200.json")
        )
    ).complete(REQUEST)
    assert response.reasoning is not None and "Deconstruct" in response.reasoning
    assert response.provider == "BaseTen"
    assert response.text == response.content


def test_null_content_with_reasoning_falls_back_to_the_reasoning(fixtures_dir: Path) -> None:
    payload = body(
        fixtures_dir,
        "extracted/test_openrouter_thinking_high_emits_effort_high__0.response_200.json",
    )
    payload["choices"][0]["message"]["content"] = None
    payload["choices"][0]["message"]["reasoning"] = '{"action": "HOLD", "reasoning": "r"}'
    response = client(answer(200, payload)).complete(REQUEST)
    assert response.content == ""
    assert response.text == '{"action": "HOLD", "reasoning": "r"}'


@pytest.mark.parametrize(
    ("name", "status", "error", "fragment"),
    [
        ("issue_threads/or_401_user_not_found.json", 401, UpstreamAuthError, "User not found."),
        (
            "issue_threads/or_402_insufficient_credits_max_tokens.json",
            402,
            UpstreamCreditsError,
            "can only afford 10114",
        ),
        (
            "issue_threads/or_404_no_endpoints_for_model.json",
            404,
            UpstreamNotFoundError,
            "No endpoints found",
        ),
        ("issue_threads/or_404_no_allowed_providers.json", 404, UpstreamNotFoundError, ""),
        ("issue_threads/or_404_no_endpoints_tool_use.json", 404, UpstreamNotFoundError, "tool use"),
        (
            "issue_threads/or_400_provider_error_nested_raw_json_string.json",
            400,
            UpstreamBadRequestError,
            "must contain the word 'json'",
        ),
    ],
)
def test_fatal_errors_are_typed_carry_the_message_and_are_not_retried(
    fixtures_dir: Path, name: str, status: int, error: type[FatalUpstreamError], fragment: str
) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(status, json=body(fixtures_dir, name))

    with pytest.raises(error) as caught:
        client(handler).complete(REQUEST)
    assert fragment in str(caught.value)
    assert caught.value.status == status
    assert len(calls) == 1


@pytest.mark.parametrize(
    "name",
    [
        "extracted/test_openrouter_errors_raised__0.response_429.json",
        "issue_threads/or_429_upstream_provider_rate_limited.json",
    ],
)
def test_429_is_retried_then_gives_up_retryable(fixtures_dir: Path, name: str) -> None:
    time = FakeTime()
    with pytest.raises(RetryableUpstreamError, match="rate-limited"):
        client(answer(429, body(fixtures_dir, name), {"Retry-After": "3"}), time).complete(REQUEST)
    assert time.sleeps == [3.0, 3.0]


@pytest.mark.parametrize(
    ("name", "status", "error", "fragment"),
    [
        ("or_402_with_previous_errors_TRUNCATED.txt", 402, UpstreamCreditsError, "afford 3395"),
        (
            "or_429_free_models_per_day_with_headers_TRUNCATED.txt",
            429,
            RetryableUpstreamError,
            "free-models-per-day",
        ),
    ],
)
def test_truncated_non_json_error_bodies_keep_status_and_text(
    fixtures_dir: Path, name: str, status: int, error: type[Exception], fragment: str
) -> None:
    # The recorded text, minus the status prefix the reporter pasted before the body.
    text = (fixtures_dir / OR / "issue_threads" / name).read_text().split(" ", 1)[1]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, text=text)

    with pytest.raises(error, match=fragment):
        client(handler).complete(REQUEST)


def test_429_then_success_counts_attempts(fixtures_dir: Path) -> None:
    responses = iter(
        [
            httpx.Response(
                429,
                json=body(
                    fixtures_dir, "extracted/test_openrouter_errors_raised__1.response_429.json"
                ),
            ),
            httpx.Response(503, text="upstream connect error"),
            httpx.Response(
                200, json=body(fixtures_dir, "extracted/test_openrouter_usage__1.response_200.json")
            ),
        ]
    )
    response = client(lambda request: next(responses)).complete(REQUEST)
    assert response.attempts == 3


def test_error_object_inside_http_200_is_an_error() -> None:
    # The body the litellm repr in issue_threads/or_200_with_error_object_litellm_repr.txt records.
    payload = {
        "id": "chatcmpl-x",
        "model": "openrouter/",
        "choices": [
            {"finish_reason": "stop", "index": 0, "message": {"content": None, "role": "assistant"}}
        ],
        "usage": {"completion_tokens": 0, "prompt_tokens": 0, "total_tokens": 0},
        "error": {
            "message": "Provider returned error",
            "code": 429,
            "metadata": {"raw": "error code: 1015", "provider_name": "Kluster"},
        },
    }
    time = FakeTime()
    with pytest.raises(RetryableUpstreamError, match="error code: 1015"):
        client(answer(200, payload), time).complete(REQUEST)
    assert len(time.sleeps) == 2


def test_fatal_error_inside_http_200() -> None:
    payload = {"error": {"message": "User not found.", "code": 401}}
    with pytest.raises(UpstreamAuthError):
        client(answer(200, payload)).complete(REQUEST)


def test_gateway_503_with_plain_text_is_retryable(fixtures_dir: Path) -> None:
    text = (
        fixtures_dir / OR / "issue_threads/or_503_provider_no_workers_wrapped_by_gateway.txt"
    ).read_text()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, text=text)

    with pytest.raises(RetryableUpstreamError, match="503"):
        client(handler).complete(REQUEST)


def test_timeouts_bound_the_whole_response_not_only_the_headers() -> None:
    time = FakeTime()

    class Trickle(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            for _ in range(100):
                time.advance(5)  # each chunk arrives within the read timeout...
                yield b" "

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Trickle())

    with pytest.raises(RetryableUpstreamError, match="within 30s"):
        client(handler, time, total_timeout=30).complete(REQUEST)  # ...but the whole takes 500 s


def test_network_errors_are_retried() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    with pytest.raises(RetryableUpstreamError, match="connection error"):
        client(handler).complete(REQUEST)


def test_request_shape_and_headers() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"model": "m", "choices": [{"message": {"content": "{}"}}]})

    request = REQUEST.model_copy(
        update={
            "response_format": {"type": "json_object"},
            "provider": {"order": ["OpenAI"], "allow_fallbacks": False},
            "reasoning": {"effort": "high"},
        }
    )
    client(handler).complete(request)
    sent = json.loads(seen[0].content)
    assert seen[0].url.path == "/api/v1/chat/completions"
    assert seen[0].headers["Authorization"] == "Bearer sk-test"
    assert sent["temperature"] == 0
    assert sent["max_tokens"] == 2000
    assert sent["response_format"] == {"type": "json_object"}
    assert sent["provider"]["order"] == ["OpenAI"]
    assert sent["reasoning"] == {"effort": "high"}
    assert sent["messages"][1] == {"role": "user", "content": "go"}
    assert "reasoning" not in request_body(REQUEST)


def test_local_servers_need_no_key() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200, json={"model": "local", "choices": [{"message": {"content": "ok"}}]}
        )

    response = client(handler, key=None).complete(REQUEST)
    assert "Authorization" not in seen[0].headers
    assert response.model == "local"


def test_body_without_choices_is_retryable() -> None:
    with pytest.raises(RetryableUpstreamError, match="without choices"):
        client(answer(200, {"id": "x"})).complete(REQUEST)


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        yield


@pytest.mark.usefixtures("aws")
def test_api_key_is_read_from_an_ssm_secure_string_and_cached() -> None:
    ssm = boto3.client("ssm")
    name = "/forecaster-arena/openrouter-api-key"
    ssm.put_parameter(Name=name, Value="sk-from-ssm", Type="SecureString")
    provider = parameter_api_key(name)
    assert provider() == "sk-from-ssm"  # decrypted
    ssm.put_parameter(Name=name, Value="sk-rotated", Type="SecureString", Overwrite=True)
    assert provider() == "sk-from-ssm"  # cached for max_age


@pytest.mark.usefixtures("aws")
def test_api_key_in_a_json_parameter_and_missing_parameter() -> None:
    boto3.client("ssm").put_parameter(
        Name="/arena/json", Value='{"api_key": "sk-json"}', Type="SecureString"
    )
    assert parameter_api_key("/arena/json", max_age=0)() == "sk-json"
    with pytest.raises(ConfigurationError, match="cannot read parameter"):
        parameter_api_key("/arena/absent", max_age=0)()
