"""Settings (`/api/settings`, server-api §6.5). Secrets and provider tokens: ``secrets.py``.

``app`` is the reference's name of ``settings_router``; ``store_llm_settings`` and
``convert_to_settings`` are the helpers of ``services/settings_service.py``.
"""

from __future__ import annotations

import logging

from fastapi import APIRouter

from openhands.server import errors
from openhands.server.dependencies import API_GUARDS, SettingsManager
from openhands.server.errors import ErrorBodyError, GoneError, MappedErrorsRoute
from openhands.server.models.settings import MessageResponse, SettingsResponse
from openhands.server.services.settings_service import convert_to_settings, store_llm_settings
from openhands.storage.data_models.settings import Settings

__all__ = [
    "app",
    "convert_to_settings",
    "load_settings",
    "reset_settings",
    "settings_router",
    "store_llm_settings",
    "store_settings",
]

logger = logging.getLogger(__name__)

settings_router = APIRouter(
    route_class=MappedErrorsRoute, prefix="/api", tags=["settings"], dependencies=API_GUARDS
)
app = settings_router


@settings_router.get("/settings", responses={404: errors.error("No settings stored yet")})
async def load_settings(settings: SettingsManager) -> SettingsResponse:
    return await settings.load()


@settings_router.post("/settings", responses={500: errors.error("Storing failed")})
async def store_settings(body: Settings, settings: SettingsManager) -> MessageResponse:
    try:
        await settings.store(body)
    except Exception as error:
        logger.exception("Storing settings failed")
        raise ErrorBodyError("Something went wrong storing settings") from error
    return MessageResponse(message="Settings stored")


@settings_router.post("/reset-settings", responses={410: errors.error("Removed (always answered)")})
async def reset_settings() -> None:
    raise GoneError("Reset settings functionality has been removed.")
