"""Assembling one conversation of the terminal app: ``openhands.core.assembly``'s
``assemble_conversation`` (the order of the steps, and closing what was built when one
fails), with steps that build each part through the factories of ``openhands.cli.main``.

The factories are taken from ``openhands.cli.main`` when the assembly runs: they are patch
points there (cli.md §15), and the reference's tests replace each one.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from openhands.core.assembly import (
    AssemblyOptions,
    AssemblySteps,
    ConversationParts,
    assemble_conversation,
)

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig
    from openhands.core.setup import ConversationBuilder


class CLIStartError(Exception):
    """Start-up failed for a reason the user can fix; the message says what to do."""


@dataclass
class AssemblyProgress:
    """The step the assembly is on, in words a user understands (set on the loop, read by
    the spinner's thread: one attribute, replaced whole)."""

    step: str = ""

    def report(self, step: str) -> None:
        self.step = step

    def describe(self) -> str:
        return f"Initializing... ({self.step})" if self.step else "Initializing..."


def _ignore(step: str) -> None:
    return None


async def assemble(
    config: OpenHandsConfig,
    sid: str,
    conversation_instructions: str | None,
    progress: Callable[[str], None] = _ignore,
) -> ConversationParts:
    """The conversation's parts, built by ``assemble_conversation`` (the one assembly every
    entry point uses) with the terminal app's steps. On failure what was built is closed.

    ``progress`` hears each step as it starts (in words a user understands). The session
    subscribes and sends the first message itself once the parts are back.
    """
    steps = TerminalSteps(progress, conversation_instructions)
    return await assemble_conversation(config, sid, AssemblyOptions(steps=steps))


class TerminalSteps(AssemblySteps):
    """Each part through its factory in ``openhands.cli.main`` (the patch points there,
    cli.md §15), with the arguments the terminal app has always passed. Blocking steps run
    in worker threads so the prompt stays responsive; the controller is built on the loop,
    which it keeps for the steps it schedules."""

    def __init__(
        self, progress: Callable[[str], None], conversation_instructions: str | None
    ) -> None:
        self.progress = progress
        self.conversation_instructions = conversation_instructions

    async def llm_registry(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        from openhands.cli import main as hooks
        from openhands.llm.preload import wait_for_preload

        if "openhands.llm.llm" not in sys.modules:
            # Importing LiteLLM is most of a start (seconds; started at launch, see main).
            self.progress("loading the LLM library")
        await asyncio.to_thread(wait_for_preload)  # the import started at launch, if any
        registry, stats, _ = await asyncio.to_thread(
            hooks.create_registry_and_conversation_stats, draft.config, draft.sid
        )
        draft.llm_registry, draft.conversation_stats = registry, stats

    async def agent(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        from openhands.cli import main as hooks

        registry = draft.llm_registry
        assert registry is not None  # the registry step ran first
        draft.agent = await asyncio.to_thread(hooks.create_agent, draft.config, registry)

    async def runtime(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        from openhands.cli import main as hooks

        config = draft.config
        self.progress(f"starting the {config.runtime} runtime")
        runtime = await asyncio.to_thread(
            partial(
                hooks.create_runtime,
                config,
                draft.llm_registry,
                sid=draft.sid,
                headless_mode=True,
                agent=draft.agent,
                event_stream=draft.event_stream,
            )
        )
        draft.runtime = runtime  # closed by the assembly if anything below fails
        try:
            await runtime.connect()
        except Exception as error:
            raise CLIStartError(runtime_start_problem(config, error)) from error

    async def repository(self, draft: ConversationBuilder, options: AssemblyOptions) -> str | None:
        from openhands.cli import main as hooks

        selected, runtime = draft.config.sandbox.selected_repo, draft.runtime
        assert runtime is not None  # the runtime step ran first
        if not selected:
            return None
        self.progress(f"cloning {selected}")
        directory: str | None = await asyncio.to_thread(
            hooks.initialize_repository_for_runtime, runtime, selected
        )
        return directory

    async def memory(
        self, draft: ConversationBuilder, options: AssemblyOptions, repo_directory: str | None
    ) -> None:
        from openhands.cli import main as hooks

        runtime = draft.runtime
        assert runtime is not None  # the runtime step ran first
        self.progress("loading microagents")
        draft.memory = await asyncio.to_thread(
            partial(
                hooks.create_memory,
                runtime,
                runtime.event_stream,
                draft.sid,
                selected_repository=draft.config.sandbox.selected_repo,
                repo_directory=repo_directory,
                conversation_instructions=self.conversation_instructions,
                working_dir=str(runtime.workspace_root),
            )
        )

    async def mcp_tools(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        from openhands.cli import main as hooks

        agent, runtime, memory = draft.agent, draft.runtime, draft.memory
        assert agent is not None and runtime is not None and memory is not None
        if not agent.config.enable_mcp:
            return
        self.progress("connecting to MCP servers")
        # Off the loop: importing the MCP client stack would freeze the prompt and spinner.
        await asyncio.to_thread(importlib.import_module, "openhands.mcp.utils")
        await hooks.mcp_tools_adder()(agent, runtime, memory)

    async def security_analyzer(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        # ``create_controller`` builds the analyzer with the controller (the reference's
        # factory, a patch point); the controller step hands it over to the parts.
        return None

    async def controller(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        from openhands.cli import main as hooks

        agent, runtime, stats = draft.agent, draft.runtime, draft.conversation_stats
        assert agent is not None and runtime is not None and stats is not None
        self.progress("starting the agent")
        await asyncio.to_thread(importlib.import_module, "openhands.controller.agent_controller")
        controller, initial_state = hooks.create_controller(agent, runtime, draft.config, stats)
        draft.controller, draft.initial_state = controller, initial_state
        draft.security_analyzer = controller.security_analyzer


def runtime_start_problem(config: OpenHandsConfig, error: Exception) -> str:
    """What to tell the user when the runtime did not start."""
    text = str(error)
    if config.runtime in ("docker", "eventstream") and (
        "docker" in text.lower() or type(error).__module__.startswith("docker")
    ):
        return (
            "Docker is not running or not reachable: start the Docker engine, or run "
            "`openhands` without --override-cli-mode to work directly in this folder. "
            f"({text})"
        )
    return f"Could not start the {config.runtime} runtime: {text}"
