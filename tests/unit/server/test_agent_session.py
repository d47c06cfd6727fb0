"""AgentSession: the reference's constructor arguments, and custom secrets that stand in
for a provider's token in the sandbox."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.integrations.provider import CustomSecret, ProviderToken, ProviderType
from openhands.llm.conversation_stats import ConversationStats
from openhands.llm.llm_registry import LLMRegistry
from openhands.server.session.agent_session import AgentSession
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.storage.memory import InMemoryFileStore


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
