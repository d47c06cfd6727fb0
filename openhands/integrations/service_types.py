"""Enumerations shared by the git-provider integrations."""

from __future__ import annotations

from enum import StrEnum


class ProviderType(StrEnum):
    """A git hosting provider, as written in settings, secrets and conversation metadata."""

    GITHUB = "github"
    GITLAB = "gitlab"
    BITBUCKET = "bitbucket"
    ENTERPRISE_SSO = "enterprise_sso"
