"""An in-memory alarm topic: what the operator would have been sent."""

from __future__ import annotations

from arena_core.ports.alerts import Alerts


class RecordingAlerts(Alerts):
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def send(self, subject: str, message: str) -> None:
        self.sent.append((subject, message))
