"""The command line that starts the action execution server (runtime.md §3.1).

Every runtime that starts a server (Docker, local process, remote) builds it here, so the
argument list after the module name is the same everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from openhands.core.config import OpenHandsConfig

# Our sandbox image has no micromamba/poetry environment to enter: its interpreter is
# named directly (SANDBOX_PYTHON), so nothing goes before it by default.
DEFAULT_PYTHON_PREFIX: list[str] = []
DEFAULT_MAIN_MODULE = "openhands.runtime.action_execution_server"
# The interpreter of the server's virtualenv inside our sandbox image.
SANDBOX_PYTHON = "/openhands/venv/bin/python"


def plugin_names(plugins: Sequence[Any]) -> list[str]:
    """Names of plugin requirements (or plain names), first occurrence first."""
    names: dict[str, None] = {}
    for plugin in plugins:
        names[plugin if isinstance(plugin, str) else str(plugin.name)] = None
    return list(names)


def sandbox_user(
    app_config: OpenHandsConfig,
    override_user_id: int | None = None,
    override_username: str | None = None,
) -> tuple[str, int]:
    """Who the server runs the agent's commands as: an explicit override, else the host
    env ``RUNTIME_USERNAME``/``RUNTIME_UID``, else openhands/1000 or root/0."""
    if os.environ.get("RUNTIME_USERNAME"):
        username = os.environ["RUNTIME_USERNAME"]
        user_id = int(os.environ.get("RUNTIME_UID") or 1000)
    elif app_config.run_as_openhands:
        username, user_id = "openhands", 1000
    else:
        username, user_id = "root", 0
    if override_username is not None:
        username = override_username
    if override_user_id is not None:
        user_id = override_user_id
    return username, user_id


def get_action_execution_server_startup_command(
    server_port: int,
    plugins: Sequence[Any],
    app_config: OpenHandsConfig,
    python_prefix: list[str] = DEFAULT_PYTHON_PREFIX,
    override_user_id: int | None = None,
    override_username: str | None = None,
    main_module: str = DEFAULT_MAIN_MODULE,
    python_executable: str = "python",
) -> list[str]:
    """``[prefix…] python -u -m MODULE PORT --working-dir W [--plugins P…] --username U
    --user-id N [--browsergym-eval-env …] [--no-enable-browser]``.

    W is ``app_config.workspace_mount_path_in_sandbox``; ``plugins`` are plugin
    requirements or names (duplicates are dropped).
    """
    username, user_id = sandbox_user(app_config, override_user_id, override_username)
    command = [*python_prefix, python_executable, "-u", "-m", main_module, str(server_port)]
    command += ["--working-dir", app_config.workspace_mount_path_in_sandbox]
    names = plugin_names(plugins)
    if names:
        command += ["--plugins", *names]
    command += ["--username", username, "--user-id", str(user_id)]
    if app_config.sandbox.browsergym_eval_env:
        command += ["--browsergym-eval-env", *app_config.sandbox.browsergym_eval_env.split()]
    if not app_config.enable_browser:
        command.append("--no-enable-browser")
    return command
