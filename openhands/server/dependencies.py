"""Typed FastAPI dependencies: services, the caller, the attached conversation."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Annotated

from fastapi import Depends, Header, Path, Request

from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.server.app_services import AppServices, services_of
from openhands.server.errors import ConversationNotFoundError, NotAuthenticatedError
from openhands.server.services.conversation_ids import check_conversation_id
from openhands.server.services.conversation_service import ConversationService
from openhands.server.services.git_providers import GitProviders, provider_api_urls
from openhands.server.services.settings_service import SettingsService
from openhands.server.session.server_conversation import ServerConversation
from openhands.server.user_auth.request_auth import get_provider_tokens, get_user_auth
from openhands.server.user_auth.user_auth import UserAuth

SESSION_API_KEY_HEADER = "X-Session-API-Key"

# The reference's module constant: env ``SESSION_API_KEY`` as read at import (None when
# unset or empty). Kept for code that reads or patches it; the key a running app enforces
# is its own server config's (``AppServices.session_key_ok``), so replacing this value
# never turns the check off.
_SESSION_API_KEY: str | None = os.environ.get("SESSION_API_KEY") or None


async def get_services(request: Request) -> AppServices:
    """The services of the app serving ``request`` (``app_services.services_of``)."""
    return await services_of(request.app)


Services = Annotated[AppServices, Depends(get_services)]


async def check_session_api_key(
    services: Services,
    x_session_api_key: Annotated[str | None, Header(alias=SESSION_API_KEY_HEADER)] = None,
) -> None:
    if not services.session_key_ok(x_session_api_key):
        raise NotAuthenticatedError()


# The request's UserAuth, built once and cached on the request (`request_auth.py`).
CurrentUserAuth = Annotated[UserAuth, Depends(get_user_auth)]


async def require_user(user_auth: CurrentUserAuth) -> str | None:
    """The caller's id; in multi-user mode an unauthenticated call is a 401 here."""
    return await user_auth.get_user_id()


UserId = Annotated[str | None, Depends(require_user)]

# Router-level guards of every `/api` route except the public options.
API_GUARDS = [Depends(check_session_api_key), Depends(require_user)]


def valid_conversation_id(conversation_id: Annotated[str, Path()]) -> str:
    return check_conversation_id(conversation_id)


ConversationId = Annotated[str, Depends(valid_conversation_id)]


def conversation_service(services: Services, user_auth: CurrentUserAuth) -> ConversationService:
    return ConversationService(services, user_auth)


Conversations = Annotated[ConversationService, Depends(conversation_service)]


def settings_service(services: Services, user_auth: CurrentUserAuth) -> SettingsService:
    return SettingsService(services.config, user_auth, provider_api_urls(services.server_config))


SettingsManager = Annotated[SettingsService, Depends(settings_service)]


async def git_providers(
    request: Request,
    services: Services,
    caller_tokens: Annotated[
        Mapping[ProviderType, ProviderToken] | None, Depends(get_provider_tokens)
    ],
) -> GitProviders:
    # Through the reference's `get_provider_tokens` dependency, so an app that overrides
    # it (as the reference's did in its tests) decides the tokens here too.
    tokens: Mapping[ProviderType, ProviderToken] | None = getattr(
        request.state, "provider_tokens", None
    )
    if tokens is None:
        tokens = caller_tokens
    return GitProviders(tokens, provider_api_urls(services.server_config))


Providers = Annotated[GitProviders, Depends(git_providers)]


def attached_conversation(request: Request, conversation_id: ConversationId) -> ServerConversation:
    """The conversation AttachConversationMiddleware attached to this request."""
    conversation = getattr(request.state, "conversation", None)
    if conversation is None or conversation.sid != conversation_id:
        raise ConversationNotFoundError(conversation_id)
    return conversation  # type: ignore[no-any-return]


AttachedConversation = Annotated[ServerConversation, Depends(attached_conversation)]
