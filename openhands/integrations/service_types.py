"""What every git-provider integration shares: enums, data models, errors and the seams.

``GitService`` is the seam (a Protocol) the GitHub, GitLab and Bitbucket services
implement; ``BaseGitService`` holds the provider-independent parts (microagent discovery and
parsing). The models are the JSON the ``/api/user/*`` routes answer with (server-api §6.6).
This module imports nothing but pydantic: the storage layer imports it for ``ProviderType``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from enum import Enum, StrEnum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field, SecretStr


class ProviderType(StrEnum):
    """A git hosting provider, as written in settings, secrets and conversation metadata."""

    GITHUB = "github"
    GITLAB = "gitlab"
    BITBUCKET = "bitbucket"
    ENTERPRISE_SSO = "enterprise_sso"


class TaskType(str, Enum):
    MERGE_CONFLICTS = "MERGE_CONFLICTS"
    FAILING_CHECKS = "FAILING_CHECKS"
    UNRESOLVED_COMMENTS = "UNRESOLVED_COMMENTS"
    OPEN_ISSUE = "OPEN_ISSUE"
    OPEN_PR = "OPEN_PR"
    CREATE_MICROAGENT = "CREATE_MICROAGENT"


class OwnerType(str, Enum):
    USER = "user"
    ORGANIZATION = "organization"


class RequestMethod(Enum):
    POST = "post"
    GET = "get"


# --- errors -------------------------------------------------------------------------------


class AuthenticationError(ValueError):
    """The provider refused the token (HTTP 401), or no provider could be used."""


class UnknownException(ValueError):
    """The provider failed in a way we do not classify (network error, 5xx, bad reply)."""


class RateLimitError(ValueError):
    """The provider asked us to slow down (HTTP 429)."""


class ResourceNotFoundError(ValueError):
    """The repository, file or pull request does not exist or is not visible (HTTP 404)."""


class MicroagentParseError(ValueError):
    """A microagent file whose frontmatter cannot be read."""


# --- data models --------------------------------------------------------------------------

# The wording of pull/merge requests per provider, used by the suggested-task prompts.
_PROVIDER_TERMS: dict[ProviderType, dict[str, str]] = {
    ProviderType.GITHUB: {
        "requestType": "Pull Request",
        "requestTypeShort": "PR",
        "apiName": "GitHub API",
        "tokenEnvVar": "GITHUB_TOKEN",
        "ciSystem": "GitHub Actions",
        "ciProvider": "GitHub",
        "requestVerb": "pull request",
    },
    ProviderType.GITLAB: {
        "requestType": "Merge Request",
        "requestTypeShort": "MR",
        "apiName": "GitLab API",
        "tokenEnvVar": "GITLAB_TOKEN",
        "ciSystem": "CI pipelines",
        "ciProvider": "GitLab",
        "requestVerb": "merge request",
    },
    ProviderType.BITBUCKET: {
        "requestType": "Pull Request",
        "requestTypeShort": "PR",
        "apiName": "Bitbucket API",
        "tokenEnvVar": "BITBUCKET_TOKEN",
        "ciSystem": "Bitbucket Pipelines",
        "ciProvider": "Bitbucket",
        "requestVerb": "pull request",
    },
}

_TASK_TEMPLATES: dict[TaskType, str] = {
    TaskType.MERGE_CONFLICTS: (
        "{requestType} #{number} in {repo} ({title}) has merge conflicts. Check out its "
        "branch, resolve the conflicts with the base branch, make sure the tests still pass, "
        "and push. Use the {apiName} with the {tokenEnvVar} environment variable if you need "
        "details of the {requestVerb}."
    ),
    TaskType.FAILING_CHECKS: (
        "{requestType} #{number} in {repo} ({title}) has failing checks in {ciSystem}. Check "
        "out its branch, find out why they fail, fix the problems and push the fix. Use the "
        "{apiName} with the {tokenEnvVar} environment variable to read the check logs."
    ),
    TaskType.UNRESOLVED_COMMENTS: (
        "{requestType} #{number} in {repo} ({title}) has unresolved review comments. Read "
        "them with the {apiName} (token in {tokenEnvVar}), address each one on the "
        "{requestVerb}'s branch, and push the changes."
    ),
    TaskType.OPEN_ISSUE: (
        "Issue #{number} in {repo} is open: {title}. Read the issue with the {apiName} "
        "(token in {tokenEnvVar}), implement a fix on a new branch, add tests where it makes "
        "sense, and open a {requestVerb}."
    ),
    TaskType.OPEN_PR: (
        "{requestType} #{number} in {repo} ({title}) is open. Review it, check that it builds "
        "and its {ciSystem} checks pass, and fix what is missing."
    ),
    TaskType.CREATE_MICROAGENT: (
        "Create a microagent for {repo}: a Markdown file under .openhands/microagents/ with "
        "YAML frontmatter, then open a {requestVerb} with it ({title})."
    ),
}


class SuggestedTask(BaseModel):
    git_provider: ProviderType
    task_type: TaskType
    repo: str
    issue_number: int
    title: str

    def get_provider_terms(self) -> dict[str, str]:
        """How this provider names things (``requestType`` 'Pull Request' or 'Merge
        Request', ``requestTypeShort``, ``apiName``, ``tokenEnvVar``, ``ciSystem``, …)."""
        terms = _PROVIDER_TERMS.get(self.git_provider)
        if terms is None:
            raise ValueError(f"Provider {self.git_provider} is not supported for task prompts")
        return dict(terms)

    def get_prompt_for_task(self) -> str:
        """The first user message of a conversation started from this task."""
        template = _TASK_TEMPLATES[self.task_type]
        return template.format(
            number=self.issue_number, repo=self.repo, title=self.title, **self.get_provider_terms()
        )


class CreateMicroagent(BaseModel):
    repo: str
    git_provider: ProviderType | None = None
    title: str | None = None


class User(BaseModel):
    id: str
    login: str
    avatar_url: str
    company: str | None = None
    name: str | None = None
    email: str | None = None


class Branch(BaseModel):
    name: str
    commit_sha: str
    protected: bool
    last_push_date: str | None = None


class PaginatedBranchesResponse(BaseModel):
    branches: list[Branch]
    has_next_page: bool
    current_page: int
    per_page: int
    total_count: int | None = None


class Repository(BaseModel):
    id: str
    full_name: str
    git_provider: ProviderType
    is_public: bool
    stargazers_count: int | None = None
    link_header: str | None = Field(default=None, description="Pagination, on the first item")
    pushed_at: str | None = None
    owner_type: OwnerType | None = None
    main_branch: str | None = None


class Comment(BaseModel):
    id: str
    body: str
    author: str
    created_at: datetime
    updated_at: datetime
    system: bool = False


class TokenResponse(BaseModel):
    token: str


class MicroagentResponse(BaseModel):
    """A microagent file found in a repository."""

    name: str
    path: str
    created_at: datetime | None = None


class MicroagentContentResponse(BaseModel):
    """A microagent file's body and the triggers of its frontmatter."""

    content: str
    path: str
    triggers: list[str] = Field(default_factory=list)
    git_provider: str | None = None


# --- seams --------------------------------------------------------------------------------

MICROAGENTS_DIR = ".openhands/microagents"
# Instruction files at a repository's root that act as repository microagents.
ROOT_INSTRUCTION_FILES = (".cursorrules", "AGENTS.md", "agents.md")


class BaseGitService(ABC):
    """Provider-independent behaviour; a service supplies directory listings and files."""

    @property
    @abstractmethod
    def provider(self) -> str: ...

    @abstractmethod
    async def _list_directory(self, repository: str, path: str) -> list[tuple[str, str]]:
        """``(name, path)`` of the files (not directories) in ``path``; [] when absent."""

    @abstractmethod
    async def _get_file_text(self, repository: str, path: str) -> str:
        """A file's text (``ResourceNotFoundError`` when absent)."""

    async def _get_file_created_at(self, repository: str, path: str) -> datetime | None:
        """When the file was first committed, if the provider tells cheaply (default no)."""
        return None

    async def get_microagents(self, repository: str) -> list[MicroagentResponse]:
        """The microagents of ``repository``: the Markdown files of
        ``.openhands/microagents/`` (not ``README.md``) and root instruction files such as
        ``.cursorrules`` and ``AGENTS.md``."""
        found: list[MicroagentResponse] = []
        for name, path in await self._list_directory(repository, MICROAGENTS_DIR):
            if not name.endswith(".md") or name == "README.md":
                continue
            created_at = await self._get_file_created_at(repository, path)
            found.append(MicroagentResponse(name=name[:-3], path=path, created_at=created_at))
        root_files = {name: path for name, path in await self._list_directory(repository, "")}
        for name in ROOT_INSTRUCTION_FILES:
            if name in root_files:
                stem = name.lstrip(".").removesuffix(".md")
                found.append(MicroagentResponse(name=stem, path=root_files[name]))
        return found

    async def get_microagent_content(
        self, repository: str, file_path: str
    ) -> MicroagentContentResponse:
        """A microagent file's body without its frontmatter, and its ``triggers``."""
        return parse_microagent_content(
            await self._get_file_text(repository, file_path), file_path, self.provider
        )


def parse_microagent_content(
    text: str, path: str, git_provider: str | None
) -> MicroagentContentResponse:
    import frontmatter
    import yaml

    try:
        post = frontmatter.loads(text)
    except (yaml.YAMLError, ValueError) as error:
        raise MicroagentParseError(f"Invalid frontmatter in {path}: {error}") from error
    triggers: Any = post.metadata.get("triggers") or []
    if not isinstance(triggers, list):
        triggers = [triggers]
    return MicroagentContentResponse(
        content=post.content,
        path=path,
        triggers=[str(trigger) for trigger in triggers],
        git_provider=git_provider,
    )


@runtime_checkable
class InstallationsService(Protocol):
    async def get_installations(self) -> list[str]: ...


@runtime_checkable
class GitService(Protocol):
    """What ``ProviderHandler`` needs from a provider's service."""

    def __init__(
        self,
        user_id: str | None = None,
        token: SecretStr | None = None,
        external_auth_id: str | None = None,
        external_auth_token: SecretStr | None = None,
        external_token_manager: bool = False,
        base_domain: str | None = None,
    ) -> None: ...

    async def get_latest_token(self) -> SecretStr | None: ...

    async def get_user(self) -> User: ...

    async def search_repositories(
        self, query: str, per_page: int, sort: str, order: str, public: bool
    ) -> list[Repository]: ...

    async def get_all_repositories(self, sort: str, app_mode: Any) -> list[Repository]: ...

    async def get_paginated_repos(
        self,
        page: int,
        per_page: int,
        sort: str,
        installation_id: str | None,
        query: str | None = None,
    ) -> list[Repository]: ...

    async def get_suggested_tasks(self) -> list[SuggestedTask]: ...

    async def get_repository_details_from_repo_name(self, repository: str) -> Repository: ...

    async def get_branches(self, repository: str) -> list[Branch]: ...

    async def get_paginated_branches(
        self, repository: str, page: int = 1, per_page: int = 30
    ) -> PaginatedBranchesResponse: ...

    async def search_branches(
        self, repository: str, query: str, per_page: int = 30
    ) -> list[Branch]: ...

    async def get_microagents(self, repository: str) -> list[MicroagentResponse]: ...

    async def get_microagent_content(
        self, repository: str, file_path: str
    ) -> MicroagentContentResponse: ...

    async def get_pr_details(self, repository: str, pr_number: int) -> dict[str, Any]: ...

    async def is_pr_open(self, repository: str, pr_number: int) -> bool: ...
