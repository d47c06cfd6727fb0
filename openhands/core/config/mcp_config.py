"""MCP servers the agent may use (`[mcp]`): SSE, stdio and streamable-HTTP."""

from __future__ import annotations

import re
import shlex
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ALLOWED_URL_SCHEMES = frozenset({"http", "https", "ws", "wss"})
_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")

_CONFIG = ConfigDict(extra="forbid", validate_assignment=True)


def _check_url(url: str) -> str:
    url = url.strip()
    if not url:
        raise ValueError("MCP server URL cannot be empty")
    parsed = urlparse(url)
    if parsed.scheme not in ALLOWED_URL_SCHEMES:
        raise ValueError(
            f"MCP server URL {url!r} must use one of: {', '.join(sorted(ALLOWED_URL_SCHEMES))}"
        )
    if not parsed.netloc:
        raise ValueError(f"MCP server URL {url!r} has no host")
    return url


class MCPSSEServerConfig(BaseModel):
    """A server reached over Server-Sent Events. A bare string is taken as its URL."""

    model_config = _CONFIG

    url: str
    # Plain str (not SecretStr): these models are also persisted in user settings as JSON.
    # repr=False keeps the key out of logs; the loader registers it for log masking.
    api_key: str | None = Field(default=None, repr=False)

    @model_validator(mode="before")
    @classmethod
    def _from_bare_url(cls, data: Any) -> Any:
        return {"url": data} if isinstance(data, str) else data

    @field_validator("url")
    @classmethod
    def _valid_url(cls, value: str) -> str:
        return _check_url(value)


class MCPSHTTPServerConfig(BaseModel):
    """A server reached over streamable HTTP."""

    model_config = _CONFIG

    url: str
    api_key: str | None = Field(default=None, repr=False)
    timeout: int = Field(default=60, ge=1, le=3600, description="Seconds per tool call.")

    @model_validator(mode="before")
    @classmethod
    def _from_bare_url(cls, data: Any) -> Any:
        return {"url": data} if isinstance(data, str) else data

    @field_validator("url")
    @classmethod
    def _valid_url(cls, value: str) -> str:
        return _check_url(value)


class MCPStdioServerConfig(BaseModel):
    """A server started as a subprocess speaking MCP on stdin/stdout."""

    model_config = _CONFIG

    name: str
    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, value: str) -> str:
        value = value.strip()
        if not _SERVER_NAME.match(value):
            raise ValueError(
                f"MCP stdio server name {value!r} may only contain letters, digits, '-' and '_'"
            )
        return value

    @field_validator("command")
    @classmethod
    def _valid_command(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("MCP stdio server command cannot be empty")
        if any(ch.isspace() for ch in value):
            raise ValueError(
                f"MCP stdio server command {value!r} must be a single executable; "
                "put its arguments in `args`"
            )
        return value

    @field_validator("args", mode="before")
    @classmethod
    def _split_args(cls, value: Any) -> Any:
        # Accept a shell-like string as well as a list.
        return shlex.split(value) if isinstance(value, str) else value

    @field_validator("env", mode="before")
    @classmethod
    def _parse_env(cls, value: Any) -> Any:
        # Accept "A=1,B=2" as well as a table.
        if not isinstance(value, str):
            return value
        env: dict[str, str] = {}
        for pair in filter(None, (p.strip() for p in value.split(","))):
            key, sep, val = pair.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"Invalid MCP stdio env entry {pair!r}; expected KEY=VALUE")
            env[key.strip()] = val
        return env


class MCPConfig(BaseModel):
    model_config = _CONFIG

    sse_servers: list[MCPSSEServerConfig] = Field(default_factory=list)
    stdio_servers: list[MCPStdioServerConfig] = Field(default_factory=list)
    shttp_servers: list[MCPSHTTPServerConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_sse_urls(self) -> MCPConfig:
        urls = [server.url for server in self.sse_servers]
        duplicates = sorted({url for url in urls if urls.count(url) > 1})
        if duplicates:
            raise ValueError(f"Duplicate MCP SSE server URLs: {', '.join(duplicates)}")
        return self


# --- servers that OpenHands adds by itself ------------------------------------------------

TAVILY_SERVER_NAME = "tavily"
TAVILY_KEY_PREFIX = "tvly-"


def search_engine_stdio_server(search_api_key: str | None) -> MCPStdioServerConfig | None:
    """The Tavily search server when a Tavily key (`tvly-…`) is configured, else None."""
    if not search_api_key or not search_api_key.startswith(TAVILY_KEY_PREFIX):
        return None
    return MCPStdioServerConfig(
        name=TAVILY_SERVER_NAME,
        command="npx",
        args=["-y", "tavily-mcp@0.2.1"],
        env={"TAVILY_API_KEY": search_api_key},
    )


def default_shttp_server(mcp_host: str, api_key: str | None = None) -> MCPSHTTPServerConfig:
    """The app's own MCP endpoint (`http://<mcp_host>/mcp/mcp`)."""
    return MCPSHTTPServerConfig(url=f"http://{mcp_host}/mcp/mcp", api_key=api_key)
