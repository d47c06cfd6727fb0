"""ConversationMetadata: what ``sessions/<sid>/metadata.json`` holds."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from openhands.integrations.service_types import ProviderType


class ConversationTrigger(StrEnum):
    """What started a conversation."""

    RESOLVER = "resolver"
    GUI = "gui"
    SUGGESTED_TASK = "suggested_task"
    OPENHANDS_API = "openhands_api"
    SLACK = "slack"
    MICROAGENT_MANAGEMENT = "microagent_management"
    JIRA = "jira"
    JIRA_DC = "jira_dc"
    LINEAR = "linear"


def default_title(conversation_id: str) -> str:
    """The title a conversation has until one is chosen: ``Conversation <first 5 chars>``."""
    return f"Conversation {conversation_id[:5]}"


def _utc_now() -> datetime:
    return datetime.now(UTC)


class ConversationMetadata(BaseModel):
    """One conversation's persisted metadata. Fields are in the order they are written.

    Datetimes are timezone-aware UTC (naive input is taken as UTC), written as ISO-8601
    with a ``Z`` suffix. Unknown keys on input (e.g. the legacy ``github_user_id``) are
    dropped.
    """

    model_config = ConfigDict(validate_assignment=True, extra="ignore")

    conversation_id: str
    selected_repository: str | None = Field(default=None, description="owner/repo")
    user_id: str | None = None
    selected_branch: str | None = None
    git_provider: ProviderType | None = None
    title: str | None = None
    last_updated_at: datetime | None = None
    trigger: ConversationTrigger | None = None
    pr_number: list[int] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=_utc_now)
    llm_model: str | None = None
    accumulated_cost: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    @field_validator("last_updated_at", "created_at")
    @classmethod
    def _assume_utc(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value
