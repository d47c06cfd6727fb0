"""The `fetch` MCP tool that microagents/default-tools.md gives every conversation, in a real
Docker sandbox with no package index to download from.

A headless run (`python -m openhands.core.main`) on the Docker runtime: the sandbox's MCP
proxy starts `uvx mcp-server-fetch`, which must find the copy installed in the image, so
the scripted model is offered `fetch`. The model has a web page served inside the sandbox
and fetches it. Out of the box the server refuses private and loopback addresses (safe by
default, so a fetch cannot reach the host's services); started with `--allow-private-ips`
(a `[mcp]` stdio server of the same name, which wins over the microagent's) it returns the
page as Markdown.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.headless_run import headless_config, run_headless
from tests.support.scripted_llm import ScriptedLLMServer, tool_call

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]

PAGE_URL = "http://127.0.0.1:8765/page.html"
PAGE = "<html><body><h1>Fetched from the sandbox</h1><p>tea and biscuits</p></body></html>"
# Serves /workspace/site in the sandbox and returns once the page answers (not a fixed wait).
SERVE_PAGE = (
    "cd /workspace/site && (nohup python3 -m http.server 8765 --bind 127.0.0.1 "
    '>/tmp/site.log 2>&1 &) && python3 -c "import time, urllib.request\n'
    "for _ in range(300):\n"
    "    try:\n"
    f"        urllib.request.urlopen('{PAGE_URL}', timeout=1); print('serving'); break\n"
    '    except OSError: time.sleep(0.1)"'
)
# What the host logs when the sandbox's proxy could not start a stdio MCP server.
PROXY_PROBLEM = "MCP proxy of the sandbox:"


def _run(tmp_path: Path, mcp_section: str = "") -> tuple[str, list[dict[str, Any]], list[Any]]:
    workspace = tmp_path / "workspace"
    (workspace / "site").mkdir(parents=True)
    (workspace / "site" / "page.html").write_text(PAGE)
    trajectory = tmp_path / "trajectory.json"
    script = [
        tool_call("execute_bash", {"command": SERVE_PAGE, "security_risk": "LOW"}),
        tool_call("fetch", {"url": PAGE_URL}),
        tool_call("finish", {"message": "Fetched."}),
    ]
    with ScriptedLLMServer(script) as llm:
        config = headless_config(tmp_path, llm_url=llm.base_url, extra=mcp_section)
        output = run_headless(config, "Fetch the page the sandbox serves.")
        requests = llm.completion_requests
    return output, json.loads(trajectory.read_text()), requests


def _fetch_result(events: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The MCP call of `fetch` and the text its server answered."""
    call = next(e for e in events if e.get("action") == "call_tool_mcp")
    observation = next(e for e in events if e.get("observation") == "mcp")
    result = json.loads(observation["content"])
    return call, "\n".join(part.get("text", "") for part in result["content"])


def test_default_fetch_tool_starts_offline_and_refuses_private_addresses(tmp_path: Path) -> None:
    output, events, requests = _run(tmp_path)

    offered = [tool["function"]["name"] for tool in requests[0].tools or []]
    assert "fetch" in offered
    assert PROXY_PROBLEM not in output
    served = next(e for e in events if e.get("observation") == "run" and e["cause"] is not None)
    assert "serving" in served["content"]

    call, answer = _fetch_result(events)
    assert call["args"]["name"] == "fetch"
    assert call["args"]["arguments"] == {"url": PAGE_URL}
    assert "Refused to fetch" in answer and "not a public address" in answer
    assert "tea and biscuits" not in answer


def test_fetch_tool_allowed_private_addresses_returns_the_page(tmp_path: Path) -> None:
    mcp = """
[mcp]
stdio_servers = [{name = "fetch", command = "uvx", args = ["mcp-server-fetch", "--allow-private-ips"]}]
"""
    output, events, requests = _run(tmp_path, mcp)

    offered = [tool["function"]["name"] for tool in requests[0].tools or []]
    assert offered.count("fetch") == 1
    assert PROXY_PROBLEM not in output

    _call, answer = _fetch_result(events)
    assert f"Contents of {PAGE_URL}" in answer
    assert "# Fetched from the sandbox" in answer and "tea and biscuits" in answer
    # The model saw the page in the observation that followed its call.
    assert "tea and biscuits" in json.dumps(requests[2].messages)
