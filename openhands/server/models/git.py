"""REST models of the git-provider routes (server-api §6.6)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from openhands.integrations.service_types import ProviderType

TaskType = Literal[
    "MERGE_CONFLICTS",
    "FAILING_CHECKS",
    "UNRESOLVED_COMMENTS",
    "OPEN_ISSUE",
    "OPEN_PR",
    "CREATE_MICROAGENT",
]


class Repository(BaseModel):
    id: str
    full_name: str
    git_provider: ProviderType
    is_public: bool
    stargazers_count: int | None = None
    link_header: str | None = Field(default=None, description="Pagination, on the first item")
    pushed_at: str | None = None
    owner_type: Literal["user", "organization"] | None = None
    main_branch: str | None = None


class Branch(BaseModel):
    name: str
    commit_sha: str
    protected: bool
    last_push_date: str | None = None


class PaginatedBranches(BaseModel):
    branches: list[Branch]
    has_next_page: bool
    current_page: int
    per_page: int
    total_count: int | None = None


class GitUser(BaseModel):
    id: str
    login: str
    avatar_url: str
    company: str | None = None
    name: str | None = None
    email: str | None = None


class SuggestedTaskOut(BaseModel):
    git_provider: ProviderType
    task_type: TaskType
    repo: str
    issue_number: int
    title: str


class RepoMicroagent(BaseModel):
    name: str
    path: str
    created_at: str


class RepoMicroagentContent(BaseModel):
    content: str
    path: str
    triggers: list[str] = Field(default_factory=list)
    git_provider: ProviderType
