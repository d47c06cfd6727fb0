"""Loading LiteLLM once, ahead of its first use.

Importing LiteLLM takes seconds. A server starts :func:`preload_litellm` in a background
thread right after start-up; code that needs the module calls :func:`load_litellm`, which
waits for a preload under way instead of importing in parallel with it (two threads
importing the same big package can also trip Python's import deadlock detection and see a
half-initialized module).
"""

from __future__ import annotations

import importlib
import logging
import threading
from types import ModuleType

logger = logging.getLogger(__name__)

# What the first completion needs besides `litellm` itself: the wrapper and its helpers.
_FIRST_CALL_MODULES = (
    "litellm",
    "openhands.llm.llm",
    "openhands.llm.llm_registry",
    "openhands.llm.conversation_stats",
)

_lock = threading.Lock()
_preloading: threading.Event | None = None  # set when the preload is over


def preload_litellm() -> None:
    """Import LiteLLM and the LLM wrapper (blocking; meant for a background thread).

    Only the first call imports; later calls (and concurrent ones) return at once.
    Failures are logged, not raised: the code that needs the module will import it again
    and report the error where it matters."""
    global _preloading
    with _lock:
        if _preloading is not None:
            return
        done = _preloading = threading.Event()
    try:
        for name in _FIRST_CALL_MODULES:
            importlib.import_module(name)
    except Exception:
        logger.exception("Preloading LiteLLM failed")
    finally:
        done.set()


def wait_for_preload(timeout: float | None = None) -> bool:
    """Wait for a preload under way; True when none is running any more."""
    with _lock:
        done = _preloading
    return done is None or done.wait(timeout)


def load_litellm() -> ModuleType:
    """The `litellm` module, waiting for a preload under way rather than importing twice."""
    wait_for_preload()
    import litellm

    return litellm
