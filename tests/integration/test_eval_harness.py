"""An evaluation harness written for 0.59 runs unchanged, in a real Docker sandbox.

The script below is shaped like the reference's ``evaluation/`` harnesses: a config built
from ``SandboxConfig(..., remote_runtime_api_url=os.environ.get(...))`` and an LLM section
read with ``get_llm_config_arg``; ``create_runtime`` and ``run_controller`` imported from
``openhands.core.main``; ``call_async_from_sync`` for the async calls; a fake user that
answers the agent's questions; and, after the run, commands through the *same* runtime to
check the result, the metrics from the State's conversation stats, the history as
(action, observation) pairs from ``openhands.events.utils`` and one JSON line of output.
The LLM is the scripted OpenAI-compatible server, reached over HTTP through LiteLLM.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import docker
import pytest

from openhands.controller.state.state import State
from openhands.core.config import AgentConfig, OpenHandsConfig, SandboxConfig, get_llm_config_arg
from openhands.core.main import create_runtime, run_controller
from openhands.core.schema import AgentState
from openhands.critic import AgentFinishedCritic
from openhands.events.action import Action, CmdRunAction, MessageAction
from openhands.events.observation import CmdOutputObservation
from openhands.events.serialization.event import event_to_dict
from openhands.events.utils import get_pairs_from_events
from openhands.memory.condenser import get_condensation_metadata
from openhands.runtime.base import Runtime
from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.utils.async_utils import call_async_from_sync
from tests.runtime.conformance import CONTAINER_PREFIX, remove_container, require_docker
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]

# Upper bounds for a hung run, never waited for otherwise.
CONNECT_TIMEOUT = 300.0
RUN_TIMEOUT = 180.0

ANSWER_FILE = "/workspace/eval/answer.txt"
INSTRUCTION = f"Write the answer, 42, to {ANSWER_FILE}, then give it to me."
SOLUTION_HINT = "Your final answer MUST be encapsulated within <solution> and </solution>."


@pytest.fixture
def sandbox_ids() -> Iterator[list[str]]:
    """Conversation ids whose containers the test removes at the end, whatever happened."""
    require_docker()
    ids: list[str] = []
    yield ids
    for sid in ids:
        remove_container(f"{CONTAINER_PREFIX}{sid}")


def eval_config(tmp_path: Path, llm: ScriptedLLMServer) -> OpenHandsConfig:
    """The config the way ``get_openhands_config_for_eval`` and its callers build it."""
    toml = tmp_path / "config.toml"
    toml.write_text(
        "[llm.eval_scripted]\n"
        'model = "openai/scripted-eval"\n'
        f'base_url = "{llm.base_url}"\n'
        'api_key = "scripted-key"\n'
        "native_tool_calling = true\n"
        "num_retries = 1\n"
        "retry_min_wait = 0\n"
        "retry_max_wait = 0\n"
    )
    llm_config = get_llm_config_arg("eval_scripted", str(toml))
    assert llm_config is not None

    sandbox = SandboxConfig(
        base_container_image=DEFAULT_BASE_IMAGE,
        use_host_network=False,
        timeout=120,
        # Unset in the environment: None, which the config must accept.
        api_key=os.environ.get("ALLHANDS_API_KEY_FOR_THIS_TEST_ONLY"),
        remote_runtime_api_url=os.environ.get("SANDBOX_REMOTE_RUNTIME_API_URL_FOR_THIS_TEST"),
        runtime_startup_env_vars={"NO_CHANGE_TIMEOUT_SECONDS": "30"},
        keep_runtime_alive=False,
        remote_runtime_init_timeout=3600,
        remote_runtime_enable_retries=True,
        remote_runtime_class="sysbox",
    )
    config = OpenHandsConfig(
        default_agent="CodeActAgent",
        run_as_openhands=False,
        runtime="docker",
        max_iterations=10,
        enable_browser=False,
        sandbox=sandbox,
        workspace_base=None,
        workspace_mount_path=None,
        file_store="local",
        file_store_path=str(tmp_path / ".eval_sessions"),
    )
    config.set_llm_config(llm_config)
    config.set_agent_config(
        AgentConfig(enable_jupyter=False, enable_browsing=False, enable_llm_editor=False)
    )
    return config


def fake_user_response(
    state: State,
    encapsulate_solution: bool = False,
    try_parse: Callable[[Action | None], str | None] | None = None,
    seen: list[State] | None = None,
) -> str:
    """Like the harnesses' ``codeact_user_response``: tell the agent to carry on."""
    if seen is not None:
        seen.append(state)
    message = "Please continue working on the task; use the finish tool when you are done.\n"
    if encapsulate_solution:
        message += SOLUTION_HINT + "\n"
    return message


def run_shell(runtime: Runtime, command: str) -> CmdOutputObservation:
    observation = runtime.run_action(CmdRunAction(command=command))
    assert isinstance(observation, CmdOutputObservation), observation
    return observation


def test_evaluation_style_script_runs_end_to_end(
    tmp_path: Path, scripted_llm: ScriptedLLMServer, sandbox_ids: list[str]
) -> None:
    scripted_llm.push(
        s.tool_call(
            "execute_bash",
            {"command": f"echo 42 > {ANSWER_FILE}", "security_risk": "LOW"},
        ),
        # A question to the user: the run waits for input and the fake user answers.
        s.text("The file is written. Do you need anything else?"),
        s.tool_call("finish", {"message": "The answer is <solution>42</solution>."}),
    )
    config = eval_config(tmp_path, scripted_llm)
    asked: list[State] = []

    runtime: Runtime = create_runtime(config)
    sandbox_ids.append(runtime.sid)
    call_async_from_sync(runtime.connect, CONNECT_TIMEOUT)
    try:
        # initialize_runtime, the way harnesses prepare the sandbox before the agent starts.
        assert run_shell(runtime, "mkdir -p /workspace/eval").exit_code == 0

        state: State | None = call_async_from_sync(
            run_controller,
            RUN_TIMEOUT,
            config=config,
            initial_user_action=MessageAction(content=INSTRUCTION),
            runtime=runtime,
            fake_user_response_fn=functools.partial(
                fake_user_response, encapsulate_solution=True, seen=asked
            ),
        )
        assert state is not None
        assert state.agent_state == AgentState.FINISHED, state.last_error

        # complete_runtime: the sandbox the run used is still there and still answers.
        answer = run_shell(runtime, f"cat {ANSWER_FILE}")
        assert answer.exit_code == 0
        assert answer.content.strip() == "42"

        # get_metrics: the conversation stats are the source of truth for the cost.
        history = state.history
        assert state.conversation_stats is not None
        metrics: dict[str, Any] = state.conversation_stats.get_combined_metrics().get()
        metrics["condenser"] = get_condensation_metadata(state)
        pairs = get_pairs_from_events(history)
        critic = AgentFinishedCritic().evaluate(history)
    finally:
        runtime.close()

    # The fake user was asked once, with the State of the waiting run.
    assert len(asked) == 1
    assert any(
        isinstance(e, MessageAction) and "anything else" in e.content for e in asked[0].history
    )
    # ...and its answer reached the model in the next request.
    last_user_text = json.dumps(scripted_llm.completion_requests[-1].messages[-1])
    assert SOLUTION_HINT in last_user_text
    assert len(scripted_llm.completion_requests) == 3

    commands = [
        (a.command, o.exit_code)
        for a, o in pairs
        if isinstance(a, CmdRunAction) and isinstance(o, CmdOutputObservation)
    ]
    assert commands == [(f"echo 42 > {ANSWER_FILE}", 0)]
    assert critic.success and critic.message == "Agent finished."
    assert metrics["accumulated_token_usage"]["prompt_tokens"] > 0
    assert len(metrics["token_usages"]) == 3

    # The output line an EvalOutput would be, written and read back.
    output = {
        "instance_id": "eval-harness-1",
        "instruction": INSTRUCTION,
        "test_result": {"answer": answer.content.strip()},
        "history": [event_to_dict(event) for event in history],
        "history_pairs": [(event_to_dict(a), event_to_dict(o)) for a, o in pairs],
        "metrics": metrics,
        "error": state.last_error or None,
    }
    output_file = tmp_path / "output.jsonl"
    output_file.write_text(json.dumps(output) + "\n")
    [line] = output_file.read_text().splitlines()
    saved = json.loads(line)
    assert saved["error"] is None
    assert saved["test_result"] == {"answer": "42"}
    assert saved["history"][-1]["action"] == "finish"
    assert [h.get("action") for h in saved["history"]].count("run") == 1
    assert any(
        p[0].get("action") == "run" and p[1]["observation"] == "run" for p in saved["history_pairs"]
    )


def test_run_controller_closes_only_the_runtime_it_built(
    tmp_path: Path, scripted_llm: ScriptedLLMServer, sandbox_ids: list[str]
) -> None:
    scripted_llm.push(s.tool_call("finish", {"message": "Nothing to do."}))
    config = eval_config(tmp_path, scripted_llm)
    sid = f"eval-{secrets.token_hex(4)}"
    sandbox_ids.append(sid)

    state = call_async_from_sync(
        run_controller,
        CONNECT_TIMEOUT + RUN_TIMEOUT,
        config=config,
        initial_user_action=MessageAction(content="Finish at once."),
        sid=sid,
        fake_user_response_fn=fake_user_response,
    )

    assert state is not None and state.agent_state == AgentState.FINISHED
    client = docker.from_env(timeout=30)
    try:
        container = client.containers.get(f"{CONTAINER_PREFIX}{sid}")
        container.reload()
        assert container.status != "running"  # the sandbox run_controller started is stopped
    finally:
        client.close()
