"""Custom secrets and git-provider tokens (`/api`, server-api §6.5).

``app`` is the router (reference name); the helpers are those of
``services/settings_service.py``, re-exported under the reference path.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import APIRouter, status

from openhands.integrations.provider import ProviderToken
from openhands.integrations.service_types import ProviderType
from openhands.integrations.utils import validate_provider_token
from openhands.server import errors
from openhands.server.dependencies import API_GUARDS, SettingsManager
from openhands.server.errors import ErrorBodyError, MappedErrorsRoute
from openhands.server.models.settings import (
    CustomSecretCreate,
    CustomSecretNames,
    CustomSecretUpdate,
    MessageResponse,
    ProviderTokensRequest,
)
from openhands.server.services import settings_service
from openhands.server.services.settings_service import (
    invalidate_legacy_secrets_store,
    process_token_validation_result,
)

__all__ = [
    "app",
    "check_provider_tokens",
    "create_custom_secret",
    "delete_custom_secret",
    "invalidate_legacy_secrets_store",
    "load_custom_secrets_names",
    "process_token_validation_result",
    "store_provider_tokens",
    "unset_provider_tokens",
    "update_custom_secret",
]


async def check_provider_tokens(
    incoming_provider_tokens: ProviderTokensRequest,
    existing_provider_tokens: Mapping[ProviderType, ProviderToken] | None,
    api_urls: Mapping[ProviderType, str] | None = None,
) -> str:
    """``settings_service.check_provider_tokens`` asking the providers through this
    module's ``validate_provider_token``, read when called: the reference validated tokens
    here, and code written for it replaces that name in this module."""
    return await settings_service.check_provider_tokens(
        incoming_provider_tokens,
        existing_provider_tokens,
        api_urls,
        validate=validate_provider_token,
    )


app = APIRouter(
    route_class=MappedErrorsRoute, prefix="/api", tags=["secrets"], dependencies=API_GUARDS
)


@app.get("/secrets", responses={401: errors.error("Reading the secrets failed")})
async def load_custom_secrets_names(settings: SettingsManager) -> CustomSecretNames:
    try:
        return await settings.secret_names()
    except Exception as error:
        raise ErrorBodyError("Failed to get secret names", 401) from error


@app.post(
    "/secrets",
    status_code=status.HTTP_201_CREATED,
    responses={400: errors.message("A secret of that name exists")},
)
async def create_custom_secret(
    body: CustomSecretCreate, settings: SettingsManager
) -> MessageResponse:
    await settings.create_secret(body.name, body.value.get_secret_value(), body.description)
    return MessageResponse(message="Secret created successfully")


@app.put(
    "/secrets/{secret_id}",
    responses={
        400: errors.message("Another secret has the new name"),
        404: errors.error("No such secret"),
    },
)
async def update_custom_secret(
    secret_id: str, body: CustomSecretUpdate, settings: SettingsManager
) -> MessageResponse:
    await settings.update_secret(secret_id, body.name, body.description)
    return MessageResponse(message="Secret updated successfully")


@app.delete("/secrets/{secret_id}", responses={404: errors.error("No such secret")})
async def delete_custom_secret(secret_id: str, settings: SettingsManager) -> MessageResponse:
    await settings.delete_secret(secret_id)
    return MessageResponse(message="Secret deleted successfully")


@app.post(
    "/add-git-providers",
    responses={401: errors.error("A token the provider refuses, or that cannot be a token")},
)
async def store_provider_tokens(
    body: ProviderTokensRequest, settings: SettingsManager
) -> MessageResponse:
    # ``check_provider_tokens`` is looked up in this module when called, so a replacement
    # set here (the reference's patch point) is the check that runs.
    await settings.store_provider_tokens(body, check=check_provider_tokens)
    return MessageResponse(message="Git providers stored")


@app.post("/unset-provider-tokens")
async def unset_provider_tokens(settings: SettingsManager) -> MessageResponse:
    await settings.unset_provider_tokens()
    return MessageResponse(message="Unset Git provider tokens")
