"""Agent workload: the cost of one agent step around a model that answers at once.

A headless ``run_controller`` (AgentController, CodeActAgent, the LLM wrapper over LiteLLM,
Memory, an EventStream on a local file store, the CLI runtime) talks over real HTTP to the
repository's scripted OpenAI-compatible server on 127.0.0.1. Each reply is a ``think`` tool
call with a fresh thought (the controller answers it without the runtime), the last one
``finish``. A step is timed on the model's side, from one completion request to the next,
so the figure holds the whole loop around the model: controller, agent, memory, event
stream, LiteLLM and HTTP. A 3-step run first warms up the process (LiteLLM's lazy imports).

Metrics (one JSON line): mean and median step time over a 100-step run, steps per second,
and the wall time of the whole ``run_controller`` call (set-up included).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import statistics
import time
from pathlib import Path
from typing import Any

import _workload as w

w.quiet_environment()
scripted = w.load_scripted_llm()

from openhands.core.config import AgentConfig, OpenHandsConfig  # noqa: E402
from openhands.core.main import run_controller  # noqa: E402
from openhands.events.action import MessageAction  # noqa: E402

STEPS = 100


class InstantLLM(scripted.ScriptedLLMServer):  # type: ignore[misc, name-defined]
    """Think ``steps - 1`` times, then finish; notes when each request came."""

    def __init__(self, steps: int) -> None:
        self.request_times: list[float] = []
        calls = itertools.count(1)

        def answer(_request: dict[str, Any]) -> Any:
            self.request_times.append(time.perf_counter())
            n = next(calls)
            if n >= steps:
                return scripted.tool_call("finish", {"message": "Done."})
            # Distinct thoughts: the same one repeated would trip stuck detection.
            return scripted.tool_call("think", {"thought": f"Step {n}: nothing to do yet."})

        super().__init__(fallback=answer)
        # The handler writes headers and body apart: without this, Nagle's algorithm holds
        # the body until the client's delayed ACK (about 40 ms a call).
        self._httpd.RequestHandlerClass.disable_nagle_algorithm = True

    def _record(self, request: Any) -> None:
        return  # no request log: it would grow with every step


def _config(root: Path, llm: Any, steps: int) -> OpenHandsConfig:
    config = OpenHandsConfig(
        runtime="cli",
        workspace_base=str(root / "workspace"),
        file_store="local",
        file_store_path=str(root / "store"),
        max_iterations=steps + 10,
        enable_browser=False,
    )
    config.set_llm_config(llm.llm_config(native_tool_calling=True, num_retries=0))
    agent = AgentConfig()
    for flag in ("enable_browsing", "enable_jupyter", "enable_plan_mode", "enable_mcp"):
        if hasattr(agent, flag):
            setattr(agent, flag, False)
    config.set_agent_config(agent)
    return config


def run(root: Path, steps: int, sid: str) -> tuple[list[float], float]:
    (root / "workspace").mkdir(parents=True, exist_ok=True)
    with InstantLLM(steps) as llm:
        config = _config(root, llm, steps)
        started = time.perf_counter()
        state = asyncio.run(
            run_controller(
                config,
                MessageAction("Think it through step by step, then finish."),
                sid=sid,
                fake_user_response_fn=lambda _state: "Go on.",
            )
        )
        wall = time.perf_counter() - started
        assert state is not None, "run_controller returned no state"
        finished = str(getattr(state.agent_state, "value", state.agent_state))
        if finished != "finished" or len(llm.request_times) != steps:
            raise RuntimeError(f"run ended {finished} after {len(llm.request_times)} model calls")
        return llm.request_times, wall


def main() -> None:
    base = w.workdir()
    os.environ["HOME"] = str(base / "home")  # no user microagents or settings
    (base / "home").mkdir(exist_ok=True)
    run(base / "warmup", 3, "compare-warmup")
    times, wall = run(base / "run", STEPS, "compare-run")
    gaps = [b - a for a, b in itertools.pairwise(times)]
    w.emit(
        {
            "step_mean_ms": statistics.fmean(gaps) * 1000,
            "step_p50_ms": statistics.median(gaps) * 1000,
            "steps_per_s": len(gaps) / (times[-1] - times[0]),
            "run_100_steps_s": wall,
        }
    )


if __name__ == "__main__":
    main()
