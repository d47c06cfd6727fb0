"""``openhands serve``: run the web GUI server in the foreground (cli.md §14.2).

The reference pulled and ran a published container image. Ours runs this project's own server,
the same app ``make run`` starts (``uvicorn openhands.server.listen:app`` on 127.0.0.1), as a
child process of this one, so its heavy imports stay out of the CLI process and its environment
is explicit. The flags keep their meaning, expressed as the server's sandbox settings:

- ``--mount-cwd``: ``SANDBOX_VOLUMES=<cwd>:/workspace:rw`` and ``SANDBOX_USER_ID=<uid>``;
- ``--gpu``: ``SANDBOX_ENABLE_GPU=true``.

The port is 3000 unless ``launch_gui_server(port=...)`` or the ``OPENHANDS_GUI_PORT``
environment variable says otherwise. Docker is still required: the server's sandboxes run in it.
"""

from __future__ import annotations

import contextlib
import html
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from prompt_toolkit import HTML, print_formatted_text

SERVER_APP = "openhands.server.listen:app"
SERVER_HOST = "127.0.0.1"
DEFAULT_PORT = 3000
PORT_ENV_VAR = "OPENHANDS_GUI_PORT"
DOCKER_INFO_TIMEOUT_SECONDS = 30.0
# How long the server gets to shut down cleanly after Ctrl-C before it is killed.
STOP_TIMEOUT_SECONDS = 30.0


def _say(markup: str = "") -> None:
    # ``file=sys.stdout`` looks stdout up at each call; prompt_toolkit's default output is
    # bound to whatever stdout was at its first use.
    print_formatted_text(HTML(markup), file=sys.stdout)


def _format_docker_command_for_logging(cmd: list[str]) -> str:
    """The grey ``Running Docker command: ...`` line for ``cmd`` (markup in it escaped)."""
    return f"<grey>Running Docker command: {html.escape(' '.join(cmd))}</grey>"


def check_docker_requirements() -> bool:
    """Whether ``docker`` is on PATH and its daemon answers; explains what is missing if not."""
    if shutil.which("docker") is None:
        _say("<ansired>❌ Docker is not installed or not in PATH.</ansired>")
        _say("Please install Docker first: https://docs.docker.com/get-docker/")
        return False
    info_command = ["docker", "info"]
    _say(_format_docker_command_for_logging(info_command))
    try:
        result = subprocess.run(
            info_command,
            capture_output=True,
            text=True,
            timeout=DOCKER_INFO_TIMEOUT_SECONDS,
        )
        running = result.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        running = False
    if not running:
        _say("<ansired>❌ Docker daemon is not running.</ansired>")
        _say("Please start Docker and try again.")
        return False
    return True


def ensure_config_dir_exists() -> Path:
    """Create ``~/.openhands`` (the server's settings and conversations) if needed."""
    config_dir = Path.home() / ".openhands"
    config_dir.mkdir(parents=True, exist_ok=True)
    return config_dir


def resolve_port(port: int | None = None) -> int:
    """``port`` if given, else ``$OPENHANDS_GUI_PORT``, else 3000."""
    if port is not None:
        return port
    from_env = os.environ.get(PORT_ENV_VAR, "").strip()
    if not from_env:
        return DEFAULT_PORT
    try:
        return int(from_env)
    except ValueError:
        raise SystemExit(f"{PORT_ENV_VAR} must be a port number, not {from_env!r}") from None


def server_command(port: int) -> list[str]:
    """The server's command line (this interpreter, so the same installation serves)."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        SERVER_APP,
        "--host",
        SERVER_HOST,
        "--port",
        str(port),
    ]


def sandbox_environment(mount_cwd: bool, gpu: bool) -> dict[str, str]:
    """The variables that carry ``--mount-cwd`` and ``--gpu`` to the server's config."""
    env: dict[str, str] = {}
    if mount_cwd:
        env["SANDBOX_VOLUMES"] = f"{Path.cwd()}:/workspace:rw"
        # Files the agent creates in the mounted folder should belong to the user.
        if hasattr(os, "getuid"):
            env["SANDBOX_USER_ID"] = str(os.getuid())
    if gpu:
        env["SANDBOX_ENABLE_GPU"] = "true"
    return env


def server_environment(mount_cwd: bool, gpu: bool, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(sandbox_environment(mount_cwd, gpu))
    # The server names its own address in the agents' MCP config from this variable.
    env["port"] = str(port)
    return env


def _stop_server(process: subprocess.Popen[bytes]) -> None:
    """Shut the server down after Ctrl-C.

    In a terminal the server got the same SIGINT and is already stopping. SIGTERM then only
    confirms the request, whereas a second SIGINT would make uvicorn drop open connections.
    """
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
    try:
        process.wait(STOP_TIMEOUT_SECONDS)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        # Too slow, or the user pressed Ctrl-C again: do not make them wait.
        process.kill()
        process.wait()


def launch_gui_server(mount_cwd: bool = False, gpu: bool = False, port: int | None = None) -> None:
    """Run the GUI server until Ctrl-C (exit 0) or until it stops on its own (its exit code)."""
    _say("<ansiblue>🚀 Launching OpenHands GUI server...</ansiblue>")
    _say("<grey>Checking Docker requirements...</grey>")
    if not check_docker_requirements():
        sys.exit(1)
    ensure_config_dir_exists()

    port = resolve_port(port)
    command = server_command(port)
    extra_env = sandbox_environment(mount_cwd, gpu)
    if mount_cwd:
        _say(
            f"<grey>Mounting {html.escape(str(Path.cwd()))} as /workspace in the sandboxes.</grey>"
        )
    if gpu:
        _say("<grey>GPU support enabled for the sandboxes.</grey>")
    settings = " ".join(f"{name}={shlex.quote(value)}" for name, value in extra_env.items())
    _say(
        f"<grey>Running: {html.escape(' '.join(filter(None, [settings, shlex.join(command)])))}</grey>"
    )
    _say()
    _say(f"<ansigreen>The server will be available at: http://localhost:{port}</ansigreen>")
    _say("<grey>Press Ctrl+C to stop the server.</grey>")
    _say()

    process = subprocess.Popen(command, env=server_environment(mount_cwd, gpu, port))
    try:
        returncode = process.wait()
    except KeyboardInterrupt:
        _stop_server(process)
        _say()
        _say("<ansigreen>✓ OpenHands GUI server stopped successfully.</ansigreen>")
        sys.exit(0)
    except BaseException:
        # Whatever else ends the wait (SystemExit, a test's timeout), the server must not be
        # left running without us.
        _stop_server(process)
        raise

    if returncode != 0:
        _say(f"<ansired>❌ The OpenHands GUI server exited with code {returncode}.</ansired>")
        # A negative code means a signal ended it; the exit status must still say failure.
        sys.exit(returncode if returncode > 0 else 1)
    _say("<ansigreen>✓ OpenHands GUI server stopped successfully.</ansigreen>")
