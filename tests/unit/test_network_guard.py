"""The suite-wide network guard really blocks outbound connections."""

import socket

import pytest

from tests.conftest import NetworkBlockedError


def test_outbound_connection_is_refused() -> None:
    with socket.socket() as sock, pytest.raises(NetworkBlockedError):
        sock.connect(("203.0.113.7", 443))


def test_dns_lookup_is_refused() -> None:
    with pytest.raises(NetworkBlockedError):
        socket.getaddrinfo("gamma-api.polymarket.com", 443)


def test_loopback_is_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket() as client:
            client.connect(server.getsockname())
            assert client.getpeername() == server.getsockname()
