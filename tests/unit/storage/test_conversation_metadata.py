"""ConversationMetadata: the JSON of metadata.json."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from openhands.integrations.service_types import ProviderType
from openhands.storage.data_models.conversation_metadata import (
    ConversationMetadata,
    ConversationTrigger,
    default_title,
)
from openhands.storage.data_models.conversation_status import ConversationStatus

FIELD_ORDER = [
    "conversation_id",
    "selected_repository",
    "user_id",
    "selected_branch",
    "git_provider",
    "title",
    "last_updated_at",
    "trigger",
    "pr_number",
    "created_at",
    "llm_model",
    "accumulated_cost",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
]


def test_json_has_every_field_in_order_with_z_timestamps() -> None:
    metadata = ConversationMetadata(
        conversation_id="5f3c0e",
        selected_repository="owner/repo",
        git_provider=ProviderType.GITHUB,
        title="Fix the failing test",
        trigger=ConversationTrigger.GUI,
        created_at=datetime(2025, 10, 10, 10, 0, 0, 1, tzinfo=UTC),
        last_updated_at=datetime(2025, 10, 10, 10, 2, 11, 512000, tzinfo=UTC),
        pr_number=[7],
    )
    data = json.loads(metadata.model_dump_json())
    assert list(data) == FIELD_ORDER
    assert data == {
        "conversation_id": "5f3c0e",
        "selected_repository": "owner/repo",
        "user_id": None,
        "selected_branch": None,
        "git_provider": "github",
        "title": "Fix the failing test",
        "last_updated_at": "2025-10-10T10:02:11.512000Z",
        "trigger": "gui",
        "pr_number": [7],
        "created_at": "2025-10-10T10:00:00.000001Z",
        "llm_model": None,
        "accumulated_cost": 0.0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
    }


def test_round_trip_and_naive_times_are_utc() -> None:
    text = (
        '{"conversation_id": "x", "selected_repository": null, "created_at": '
        '"2025-01-02T03:04:05.000006", "last_updated_at": "2025-01-02T03:04:06Z", '
        '"github_user_id": "legacy", "trigger": "openhands_api"}'
    )
    metadata = ConversationMetadata.model_validate_json(text)
    assert metadata.created_at == datetime(2025, 1, 2, 3, 4, 5, 6, tzinfo=UTC)
    assert metadata.last_updated_at == datetime(2025, 1, 2, 3, 4, 6, tzinfo=UTC)
    assert metadata.trigger is ConversationTrigger.OPENHANDS_API
    assert "github_user_id" not in metadata.model_dump()
    assert ConversationMetadata.model_validate_json(metadata.model_dump_json()) == metadata


def test_created_at_defaults_to_now_in_utc() -> None:
    before = datetime.now(UTC)
    metadata = ConversationMetadata(conversation_id="x")
    assert before <= metadata.created_at <= datetime.now(UTC)
    assert metadata.model_dump_json().count("Z") == 1  # only created_at is set


def test_enums_have_the_spec_values() -> None:
    assert [t.value for t in ConversationTrigger] == [
        "resolver",
        "gui",
        "suggested_task",
        "openhands_api",
        "slack",
        "microagent_management",
        "jira",
        "jira_dc",
        "linear",
    ]
    assert [s.value for s in ConversationStatus] == [
        "STARTING",
        "RUNNING",
        "STOPPED",
        "ARCHIVED",
        "ERROR",
    ]


def test_invalid_values_are_rejected() -> None:
    with pytest.raises(ValidationError):
        ConversationMetadata(conversation_id="x", trigger="carrier-pigeon")  # type: ignore[arg-type]
    metadata = ConversationMetadata(conversation_id="x")
    with pytest.raises(ValidationError):
        metadata.git_provider = "sourceforge"  # type: ignore[assignment]


def test_default_title() -> None:
    assert default_title("5f3c0e1234") == "Conversation 5f3c0"
