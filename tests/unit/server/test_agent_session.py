"""AgentSession: the reference's constructor arguments, and custom secrets that stand in
for a provider's token in the sandbox."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import SecretStr

from openhands.core.assembly import ConversationParts, wait_for_end_state
from openhands.core.config import OpenHandsConfig
from openhands.core.schema import AgentState
from openhands.integrations.provider import CustomSecret, ProviderToken, ProviderType
from openhands.llm.conversation_stats import ConversationStats
from openhands.llm.llm_registry import LLMRegistry
from openhands.server.session.agent_session import AgentSession
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.storage.memory import InMemoryFileStore
from tests.unit.server.fakes import fake_agent_session_cls


def _tokens() -> MappingProxyType[ProviderType, ProviderToken]:
    return MappingProxyType(
        {
            ProviderType.GITHUB: ProviderToken(token=SecretStr("ghp-stored")),
            ProviderType.GITLAB: ProviderToken(token=SecretStr("glpat-stored")),
            ProviderType.BITBUCKET: ProviderToken(token=SecretStr("bb-stored")),
        }
    )


def test_a_secret_named_like_a_provider_variable_replaces_that_token() -> None:
    secrets = {
        "GITHUB_TOKEN": CustomSecret(secret=SecretStr("ghp-mine")),
        "gitlab_token": CustomSecret(secret=SecretStr("glpat-mine")),
        "UNRELATED": CustomSecret(secret=SecretStr("x")),
    }
    kept = AgentSession.override_provider_tokens_with_custom_secret(_tokens(), secrets)
    assert kept is not None
    assert set(kept) == {ProviderType.BITBUCKET}
    assert kept[ProviderType.BITBUCKET].token == SecretStr("bb-stored")


def test_without_tokens_or_secrets_nothing_is_dropped() -> None:
    tokens = _tokens()
    assert AgentSession.override_provider_tokens_with_custom_secret(tokens, None) is tokens
    assert AgentSession.override_provider_tokens_with_custom_secret(tokens, {}) is tokens
    secrets = {"GITHUB_TOKEN": CustomSecret(secret=SecretStr("ghp-mine"))}
    assert AgentSession.override_provider_tokens_with_custom_secret(None, secrets) is None


class _ConnectingRuntime:
    async def connect(self) -> None:
        return None


class _RecordingBuilder:
    """Records what the session asks the runtime to be built with."""

    def __init__(self) -> None:
        self.runtime_kwargs: dict[str, Any] = {}

    def build_runtime(self, **kwargs: Any) -> _ConnectingRuntime:
        self.runtime_kwargs = kwargs
        return _ConnectingRuntime()


async def test_the_sandbox_gets_the_custom_secret_rather_than_the_stored_token() -> None:
    session = AgentSession("sid", InMemoryFileStore())
    builder = _RecordingBuilder()
    session._builder = builder  # type: ignore[assignment]
    init_data = ConversationInitData(
        git_provider_tokens=_tokens(),
        custom_secrets={"GITHUB_TOKEN": CustomSecret(secret=SecretStr("ghp-mine"))},
    )
    assert await session._create_runtime(OpenHandsConfig(), None, init_data)  # type: ignore[arg-type]
    assert builder.runtime_kwargs["env_vars"] == {"GITHUB_TOKEN": "ghp-mine"}
    assert builder.runtime_kwargs["git_provider_tokens"] == {
        "gitlab": "glpat-stored",
        "bitbucket": "bb-stored",
    }


def test_a_registry_and_stats_given_to_the_constructor_are_the_ones_used() -> None:
    config = OpenHandsConfig()
    registry = LLMRegistry(config)
    stats = ConversationStats(InMemoryFileStore(), "sid")
    session = AgentSession(
        sid="sid", file_store=InMemoryFileStore(), llm_registry=registry, conversation_stats=stats
    )
    # No builder exists before start: building new ones would fail here.
    assert session._create_llm_registry(config, "CodeActAgent") == (registry, stats)


def test_a_session_without_a_status_callback_accepts_status_updates() -> None:
    session = AgentSession("sid", InMemoryFileStore())
    session.status_callback("info", "STATUS$READY", "ready")


# --- the session keeps the assembled parts ------------------------------------------------


async def test_start_keeps_the_assembled_parts_and_close_releases_them(tmp_path: Path) -> None:
    session = fake_agent_session_cls(tmp_path)("sid-parts", InMemoryFileStore())
    await session.start(OpenHandsConfig(), ConversationInitData())

    parts = session.parts
    assert isinstance(parts, ConversationParts)
    # The reference's attribute names read the parts: nothing is copied.
    assert session.runtime is parts.runtime
    assert session.controller is parts.controller
    assert session.memory is parts.memory
    assert parts.event_stream is session.event_stream and not parts.owns_event_stream
    # The controller takes the start's state change from the stream, on the stream's thread.
    awaiting = wait_for_end_state(session.event_stream, [AgentState.AWAITING_USER_INPUT])
    assert await asyncio.wait_for(awaiting, 30) == AgentState.AWAITING_USER_INPUT

    await session.close()
    assert parts.closed
    assert session.teardown is not None
    await session.teardown  # the sandbox teardown runs in the background
    assert parts.runtime.closed  # type: ignore[attr-defined]


async def test_a_runtime_hook_that_gets_no_sandbox_ends_the_start_quietly(tmp_path: Path) -> None:
    reports: list[tuple[str, str, str]] = []
    session = fake_agent_session_cls(tmp_path, connect=False)(
        "sid-nobox", InMemoryFileStore(), status_callback=lambda *r: reports.append(r)
    )
    await session.start(OpenHandsConfig(), ConversationInitData())

    assert session.start_failed and session.parts is None
    assert session.get_state() == AgentState.ERROR
    assert reports[-1][1] == "STATUS$ERROR_RUNTIME_DISCONNECTED"
    await session.close()  # nothing was assembled: nothing to release
