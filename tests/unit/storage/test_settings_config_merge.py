"""`Settings.from_config()` and `Settings.merge_with_config_settings()` (python-api.md §10;
checklist item 30): the servers of config.toml come first, then the stored ones."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import patch

import pytest
from pydantic import SecretStr

from openhands.core.config.mcp_config import (
    MCPConfig,
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
)
from openhands.storage.data_models.settings import Settings

CONFIG_TOML = """
[core]
file_store = "memory"
max_iterations = 42
[llm]
model = "openai/gpt-4o"
api_key = "sk-from-config-toml"
[mcp]
sse_servers = ["http://config.dev/sse"]
stdio_servers = [{ name = "config-fs", command = "npx", args = ["-y", "fs"] }]
shttp_servers = ["http://config.dev/mcp"]
"""


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory whose config.toml is read; LLM/MCP env vars cannot interfere."""
    for name in ("LLM_API_KEY", "LLM_MODEL", "MAX_ITERATIONS", "FILE_STORE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def stored_mcp() -> MCPConfig:
    return MCPConfig(
        sse_servers=[MCPSSEServerConfig(url="http://stored.dev/sse")],
        stdio_servers=[MCPStdioServerConfig(name="stored-fs", command="uvx")],
        shttp_servers=[MCPSHTTPServerConfig(url="http://stored.dev/mcp")],
    )


def test_from_config_reads_config_toml(config_dir: Path) -> None:
    (config_dir / "config.toml").write_text(CONFIG_TOML, encoding="utf-8")
    settings = Settings.from_config()
    assert settings is not None
    assert settings.llm_model == "openai/gpt-4o"
    assert settings.llm_api_key == SecretStr("sk-from-config-toml")
    assert settings.max_iterations == 42
    assert settings.mcp_config is not None
    assert [s.url for s in settings.mcp_config.sse_servers] == ["http://config.dev/sse"]


def test_from_config_without_llm_key_is_none(config_dir: Path) -> None:
    (config_dir / "config.toml").write_text('[core]\nfile_store = "memory"\n', encoding="utf-8")
    assert Settings.from_config() is None


def test_merge_puts_config_servers_first(config_dir: Path) -> None:
    (config_dir / "config.toml").write_text(CONFIG_TOML, encoding="utf-8")
    settings = Settings(llm_model="stored-model", mcp_config=stored_mcp())
    merged = settings.merge_with_config_settings()
    assert merged is settings
    assert merged.mcp_config is not None
    assert [s.url for s in merged.mcp_config.sse_servers] == [
        "http://config.dev/sse",
        "http://stored.dev/sse",
    ]
    assert [s.name for s in merged.mcp_config.stdio_servers] == ["config-fs", "stored-fs"]
    assert [s.url for s in merged.mcp_config.shttp_servers] == [
        "http://config.dev/mcp",
        "http://stored.dev/mcp",
    ]
    assert merged.llm_model == "stored-model"  # only the MCP servers are merged


def test_merge_without_stored_servers_takes_the_config_ones(config_dir: Path) -> None:
    (config_dir / "config.toml").write_text(CONFIG_TOML, encoding="utf-8")
    merged = Settings(llm_model="m").merge_with_config_settings()
    assert merged.mcp_config is not None
    assert [s.url for s in merged.mcp_config.sse_servers] == ["http://config.dev/sse"]


def test_merge_without_config_settings_changes_nothing() -> None:
    settings = Settings(mcp_config=stored_mcp())
    with patch.object(Settings, "from_config", return_value=None):
        assert settings.merge_with_config_settings().mcp_config == stored_mcp()
    bare = Settings(llm_model="x")
    with patch.object(Settings, "from_config", return_value=Settings(llm_model="c")):
        assert bare.merge_with_config_settings().mcp_config is None
