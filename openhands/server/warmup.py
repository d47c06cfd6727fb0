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

    # The model list first: it reads LiteLLM's price map file (tens of ms), not LiteLLM.
    steps: list[tuple[str, Callable[[], object]]] = [
        ("model list", model_list),  # made by start_warmup already, unless that failed
        ("litellm", preload_litellm),
    ]
    for name in _CONVERSATION_MODULES:
        steps.append((name, functools.partial(importlib.import_module, name)))

    def runtime_class() -> object:
        from openhands.runtime import get_runtime_cls

        return get_runtime_cls(config.runtime)

    steps.append(("runtime", runtime_class))
    return steps


# Set when a conversation starts: from then on the warm-up only competes with it (its
# later steps import what the conversation imports itself, in the order it needs them).
_conversation_started = threading.Event()


def yield_to_conversation() -> None:
    """A conversation is starting: the warm-up stops after the step it is in (a module
    being imported is one the conversation waits for anyway) and gives back the default
    thread switch interval."""
    _conversation_started.set()


def warm_up(config: OpenHandsConfig) -> None:
    """Run the warm-up steps in this thread (blocking) until done or a conversation starts."""
    started = time.perf_counter()
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, _WARMUP_SWITCH_INTERVAL))
    steps = _steps(config)
    done = 0
    try:
        for name, step in steps:
            if _conversation_started.is_set():
                break
            try:
                step()
            except Exception:
                logger.warning("Warm-up step %s failed", name, exc_info=True)
            done += 1
    finally:
        sys.setswitchinterval(previous)
    skipped = f", {len(steps) - done} steps left to a conversation" if done < len(steps) else ""
    logger.info("Warm-up done in %.1f s%s", time.perf_counter() - started, skipped)


def start_warmup(config: OpenHandsConfig) -> threading.Thread:
    """Fill the model list cache now, then start :func:`warm_up` in a daemon thread (it
    never blocks the server's shutdown).

    The model list is the settings page's first request. Made here, before the server
    serves, it costs start-up tens of milliseconds (a file read, see
    ``routes/public.py``); made by that request, it competed with the warm-up's imports
    for the interpreter and took hundreds."""
    from openhands.server.routes.public import models_body

    try:
        models_body()
    except Exception:
        logger.warning("Listing the models ahead failed", exc_info=True)
    thread = threading.Thread(target=warm_up, args=(config,), name="openhands-warmup", daemon=True)
    thread.start()
    return thread
