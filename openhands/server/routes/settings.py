"""Settings, custom secrets and git-provider tokens (`/api`, server-api §6.5)."""

from __future__ import annotations

import logging

from fastapi import APIRouter, status

from openhands.server import errors
from openhands.server.dependencies import API_GUARDS, SettingsManager
from openhands.server.errors import ErrorBodyError, GoneError
from openhands.server.models.settings import (
    CustomSecretCreate,
    CustomSecretNames,
    CustomSecretUpdate,
    MessageResponse,
    ProviderTokensRequest,
    SettingsResponse,
)
from openhands.storage.data_models.settings import Settings

logger = logging.getLogger(__name__)

settings_router = APIRouter(prefix="/api", tags=["settings"], dependencies=API_GUARDS)


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


@settings_router.get("/secrets", responses={401: errors.error("Reading the secrets failed")})
async def load_secret_names(settings: SettingsManager) -> CustomSecretNames:
    try:
        return await settings.secret_names()
    except Exception as error:
        raise ErrorBodyError("Failed to get secret names", 401) from error


@settings_router.post(
    "/secrets",
    status_code=status.HTTP_201_CREATED,
    responses={400: errors.message("A secret of that name exists")},
)
async def create_secret(body: CustomSecretCreate, settings: SettingsManager) -> MessageResponse:
    await settings.create_secret(body.name, body.value, body.description)
    return MessageResponse(message="Secret created successfully")


@settings_router.put(
    "/secrets/{secret_id}",
    responses={
        400: errors.message("Another secret has the new name"),
        404: errors.error("No such secret"),
    },
)
async def update_secret(
    secret_id: str, body: CustomSecretUpdate, settings: SettingsManager
) -> MessageResponse:
    await settings.update_secret(secret_id, body.name, body.description)
    return MessageResponse(message="Secret updated successfully")


@settings_router.delete("/secrets/{secret_id}", responses={404: errors.error("No such secret")})
async def delete_secret(secret_id: str, settings: SettingsManager) -> MessageResponse:
    await settings.delete_secret(secret_id)
    return MessageResponse(message="Secret deleted successfully")


@settings_router.post(
    "/add-git-providers",
    responses={401: errors.error("A token the provider refuses, or that cannot be a token")},
)
async def store_provider_tokens(
    body: ProviderTokensRequest, settings: SettingsManager
) -> MessageResponse:
    await settings.store_provider_tokens(body)
    return MessageResponse(message="Git providers stored")


@settings_router.post("/unset-provider-tokens")
async def unset_provider_tokens(settings: SettingsManager) -> MessageResponse:
    await settings.unset_provider_tokens()
    return MessageResponse(message="Unset Git provider tokens")
