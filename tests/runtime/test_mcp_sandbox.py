"""Stdio MCP servers in the Docker sandbox (runtime.md §3.6, §10.8): the host posts the
server to the sandbox, the sandbox's MCP proxy starts it with the sandbox's own Python and
serves its tools over SSE, and the host calls a tool through that proxy.

LocalRuntime runs the same path in ``tests/integration/test_mcp.py``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from openhands.core.config import MCPStdioServerConfig, OpenHandsConfig
from openhands.events.action import MCPAction
from openhands.events.observation import ErrorObservation, MCPObservation
from tests.runtime.conformance import Sandbox, open_sandbox
from tests.support.mcp_server import REPO_ROOT

pytestmark = [pytest.mark.timeout(600)]

SANDBOX_PYTHON = "/openhands/venv/bin/python"


def _with_browser(config: OpenHandsConfig) -> None:
    # The browser-enabled image, as in test_browser_sandbox: one image for both modules.
    config.enable_browser = True


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with open_sandbox("docker", configure=_with_browser, plugins=[]) as sandbox:
        yield sandbox


def test_stdio_server_runs_in_the_sandbox_behind_its_proxy(sandbox: Sandbox) -> None:
    runtime = sandbox.runtime
    runtime.copy_to(str(REPO_ROOT / "tests/support/mcp_server.py"), "/openhands/mcp-test")
    server = MCPStdioServerConfig(
        name="sandbox-tools",
        command=SANDBOX_PYTHON,
        args=["/openhands/mcp-test/mcp_server.py", "--transport", "stdio"],
    )

    config = runtime.get_mcp_config([server])
    proxy = f"{runtime.action_execution_server_url}/mcp/sse"
    assert [s.url for s in config.sse_servers] == [proxy]

    obs = asyncio.run(runtime.call_tool_mcp(MCPAction(name="add", arguments={"a": 20, "b": 22})))
    assert isinstance(obs, MCPObservation), obs
    assert json.loads(obs.content)["content"][0]["text"] == "42"

    # A tool no server offers: a clear error, not an exception.
    missing = asyncio.run(runtime.call_tool_mcp(MCPAction(name="no_such_tool", arguments={})))
    assert isinstance(missing, ErrorObservation)
    assert "no_such_tool" in missing.content
