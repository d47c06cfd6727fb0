"""Start-up check: is the API reachable beyond this machine without authentication?

The OSS server has no login: whoever reaches its port can read settings, start
conversations and run commands in sandboxes. Bound to a loopback address that is only
this machine; bound to anything else (``0.0.0.0``, a LAN address) it is everyone on the
network, unless ``SESSION_API_KEY`` or the JWT mode is configured. ``listen.py`` logs
``exposure_warning`` at start.

Sandboxes are the other side: ``SandboxOriginMiddleware`` keeps Docker sandboxes, known by
their bridge addresses, to the MCP endpoint. A sandbox on the host's network
(``[sandbox] use_host_network``) connects from loopback like the user does, and no address
check can tell them apart: only a credential can. So the app refuses to start such
sandboxes unless ``SESSION_API_KEY`` or the JWT mode is on (``host_network_refusal``); the
sandbox gets neither the key nor a token.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping, Sequence

from openhands.core.config.openhands_config import OpenHandsConfig
from openhands.server.server_config import ServerConfig

UVICORN_DEFAULT_HOST = "127.0.0.1"


def bind_host(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """The address uvicorn was asked to bind: ``--host`` on its command line, else
    ``UVICORN_HOST``, else uvicorn's default (loopback)."""
    env = os.environ if env is None else env
    for index, arg in enumerate(argv):
        if arg == "--host" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--host="):
            return arg.split("=", 1)[1]
    return env.get("UVICORN_HOST") or UVICORN_DEFAULT_HOST


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: may resolve to anything


def exposure_warning(host: str, server_config: ServerConfig) -> str | None:
    """The warning to log when ``host`` exposes an unauthenticated API, else None."""
    if is_loopback(host):
        return None
    if server_config.session_api_key or server_config.user_auth == "jwt":
        return None
    return (
        f"The server listens on {host}, beyond this machine, WITHOUT AUTHENTICATION: anyone "
        "who can reach this port can read your settings and run commands in your sandboxes. "
        "Set SESSION_API_KEY (or OPENHANDS_USER_AUTH=jwt) or bind to 127.0.0.1."
    )


DOCKER_RUNTIMES = ("docker", "eventstream")


def uses_host_network(config: OpenHandsConfig) -> bool:
    """Whether the Docker sandboxes of ``config`` share the host's network namespace."""
    if config.runtime.lower() not in DOCKER_RUNTIMES:
        return False
    sandbox = config.sandbox
    kwargs = sandbox.docker_runtime_kwargs or {}
    return sandbox.use_host_network or kwargs.get("network_mode") == "host"


def host_network_refusal(config: OpenHandsConfig, server_config: ServerConfig) -> str | None:
    """Why the server must not start with host-network sandboxes, or None when it may."""
    if not uses_host_network(config):
        return None
    if server_config.session_api_key or server_config.user_auth == "jwt":
        return None
    return (
        "Docker sandboxes on the host network (use_host_network, or network_mode = host in "
        "docker_runtime_kwargs) reach this server from 127.0.0.1, like you do, so without "
        "authentication the agent could read your settings and secrets through the API. Set "
        "SESSION_API_KEY (or OPENHANDS_USER_AUTH=jwt), or turn use_host_network off."
    )
