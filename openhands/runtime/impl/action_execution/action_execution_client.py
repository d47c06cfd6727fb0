"""Host side of the action execution server's HTTP API (runtime.md §3.4, §10.7, §11).

Runtime methods are called from the EventStream's runtime subscriber thread, one at a time,
so this client is synchronous (httpx.Client); a lock keeps one action in flight per runtime.

An action can wait minutes for its answer, so the request runs on a worker thread while the
caller checks every second that the sandbox still runs (``_sandbox_problem``): when the
container is killed or the server process dies mid-command, the caller gets
AgentRuntimeDisconnectedError within about a second instead of waiting for the HTTP timeout.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeoutError
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypedDict, Unpack

import httpx
from tenacity import (
    retry,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from openhands.core.config import (
    MCPConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
    OpenHandsConfig,
)
from openhands.core.exceptions import (
    AgentRuntimeDisconnectedError,
    AgentRuntimeError,
    AgentRuntimeTimeoutError,
)
from openhands.events.action import Action, FileEditAction
from openhands.events.event import FileEditSource
from openhands.events.observation import ErrorObservation, Observation
from openhands.events.serialization import event_from_dict, event_to_dict
from openhands.events.stream import EventStream
from openhands.runtime.base import Plugin, Runtime, StatusCallback
from openhands.runtime.workspace_access import WorkspaceRefused

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry

# While an action runs, how often the caller checks that the sandbox is still there.
SANDBOX_CHECK_SECONDS = 1.0


class ActionExecutionHTTPError(AgentRuntimeError):
    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(f"Action execution server answered {status_code}: {detail}")
        self.status_code = status_code
        self.detail = detail


@contextmanager
def _refusals_of_paths() -> Iterator[None]:
    """On a file request, the action server's 4xx means it refused the path or name it was
    given (one leading out of its working dir, say): raised as the neutral refusal type."""
    try:
        yield
    except ActionExecutionHTTPError as error:
        if 400 <= error.status_code < 500:
            raise WorkspaceRefused(error.detail) from error
        raise


# A request body: the serialized action, a path, the MCP server list.
JsonBody = Mapping[str, object] | Sequence[Mapping[str, object]]


class RequestOptions(TypedDict, total=False):
    """What a call to the action execution server may carry besides its method and path."""

    json: JsonBody
    files: Mapping[str, tuple[str, IO[bytes]]]
    params: Mapping[str, str]
    timeout: float


def _is_protocol_error(exc: BaseException) -> bool:
    return isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError))


def _is_rate_limited(exc: BaseException) -> bool:
    return isinstance(exc, ActionExecutionHTTPError) and exc.status_code == 429


class ActionExecutionClient(Runtime):
    """A Runtime whose actions run in an action execution server reached over HTTP."""

    session_api_key: str | None = None

    def __init__(
        self,
        config: OpenHandsConfig,
        event_stream: EventStream,
        llm_registry: LLMRegistry | None = None,
        sid: str = "default",
        plugins: Sequence[Plugin] | None = None,
        env_vars: dict[str, str] | None = None,
        status_callback: StatusCallback | None = None,
        attach_to_existing: bool = False,
        headless_mode: bool = False,
        user_id: str | None = None,
        git_provider_tokens: dict[str, str] | None = None,
    ) -> None:
        super().__init__(
            config,
            event_stream,
            llm_registry=llm_registry,
            sid=sid,
            plugins=plugins,
            env_vars=env_vars,
            status_callback=status_callback,
            attach_to_existing=attach_to_existing,
            headless_mode=headless_mode,
            user_id=user_id,
            git_provider_tokens=git_provider_tokens,
        )
        # TCP_NODELAY: a request goes out as two writes (headers, then body); with Nagle's
        # algorithm the body waits for the server's delayed ACK, ~40 ms on every action.
        self._http = httpx.Client(
            timeout=httpx.Timeout(30.0),
            transport=httpx.HTTPTransport(
                socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
            ),
        )
        self._action_lock = threading.Lock()
        # Runs execute_action requests so the caller can watch the sandbox meanwhile. A
        # request abandoned because its sandbox died keeps a worker until its socket fails.
        self._requests = ThreadPoolExecutor(max_workers=4, thread_name_prefix=f"runtime-{self.sid}")
        self._vscode_token: str | None = None
        # Stdio MCP servers handed to the sandbox's MCP proxy (runtime.md §3.6).
        self._mcp_stdio_posted: dict[str, MCPStdioServerConfig] = {}

    # --- plumbing ----------------------------------------------------------------------

    @property
    def action_execution_server_url(self) -> str:
        raise NotImplementedError

    def _sandbox_problem(self) -> str | None:
        """Why the sandbox can no longer answer (its container or process is gone), or None.

        Called while a request waits and after a transport error; runtimes that can look
        at their sandbox override it.
        """
        return None

    def _headers(self) -> dict[str, str]:
        return {"X-Session-API-Key": self.session_api_key} if self.session_api_key else {}

    @retry(
        retry=retry_if_exception(_is_protocol_error),
        stop=stop_after_attempt(5),
        wait=wait_exponential(multiplier=1, min=4, max=15),
        reraise=True,
    )
    @retry(
        retry=retry_if_exception(_is_rate_limited),
        stop=stop_after_attempt(3),
        wait=wait_exponential(multiplier=1, min=4, max=60),
        reraise=True,
    )
    def _send(self, method: str, path: str, **kwargs: Unpack[RequestOptions]) -> httpx.Response:
        try:
            response = self._http.request(
                method,
                f"{self.action_execution_server_url}{path}",
                headers=self._headers(),
                **kwargs,
            )
        except httpx.TransportError as e:
            # Retrying is pointless when the sandbox itself is gone; say so at once.
            problem = self._sandbox_problem()
            if problem:
                raise AgentRuntimeDisconnectedError(problem) from e
            raise
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail", response.text)
            except ValueError:
                detail = response.text
            raise ActionExecutionHTTPError(response.status_code, str(detail))
        return response

    def check_if_alive(self) -> None:
        response = self._http.get(f"{self.action_execution_server_url}/alive", timeout=5)
        response.raise_for_status()
        if response.json().get("status") != "ok":
            raise AgentRuntimeError("action execution server is not initialised yet")

    def close(self) -> None:
        if self.closed:
            return
        super().close()
        self._requests.shutdown(wait=False, cancel_futures=True)
        self._http.close()

    # --- actions -----------------------------------------------------------------------

    def send_action_for_execution(self, action: Action) -> Observation:
        """POST ``action`` to ``/execute_action`` and return the server's observation.

        Every sandbox action travels this way, so Runtime's per-type methods (``run``,
        ``read``, …) are this one function below; a subclass changes the transport in ``_send``.
        """
        if action.timeout is None:
            action.set_hard_timeout(self.config.sandbox.timeout, blocking=False)
        assert action.timeout is not None
        with self._action_lock:
            try:
                response = self._wait_watching_sandbox(
                    self._requests.submit(
                        self._send,
                        "POST",
                        "/execute_action",
                        json={"action": event_to_dict(action)},
                        timeout=action.timeout + 5,
                    )
                )
            except httpx.TimeoutException as e:
                raise AgentRuntimeTimeoutError(
                    "Runtime failed to return execute_action before the requested timeout of "
                    f"{action.timeout}s"
                ) from e
        observation = event_from_dict(response.json())
        assert isinstance(observation, Observation)
        return observation

    def _wait_watching_sandbox(self, request: Future[httpx.Response]) -> httpx.Response:
        while True:
            try:
                return request.result(timeout=SANDBOX_CHECK_SECONDS)
            except FutureTimeoutError:
                problem = self._sandbox_problem()
                if problem:
                    request.cancel()
                    raise AgentRuntimeDisconnectedError(problem) from None

    run = run_ipython = read = write = browse = browse_interactive = send_action_for_execution

    def edit(self, action: FileEditAction) -> Observation:
        # The only action answered here: the sandbox has no LLM to edit with.
        if action.impl_source == FileEditSource.LLM_BASED_EDIT:
            return ErrorObservation(
                "The LLM-based editor is not enabled for this runtime; use str_replace_editor."
            )
        return self.send_action_for_execution(action)

    # --- files -------------------------------------------------------------------------

    def copy_to(self, host_src: str, sandbox_dest: str, recursive: bool = False) -> None:
        if not os.path.exists(host_src):
            raise FileNotFoundError(f"Source file {host_src} does not exist")
        temp_zip: str | None = None
        try:
            if recursive:
                fd, temp_zip = tempfile.mkstemp(suffix=".zip")
                os.close(fd)
                parent = os.path.dirname(os.path.abspath(host_src))
                with zipfile.ZipFile(temp_zip, "w", zipfile.ZIP_DEFLATED) as archive:
                    for root, _, files in os.walk(host_src):
                        for name in files:
                            full = os.path.join(root, name)
                            archive.write(full, os.path.relpath(full, parent))
                upload_path, upload_name = temp_zip, f"{os.path.basename(host_src)}.zip"
            else:
                upload_path, upload_name = host_src, os.path.basename(host_src)
            with open(upload_path, "rb") as f, _refusals_of_paths():
                self._send(
                    "POST",
                    "/upload_file",
                    files={"file": (upload_name, f)},
                    params={"destination": sandbox_dest, "recursive": str(recursive).lower()},
                    timeout=300,
                )
        finally:
            if temp_zip:
                os.unlink(temp_zip)

    def copy_from(self, path: str) -> Path:
        fd, local = tempfile.mkstemp(suffix=".zip")
        os.close(fd)
        with self._http.stream(
            "GET",
            f"{self.action_execution_server_url}/download_files",
            params={"path": path},
            headers=self._headers(),
            timeout=30,
        ) as response:
            if response.status_code >= 400:
                response.read()
                os.unlink(local)
                raise ActionExecutionHTTPError(response.status_code, response.text)
            with open(local, "wb") as out:
                for chunk in response.iter_bytes():
                    out.write(chunk)
        return Path(local)

    def list_files(self, path: str | None = None) -> list[str]:
        body = {"path": path} if path is not None else {}
        try:
            with _refusals_of_paths():
                response = self._send("POST", "/list_files", json=body, timeout=10)
        except httpx.TimeoutException as e:
            raise TimeoutError("List files operation timed out") from e
        return list(response.json())

    # --- MCP (runtime.md §10.8) ----------------------------------------------------------

    def get_mcp_config(
        self, extra_stdio_servers: list[MCPStdioServerConfig] | None = None
    ) -> MCPConfig:
        """The MCP servers to use, stdio ones reached through the sandbox's SSE proxy."""
        config = super().get_mcp_config(extra_stdio_servers)
        wanted = {server.name: server for server in config.stdio_servers}
        if not set(wanted) <= set(self._mcp_stdio_posted):
            self._post_stdio_servers({**self._mcp_stdio_posted, **wanted})
        if self._mcp_stdio_posted:
            proxy = MCPSSEServerConfig(
                url=f"{self.action_execution_server_url}/mcp/sse", api_key=self.session_api_key
            )
            config.sse_servers = [*config.sse_servers, proxy]
        return config

    def _post_stdio_servers(self, servers: dict[str, MCPStdioServerConfig]) -> None:
        names = sorted(servers)
        payload = [servers[name].model_dump(mode="json") for name in names]
        try:
            response = self._send("POST", "/update_mcp_server", json=payload, timeout=60)
        except Exception as error:
            self.log(
                "warning",
                f"Stdio MCP servers {names} skipped: could not hand them to the sandbox: {error}",
            )
            return
        # The sandbox took them: from now on its proxy is one of the SSE servers. Servers
        # it could not start are in the error log; a proxy that serves nothing is skipped
        # like any unreachable server.
        self._mcp_stdio_posted = dict(servers)
        problem = str(response.json().get("router_error_log") or "")
        if problem:
            self.log("warning", f"MCP proxy of the sandbox: {problem}")

    # --- vscode ------------------------------------------------------------------------

    def get_vscode_token(self) -> str | None:
        if "vscode" not in [getattr(p, "name", p) for p in self.plugins]:
            return None
        if self._vscode_token is None and self.runtime_initialized:
            response = self._send("GET", "/vscode/connection_token", timeout=10)
            self._vscode_token = response.json().get("token")
        return self._vscode_token
