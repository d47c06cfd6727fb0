"""Which provider a bare token belongs to."""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import SecretStr

from openhands.integrations.bitbucket.bitbucket_service import BitBucketService
from openhands.integrations.github.github_service import GitHubService
from openhands.integrations.gitlab.gitlab_service import GitLabService
from openhands.integrations.service_types import ProviderType

logger = logging.getLogger(__name__)

# The order the reference tries the providers in.
TOKEN_PROVIDERS = (ProviderType.GITHUB, ProviderType.GITLAB, ProviderType.BITBUCKET)

# The module names of the service classes tried, as in the reference (a caller may replace
# one here); while a name still holds the base class, the configured implementation
# (``OPENHANDS_*_SERVICE_CLS``) is used.
_SERVICE_NAMES = {
    ProviderType.GITHUB: ("GitHubService", GitHubService),
    ProviderType.GITLAB: ("GitLabService", GitLabService),
    ProviderType.BITBUCKET: ("BitBucketService", BitBucketService),
}


def _service_class(provider: ProviderType) -> Any:
    from openhands.integrations.provider import _service_classes

    name, base = _SERVICE_NAMES[provider]
    current = getattr(sys.modules[__name__], name)
    return _service_classes()[provider] if current is base else current


async def validate_provider_token(
    token: SecretStr,
    base_domain: str | None = None,
    *,
    providers: Sequence[ProviderType] = TOKEN_PROVIDERS,
    api_urls: Mapping[ProviderType, str] | None = None,
) -> ProviderType | None:
    """The first of ``providers`` (default GitHub, GitLab, Bitbucket) that accepts
    ``token``, or None when none does. GitHub is asked whether the token can read it
    (``verify_access``), the others for the user the token belongs to.

    A caller that knows which provider the token is meant for passes just that one, so the
    token is not sent to the other providers. ``api_urls`` are the services' API roots (see
    ``ProviderHandler``).
    """
    for provider in providers:
        api_url = (api_urls or {}).get(provider)
        # Passed only when set, as ProviderHandler does, for replacement service classes.
        extra = {"api_url": api_url} if api_url else {}
        try:
            service = _service_class(provider)(token=token, base_domain=base_domain, **extra)
            if provider is ProviderType.GITHUB:
                await service.verify_access()
            else:
                await service.get_user()
        except Exception as error:
            logger.debug("Token is not a %s token: %s", provider.value, type(error).__name__)
            continue
        return provider
    return None
