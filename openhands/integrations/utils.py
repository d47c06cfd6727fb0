"""Which provider a bare token belongs to."""

from __future__ import annotations

import logging

from pydantic import SecretStr

from openhands.integrations.service_types import ProviderType

logger = logging.getLogger(__name__)


async def validate_provider_token(
    token: SecretStr, base_domain: str | None = None
) -> ProviderType | None:
    """The first of GitHub, GitLab and Bitbucket that accepts ``token`` (asked for the
    user it belongs to), or None when none does."""
    from openhands.integrations.bitbucket.bitbucket_service import BitBucketServiceImpl
    from openhands.integrations.github.github_service import GithubServiceImpl
    from openhands.integrations.gitlab.gitlab_service import GitLabServiceImpl

    candidates = (
        (ProviderType.GITHUB, GithubServiceImpl),
        (ProviderType.GITLAB, GitLabServiceImpl),
        (ProviderType.BITBUCKET, BitBucketServiceImpl),
    )
    for provider, service_class in candidates:
        try:
            await service_class(token=token, base_domain=base_domain).get_user()
        except Exception as error:
            logger.debug("Token is not a %s token: %s", provider.value, error)
            continue
        return provider
    return None
