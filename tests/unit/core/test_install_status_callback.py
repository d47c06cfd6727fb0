"""``install_status_callback`` on components that have no ``status_callback`` yet."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from openhands.core.main import install_status_callback


class _Controller:
    def __init__(self) -> None:
        self.status_callback = None
        self.states: list[Any] = []

    def set_agent_state_to(self, state: Any) -> Any:
        self.states.append(state)
        return asyncio.sleep(0)


async def test_components_without_the_attribute_get_the_callback() -> None:
    runtime = SimpleNamespace()  # like a test double specced on a client class
    memory = SimpleNamespace()
    seen: list[str] = []
    controller = _Controller()
    controller.status_callback = lambda level, status, message: seen.append(message)  # type: ignore[assignment]

    install_status_callback(controller, runtime, memory)  # type: ignore[arg-type]

    assert callable(runtime.status_callback) and callable(memory.status_callback)
    controller.status_callback("info", "STATUS$READY", "kept")  # type: ignore[misc]
    assert seen == ["kept"]  # the caller's own callback still gets every report
