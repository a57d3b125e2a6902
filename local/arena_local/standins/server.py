"""The stand-ins' HTTP server: OpenAI-compatible chat completions on loopback.

The demo starts it for its run and stops it at the end; the real ``OpenRouterClient`` reaches
it through its base URL, exactly as it reaches any server given with ``--llm-base-url``, so the
whole client path (request body, response parsing, usage and cost) runs as in production.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from arena_local.standins.completions import error_body
from arena_local.standins.models import StandInModels

HOST = "127.0.0.1"
PATHS = ("/chat/completions", "/v1/chat/completions")
POLL_SECONDS = 0.05  # how soon serve_forever notices a shutdown: the demo waits that long


class _Server(ThreadingHTTPServer):
    def __init__(self, models: StandInModels) -> None:
        super().__init__((HOST, 0), _Handler)  # port 0: any free port
        self.models = models


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: one connection serves a whole run
    # An idle kept-alive connection is dropped after an hour: long enough that the client never
    # meets a connection closing under it between two decision runs of a run.
    timeout = 3600

    def do_POST(self) -> None:  # the name http.server dispatches POST requests to
        if self.path.split("?")[0].rstrip("/") not in PATHS:
            self._send(404, error_body(404, f"no such endpoint: {self.path}"))
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError:
            self._send(400, error_body(400, "the request body is not JSON"))
            return
        assert isinstance(self.server, _Server)
        try:
            answer = self.server.models.handle(body)
        except Exception as exc:  # a stand-in bug: answer it rather than drop the connection
            answer = 500, error_body(500, f"stand-in failure: {type(exc).__name__}: {exc}")
        self._send(*answer)

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        del format, args  # the demo's progress bar is the only output


class StandInServer:
    """A context manager: the server runs in a daemon thread between enter and exit."""

    def __init__(self, models: StandInModels) -> None:
        self._models = models
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the stand-in server is not running")
        return f"http://{HOST}:{self._server.server_address[1]}/v1"

    def __enter__(self) -> StandInServer:
        self._server = _Server(self._models)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            args=(POLL_SECONDS,),
            name="standin-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._server is not None and self._thread is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join()
        self._server = self._thread = None
