"""A one-line progress bar for the simulated run: simulated time, decisions, trades, settlements.

On a terminal the line is redrawn in place (at most a few times a second); elsewhere (CI logs,
pipes) one line is printed per simulated day.
"""

from __future__ import annotations

import time
from typing import TextIO

from arena_local.demo.runner import Tally

WIDTH = 24
REDRAW_SECONDS = 0.2


class ProgressBar:
    def __init__(self, stream: TextIO, label: str) -> None:
        self._stream = stream
        self._label = label
        self._tty = stream.isatty()
        self._last_draw = 0.0
        self._last_day: object = None

    def __call__(self, tally: Tally, done: float) -> None:
        if tally.moment is None:
            return
        if self._tty:
            now = time.monotonic()
            if now - self._last_draw < REDRAW_SECONDS and done < 1:
                return
            self._last_draw = now
            self._stream.write("\r" + self.line(tally, done))
        else:
            day = tally.moment.date()
            if day == self._last_day:
                return
            self._last_day = day
            self._stream.write(self.line(tally, done) + "\n")
        self._stream.flush()

    def line(self, tally: Tally, done: float) -> str:
        filled = int(WIDTH * min(max(done, 0.0), 1.0))
        bar = "#" * filled + "-" * (WIDTH - filled)
        moment = tally.moment.strftime("%a %Y-%m-%d %H:%M UTC") if tally.moment else ""
        return (
            f"{self._label} [{bar}] {moment}  decisions {tally.decisions}  "
            f"trades {tally.trades}  settled {tally.settled}  snapshots {tally.snapshots}"
        )

    def finish(self) -> None:
        if self._tty:
            self._stream.write("\n")
            self._stream.flush()
