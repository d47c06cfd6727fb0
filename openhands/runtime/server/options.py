"""Command line and environment of the action execution server (runtime.md §3.1–3.2)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field

from openhands.runtime.server.session_key import KEY_FILE_ENV, initial_session_key

KNOWN_PLUGINS = ("jupyter", "agent_skills", "vscode")


def _env_true(name: str, default: str) -> bool:
    return os.environ.get(name, default).strip().lower() in ("true", "1", "yes")


@dataclass
class ServerOptions:
    port: int
    working_dir: str = "/workspace"
    plugins: list[str] = field(default_factory=list)
    username: str = "openhands"
    user_id: int = 1000
    enable_browser: bool = True
    browsergym_eval_env: str | None = None
    session_api_key: str | None = None
    # Where a rotated session key is kept across restarts (warm-pool sandboxes only).
    session_api_key_file: str | None = None
    su_to_user: bool = True
    sandbox_group: str = "root"
    init_plugin_timeout: float = 120.0
    # LocalRuntime: a tmux server of our own, so sessions get this server's environment
    # (not that of whichever process started the user's default tmux server).
    tmux_socket: str | None = None

    @property
    def bash_username(self) -> str | None:
        return self.username if self.su_to_user else None


def tmux_socket_name(port: int) -> str:
    """The tmux socket of a LocalRuntime server (``tmux -L <name>``), one per server port.

    ``OPENHANDS_TMUX_SOCKET_PREFIX`` replaces the leading ``openhands`` (the test suite
    names its own servers, so it can find and end them all when it finishes)."""
    prefix = os.environ.get("OPENHANDS_TMUX_SOCKET_PREFIX") or "openhands"
    return f"{prefix}-{port}"


def parse_options(argv: list[str] | None = None) -> ServerOptions:
    parser = argparse.ArgumentParser(prog="action_execution_server")
    parser.add_argument("port", type=int)
    parser.add_argument("--working-dir", default="/workspace")
    parser.add_argument("--plugins", nargs="*", default=[], choices=KNOWN_PLUGINS)
    parser.add_argument("--username", default="openhands")
    parser.add_argument("--user-id", type=int, default=1000)
    parser.add_argument("--enable-browser", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--browsergym-eval-env", default=None)
    args = parser.parse_args(argv)
    if args.browsergym_eval_env and not args.enable_browser:
        parser.error("--browsergym-eval-env needs the browser (drop --no-enable-browser)")
    return ServerOptions(
        port=args.port,
        working_dir=os.path.abspath(args.working_dir),
        plugins=list(args.plugins),
        username=args.username,
        user_id=args.user_id,
        enable_browser=args.enable_browser,
        browsergym_eval_env=args.browsergym_eval_env,
        session_api_key=initial_session_key(),
        session_api_key_file=os.environ.get(KEY_FILE_ENV) or None,
        su_to_user=_env_true("SU_TO_USER", "true"),
        sandbox_group=os.environ.get("SANDBOX_GROUP_ID", "root"),
        init_plugin_timeout=float(os.environ.get("INIT_PLUGIN_TIMEOUT", "120")),
        tmux_socket=tmux_socket_name(args.port) if _env_true("LOCAL_RUNTIME_MODE", "") else None,
    )
