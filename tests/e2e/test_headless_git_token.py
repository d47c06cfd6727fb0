"""A headless run passes the environment's GITHUB_TOKEN to its Docker sandbox (as the
reference's run_controller does with `get_provider_tokens()`), where the agent's git and
API calls find it; the token itself never shows in the output, the logs or the trajectory.

The sandbox only has what the runtime hands over: unlike the host-side runtimes, it does
not inherit the host's environment, so the token can only come through the runtime.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path

import pytest

from tests.e2e.headless_run import headless_config, run_headless
from tests.support.scripted_llm import ScriptedLLMServer, tool_call

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]

# A digest proves the value arrived without the value itself being echoed.
DIGEST_COMMAND = 'printf %s "$GITHUB_TOKEN" | sha256sum'


def test_headless_run_gives_the_sandbox_the_github_token(tmp_path: Path) -> None:
    token = f"ghp_{secrets.token_hex(12)}"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    trajectory = tmp_path / "trajectory.json"
    script = [
        tool_call("execute_bash", {"command": DIGEST_COMMAND, "security_risk": "LOW"}),
        tool_call("finish", {"message": "Checked."}),
    ]
    with ScriptedLLMServer(script) as llm:
        config = headless_config(
            tmp_path, llm_url=llm.base_url, max_iterations=5, extra="enable_mcp = false"
        )
        env = {"LOG_LEVEL": "DEBUG", "GITHUB_TOKEN": token}
        output = run_headless(config, "Check the token.", env=env)
        requests = llm.completion_requests

    events = json.loads(trajectory.read_text())
    ran = next(e for e in events if e.get("observation") == "run" and e["cause"] is not None)
    assert hashlib.sha256(token.encode()).hexdigest() in ran["content"]
    assert token not in output
    assert token not in trajectory.read_text()
    assert token not in json.dumps([request.body for request in requests])
