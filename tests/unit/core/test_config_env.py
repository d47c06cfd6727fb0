"""Environment variables: names and casting (spec agent.md §9.3, runtime.md §14.1)."""

from __future__ import annotations

import logging
import os

import pytest
from pydantic import SecretStr

from openhands.core.config import (
    LLMSummarizingCondenserConfig,
    MCPStdioServerConfig,
    OpenHandsConfig,
    load_from_env,
)
from openhands.core.config.env_loader import cast_env_value

_EXPORTED_ENV = (
    "OR_SITE_URL",
    "OR_APP_NAME",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_REGION_NAME",
)


@pytest.fixture(autouse=True)
def _restore_exported_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _EXPORTED_ENV:
        monkeypatch.setenv(name, "placeholder")
        monkeypatch.delenv(name)


def loaded(env: dict[str, str]) -> OpenHandsConfig:
    cfg = OpenHandsConfig()
    load_from_env(cfg, env)
    return cfg


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("true", True), ("TRUE", True), ("1", True), ("false", False), ("yes", False), ("0", False)],
)
def test_bool_casting(raw: str, expected: bool) -> None:
    assert loaded({"DEBUG": raw}).debug is expected
    assert loaded({"SANDBOX_USE_HOST_NETWORK": raw}).sandbox.use_host_network is expected


def test_root_fields_have_no_prefix() -> None:
    cfg = loaded(
        {
            "MAX_ITERATIONS": "12",
            "RUNTIME": "local",
            "DEFAULT_AGENT": "LocAgent",
            "SAVE_TRAJECTORY_PATH": "/tmp/traj",
            "MAX_BUDGET_PER_TASK": "1.25",
            "FILE_STORE_WEB_HOOK_HEADERS": "{'X-A': 'b'}",
            "FILE_UPLOADS_ALLOWED_EXTENSIONS": "['.py', '.md']",
        }
    )
    assert cfg.max_iterations == 12
    assert cfg.runtime == "local"
    assert cfg.default_agent == "LocAgent"
    assert cfg.save_trajectory_path == "/tmp/traj"
    assert cfg.max_budget_per_task == 1.25
    assert cfg.file_store_web_hook_headers == {"X-A": "b"}
    assert cfg.file_uploads_allowed_extensions == [".py", ".md"]


def test_secret_casting() -> None:
    cfg = loaded({"JWT_SECRET": "env-jwt", "SEARCH_API_KEY": "tvly-x", "SANDBOX_API_KEY": "rk"})
    assert isinstance(cfg.jwt_secret, SecretStr)
    assert cfg.jwt_secret.get_secret_value() == "env-jwt"
    assert cfg.search_api_key is not None and cfg.search_api_key.get_secret_value() == "tvly-x"
    assert cfg.sandbox.api_key is not None and cfg.sandbox.api_key.get_secret_value() == "rk"


def test_nested_models_use_their_field_name_as_prefix() -> None:
    cfg = loaded(
        {
            "SANDBOX_TIMEOUT": "7",
            "SANDBOX_VOLUMES": "/a:/workspace",
            "SANDBOX_RUNTIME_STARTUP_ENV_VARS": "{'K': 'v'}",
            "SANDBOX_ADDITIONAL_NETWORKS": "['n1']",
            "SANDBOX_REMOTE_RUNTIME_RESOURCE_FACTOR": "4",
            "SANDBOX_VSCODE_PORT": "4100",
            "SECURITY_CONFIRMATION_MODE": "true",
            "SECURITY_SECURITY_ANALYZER": "llm",
            "KUBERNETES_NAMESPACE": "ns",
            "CLI_VI_MODE": "1",
        }
    )
    assert cfg.sandbox.timeout == 7
    assert cfg.sandbox.volumes == "/a:/workspace"
    assert cfg.sandbox.runtime_startup_env_vars == {"K": "v"}
    assert cfg.sandbox.additional_networks == ["n1"]
    assert cfg.sandbox.remote_runtime_resource_factor == 4
    assert cfg.sandbox.vscode_port == 4100
    assert cfg.security.confirmation_mode is True
    assert cfg.security.security_analyzer == "llm"
    assert cfg.kubernetes.namespace == "ns"
    assert cfg.cli.vi_mode is True


def test_model_lists_are_built_from_literals() -> None:
    cfg = loaded(
        {
            "MCP_STDIO_SERVERS": "[{'name': 'fetch', 'command': 'uvx', 'args': ['mcp-server-fetch']}]",
            "MCP_SSE_SERVERS": "['http://localhost:1/sse', {'url': 'http://localhost:2/sse', 'api_key': 'k'}]",
            "MCP_SHTTP_SERVERS": "[{'url': 'https://example.test/mcp', 'timeout': 5}]",
        }
    )
    assert cfg.mcp.stdio_servers == [
        MCPStdioServerConfig(name="fetch", command="uvx", args=["mcp-server-fetch"])
    ]
    assert [s.url for s in cfg.mcp.sse_servers] == [
        "http://localhost:1/sse",
        "http://localhost:2/sse",
    ]
    assert cfg.mcp.sse_servers[1].api_key == "k"
    assert cfg.mcp.shttp_servers[0].timeout == 5


def test_llm_and_agent_prefixes() -> None:
    cfg = loaded(
        {
            "LLM_MODEL": "gpt-4o",
            "LLM_API_KEY": "sk-env",
            "LLM_BASE_URL": "http://localhost:8000",
            "LLM_NUM_RETRIES": "2",
            "LLM_TEMPERATURE": "0.7",
            "LLM_NATIVE_TOOL_CALLING": "false",
            "AGENT_ENABLE_BROWSING": "false",
            "AGENT_DISABLED_MICROAGENTS": "['github']",
            "AGENT_LLM_CONFIG": "cheap",
        }
    )
    llm = cfg.get_llm_config()
    assert llm.model == "gpt-4o"
    assert llm.api_key is not None and llm.api_key.get_secret_value() == "sk-env"
    assert llm.base_url == "http://localhost:8000"
    assert llm.num_retries == 2
    assert llm.temperature == 0.7
    assert llm.native_tool_calling is False
    agent = cfg.get_agent_config()
    assert agent.enable_browsing is False
    assert agent.disabled_microagents == ["github"]
    assert agent.llm_config == "cheap"


def test_env_model_change_recomputes_derived_llm_defaults() -> None:
    assert loaded({"LLM_MODEL": "gemini-2.5-pro"}).get_llm_config().reasoning_effort is None
    assert loaded({"LLM_MODEL": "azure/gpt-4o"}).get_llm_config().api_version == (
        "2024-12-01-preview"
    )
    both = loaded({"LLM_MODEL": "gemini-2.5-pro", "LLM_REASONING_EFFORT": "low"})
    assert both.get_llm_config().reasoning_effort == "low"


def test_nested_models_inside_agent_use_own_prefix() -> None:
    # Quirk kept from the reference: the agent's condenser reads CONDENSER_*, not AGENT_CONDENSER_*.
    cfg = OpenHandsConfig()
    cfg.get_agent_config().condenser = LLMSummarizingCondenserConfig(
        llm_config=cfg.get_llm_config()
    )
    load_from_env(cfg, {"CONDENSER_MAX_SIZE": "40", "AGENT_CONDENSER_KEEP_FIRST": "3"})
    condenser = cfg.get_agent_config().condenser
    assert isinstance(condenser, LLMSummarizingCondenserConfig)
    assert condenser.max_size == 40
    assert condenser.keep_first == 1


def test_empty_values_are_skipped() -> None:
    cfg = loaded({"MAX_ITERATIONS": "", "LLM_MODEL": "", "SANDBOX_TIMEOUT": ""})
    assert cfg.max_iterations == 500
    assert cfg.get_llm_config().model == "claude-sonnet-4-20250514"
    assert cfg.sandbox.timeout == 120


def test_cast_errors_are_logged_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="openhands"):
        cfg = loaded(
            {
                "MAX_ITERATIONS": "lots",
                "SANDBOX_RUNTIME_STARTUP_ENV_VARS": "{not python",
                "SANDBOX_REMOTE_RUNTIME_RESOURCE_FACTOR": "3",
                "MCP_STDIO_SERVERS": "[{'name': 'bad name', 'command': 'x'}]",
                "SANDBOX_TIMEOUT": "9",
            }
        )
    assert cfg.max_iterations == 500
    assert cfg.sandbox.runtime_startup_env_vars == {}
    assert cfg.sandbox.remote_runtime_resource_factor == 1
    assert cfg.mcp.stdio_servers == []
    assert cfg.sandbox.timeout == 9
    for name in ("MAX_ITERATIONS", "SANDBOX_RUNTIME_STARTUP_ENV_VARS", "MCP_STDIO_SERVERS"):
        assert name in caplog.text


def test_cast_env_value_types() -> None:
    assert cast_env_value("5", int) == 5
    assert cast_env_value("5", int | None) == 5
    assert cast_env_value("2.5", float | None) == 2.5
    assert cast_env_value("x", str) == "x"
    secret = cast_env_value("s3cr3t", SecretStr | None)
    assert isinstance(secret, SecretStr) and secret.get_secret_value() == "s3cr3t"
    assert cast_env_value("[1, 2]", list[int]) == [1, 2]
    assert cast_env_value("{'a': 1}", dict[str, int] | None) == {"a": 1}
    with pytest.raises(ValueError):
        cast_env_value("abc", int)


def test_real_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SANDBOX_TIMEOUT", "33")
    cfg = OpenHandsConfig()
    load_from_env(cfg, os.environ)
    assert cfg.sandbox.timeout == 33
