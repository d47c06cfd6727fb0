"""An IPython kernel process driven over the Jupyter messaging protocol (runtime.md §6).

We talk to ``ipykernel`` directly with ``jupyter_client`` instead of going through the
Jupyter kernel gateway's HTTP + websocket layer: the messages (execute_request, stream,
display_data, error, interrupt_request, …) are the same, but there is no extra server,
no port in the sandbox to allocate and no websocket reconnect logic to get right.

The kernel runs as the sandbox user (through ``su``) when the server runs as root; the
connection file (ports and signing key) is handed to that user and to nobody else.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import queue
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from openhands.core.logger import openhands_logger as logger

if TYPE_CHECKING:  # jupyter_client takes ~0.5 s to import: only when a kernel starts
    from jupyter_client.blocking.client import BlockingKernelClient

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_POLL_SECONDS = 0.5
_INTERRUPT_GRACE_SECONDS = 5.0
_READY_POLL_SECONDS = 0.25


class KernelError(RuntimeError):
    """The kernel could not be started or died."""


def write_connection_file(path: str) -> None:
    """A kernel connection file (the format of jupyter_client's) on five free local ports.

    Written here rather than with jupyter_client, whose import takes ~0.5 s: the kernel is
    launched before the server has imported anything heavy.
    """
    sockets = [socket.socket() for _ in range(5)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        ports = [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
    names = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
    info: dict[str, Any] = dict(zip(names, ports, strict=True))
    info.update(
        ip="127.0.0.1",
        key=secrets.token_hex(32),
        transport="tcp",
        signature_scheme="hmac-sha256",
        kernel_name="python3",
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(info, handle, indent=2)


@dataclass
class CellOutput:
    text: str = ""
    image_urls: list[str] = field(default_factory=list)
    timed_out: bool = False


@dataclass
class KernelLaunch:
    """How to start the kernel: interpreter, user and the directory holding our package."""

    python: str
    code_dir: str
    username: str | None = None  # run through ``su - <user>`` when set
    env: dict[str, str] = field(default_factory=dict)


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


class IPythonKernel:
    def __init__(self, launch: KernelLaunch) -> None:
        self.launch = launch
        self._dir: str | None = None
        self._connection_file = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._client: BlockingKernelClient | None = None
        self._stopped = False

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, ready_timeout: float = 60.0) -> None:
        self.launch_process()
        self.connect(ready_timeout)

    def launch_process(self) -> None:
        """Start the kernel process; returns at once (``connect`` waits for it to answer)."""
        self._dir = tempfile.mkdtemp(prefix="oh-kernel-")
        self._connection_file = os.path.join(self._dir, "kernel.json")
        try:
            write_connection_file(self._connection_file)
            self._hand_to_user(self._connection_file)
            with open(os.path.join(self._dir, "kernel.log"), "wb") as log:  # the child's now
                self._process = subprocess.Popen(
                    self._command(self._connection_file),
                    cwd=self.launch.code_dir,
                    env=self._env(),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
        except BaseException:
            self.shutdown()
            raise

    def connect(self, ready_timeout: float = 60.0) -> None:
        """Connect to the launched kernel and wait until it answers (or KernelError)."""
        from jupyter_client.blocking.client import BlockingKernelClient

        try:
            if self._stopped:  # shut down (e.g. start-up timed out) while we were launching
                raise KernelError("IPython kernel was shut down while starting")
            self._check_process()  # an (early) kernel that died already needs no channels
            client = BlockingKernelClient(connection_file=self._connection_file)
            client.load_connection_file()
            client.start_channels()
            self._client = client
            self._wait_until_ready(ready_timeout)
        except BaseException:
            self.shutdown()
            raise

    def _command(self, connection_file: str) -> list[str]:
        kernel = [self.launch.python, "-m", "ipykernel_launcher", "-f", connection_file]
        if self.launch.username is None:
            return kernel
        # A login shell of the user (clean environment, HOME set), started in the code dir
        # so `import openhands` finds the server's own package.
        pythonpath = shlex.quote(self.launch.code_dir)
        script = (
            f"cd {shlex.quote(self.launch.code_dir)} && "
            f"export PYTHONPATH={pythonpath}${{PYTHONPATH:+:$PYTHONPATH}} && "
            f"exec {shlex.join(kernel)}"
        )
        return ["su", "-", self.launch.username, "-s", "/bin/bash", "-c", script]

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.launch.env)
        # ipykernel exits by itself when this process dies (its parent poller), instead of
        # living on as an orphan when the server is killed. (`su -` drops it: the container
        # ends with the server there anyway.)
        env["JPY_PARENT_PID"] = str(os.getpid())
        current = env.get("PYTHONPATH")
        env["PYTHONPATH"] = (
            f"{self.launch.code_dir}{os.pathsep}{current}" if current else self.launch.code_dir
        )
        return env

    def _hand_to_user(self, connection_file: str) -> None:
        if self.launch.username is None or os.getuid() != 0:
            return
        entry = pwd.getpwnam(self.launch.username)
        assert self._dir is not None
        for path in (self._dir, connection_file):
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def _wait_until_ready(self, timeout: float) -> None:
        """Ask for kernel_info until the kernel answers on shell *and* publishes on iopub
        (a subscriber that joined late would miss the first outputs)."""
        client = self._require_client()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_process()
            client.kernel_info()
            try:
                reply = client.get_shell_msg(timeout=_READY_POLL_SECONDS)
            except queue.Empty:
                continue
            if reply["msg_type"] != "kernel_info_reply":
                continue
            try:
                client.get_iopub_msg(timeout=_READY_POLL_SECONDS)
            except queue.Empty:
                continue
            self._drain_iopub()
            return
        raise KernelError(f"IPython kernel not ready after {timeout}s: {self._log_tail()}")

    def _drain_iopub(self) -> None:
        client = self._require_client()
        while True:
            try:
                client.get_iopub_msg(timeout=0.05)
            except queue.Empty:
                return

    def _check_process(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            raise KernelError(
                f"IPython kernel exited with code {self._process.returncode}: {self._log_tail()}"
            )

    def _log_tail(self) -> str:
        if self._dir is None:
            return ""
        try:
            with open(os.path.join(self._dir, "kernel.log"), "rb") as log:
                return log.read()[-2000:].decode(errors="replace")
        except OSError:
            return ""

    def shutdown(self) -> None:
        """Stop the kernel (politely, then its whole process group) and remove its files."""
        self._stopped = True
        client, self._client = self._client, None
        if client is not None:
            try:
                client.shutdown()
            except Exception as exc:  # the kernel may be gone already
                logger.debug("Kernel shutdown request failed: %s", exc)
            client.stop_channels()
        process, self._process = self._process, None
        if process is not None:
            try:
                process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                # `su` and the kernel share the group started with start_new_session.
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=3)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    # -- execution ------------------------------------------------------------------------

    def execute(self, code: str, timeout: float) -> CellOutput:
        """Run one cell; on timeout interrupt it and report ``timed_out``."""
        client = self._require_client()
        self._drain_shell_replies()
        msg_id = client.execute(code, store_history=False, allow_stdin=False)
        output = CellOutput()
        parts: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.interrupt()
                self._wait_idle(msg_id, _INTERRUPT_GRACE_SECONDS)
                output.timed_out = True
                break
            message = self._next_message(msg_id, min(remaining, _POLL_SECONDS))
            if message is None:
                continue
            if _collect(message, parts, output.image_urls):
                break
        output.text = strip_ansi("".join(parts))
        return output

    def interrupt(self) -> None:
        """Ask the kernel (over its control channel) to raise KeyboardInterrupt."""
        client = self._require_client()
        client.control_channel.send(client.session.msg("interrupt_request", {}))

    def _require_client(self) -> BlockingKernelClient:
        if self._client is None:
            raise KernelError("IPython kernel is not running")
        return self._client

    def _next_message(self, msg_id: str, wait: float) -> dict[str, Any] | None:
        client = self._require_client()
        try:
            message: dict[str, Any] = client.get_iopub_msg(timeout=wait)
        except queue.Empty:
            self._check_process()
            return None
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            return None
        return message

    def _wait_idle(self, msg_id: str, grace: float) -> None:
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            message = self._next_message(msg_id, _POLL_SECONDS)
            if message is not None and _is_idle(message):
                return

    def _drain_shell_replies(self) -> None:
        client = self._require_client()
        while True:
            try:
                client.get_shell_msg(timeout=0)
            except queue.Empty:
                return


def _is_idle(message: dict[str, Any]) -> bool:
    return message["msg_type"] == "status" and message["content"].get("execution_state") == "idle"


def _collect(message: dict[str, Any], parts: list[str], images: list[str]) -> bool:
    """Add what one iopub message carries; True once the cell has finished."""
    kind, content = message["msg_type"], message["content"]
    if kind == "stream":
        parts.append(content.get("text", ""))
    elif kind in ("execute_result", "display_data"):
        data = content.get("data", {})
        if "text/plain" in data:
            # Rich outputs end their line, so text printed afterwards is not glued on.
            parts.append(data["text/plain"] + "\n")
        if "image/png" in data:
            images.append("data:image/png;base64," + "".join(data["image/png"].split()))
    elif kind == "error":
        parts.append("\n".join(content.get("traceback", [])))
    return _is_idle(message)
