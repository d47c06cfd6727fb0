"""REST models of the conversation routes (server-api §4, §6.3, §6.4)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from openhands.core.config.mcp_config import MCPConfig
from openhands.integrations.service_types import (
    CreateMicroagent,
    ProviderType,
    SuggestedTask,
)
from openhands.storage.data_models.conversation_metadata import (
    ConversationMetadata,
    ConversationTrigger,
    default_title,
)
from openhands.storage.data_models.conversation_status import ConversationStatus


class ConversationInfo(BaseModel):
    """One conversation as listed and fetched by the UI."""

    conversation_id: str = Field(description="32 lowercase hex chars")
    title: str = Field(description="The stored title, or `Conversation <id[:5]>`")
    last_updated_at: datetime | None = Field(default=None, description="UTC, `Z` suffix")
    status: ConversationStatus = Field(description="STOPPED, STARTING or RUNNING in standalone")
    runtime_status: str | None = Field(default=None, description="Latest RuntimeStatus id")
    selected_repository: str | None = Field(default=None, description="owner/repo")
    selected_branch: str | None = None
    git_provider: ProviderType | None = None
    trigger: ConversationTrigger | None = None
    num_connections: int = Field(default=0, description="Sockets currently joined")
    url: str | None = Field(default=None, description="`/api/conversations/<id>` when running")
    session_api_key: str | None = Field(default=None, description="Always null in standalone")
    created_at: datetime = Field(description="UTC, `Z` suffix")
    pr_number: list[int] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _from_stored_record(cls, value: Any) -> Any:
        """A stored ``ConversationMetadata`` is a conversation no loop runs (as the
        reference's result sets, which took those records as they were)."""
        if not isinstance(value, ConversationMetadata):
            return value
        return {
            **value.model_dump(include=set(cls.model_fields)),
            "title": value.title or default_title(value.conversation_id),
            "status": ConversationStatus.STOPPED,
        }


class ConversationInfoResultSet(BaseModel):
    results: list[ConversationInfo] = Field(default_factory=list)
    next_page_id: str | None = Field(default=None, description="base64 of the next offset")


class ConversationResponse(BaseModel):
    """What create, start and stop return."""

    status: Literal["ok", "error"] = Field(description="`ok` on success")
    conversation_id: str
    message: str | None = None
    conversation_status: ConversationStatus | None = None


class InitSessionRequest(BaseModel):
    """Body of POST /api/conversations; unknown keys are a 422."""

    model_config = ConfigDict(extra="forbid")

    repository: str | None = Field(default=None, description="owner/repo to clone")
    git_provider: ProviderType | None = Field(default=None, description="Provider to try first")
    selected_branch: str | None = None
    initial_user_msg: str | None = Field(default=None, description="First user message")
    image_urls: list[str] | None = Field(default=None, description="Images of the first message")
    replay_json: str | None = Field(default=None, description="A trajectory to replay")
    suggested_task: SuggestedTask | None = None
    create_microagent: CreateMicroagent | None = None
    conversation_instructions: str | None = None
    mcp_config: MCPConfig | None = None
    conversation_id: str | None = Field(
        default=None, description="Only accepted when ALLOW_SET_CONVERSATION_ID=1"
    )


class UpdateConversationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=200, description="The new title")


class ProvidersSetRequest(BaseModel):
    """Body of POST …/start."""

    providers_set: list[ProviderType] | None = Field(
        default=None, description="Providers to scaffold tokens for"
    )


class ExperimentConfigRequest(BaseModel):
    config: dict[str, str] | None = None


class AddMessageRequest(BaseModel):
    message: str = Field(description="Text of the user message to add")


class SuccessResponse(BaseModel):
    success: bool


class EventPage(BaseModel):
    events: list[dict[str, Any]] = Field(description="Stored event dicts, unchanged")
    has_more: bool = Field(description="More events match beyond `limit`")


class RuntimeConfigResponse(BaseModel):
    runtime_id: str | None = None
    session_id: str


class VSCodeUrlResponse(BaseModel):
    vscode_url: str | None


class WebHostsResponse(BaseModel):
    hosts: dict[str, int] | None


class MicroagentInput(BaseModel):
    name: str
    description: str = ""


class MicroagentInfo(BaseModel):
    name: str
    type: Literal["repo", "knowledge"]
    content: str
    triggers: list[str] = Field(default_factory=list)
    inputs: list[MicroagentInput] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)


class MicroagentsResponse(BaseModel):
    microagents: list[MicroagentInfo]


class RememberPromptResponse(BaseModel):
    status: Literal["success"] = "success"
    prompt: str


class TrajectoryResponse(BaseModel):
    trajectory: list[dict[str, Any]] | None
