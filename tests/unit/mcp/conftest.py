"""Real MCP servers (tests.support.mcp_server) on 127.0.0.1, shared by this package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.mcp_server import TEST_API_KEY as API_KEY
from tests.support.mcp_server import MCPTestServer


@pytest.fixture(scope="session")
def sse_server() -> Iterator[MCPTestServer]:
    with MCPTestServer("sse", api_key=API_KEY) as server:
        yield server


@pytest.fixture(scope="session")
def shttp_server() -> Iterator[MCPTestServer]:
    with MCPTestServer("shttp", api_key=API_KEY) as server:
        yield server


@pytest.fixture(params=["sse", "shttp"])
def any_server(
    request: pytest.FixtureRequest, sse_server: MCPTestServer, shttp_server: MCPTestServer
) -> MCPTestServer:
    """Each test that uses it runs once per transport."""
    return sse_server if request.param == "sse" else shttp_server
