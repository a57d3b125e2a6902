"""Alerts published to the stack's alarm topic (SNS), the one the alarms and the failed-run rule
publish to: whoever subscribed to it (``arena:alarmEmail``) gets them.

Whatever the caller passes, SNS gets what it accepts: text that encodes as UTF-8 (a lone
surrogate becomes U+FFFD), a subject of at most 100 characters without line breaks or control
characters, a message of at most ``MESSAGE_BYTES`` (SNS refuses over 256 KB, every retry
alike)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from arena_core.domain.text import clean_text
from arena_core.errors import AlertError
from arena_core.ports.alerts import Alerts

SUBJECT_LIMIT = 100  # SNS refuses a longer subject (e-mail subscriptions show it)
MESSAGE_BYTES = 250_000  # SNS refuses a message over 256 KB (262,144 bytes)
CUT = "\n... (cut: the message was too long for SNS)"


def sns_subject(subject: str) -> str:
    """One line of printable text, at most ``SUBJECT_LIMIT`` characters."""
    printable = "".join(c if c.isprintable() else " " for c in clean_text(subject))
    return " ".join(printable.split())[:SUBJECT_LIMIT] or "Forecaster Arena alert"


def sns_message(message: str) -> str:
    """Valid UTF-8 of at most ``MESSAGE_BYTES``, cut at a character with a note when longer."""
    text = clean_text(message)
    if len(text.encode()) <= MESSAGE_BYTES:
        return text
    room = MESSAGE_BYTES - len(CUT.encode())
    return text.encode()[:room].decode(errors="ignore") + CUT


class SnsAlerts(Alerts):
    def __init__(self, client: Any, topic_arn: str) -> None:
        self._client = client
        self._topic_arn = topic_arn

    def send(self, subject: str, message: str) -> None:
        try:
            self._client.publish(
                TopicArn=self._topic_arn, Subject=sns_subject(subject), Message=sns_message(message)
            )
        except (ClientError, BotoCoreError) as exc:
            raise AlertError(f"cannot publish the alert {subject!r}: {exc}") from exc
