"""A session's start (cli.md §5.2): the assembly says which step it is on, and the
"Initializing..." line shown while the user waits names that step.

The factories are replaced on ``openhands.cli.main`` (their patch points, cli.md §15) by
small stand-ins; each stand-in records that it ran, so the order of steps and reports can
be compared.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING

import pytest

from openhands.cli import main, session
from openhands.cli.session_assembly import AssemblyProgress, CLIStartError, assemble
from openhands.core.config import OpenHandsConfig

if TYPE_CHECKING:
    from openhands.core.assembly import ConversationParts


class FakeRuntime:
    def __init__(self, trail: list[str], fail: bool = False) -> None:
        self.trail = trail
        self.fail = fail
        self.event_stream = SimpleNamespace()
        self.workspace_root = "/workspace"

    async def connect(self) -> None:
        self.trail.append("connect")
        if self.fail:
            raise RuntimeError("no engine")

    def close(self) -> None:
        self.trail.append("close")


def _fake_factories(
    monkeypatch: pytest.MonkeyPatch, trail: list[str], runtime: FakeRuntime, enable_mcp: bool
) -> None:
    agent = SimpleNamespace(config=SimpleNamespace(enable_mcp=enable_mcp))

    def step(name: str, result: object) -> object:
        def factory(*args: object, **kwargs: object) -> object:
            trail.append(name)
            return result

        return factory

    async def add_mcp_tools(*args: object) -> None:
        trail.append("mcp")

    monkeypatch.setattr(
        main,
        "create_registry_and_conversation_stats",
        step("registry", (SimpleNamespace(), SimpleNamespace(), None)),
    )
    monkeypatch.setattr(main, "create_agent", step("agent", agent))
    monkeypatch.setattr(main, "create_runtime", step("runtime", runtime))
    monkeypatch.setattr(main, "create_memory", step("memory", SimpleNamespace()))
    monkeypatch.setattr(main, "add_mcp_tools_to_agent", add_mcp_tools, raising=False)
    controller = SimpleNamespace(security_analyzer=None)
    monkeypatch.setattr(main, "create_controller", step("controller", (controller, None)))


async def test_the_assembly_reports_each_step_before_it_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trail: list[str] = []
    _fake_factories(monkeypatch, trail, FakeRuntime(trail), enable_mcp=True)
    config = OpenHandsConfig(runtime="cli", file_store="memory")

    parts = await assemble(config, "sid", None, lambda text: trail.append(f"> {text}"))

    # The LLM library line appears only while LiteLLM is still to be imported; the other
    # steps are always reported, each just before it starts.
    steps = [entry for entry in trail if entry != "> loading the LLM library"]
    assert steps == [
        "registry",
        "agent",
        "> starting the cli runtime",
        "runtime",
        "connect",
        "> loading microagents",
        "memory",
        "> connecting to MCP servers",
        "mcp",
        "> starting the agent",
        "controller",
    ]
    assert parts.runtime is not None


async def test_a_runtime_that_does_not_start_is_closed_and_explained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trail: list[str] = []
    _fake_factories(monkeypatch, trail, FakeRuntime(trail, fail=True), enable_mcp=False)
    config = OpenHandsConfig(runtime="cli", file_store="memory")

    with pytest.raises(CLIStartError, match="Could not start the cli runtime: no engine"):
        await assemble(config, "sid", None)
    assert trail[-2:] == ["connect", "close"]


async def test_one_waiting_line_names_the_step_and_follows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    labels: list[Callable[[], str] | str] = []
    started = threading.Event()

    def animation(text: Callable[[], str] | str, is_loaded: threading.Event) -> None:
        # Runs in the spinner's thread, like the real one; stops when told to.
        labels.append(text)
        started.set()
        is_loaded.wait()

    monkeypatch.setattr(main, "display_initialization_animation", animation)
    progress = AssemblyProgress()
    release = asyncio.Event()

    async def slow_assembly() -> ConversationParts:
        await release.wait()
        return "parts"  # type: ignore[return-value]

    task = asyncio.create_task(slow_assembly())
    waiting = asyncio.create_task(session._wait_for_assembly(task, progress))
    await asyncio.to_thread(started.wait)
    (label,) = labels
    assert callable(label)
    assert label() == "Initializing..."
    progress.report("loading the LLM library")
    assert label() == "Initializing... (loading the LLM library)"
    progress.report("starting the cli runtime")
    assert label() == "Initializing... (starting the cli runtime)"
    release.set()

    assert await waiting == "parts"
    assert len(labels) == 1  # one spinner for the whole start, its text redrawn


def test_the_spinner_redraws_a_changing_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from openhands.cli import tui_screens

    written: list[str] = []
    steps = iter(["a", "a", "bb", "c"])
    frames = 0

    class Flag:
        def is_set(self) -> bool:
            return frames >= 4

    def write(text: str) -> None:
        nonlocal frames
        written.append(text)
        if "[" in text:
            frames += 1

    monkeypatch.setattr(tui_screens.sys, "stdout", SimpleNamespace(write=write, flush=lambda: None))
    monkeypatch.setattr(tui_screens.time, "sleep", lambda seconds: None)
    tui_screens.display_initialization_animation(lambda: f"Initializing... ({next(steps)})", Flag())

    drawn = [text for text in written if "Initializing" in text]
    assert [text.split("] ")[1].split("\x1b")[0] for text in drawn] == [
        "Initializing... (a)",
        "Initializing... (a)",
        "Initializing... (bb)",
        "Initializing... (c)",
    ]
    assert all(text.endswith("\x1b[K") for text in drawn)  # a shorter text leaves nothing behind


async def test_nothing_is_drawn_when_the_parts_are_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    monkeypatch.setattr(
        main, "display_initialization_animation", lambda text, flag: drawn.append(text)
    )

    async def ready() -> ConversationParts:
        return "parts"  # type: ignore[return-value]

    task = asyncio.create_task(ready())
    await task
    assert await session._wait_for_assembly(task, AssemblyProgress()) == "parts"
    assert drawn == []


async def test_a_step_that_fails_after_the_runtime_started_closes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The shared assembly releases what was built so far (before, the CLI's own sequence
    # left the connected runtime open when a later step failed).
    trail: list[str] = []
    _fake_factories(monkeypatch, trail, FakeRuntime(trail), enable_mcp=False)

    def broken_memory(*args: object, **kwargs: object) -> object:
        raise OSError("microagents unreadable")

    monkeypatch.setattr(main, "create_memory", broken_memory)
    config = OpenHandsConfig(runtime="cli", file_store="memory")

    with pytest.raises(OSError, match="microagents unreadable"):
        await assemble(config, "sid", None)
    assert trail == ["registry", "agent", "runtime", "connect", "close"]
