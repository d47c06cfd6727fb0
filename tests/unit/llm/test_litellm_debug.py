"""DEBUG_LLM turns LiteLLM's own debug logging on, with the API key masked (python-api.md §5.2)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

SECRET = "plainvalue-debug-llm-0042"

CALL = """
import logging, litellm
from openhands.core.config import LLMConfig
from openhands.llm.llm import LLM
config = LLMConfig(model="openai/test-model", base_url={base_url!r}, api_key={secret!r},
                   num_retries=1)
llm = LLM(config, service_id="agent")
response = llm.completion(messages=[{{"role": "user", "content": "hi"}}])
print("ANSWER", response.choices[0].message.content)
print("LEVEL", logging.getLogger("LiteLLM").getEffectiveLevel(), litellm.suppress_debug_info)
logging.getLogger("LiteLLM").debug("the key in a shape nobody redacts: %s", {secret!r})
"""


def _run(server: ScriptedLLMServer, debug: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG_LLM", "LOG_ALL_EVENTS")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    if debug is not None:
        env["DEBUG_LLM"] = debug
    code = CALL.format(base_url=server.base_url, secret=SECRET)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_debug_llm_turns_on_litellm_debug_logging_without_leaking_the_key(
    scripted_llm: ScriptedLLMServer,
) -> None:
    scripted_llm.push(s.text("hello there"))
    output = _run(scripted_llm, "true")
    assert "ANSWER hello there" in output
    assert f"LEVEL {10} False" in output  # logging.DEBUG, and LiteLLM's hints are not suppressed
    litellm_debug_lines = [line for line in output.splitlines() if "LiteLLM" in line]
    assert len(litellm_debug_lines) > 3, output
    assert SECRET not in output
    assert "the key in a shape nobody redacts: ******" in output  # our filter masked it
    # The request really carried the key: only the logs had it masked.
    assert scripted_llm.requests[-1].headers.get("Authorization") == f"Bearer {SECRET}"


def test_without_debug_llm_litellm_stays_quiet(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("hello there"))
    output = _run(scripted_llm, None)
    assert "ANSWER hello there" in output
    assert "LEVEL 10" not in output and "True" in output.split("LEVEL", 1)[1]
