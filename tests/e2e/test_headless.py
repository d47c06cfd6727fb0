"""Headless acceptance: `python -m openhands.core.main -t ...` against the scripted LLM server.

The agent (CodeActAgent, through LiteLLM over real HTTP) creates hello.py, runs it and
finishes; the run must end FINISHED, the file must exist in the workspace and the saved
trajectory must hold the actions and observations in the events spec's JSON. Each case runs
with native function calling and with the mock (prompt-based) tool-call path, on the local
runtime and on a real Docker sandbox.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.headless_run import headless_config, run_headless
from tests.support.scripted_llm import ScriptedLLMServer, text, tool_call

TASK = "create hello.py that prints hello, then run it"


def _script(hello_path: str, native: bool) -> list:
    calls = [
        (
            "str_replace_editor",
            {
                "command": "create",
                "path": hello_path,
                "file_text": "print('hello')\n",
                "security_risk": "LOW",
            },
        ),
        (
            "execute_bash",
            {"command": f"python3 {hello_path}", "security_risk": "LOW"},
        ),
        ("finish", {"message": "hello.py prints hello."}),
    ]
    if native:
        return [tool_call(name, args) for name, args in calls]
    return [text(f"Next step.\n{_as_tags(name, args)}") for name, args in calls]


def _as_tags(name: str, arguments: dict[str, str]) -> str:
    """A call the way a model writes it in the prompt-based format (values verbatim)."""
    params = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in arguments.items())
    return f"<function={name}>\n{params}</function>"


def _docker_available() -> bool:
    return subprocess.run(["docker", "info"], capture_output=True).returncode == 0


RUNTIMES = [
    pytest.param("local", id="local"),
    pytest.param(
        "docker",
        id="docker",
        marks=[
            pytest.mark.docker,
            pytest.mark.skipif(
                not _docker_available(),
                reason="no Docker engine: run `bash containers/dev/ensure-docker.sh` (make test does)",
            ),
        ],
    ),
]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("native", [True, False], ids=["native-tools", "mock-tools"])
def test_headless_hello(tmp_path: Path, runtime: str, native: bool) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    hello_in_sandbox = "/workspace/hello.py" if runtime == "docker" else str(workspace / "hello.py")
    trajectory = tmp_path / "trajectory.json"
    with ScriptedLLMServer(_script(hello_in_sandbox, native)) as llm:
        config = headless_config(
            tmp_path, llm_url=llm.base_url, runtime=runtime, native_tool_calling=native
        )
        run_headless(config, TASK, timeout=600)
        requests = llm.completion_requests

    assert (workspace / "hello.py").read_text() == "print('hello')\n"

    # Mock path: the model saw the tools in its prompt, not as a `tools` parameter.
    first = requests[0].body
    assert ("tools" in first) == native
    if not native:
        system_text = json.dumps(first["messages"][0])
        assert "execute_bash" in system_text

    events = json.loads(trajectory.read_text())
    kinds = [(e.get("action"), e.get("observation")) for e in events]
    assert ("message", None) in kinds
    edit = next(e for e in events if e.get("action") == "edit")
    assert edit["args"]["path"] == hello_in_sandbox and edit["source"] == "agent"
    assert edit["tool_call_metadata"]["function_name"] == "str_replace_editor"
    run_obs = next(
        e
        for e in events
        if e.get("observation") == "run" and e["cause"] is not None and not e["extras"]["hidden"]
    )
    assert run_obs["content"].strip() == "hello"
    assert run_obs["extras"]["metadata"]["exit_code"] == 0 and run_obs["success"] is True
    assert any(e.get("action") == "finish" for e in events)
    states = [
        e["extras"]["agent_state"] for e in events if e.get("observation") == "agent_state_changed"
    ]
    assert states[-1] == "finished"
    for e in events:
        assert "id" in e and "timestamp" in e and "message" in e
