"""A server bound to 0.0.0.0 is reachable from sandboxes over the Docker bridge; a sandbox
must get nothing there but its MCP endpoint (with its key).

A real server process listens on 0.0.0.0 (free port); a real Docker sandbox curls it at the
bridge gateway address. Settings, conversations and Socket.IO answer 403 to the sandbox,
`/mcp/mcp` answers 401 without the conversation's key and 200 with it. The same URLs from
this host (loopback, or the gateway address, which is the host itself) work as usual.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import docker
import httpx
import pytest

from openhands.events.observation import CmdOutputObservation
from openhands.server.mcp_endpoint import conversation_mcp_key
from tests.runtime.conformance import Sandbox, open_sandbox, require_docker
from tests.server.helpers import write_conversation
from tests.server.server_process import JWT_SECRET, ServerProcess

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]

STATUS_MARK = "HTTP_STATUS:"


@pytest.fixture(scope="module")
def exposed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    require_docker()
    process = ServerProcess(tmp_path_factory.mktemp("exposed"), host="0.0.0.0").start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with open_sandbox("docker", plugins=[]) as box:
        yield box


def bridge_gateway(container_name: str) -> str:
    attrs = docker.from_env().api.inspect_container(container_name)
    networks = attrs["NetworkSettings"]["Networks"]
    gateway = next(n["Gateway"] for n in networks.values() if n.get("Gateway"))
    return str(gateway)


def curl(sandbox: Sandbox, url: str, *args: str) -> tuple[int, str]:
    """(status, body) of a request made inside the sandbox."""
    command = " ".join(
        [
            "curl -sS --max-time 30",
            *(shlex.quote(a) for a in args),
            f"-w '\\n{STATUS_MARK}%{{http_code}}'",
            shlex.quote(url),
        ]
    )
    obs = sandbox.run(command, timeout=60)
    assert isinstance(obs, CmdOutputObservation), obs
    assert obs.exit_code == 0, obs.content
    body, _, status = obs.content.rpartition(STATUS_MARK)
    return int(status.strip()), body.strip()


def test_sandbox_reaches_only_its_mcp_endpoint(
    exposed_server: ServerProcess, sandbox: Sandbox
) -> None:
    gateway = bridge_gateway(sandbox.container_name)
    base = f"http://{gateway}:{exposed_server.port}"
    conversation_id = write_conversation(exposed_server.store)

    # From this host the API answers as usual, through loopback and through the gateway
    # address (the host's own address on the bridge, never a sandbox).
    for host_base in (exposed_server.url, base):
        with httpx.Client(base_url=host_base, timeout=30) as http:
            assert http.get("/api/settings").status_code in (200, 404)
            assert http.get("/api/conversations").status_code == 200

    # From the sandbox: everything but /mcp is forbidden, Socket.IO included.
    for path in (
        "/api/settings",
        "/api/conversations",
        f"/api/conversations/{conversation_id}",
        f"/api/conversations/{conversation_id}/events",
        "/api/secrets",
        "/socket.io/?EIO=4&transport=polling",
        "/alive",
    ):
        status, body = curl(sandbox, base + path)
        assert status == 403, (path, body)
        assert "a sandbox may only call the MCP endpoint" in body

    initialize = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "sandbox-curl", "version": "1"},
            },
        }
    )
    mcp_args = [
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        "-H",
        "Accept: application/json, text/event-stream",
        "-H",
        f"X-OpenHands-ServerConversation-ID: {conversation_id}",
        "--data",
        initialize,
    ]
    status, body = curl(sandbox, f"{base}/mcp/mcp", *mcp_args)
    assert status == 401, body
    key = conversation_mcp_key(JWT_SECRET, conversation_id)
    status, body = curl(sandbox, f"{base}/mcp/mcp", *mcp_args, "-H", f"X-Session-API-Key: {key}")
    assert status == 200, body
    assert json.loads(body)["result"]["serverInfo"]["name"] == "openhands"


def test_exposed_server_without_auth_logs_a_warning(exposed_server: ServerProcess) -> None:
    assert "WITHOUT AUTHENTICATION" in Path(exposed_server.log_path).read_text()
