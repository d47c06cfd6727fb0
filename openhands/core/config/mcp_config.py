"""MCP servers the agent may use (`[mcp]`): SSE, stdio and streamable-HTTP."""

from __future__ import annotations

import os
import re
import shlex
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from openhands.utils.import_utils import get_impl

if TYPE_CHECKING:
    from openhands.core.config.openhands_config import OpenHandsConfig

MCP_CONFIG_CLS_ENV = "OPENHANDS_MCP_CONFIG_CLS"
ALLOWED_URL_SCHEMES = frozenset({"http", "https", "ws", "wss"})
_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_CONFIG = ConfigDict(extra="forbid", validate_assignment=True)


def _check_url(url: str) -> str:
    url = url.strip()
    if not url:
        raise ValueError("URL cannot be empty")
    parsed = urlparse(url)
    if not parsed.scheme:
        raise ValueError("URL must include a scheme (http:// or https://)")
    if not parsed.netloc:
        raise ValueError("URL must include a valid domain/host")
    if parsed.scheme not in ALLOWED_URL_SCHEMES:
        raise ValueError("URL scheme must be http, https, ws, or wss")
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
    timeout: int | None = Field(
        default=60, description="Seconds per tool call; None: no limit of the server's own."
    )

    @model_validator(mode="before")
    @classmethod
    def _from_bare_url(cls, data: Any) -> Any:
        return {"url": data} if isinstance(data, str) else data

    @field_validator("url")
    @classmethod
    def _valid_url(cls, value: str) -> str:
        return _check_url(value)

    @field_validator("timeout")
    @classmethod
    def _valid_timeout(cls, value: int | None) -> int | None:
        if value is None:
            return None
        if value <= 0:
            raise ValueError("Timeout must be positive")
        if value > 3600:
            raise ValueError("Timeout cannot exceed 3600 seconds")
        return value


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
        if not isinstance(value, str):
            return value
        try:
            return shlex.split(value)
        except ValueError as exc:
            raise ValueError(
                f"Invalid argument format: {exc}. Use shell-like format, e.g. "
                '"arg1 arg2" or \'--config "value with spaces"\''
            ) from exc

    @field_validator("env", mode="before")
    @classmethod
    def _parse_env(cls, value: Any) -> Any:
        # Accept "A=1,B=2" as well as a table.
        if not isinstance(value, str):
            return value
        env: dict[str, str] = {}
        for pair in filter(None, (p.strip() for p in value.split(","))):
            key, sep, val = pair.partition("=")
            key = key.strip()
            if not sep or not key:
                raise ValueError(f"Invalid MCP stdio env entry {pair!r}; expected KEY=VALUE")
            if not _ENV_NAME.match(key):
                raise ValueError(
                    f"Invalid environment variable name {key!r}: use letters, digits and '_', "
                    "not starting with a digit"
                )
            env[key] = val
        return env


class MCPConfig(BaseModel):
    """The `[mcp]` section. Construction checks each server; `validate_servers` checks the
    set (the config file loader runs it; merged settings may repeat a server)."""

    model_config = _CONFIG

    sse_servers: list[MCPSSEServerConfig] = Field(default_factory=list)
    stdio_servers: list[MCPStdioServerConfig] = Field(default_factory=list)
    shttp_servers: list[MCPSHTTPServerConfig] = Field(default_factory=list)

    def validate_servers(self) -> None:
        """Raise ValueError for a repeated SSE URL or a URL without scheme or host."""
        urls = [server.url for server in self.sse_servers]
        if len(set(urls)) != len(urls):
            raise ValueError("Duplicate MCP server URLs are not allowed")
        for url in urls:
            parsed = urlparse(url)
            if not parsed.scheme or not parsed.netloc:
                raise ValueError(f"Invalid URL {url!r}: it needs a scheme and a host")

    @classmethod
    def from_toml_section(cls, data: dict[str, Any]) -> dict[str, MCPConfig]:
        """``{'mcp': MCPConfig}`` from the `[mcp]` table; ValueError when it is invalid."""
        try:
            config = cls.model_validate(data)
        except ValidationError as exc:
            raise ValueError(f"Invalid MCP configuration: {exc}") from exc
        config.validate_servers()
        return {"mcp": config}

    def merge(self, other: MCPConfig) -> MCPConfig:
        """A new config with `self`'s servers followed by `other`'s, per transport."""
        return MCPConfig(
            sse_servers=[*self.sse_servers, *other.sse_servers],
            stdio_servers=[*self.stdio_servers, *other.stdio_servers],
            shttp_servers=[*self.shttp_servers, *other.shttp_servers],
        )


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


# --- the extension point: which servers every conversation gets ---------------------------


class OpenHandsMCPConfig:
    """The MCP servers OpenHands adds to every conversation. Replace it by naming a subclass
    in ``OPENHANDS_MCP_CONFIG_CLS``; use it through ``OpenHandsMCPConfigImpl``."""

    @staticmethod
    def add_search_engine(app_config: OpenHandsConfig) -> MCPStdioServerConfig | None:
        """The Tavily search server when the config has a Tavily key, else None."""
        key = app_config.search_api_key
        return search_engine_stdio_server(key.get_secret_value() if key else None)

    @staticmethod
    def create_default_mcp_server_config(
        host: str, config: OpenHandsConfig, user_id: str | None = None
    ) -> tuple[MCPSHTTPServerConfig | None, list[MCPStdioServerConfig]]:
        """The app's own streamable-HTTP server on `host`, and the stdio servers to add."""
        search = OpenHandsMCPConfig.add_search_engine(config)
        return default_shttp_server(host), [search] if search else []


OpenHandsMCPConfigImpl: type[OpenHandsMCPConfig] = get_impl(
    OpenHandsMCPConfig, os.environ.get(MCP_CONFIG_CLS_ENV) or None
)
