"""Alerts published to the stack's alarm topic (SNS), the one the alarms and the failed-run rule
publish to: whoever subscribed to it (``arena:alarmEmail``) gets them."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from arena_core.errors import AlertError
from arena_core.ports.alerts import Alerts

SUBJECT_LIMIT = 100  # SNS refuses a longer subject (e-mail subscriptions show it)


class SnsAlerts(Alerts):
    def __init__(self, client: Any, topic_arn: str) -> None:
        self._client = client
        self._topic_arn = topic_arn

    def send(self, subject: str, message: str) -> None:
        try:
            self._client.publish(
                TopicArn=self._topic_arn, Subject=subject[:SUBJECT_LIMIT], Message=message
            )
        except (ClientError, BotoCoreError) as exc:
            raise AlertError(f"cannot publish the alert {subject!r}: {exc}") from exc
