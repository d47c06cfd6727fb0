"""Background warm-up: load what the first conversation needs right after start-up.

A fresh process imports LiteLLM, the agent, the controller, the runtime and the MCP client
on its first conversation, which made the first one seconds slower than the next. The app's
lifespan starts :func:`start_warmup` in a daemon thread, after which the server serves as
usual (`/alive` does not wait for it). Requests that need LiteLLM meanwhile wait for its
preload (:func:`openhands.llm.preload.load_litellm`); every other module is imported under
Python's per-module import lock, so a request that gets there first imports it and the
warm-up then finds it loaded. Nothing here changes behaviour: each step only imports or
fills a cache, and a failing step is logged and skipped.
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading
import time
from collections.abc import Callable

from openhands.core.config import OpenHandsConfig
from openhands.core.logger import openhands_logger

logger = openhands_logger.getChild("warmup")

# Modules the first conversation imports, in the order it does (LiteLLM comes first, in
# its own step, so the model list is ready early).
_CONVERSATION_MODULES = (
    "openhands.agenthub",
    "openhands.controller.agent_controller",
    "openhands.controller.state.state",
    "openhands.memory.memory",
    "openhands.mcp.utils",
    "openhands.server.session.title",
    "openhands.server.mcp_endpoint.tools",
)

# While warming, the event loop's thread must get the GIL back quickly between its short
# tasks: a shorter switch interval bounds what a request waits for the importing thread.
_WARMUP_SWITCH_INTERVAL = 0.001


def _steps(config: OpenHandsConfig) -> list[tuple[str, Callable[[], object]]]:
    from openhands.llm.preload import preload_litellm
    from openhands.server.routes.public import model_list

    steps: list[tuple[str, Callable[[], object]]] = [
        ("litellm", preload_litellm),
        ("model list", model_list),
    ]
    for name in _CONVERSATION_MODULES:
        steps.append((name, functools.partial(importlib.import_module, name)))

    def runtime_class() -> object:
        from openhands.runtime import get_runtime_cls

        return get_runtime_cls(config.runtime)

    steps.append(("runtime", runtime_class))
    return steps


def warm_up(config: OpenHandsConfig) -> None:
    """Run every warm-up step in this thread (blocking)."""
    started = time.perf_counter()
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, _WARMUP_SWITCH_INTERVAL))
    try:
        for name, step in _steps(config):
            try:
                step()
            except Exception:
                logger.warning("Warm-up step %s failed", name, exc_info=True)
    finally:
        sys.setswitchinterval(previous)
    logger.info("Warm-up done in %.1f s", time.perf_counter() - started)


def start_warmup(config: OpenHandsConfig) -> threading.Thread:
    """Start :func:`warm_up` in a daemon thread (it never blocks the server's shutdown)."""
    thread = threading.Thread(target=warm_up, args=(config,), name="openhands-warmup", daemon=True)
    thread.start()
    return thread
