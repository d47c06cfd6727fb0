"""A headless run as a user starts it: ``python -m openhands.core.main --config-file F -t
TASK`` in a subprocess, against a scripted OpenAI-compatible LLM.

``headless_config`` writes the run's ``config.toml`` (store, workspace and trajectory under
the test's directory, a quiet CodeActAgent); ``run_headless`` runs it and returns what it
printed, failing the test unless the run ended in state finished."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def headless_config(
    root: Path,
    *,
    llm_url: str,
    runtime: str = "docker",
    max_iterations: int = 10,
    native_tool_calling: bool = True,
    extra: str = "",
) -> Path:
    """``root/config.toml`` for a run whose workspace is ``root/workspace`` and whose
    trajectory is saved to ``root/trajectory.json``; ``extra`` is appended (e.g. a
    ``[mcp]`` table, or ``enable_mcp = false`` for the ``[agent]`` table it ends in)."""
    config = root / "config.toml"
    config.write_text(
        f"""
[core]
runtime = "{runtime}"
workspace_base = "{root / "workspace"}"
file_store = "local"
file_store_path = "{root / "store"}"
save_trajectory_path = "{root / "trajectory.json"}"
max_iterations = {max_iterations}
enable_browser = false

[llm]
model = "openai/test-model"
base_url = "{llm_url}"
api_key = "test-key"
num_retries = 0
native_tool_calling = {"true" if native_tool_calling else "false"}

[agent]
enable_browsing = false
enable_jupyter = false
enable_plan_mode = false
{extra}
"""
    )
    return config


def run_headless(
    config: Path,
    task: str,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 800,
) -> str:
    """Run the task to its end; the run's output (stdout then stderr)."""
    result = subprocess.run(
        [sys.executable, "-m", "openhands.core.main", "--config-file", str(config), "-t", task],
        cwd=REPO_ROOT,
        env={
            **os.environ,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "LOG_LEVEL": "INFO",
            **(env or {}),
        },
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert "ended in state finished" in output, output[-4000:]
    return output
