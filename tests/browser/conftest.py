"""Browser tests: the generated site served on loopback with the production CSP, in Debian's
Chromium driven by Playwright (the test command installs Chromium; nothing is downloaded here)."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Dialog,
    Error,
    Page,
    Request,
    Response,
    sync_playwright,
)

from arena_core.analysis.figures import Rules
from arena_local.serve import SiteHandler
from tests.conftest import ROOT
from tests.support.scenario import Scenario, build

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "test-artifacts"


class Handler(SiteHandler):
    """``arena serve``'s handler (the headers CloudFront sends), without the request log."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    # Extra markets and a lower minimum sample, so ranks, rank ranges, provisional and unscored
    # families, pairs and reliability bins all appear on the pages.
    rules = Rules(min_forecasts=8, min_cohorts=2, min_weeks=2, min_events=4)
    built = build(tmp_path_factory.mktemp("site"), weeks=2, extra=6, rules=rules)
    built.publish()
    return built


@pytest.fixture(scope="session")
def base_url(scenario: Scenario) -> Iterator[str]:
    handler = functools.partial(Handler, directory=str(scenario.site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run the README's test command, which installs it")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def axe_source() -> str:
    path = ROOT / "node_modules/axe-core/axe.min.js"
    if not path.exists():
        pytest.fail("node_modules/axe-core is missing: run the README's test command")
    return path.read_text()


class Visit:
    """A page with every console error, failed request, dialog and CSP violation recorded."""

    def __init__(self, browser: Browser, url: str, width: int = 1280) -> None:
        height = 900 if width > 640 else 844  # a desktop, or a phone
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page: Page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", self._page_error)
        self.page.on("requestfailed", self._failed)
        self.page.on("response", self._response)
        self.page.on("dialog", self._dialog)
        self.page.goto(url, wait_until="load")

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def _page_error(self, error: Error) -> None:
        self.problems.append(f"page error: {error}")

    def _failed(self, request: Request) -> None:
        self.problems.append(f"failed request: {request.url}")

    def _response(self, response: Response) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def _dialog(self, dialog: Dialog) -> None:
        self.problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser: Browser, base_url: str) -> Iterator[Any]:
    opened: list[Visit] = []

    def open_page(path: str, width: int = 1280) -> Visit:
        found = Visit(browser, f"{base_url}/{path}", width)
        opened.append(found)
        return found

    yield open_page
    for v in opened:
        v.close()
