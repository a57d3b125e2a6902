"""Where the operator is told that something needs them: the alarm topic, or a fake in tests."""

from __future__ import annotations

from abc import ABC, abstractmethod


class Alerts(ABC):
    @abstractmethod
    def send(self, subject: str, message: str) -> None:
        """Deliver one alert; raise an ``ArenaError`` when it cannot be delivered (the caller
        fails rather than let an alert vanish)."""
