"""Agent loop benchmark (issue: agent): the cost of one step of the stack around the model.

A headless run (`run_controller`: AgentController, CodeActAgent, ConversationMemory, the
condenser, our LLM wrapper over LiteLLM, Memory, EventStream on a local file store, and a
LocalRuntime) talks to a scripted OpenAI-compatible server on 127.0.0.1 that answers at
once: a `think` call per step with a fresh thought, `finish` at the last step.

Why `think`: the runtime answers it on the host (AgentThinkObservation), without a trip to
the action execution server, so a step costs our code plus the model call. The runtime's
share (`Runtime.run_action`) is still timed and subtracted. A shorter run of
`execute_bash true` shows the other way: there the runtime's time (tmux) is large, and it is
measured and subtracted.

The model call is split into our wrapper and what happens below it (LiteLLM, the OpenAI
SDK, HTTP and the fake server), and the OpenAI SDK's request transform is shown on its own:
it re-walks every message of the request and so grows with the history.

Prints: steps/s over a 200-step run without the runtime's time (full stack, and our code
alone), where a step's time goes, the per-step cost early and late in the run, the same for
50 `execute_bash` steps, and memory growth per 1,000 events over a 200-step run (tracemalloc;
RSS for reference). Target: at least 20 steps/s.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LOG_LEVEL", "ERROR")
os.environ.setdefault("SKIP_DEPENDENCY_CHECK", "1")

import litellm  # noqa: E402
import openai.resources.chat.completions.completions as openai_chat  # noqa: E402

from openhands.agenthub.codeact_agent import CodeActAgent  # noqa: E402
from openhands.controller.state.state import State  # noqa: E402
from openhands.core.config import AgentConfig, OpenHandsConfig  # noqa: E402
from openhands.core.main import run_controller  # noqa: E402
from openhands.core.setup import create_runtime  # noqa: E402
from openhands.events.action import (  # noqa: E402
    Action,
    AgentFinishAction,
    MessageAction,
    SystemMessageAction,
)
from openhands.events.event import Event, EventSource  # noqa: E402
from openhands.events.stream import EventStreamSubscriber  # noqa: E402
from openhands.llm.llm import LLM  # noqa: E402
from tests.support import scripted_llm as s  # noqa: E402
from tests.support.scripted_llm import ScriptedLLMServer  # noqa: E402

TARGET_STEPS_PER_SECOND = 20.0
THINK_STEPS = 200
BASH_STEPS = 50
MEMORY_STEPS = 200


class FastLLMServer(ScriptedLLMServer):
    """The scripted server, tuned to answer at once.

    - TCP_NODELAY: the handler writes the headers and the body separately, and Nagle's
      algorithm holds the body until the client's delayed ACK (about 40 ms per call);
    - no request log (it would grow with every step and distort the memory figures).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._httpd.RequestHandlerClass.disable_nagle_algorithm = True  # type: ignore[attr-defined]

    def _record(self, request: Any) -> None:
        return


def think_then_finish(steps: int) -> Callable[[dict[str, Any]], s.Reply]:
    calls = itertools.count(1)

    def answer(_request: dict[str, Any]) -> s.Reply:
        n = next(calls)
        if n >= steps:
            return s.tool_call("finish", {"message": "Done."})
        # Distinct thoughts: the same one four times over would be a loop (stuck detection).
        return s.tool_call("think", {"thought": f"Step {n}: nothing to do yet."})

    return answer


def bash_then_finish(steps: int) -> Callable[[dict[str, Any]], s.Reply]:
    calls = itertools.count(1)

    def answer(_request: dict[str, Any]) -> s.Reply:
        n = next(calls)
        if n >= steps:
            return s.tool_call("finish", {"message": "Done."})
        return s.tool_call("execute_bash", {"command": f"true  # {n}", "security_risk": "LOW"})

    return answer


# --- timing ------------------------------------------------------------------------------


@dataclass
class Timers:
    """Seconds spent in the parts of a step, summed over a run."""

    agent: float = 0.0  # CodeActAgent.step, the model call included
    llm: float = 0.0  # LLM.completion: our wrapper and everything below it
    litellm: float = 0.0  # litellm.completion: LiteLLM, OpenAI SDK, HTTP, the fake server
    transform: float = 0.0  # the OpenAI SDK's request transform (inside litellm)
    runtime: float = 0.0  # Runtime.run_action: the action's own run time
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, seconds: float) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + seconds)

    def reset(self) -> None:
        with self.lock:
            self.agent = self.llm = self.litellm = self.transform = self.runtime = 0.0


TIMERS = Timers()


def _timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            TIMERS.add(name, time.perf_counter() - start)

    return wrapper


# Measurement hooks (this process only).
CodeActAgent.step = _timed("agent", CodeActAgent.step)  # type: ignore[method-assign]
LLM.completion = _timed("llm", LLM.completion)  # type: ignore[method-assign]
litellm.completion = _timed("litellm", litellm.completion)
openai_chat.maybe_transform = _timed("transform", openai_chat.maybe_transform)


def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


@dataclass
class Probe:
    """A stream subscriber: when each agent action came, when the agent finished; memory."""

    sample_every: int | None = None  # events between memory samples (tracemalloc runs)
    action_times: list[float] = field(default_factory=list)
    finished: float | None = None
    events: int = 0
    samples: list[tuple[int, int, int]] = field(default_factory=list)  # events, heap, rss

    def on_event(self, event: Event) -> None:
        self.events += 1
        is_step = isinstance(event, Action) and not isinstance(event, SystemMessageAction)
        if is_step and event.source == EventSource.AGENT:
            self.action_times.append(time.perf_counter())
        if isinstance(event, AgentFinishAction):
            self.finished = time.perf_counter()
        if self.sample_every and self.events % self.sample_every == 0 and tracemalloc.is_tracing():
            self.samples.append((self.events, tracemalloc.get_traced_memory()[0], rss_bytes()))


@dataclass
class Result:
    steps: int
    wall: float  # the first step's action → the finish action
    timers: Timers
    probe: Probe
    state: State

    @property
    def rate(self) -> float:
        """Steps per second of the whole stack, without the runtime's own time."""
        return self.steps / (self.wall - self.timers.runtime)

    @property
    def own_rate(self) -> float:
        """Steps per second of our code alone: also without the time below LiteLLM's call."""
        return self.steps / (self.wall - self.timers.runtime - self.timers.litellm)

    def step_ms(self, first: bool) -> float:
        """Median time between consecutive agent actions over the first or last 20 steps."""
        times = self.probe.action_times
        gaps = [b - a for a, b in itertools.pairwise(times)]
        window = gaps[:20] if first else gaps[-20:]
        return 1000 * statistics.median(window) if window else 0.0


def run_once(
    responder: Callable[[dict[str, Any]], s.Reply], steps: int, probe: Probe, sid: str
) -> Result:
    work = Path(tempfile.mkdtemp(prefix="oh-bench-agent-"))
    (work / "home").mkdir()
    os.environ["HOME"] = str(work / "home")  # no user microagents, no edits to ~/.bashrc
    try:
        with FastLLMServer(fallback=responder) as llm:
            config = OpenHandsConfig(
                runtime="local",
                workspace_base=str(work / "workspace"),
                file_store="local",
                file_store_path=str(work / "store"),
                max_iterations=steps + 10,
                enable_browser=False,
            )
            config.set_llm_config(llm.llm_config(native_tool_calling=True))
            config.set_agent_config(
                AgentConfig(enable_browsing=False, enable_jupyter=False, enable_plan_mode=False)
            )
            state = asyncio.run(_run(config, sid, probe))
        assert probe.action_times and probe.finished is not None, "the run did not finish"
        timers = Timers(
            agent=TIMERS.agent,
            llm=TIMERS.llm,
            litellm=TIMERS.litellm,
            transform=TIMERS.transform,
            runtime=TIMERS.runtime,
        )
        wall = probe.finished - probe.action_times[0]
        return Result(state.iteration_flag.current_value, wall, timers, probe, state)
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _run(config: OpenHandsConfig, sid: str, probe: Probe) -> State:
    runtime = create_runtime(config, sid=sid, headless_mode=True)
    await runtime.connect()
    runtime.run_action = _timed("runtime", runtime.run_action)  # type: ignore[method-assign]
    runtime.event_stream.subscribe(EventStreamSubscriber.TEST, probe.on_event, "bench-probe")
    TIMERS.reset()
    state = await run_controller(
        config,
        MessageAction("Think it through step by step, then finish."),
        sid=sid,
        runtime=runtime,
        fake_user_response_fn=lambda _state: "Go on.",
    )
    assert state is not None
    return state


# --- report ------------------------------------------------------------------------------


def report_speed(title: str, result: Result) -> None:
    t, n = result.timers, result.steps
    ms = 1000 / n
    rest = result.wall - t.agent - t.runtime
    print(f"\n{title}")
    print(
        f"  final state {result.state.agent_state.value}, {n} steps, {result.probe.events} events"
    )
    print(f"  wall time, first step → finish        {result.wall:8.2f} s")
    print(f"  runtime's own time (subtracted)       {t.runtime:8.2f} s")
    print(f"  steps/s, whole stack                  {result.rate:8.1f}")
    print(f"  steps/s, our code (model call below LiteLLM excluded) {result.own_rate:6.1f}")
    print("  per step, average:")
    print(f"    controller, EventStream, Memory, thread hand-offs {rest * ms:7.2f} ms")
    print(f"    CodeActAgent.step: condenser, ConversationMemory  {(t.agent - t.llm) * ms:7.2f} ms")
    print(
        f"    our LLM wrapper: formatting, retries, metrics     {(t.llm - t.litellm) * ms:7.2f} ms"
    )
    print(f"    LiteLLM + OpenAI SDK + HTTP + the fake model      {t.litellm * ms:7.2f} ms")
    print(f"      of which the OpenAI SDK's request transform     {t.transform * ms:7.2f} ms")
    print(
        f"  time between actions, median: first 20 steps {result.step_ms(first=True):.1f} ms, "
        f"last 20 steps {result.step_ms(first=False):.1f} ms"
    )


def report_memory(result: Result) -> None:
    samples = result.probe.samples
    print("\nMemory while the history grows (tracemalloc on, so not timed)")
    print(f"  final state {result.state.agent_state.value}, {result.steps} steps")
    if len(samples) < 4:
        print("  not enough samples")
        return
    # Leave out the first quarter: start-up allocations (imports, caches) are not growth.
    first, last = samples[len(samples) // 4], samples[-1]
    events = last[0] - first[0]
    heap = (last[1] - first[1]) / events * 1000 / 1024
    rss = (last[2] - first[2]) / events * 1000 / 1024
    print(f"  from event {first[0]} to event {last[0]}:")
    print(f"  Python heap growth per 1,000 events  {heap:8.0f} KiB  (tracemalloc)")
    print(f"  RSS growth per 1,000 events          {rss:8.0f} KiB  (allocator noise included)")
    print(
        f"  traced heap at the end               {last[1] / 2**20:8.1f} MiB  (allocated since tracing began)"
    )


def main() -> int:
    print("Agent loop benchmark: headless run_controller + CodeActAgent + LocalRuntime,")
    print("with a scripted OpenAI-compatible model on 127.0.0.1 that answers at once.")

    # Warm-up: the first model call imports the rest of LiteLLM (seconds), once per process.
    run_once(think_then_finish(5), 5, Probe(), "bench-warmup")

    think = run_once(think_then_finish(THINK_STEPS), THINK_STEPS, Probe(), "bench-think")
    report_speed(f"{THINK_STEPS} steps of `think` (answered on the host)", think)

    bash = run_once(bash_then_finish(BASH_STEPS), BASH_STEPS, Probe(), "bench-bash")
    report_speed(f"{BASH_STEPS} steps of `execute_bash true` (runtime time subtracted)", bash)

    tracemalloc.start()
    memory = run_once(
        think_then_finish(MEMORY_STEPS), MEMORY_STEPS, Probe(sample_every=25), "bench-memory"
    )
    tracemalloc.stop()
    report_memory(memory)

    print(
        f"\ntarget ≥ {TARGET_STEPS_PER_SECOND:.0f} steps/s over {THINK_STEPS} steps: whole stack "
        f"{think.rate:.1f} ({'met' if think.rate >= TARGET_STEPS_PER_SECOND else 'MISSED'}), "
        f"our code {think.own_rate:.1f} "
        f"({'met' if think.own_rate >= TARGET_STEPS_PER_SECOND else 'MISSED'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
