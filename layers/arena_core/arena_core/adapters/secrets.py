"""API keys from AWS Secrets Manager through Powertools Parameters (cached between invocations).

Only the secret's *name* is configuration; the key itself never sits in the environment.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from arena_core.errors import ConfigurationError

KEY_FIELDS = ("OPENROUTER_API_KEY", "api_key", "apiKey")


def _extract(value: Any, secret_name: str) -> str:
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"secret {secret_name!r} is empty")
    text = value.strip()
    if text.startswith("{"):
        try:
            fields = json.loads(text)
        except ValueError as exc:
            raise ConfigurationError(f"secret {secret_name!r} is malformed JSON") from exc
        for field in KEY_FIELDS:
            if isinstance(fields.get(field), str) and fields[field].strip():
                return str(fields[field]).strip()
        raise ConfigurationError(f"secret {secret_name!r} has none of the fields {KEY_FIELDS}")
    return text


def secret_api_key(secret_name: str, *, max_age: int = 300) -> Callable[[], str]:
    """A key provider reading ``secret_name`` (plain text or JSON with an api key field)."""

    def provider() -> str:
        from aws_lambda_powertools.utilities import parameters  # noqa: PLC0415 - decide only
        from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError  # noqa: PLC0415

        try:
            value = parameters.get_secret(secret_name, max_age=max_age)
        except GetParameterError as exc:
            raise ConfigurationError(f"cannot read secret {secret_name!r}: {exc}") from exc
        return _extract(value, secret_name)

    return provider
