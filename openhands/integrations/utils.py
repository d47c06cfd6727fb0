"""Which provider a bare token belongs to."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from pydantic import SecretStr

from openhands.integrations.service_types import ProviderType

logger = logging.getLogger(__name__)

# The order the reference tries the providers in.
TOKEN_PROVIDERS = (ProviderType.GITHUB, ProviderType.GITLAB, ProviderType.BITBUCKET)


async def validate_provider_token(
    token: SecretStr,
    base_domain: str | None = None,
    *,
    providers: Sequence[ProviderType] = TOKEN_PROVIDERS,
    api_urls: Mapping[ProviderType, str] | None = None,
) -> ProviderType | None:
    """The first of ``providers`` (default GitHub, GitLab, Bitbucket) that accepts
    ``token`` (asked for the user it belongs to), or None when none does.

    A caller that knows which provider the token is meant for passes just that one, so the
    token is not sent to the other providers. ``api_urls`` are the services' API roots (see
    ``ProviderHandler``); the services are built as ``ProviderHandler`` builds them, so
    ``OPENHANDS_*_SERVICE_CLS`` apply.
    """
    from openhands.integrations.provider import ProviderHandler, ProviderToken

    for provider in providers:
        handler = ProviderHandler(
            MappingProxyType({provider: ProviderToken(token=token, host=base_domain)})
        ).with_api_urls(api_urls or {})
        try:
            await handler.get_service(provider).get_user()
        except Exception as error:
            logger.debug("Token is not a %s token: %s", provider.value, error)
            continue
        return provider
    return None
