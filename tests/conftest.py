"""Suite-wide test setup: paths to the shared fixtures, and no network access.

Every test runs with outbound connections blocked except to loopback, so a test that would reach
a real upstream fails loudly instead of depending on the network.
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Any

import pytest

# DynamoDB Local (AWS's own engine): one server per session, started by the first test that asks.
from tests.support.dynamodb_local_fixture import dynamodb_local, dynamodb_local_table

__all__ = ["dynamodb_local", "dynamodb_local_table"]

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FIXTURES = SHARED / "fixtures"


class NetworkBlockedError(RuntimeError):
    """Raised when a test tries to open a connection off this machine."""


def _is_local(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _block_network(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> Any:
        if not _is_local(address):
            raise NetworkBlockedError(f"tests may not connect to {address!r}")
        return real_connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> Any:
        if not _is_local(address):
            raise NetworkBlockedError(f"tests may not connect to {address!r}")
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _local_getaddrinfo(socket.getaddrinfo))


def _local_getaddrinfo(real: Any) -> Any:
    def guarded(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in (None, "localhost") and not _is_local((host,)):
            raise NetworkBlockedError(f"tests may not resolve {host!r}")
        return real(host, *args, **kwargs)

    return guarded


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not FIXTURES.is_dir():
        pytest.fail(
            f"shared fixtures not found at {FIXTURES}: clone with ../shared beside the stores"
        )
    return FIXTURES
