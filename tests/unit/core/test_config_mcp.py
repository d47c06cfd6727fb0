"""MCP server configs (spec agent.md §9.1)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from openhands.core.config import (
    MCPConfig,
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
)
from openhands.core.config.mcp_config import default_shttp_server, search_engine_stdio_server


def test_bare_string_is_an_sse_url() -> None:
    cfg = MCPConfig.model_validate({"sse_servers": ["http://localhost:1/sse"]})
    assert cfg.sse_servers == [MCPSSEServerConfig(url="http://localhost:1/sse")]


@pytest.mark.parametrize("url", ["http://a/x", "https://a", "ws://a:1", "wss://a/b"])
def test_allowed_url_schemes(url: str) -> None:
    assert MCPSSEServerConfig(url=url).url == url
    assert MCPSHTTPServerConfig(url=url).url == url


@pytest.mark.parametrize("url", ["ftp://a", "localhost:8080", "", "http://"])
def test_rejected_urls(url: str) -> None:
    with pytest.raises(ValidationError):
        MCPSSEServerConfig(url=url)


def test_sse_urls_must_be_unique() -> None:
    # Construction accepts the repeat; validate_servers (run by the config.toml loader) not.
    config = MCPConfig.model_validate({"sse_servers": ["http://a/sse", {"url": "http://a/sse"}]})
    with pytest.raises(ValueError, match="Duplicate MCP server URLs are not allowed"):
        config.validate_servers()
    with pytest.raises(ValueError, match="Duplicate"):
        MCPConfig.from_toml_section({"sse_servers": ["http://a/sse", "http://a/sse"]})


def test_shttp_timeout_bounds() -> None:
    assert MCPSHTTPServerConfig(url="http://a").timeout == 60
    assert MCPSHTTPServerConfig(url="http://a", timeout=3600).timeout == 3600
    assert MCPSHTTPServerConfig(url="http://a", timeout=None).timeout is None
    for bad, message in ((0, "Timeout must be positive"), (-5, "Timeout must be positive")):
        with pytest.raises(ValidationError, match=message):
            MCPSHTTPServerConfig(url="http://a", timeout=bad)
    with pytest.raises(ValidationError, match="Timeout cannot exceed 3600 seconds"):
        MCPSHTTPServerConfig(url="http://a", timeout=3601)


def test_stdio_name_and_command_rules() -> None:
    ok = MCPStdioServerConfig(name="my_server-1", command="npx", args=["-y", "pkg"], env={"A": "1"})
    assert ok.args == ["-y", "pkg"]
    with pytest.raises(ValidationError):
        MCPStdioServerConfig(name="bad name", command="npx")
    with pytest.raises(ValidationError):
        MCPStdioServerConfig(name="x", command="npx -y pkg")
    with pytest.raises(ValidationError):
        MCPStdioServerConfig(name="x", command="")


def test_stdio_accepts_strings_for_args_and_env() -> None:
    server = MCPStdioServerConfig(name="x", command="uvx", args='run "my tool"', env="A=1,B=two")  # type: ignore[arg-type]
    assert server.args == ["run", "my tool"]
    assert server.env == {"A": "1", "B": "two"}
    with pytest.raises(ValidationError):
        MCPStdioServerConfig(name="x", command="uvx", env="NOEQUALS")  # type: ignore[arg-type]


def test_api_key_not_in_repr() -> None:
    server = MCPSSEServerConfig(url="http://a", api_key="mcp-secret-key")
    assert "mcp-secret-key" not in repr(server)
    assert "mcp-secret-key" not in repr(MCPConfig(sse_servers=[server]))


def test_unknown_keys_rejected() -> None:
    with pytest.raises(ValidationError):
        MCPConfig.model_validate({"stdio_servers": [{"name": "x", "command": "y", "cwd": "/"}]})


def test_search_engine_server_only_for_tavily_keys() -> None:
    assert search_engine_stdio_server(None) is None
    assert search_engine_stdio_server("sk-other") is None
    server = search_engine_stdio_server("tvly-abc")
    assert server is not None
    assert server.name == "tavily"
    assert server.env == {"TAVILY_API_KEY": "tvly-abc"}


def test_default_shttp_server() -> None:
    server = default_shttp_server("localhost:3000", api_key="k")
    assert server.url == "http://localhost:3000/mcp/mcp"
    assert server.api_key == "k"
