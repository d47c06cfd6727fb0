"""The agent's MCP config points at the port the server really listens on.

`mcp_host` defaults to `localhost:<port>`; `<port>` used to come from the `port`
environment variable (or 3000) only, so a server started on another port sent its agents to
whatever answered there (another server's tools). Here the server runs on a free port
while `port` names a different, closed one: the agent must still be offered this server's
own `/mcp/mcp` tools, which it can only list by reaching this server.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.server.helpers import settings_body, stop, wait_agent_state, wait_status
from tests.server.server_process import ServerProcess, config_toml, free_port
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

OWN_TOOLS = {"create_pr", "create_mr", "create_bitbucket_pr"}


async def test_default_mcp_host_uses_the_listening_port(tmp_path: Path) -> None:
    root = tmp_path / "server"
    config = config_toml(root).replace("enable_mcp = false", "enable_mcp = true")
    wrong_port = free_port()  # nothing listens there
    with (
        ScriptedLLMServer([], fallback=lambda body: s.text("ok")) as llm,
        ServerProcess(root, config=config, env={"port": str(wrong_port)}) as server,
    ):
        assert server.port != wrong_port
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            stored = await client.post("/api/settings", json=settings_body(llm.base_url))
            assert stored.status_code == 200, stored.text
            created = await client.post("/api/conversations", json={"initial_user_msg": "hi"})
            assert created.status_code == 200, created.text
            conversation_id = created.json()["conversation_id"]
            await wait_status(client, conversation_id, "RUNNING")
            events = await wait_agent_state(client, conversation_id, "awaiting_user_input")
            await stop(client, conversation_id)

    system = next(e for e in events if e.get("action") == "system")
    offered = {tool["function"]["name"] for tool in system["args"]["tools"]}
    assert offered >= OWN_TOOLS, offered
