"""API keys from an SSM Parameter Store SecureString, through Powertools Parameters (decrypted,
cached between invocations).

Only the parameter's *name* is configuration; the key itself never sits in the environment. A
standard SecureString costs nothing (Secrets Manager would cost $0.40 a month for one key, a
fifth of the deployment's budget) and is encrypted with the account's ``aws/ssm`` key.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from arena_core.errors import ConfigurationError

KEY_FIELDS = ("OPENROUTER_API_KEY", "api_key", "apiKey")


def _extract(value: Any, name: str) -> str:
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"parameter {name!r} is empty")
    text = value.strip()
    if text.startswith("{"):
        try:
            fields = json.loads(text)
        except ValueError as exc:
            raise ConfigurationError(f"parameter {name!r} is malformed JSON") from exc
        for field in KEY_FIELDS:
            if isinstance(fields.get(field), str) and fields[field].strip():
                return str(fields[field]).strip()
        raise ConfigurationError(f"parameter {name!r} has none of the fields {KEY_FIELDS}")
    return text


def parameter_api_key(name: str, *, max_age: int = 300) -> Callable[[], str]:
    """A key provider reading the SecureString ``name`` (plain text or JSON with a key field)."""

    def provider() -> str:
        from aws_lambda_powertools.utilities import parameters  # noqa: PLC0415 - decide only
        from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError  # noqa: PLC0415

        try:
            value = parameters.get_parameter(name, decrypt=True, max_age=max_age)
        except GetParameterError as exc:
            raise ConfigurationError(f"cannot read parameter {name!r}: {exc}") from exc
        return _extract(value, name)

    return provider
