"""`GET /api/options/vscode-image`: whether new Docker sandboxes get VS Code yet.

VS Code is on by default, and its image variant builds in the background while the first
conversations start without it (``openhands.runtime.impl.docker.vscode_variant``). The UI's
VS Code tab asks here why a sandbox has no VS Code and shows the build's progress.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from openhands.server.dependencies import Services, check_session_api_key
from openhands.server.errors import MappedErrorsRoute

vscode_image_router = APIRouter(
    route_class=MappedErrorsRoute,
    prefix="/api/options",
    tags=["options"],
    dependencies=[Depends(check_session_api_key)],
)

VSCodeImageState = Literal["off", "not_docker", "unknown", "building", "ready", "failed"]


class VSCodeImageStatus(BaseModel):
    """``state``: ``off`` (``enable_vscode = false``), ``not_docker`` (the runtime builds no
    image here), ``unknown`` (no Docker sandbox asked for it yet), ``building``, ``ready``
    or ``failed``; ``message``: the build's last progress line, or why it failed."""

    enabled: bool
    state: VSCodeImageState
    message: str | None = None


@vscode_image_router.get("/vscode-image")
async def get_vscode_image(services: Services) -> VSCodeImageStatus:
    config = services.config
    if not config.sandbox.enable_vscode:
        return VSCodeImageStatus(enabled=False, state="off")
    if config.runtime != "docker":
        return VSCodeImageStatus(enabled=True, state="not_docker")
    from openhands.runtime.impl.docker.vscode_variant import VSCODE_VARIANT

    status = VSCODE_VARIANT.status()
    return VSCodeImageStatus(enabled=True, state=status.state.value, message=status.message)
