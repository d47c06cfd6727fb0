"""Settings: validation, secret handling, JSON shape and the merge rules of §6.5."""

from __future__ import annotations

import json

import pytest
from pydantic import SecretStr, ValidationError

from openhands.core.config.mcp_config import MCPConfig
from openhands.integrations.service_types import ProviderType
from openhands.storage.data_models.settings import Settings

EXPOSE = {"expose_secrets": True}

FIELD_ORDER = [
    "language",
    "agent",
    "max_iterations",
    "security_analyzer",
    "confirmation_mode",
    "llm_model",
    "llm_api_key",
    "llm_base_url",
    "remote_runtime_resource_factor",
    "secrets_store",
    "enable_default_condenser",
    "enable_sound_notifications",
    "enable_proactive_conversation_starters",
    "enable_solvability_analysis",
    "user_consents_to_analytics",
    "sandbox_base_container_image",
    "sandbox_runtime_container_image",
    "mcp_config",
    "search_api_key",
    "sandbox_api_key",
    "max_budget_per_task",
    "condenser_max_size",
    "email",
    "email_verified",
    "git_user_name",
    "git_user_email",
]


def test_defaults() -> None:
    data = json.loads(Settings().model_dump_json())
    assert list(data) == FIELD_ORDER
    assert data["enable_default_condenser"] is True
    assert data["enable_sound_notifications"] is False
    assert data["enable_proactive_conversation_starters"] is True
    assert data["enable_solvability_analysis"] is True
    assert data["secrets_store"] == {"provider_tokens": {}}
    assert all(data[name] is None for name in ("language", "llm_api_key", "mcp_config"))


def test_secrets_are_masked_unless_exposed() -> None:
    settings = Settings(
        llm_api_key=SecretStr("sk-live"),
        search_api_key=SecretStr("tvly-1"),
        sandbox_api_key=SecretStr("sbx"),
    )
    assert "sk-live" not in repr(settings)
    assert "sk-live" not in str(settings)
    masked = json.loads(settings.model_dump_json())
    assert masked["llm_api_key"] == "**********"
    exposed = json.loads(settings.model_dump_json(context=EXPOSE))
    assert exposed["llm_api_key"] == "sk-live"
    assert exposed["search_api_key"] == "tvly-1"
    assert exposed["sandbox_api_key"] == "sbx"


def test_empty_key_is_kept_in_memory_but_written_as_null() -> None:
    settings = Settings(llm_api_key=SecretStr(""))
    assert settings.llm_api_key is not None
    assert not settings.has_secret("llm_api_key")
    assert json.loads(settings.model_dump_json(context=EXPOSE))["llm_api_key"] is None


def test_a_mask_on_input_means_no_key() -> None:
    # 0.59 wrote sandbox_api_key masked; such a value must not become the key.
    settings = Settings.model_validate({"sandbox_api_key": "**********", "llm_api_key": "real"})
    assert settings.sandbox_api_key is None
    assert settings.has_secret("llm_api_key")


def test_unknown_fields_are_ignored() -> None:
    settings = Settings.model_validate({"llm_model": "m", "provider_tokens_set": {"github": None}})
    assert settings.llm_model == "m"
    assert "provider_tokens_set" not in settings.model_dump()


@pytest.mark.parametrize("size", [0, 19, -1])
def test_condenser_max_size_below_20_is_rejected(size: int) -> None:
    with pytest.raises(ValidationError):
        Settings(condenser_max_size=size)


def test_condenser_max_size_20_or_none_is_fine() -> None:
    assert Settings(condenser_max_size=20).condenser_max_size == 20
    assert Settings(condenser_max_size=None).condenser_max_size is None


def test_mcp_config_shapes() -> None:
    settings = Settings.model_validate(
        {
            "mcp_config": {
                "sse_servers": [
                    "http://localhost:1/sse",
                    {"url": "https://x.dev/s", "api_key": "k"},
                ],
                "stdio_servers": [{"name": "fs", "command": "npx", "args": ["-y", "x"], "env": {}}],
                "shttp_servers": [{"url": "http://localhost:2/mcp"}],
            }
        }
    )
    dumped = json.loads(settings.model_dump_json(context=EXPOSE))["mcp_config"]
    assert dumped["sse_servers"] == [
        {"url": "http://localhost:1/sse", "api_key": None},
        {"url": "https://x.dev/s", "api_key": "k"},
    ]
    assert dumped["shttp_servers"][0]["timeout"] == 60
    with pytest.raises(ValidationError):
        Settings.model_validate({"mcp_config": {"sse_servers": [], "unknown": []}})


def test_legacy_provider_tokens_are_read_but_never_written() -> None:
    settings = Settings.model_validate(
        {"secrets_store": {"provider_tokens": {"github": {"token": "ghp_x", "host": "github.com"}}}}
    )
    token = settings.secrets_store.provider_tokens[ProviderType.GITHUB]
    assert token.token is not None and token.token.get_secret_value() == "ghp_x"
    data = json.loads(settings.model_dump_json(context=EXPOSE))
    assert data["secrets_store"] == {"provider_tokens": {}}


# --- merges ---------------------------------------------------------------------------


def _stored() -> Settings:
    return Settings(
        language="de",
        llm_model="anthropic/claude",
        llm_api_key=SecretStr("sk-stored"),
        llm_base_url="http://llm.local",
        search_api_key=SecretStr("tvly-stored"),
        user_consents_to_analytics=True,
        confirmation_mode=True,
        max_iterations=42,
    )


def test_update_keeps_five_stored_fields_when_left_out() -> None:
    merged = Settings(language="en").merge_update(_stored())
    assert merged.llm_model == "anthropic/claude"
    assert merged.llm_api_key == SecretStr("sk-stored")
    assert merged.llm_base_url == "http://llm.local"
    assert merged.search_api_key == SecretStr("tvly-stored")
    assert merged.user_consents_to_analytics is True
    # Everything else is a full replacement: left-out fields fall back to defaults.
    assert merged.language == "en"
    assert merged.confirmation_mode is None
    assert merged.max_iterations is None


def test_update_values_win_and_empty_key_clears() -> None:
    merged = Settings(
        llm_model="openai/gpt", llm_api_key=SecretStr(""), search_api_key=SecretStr("tvly-new")
    ).merge_update(_stored())
    assert merged.llm_model == "openai/gpt"
    assert not merged.has_secret("llm_api_key")
    assert json.loads(merged.model_dump_json(context=EXPOSE))["llm_api_key"] is None
    assert merged.search_api_key == SecretStr("tvly-new")


def test_update_without_stored_settings_is_the_update() -> None:
    incoming = Settings(language="fr")
    merged = incoming.merge_update(None)
    assert merged == incoming
    assert merged is not incoming


def test_config_mcp_servers_go_first_without_duplicates() -> None:
    stored = Settings(
        mcp_config=MCPConfig.model_validate(
            {
                "sse_servers": ["http://a.dev/sse", "http://stored.dev/sse"],
                "stdio_servers": [{"name": "fs", "command": "stored-fs"}],
            }
        )
    )
    config = MCPConfig.model_validate(
        {
            "sse_servers": ["http://a.dev/sse"],
            "stdio_servers": [{"name": "fs", "command": "config-fs"}],
            "shttp_servers": ["http://c.dev/mcp"],
        }
    )
    merged = stored.with_config_mcp(config)
    assert merged.mcp_config is not None
    assert [s.url for s in merged.mcp_config.sse_servers] == [
        "http://a.dev/sse",
        "http://stored.dev/sse",
    ]
    assert [s.command for s in merged.mcp_config.stdio_servers] == ["config-fs"]
    assert [s.url for s in merged.mcp_config.shttp_servers] == ["http://c.dev/mcp"]
    assert stored.mcp_config is not None and len(stored.mcp_config.sse_servers) == 2


def test_empty_config_mcp_changes_nothing() -> None:
    settings = Settings(language="en")
    assert settings.with_config_mcp(MCPConfig()).mcp_config is None
    assert settings.with_config_mcp(None).mcp_config is None


def test_from_config() -> None:
    from openhands.core.config.llm_config import LLMConfig
    from openhands.core.config.openhands_config import OpenHandsConfig

    config = OpenHandsConfig()
    assert Settings.from_config(config) is None  # no LLM key configured

    config.set_llm_config(
        LLMConfig(model="openai/gpt-4o", api_key=SecretStr("sk-cfg"), base_url="http://b")
    )
    config.security.confirmation_mode = True
    settings = Settings.from_config(config)
    assert settings is not None
    assert settings.language == "en"
    assert settings.agent == "CodeActAgent"
    assert settings.llm_model == "openai/gpt-4o"
    assert settings.llm_api_key == SecretStr("sk-cfg")
    assert settings.llm_base_url == "http://b"
    assert settings.confirmation_mode is True
    assert settings.max_iterations == config.max_iterations
    assert settings.remote_runtime_resource_factor == 1
    assert settings.mcp_config == config.mcp
