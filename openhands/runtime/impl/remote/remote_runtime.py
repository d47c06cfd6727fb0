"""RemoteRuntime: a sandbox started, paused, resumed and stopped by a Runtime API service
(remote-runtime.md §1-§10).

One ``httpx.Client`` carries every request, to the Runtime API and to the sandbox's action
execution server alike, so both get ``X-API-Key`` (and ``X-Session-API-Key`` once the API has
handed one out). Once the sandbox answers, everything is the ordinary ActionExecutionClient;
this class adds the lifecycle calls and maps the proxy's answers (404, 502-504) to
AgentRuntimeDisconnectedError, resuming a paused sandbox on 503 when it is kept alive.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Unpack
from urllib.parse import urlparse

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)
from tenacity.stop import stop_base

from openhands.core.config import OpenHandsConfig
from openhands.core.config.config_utils import reveal
from openhands.core.config.sandbox_config import DEFAULT_BASE_CONTAINER_IMAGE
from openhands.core.exceptions import (
    AgentRuntimeDisconnectedError,
    AgentRuntimeError,
    AgentRuntimeNotFoundError,
    AgentRuntimeNotReadyError,
    AgentRuntimeUnavailableError,
)
from openhands.core.logger import openhands_logger as logger
from openhands.events.action import Action
from openhands.events.observation import Observation
from openhands.events.serialization import event_from_dict, event_to_dict
from openhands.events.stream import EventStream
from openhands.runtime.base import Plugin, StatusCallback
from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.runtime.builder.remote import RemoteRuntimeBuilder
from openhands.runtime.impl.action_execution.action_execution_client import (
    ActionExecutionClient,
    ActionExecutionHTTPError,
    RequestOptions,
)
from openhands.runtime.impl.remote.image import build_runtime_image_remotely
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.utils.command import (
    DEFAULT_MAIN_MODULE,
    SANDBOX_PYTHON,
    get_action_execution_server_startup_command,
)
from openhands.runtime.utils.request import RequestHTTPError, send_request
from openhands.utils.shutdown_listener import should_exit, sleep_if_should_continue
from openhands.utils.tenacity_stop import stop_if_should_exit

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry

CODE_DIR = "/openhands/code/"
IMAGE_REPO_ENV = "OH_RUNTIME_RUNTIME_IMAGE_REPO"
UNAVAILABLE_TEXT = (
    "Runtime is temporarily unavailable. This may be due to a restart or network issue, "
    "please try again."
)

WaitStrategy = Callable[[RetryCallState], float]
JsonObject = dict[str, object]


class _StopWhenClosed(stop_base):
    """Give up retrying once the runtime has been closed."""

    def __init__(self, runtime: RemoteRuntime) -> None:
        self._runtime = runtime

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self._runtime.closed


def _json_object(response: httpx.Response) -> JsonObject:
    body = response.json()
    if not isinstance(body, dict):
        raise ValueError(f"Expected a JSON object from {response.request.url}, got {body!r}")
    return body


def _is_retryable(error: BaseException, network_errors: bool) -> bool:
    if isinstance(error, ActionExecutionHTTPError):
        return error.status_code == 429
    return network_errors and isinstance(error, httpx.NetworkError)


class RemoteRuntime(ActionExecutionClient):
    """The action execution server in a sandbox managed by a Runtime API service."""

    port = 60000  # where the action server listens inside the sandbox
    # Between two readiness checks (§7). Tests lower it.
    ready_poll_seconds: float = 2.0
    # Between retries of action-server requests after a network error or a 429 (§8).
    retry_wait: WaitStrategy = wait_exponential(multiplier=1, min=4, max=60)

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
        headless_mode: bool = True,
        user_id: str | None = None,
        git_provider_tokens: dict[str, str] | None = None,
        main_module: str = DEFAULT_MAIN_MODULE,
    ) -> None:
        # Checked before the base class subscribes to the stream.
        sandbox = config.sandbox
        api_key = reveal(sandbox.api_key)
        if not api_key:
            raise ValueError(
                "API key is required to use the remote runtime. Set it in config.toml "
                "([sandbox] api_key) or as the environment variable SANDBOX_API_KEY."
            )
        if not sandbox.remote_runtime_api_url:
            raise ValueError("remote_runtime_api_url is required in the remote runtime.")
        assert sandbox.remote_runtime_class in (None, "sysbox", "gvisor"), (
            f"remote_runtime_class must be sysbox or gvisor, not {sandbox.remote_runtime_class!r}"
        )
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
        if self.config.workspace_base is not None:
            logger.debug("workspace_base is not supported by the remote runtime; ignored")
        self.api_url = sandbox.remote_runtime_api_url.rstrip("/")
        self.main_module = main_module
        self._http.headers["X-API-Key"] = api_key
        self.runtime_builder = RemoteRuntimeBuilder(self.api_url, api_key, session=self._http)
        self.runtime_id: str | None = None
        self.runtime_url: str | None = None
        self._work_hosts: dict[str, int] = {}
        self._resume_lock = threading.Lock()
        # Set on the thread that resumes a paused sandbox in the middle of a request (§8):
        # that request holds the action lock, so the env set-up after the resume must not
        # wait for it.
        self._resuming = threading.local()

    # --- Runtime API ----------------------------------------------------------------------

    def _api(self, method: str, path: str, **kwargs: object) -> httpx.Response:
        return send_request(
            self._http,
            method,
            f"{self.api_url}{path}",
            timeout=self.config.sandbox.remote_runtime_api_timeout,
            **kwargs,
        )

    def _take_runtime_info(self, body: JsonObject) -> None:
        """Remember what a ``/start`` or ``/sessions/{sid}`` answer says about the sandbox."""
        self.runtime_id = str(body["runtime_id"])
        self.runtime_url = str(body["url"])
        hosts = body.get("work_hosts")
        self._work_hosts = (
            {str(host): int(str(port)) for host, port in hosts.items()}
            if isinstance(hosts, dict)
            else {}
        )
        key = body.get("session_api_key")
        if isinstance(key, str) and key:
            self.session_api_key = key
            self._http.headers["X-Session-API-Key"] = key

    @property
    def action_execution_server_url(self) -> str:
        if self.runtime_url is None:
            raise NotImplementedError("Runtime URL is not initialized")
        return self.runtime_url

    # --- connect (§6) ---------------------------------------------------------------------

    async def connect(self) -> None:
        try:
            await asyncio.to_thread(self._start_or_attach)
        except Exception as e:
            self.log("error", f"Runtime failed to start: {type(e).__name__}: {e}")
            await asyncio.to_thread(self.close)
            raise
        await asyncio.to_thread(self.setup_initial_env)
        self._runtime_initialized = True

    def _start_or_attach(self) -> None:
        if not self._find_existing():
            if self.attach_to_existing:
                raise AgentRuntimeNotFoundError(
                    f"Could not find existing runtime for SID: {self.sid}"
                )
            image = self.config.sandbox.runtime_container_image or self._build_image()
            self.set_runtime_status(RuntimeStatus.STARTING_RUNTIME)
            self._start_runtime(image)
        self._wait_until_ready()
        self.set_runtime_status(RuntimeStatus.READY)

    def _find_existing(self) -> bool:
        """Take over this session's running or paused sandbox; False when there is none."""
        try:
            response = self._api("GET", f"/sessions/{self.sid}")
        except RequestHTTPError as e:
            if e.response.status_code == 404:
                return False
            raise
        body = _json_object(response)
        status = body.get("status")
        if status == "running":
            self._take_runtime_info(body)
            self.log("info", f"Attaching to running runtime {self.runtime_id}")
            return True
        if status == "paused":
            self._take_runtime_info(body)
            self.log("info", f"Resuming paused runtime {self.runtime_id}")
            try:
                self._resume_runtime(setup_env=False)  # connect sets the env up next
            except Exception as e:
                self.log("error", f"Could not resume runtime {self.runtime_id}: {e}")
                return False
            return True
        if status != "stopped":
            self.log("warning", f"Runtime API reports invalid status {status!r}; starting anew")
        return False

    def _build_image(self) -> str:
        self.set_runtime_status(RuntimeStatus.BUILDING_RUNTIME)
        prefix = str(_json_object(self._api("GET", "/registry_prefix"))["registry_prefix"])
        os.environ[IMAGE_REPO_ENV] = f"{prefix.rstrip('/')}/runtime"
        sandbox = self.config.sandbox
        base_image = sandbox.base_container_image
        if not base_image:
            raise ValueError("base_container_image is required to build the runtime image. ")
        if base_image == DEFAULT_BASE_CONTAINER_IMAGE:
            # As for DockerRuntime (runtime.md §15): the reference's default base cannot be
            # pulled here and our Dockerfile is written for our Debian base.
            base_image = DEFAULT_BASE_IMAGE
        image = build_runtime_image_remotely(
            base_image,
            self.runtime_builder,
            platform=sandbox.platform,
            extra_deps=sandbox.runtime_extra_deps,
            force_rebuild=sandbox.force_rebuild_runtime,
            enable_browser=self.config.enable_browser,
            progress=lambda line: self.set_runtime_status(RuntimeStatus.BUILDING_RUNTIME, line),
        )
        if not self.runtime_builder.image_exists(image):
            raise AgentRuntimeError(f"Container image {image} does not exist")
        return image

    def _start_request(self, image: str) -> JsonObject:
        sandbox = self.config.sandbox
        environment: dict[str, str] = {}
        if self.config.debug or os.environ.get("DEBUG", "").lower() == "true":
            environment["DEBUG"] = "true"
        environment.update(sandbox.runtime_startup_env_vars)
        command = get_action_execution_server_startup_command(
            self.port,
            self.plugins,
            self.config,
            main_module=self.main_module,
            python_executable=SANDBOX_PYTHON,
        )
        request: JsonObject = {
            "image": image,
            "command": command,
            "working_dir": CODE_DIR,
            "environment": environment,
            "session_id": self.sid,
            "resource_factor": sandbox.remote_runtime_resource_factor,
        }
        if sandbox.remote_runtime_class == "sysbox":
            request["runtime_class"] = "sysbox-runc"
        return request

    def _start_runtime(self, image: str) -> None:
        try:
            response = self._api("POST", "/start", json=self._start_request(image))
        except httpx.HTTPError as e:
            raise AgentRuntimeUnavailableError(f"Failed to start runtime: {e}") from e
        self._take_runtime_info(_json_object(response))
        self.log("info", f"Started runtime {self.runtime_id} at {self.runtime_url}")

    # --- readiness (§7) -------------------------------------------------------------------

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + self.config.sandbox.remote_runtime_init_timeout
        while True:
            try:
                self._check_ready()
                return
            except AgentRuntimeNotReadyError as e:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or should_exit() or self.closed:
                    raise
                self.log("debug", f"Runtime not ready yet: {e}")
                sleep_if_should_continue(min(self.ready_poll_seconds, remaining))

    def _check_ready(self) -> None:
        body = _json_object(self._api("GET", f"/runtime/{self.runtime_id}"))
        assert body.get("runtime_id") == self.runtime_id, f"unexpected runtime in {body}"
        assert "pod_status" in body, f"no pod_status in {body}"
        pod_status = str(body["pod_status"]).lower()
        restarts = body.get("restart_count")
        if restarts:
            self.log(
                "warning",
                f"Runtime restarted {restarts} times: {body.get('restart_reasons')}",
            )
        if pod_status == "ready":
            try:
                self.check_if_alive()
            except (httpx.HTTPError, AgentRuntimeError) as e:
                raise AgentRuntimeNotReadyError(f"Runtime /alive failed: {e}") from e
            return
        if pod_status in ("not found", "pending", "running"):
            raise AgentRuntimeNotReadyError(f"Runtime (status: {pod_status}) is not yet ready")
        if pod_status in ("failed", "unknown"):
            raise AgentRuntimeUnavailableError(
                f"Runtime is unavailable (status: {pod_status}). Please try again."
            )
        if pod_status == "crashloopbackoff":
            raise AgentRuntimeUnavailableError(
                "Runtime crashed and is being restarted, potentially due to memory usage. "
                "Please try again."
            )
        self.log("warning", f"Unknown pod status {pod_status!r}; waiting")
        raise AgentRuntimeNotReadyError(f"Runtime (status: {pod_status}) is not yet ready")

    # --- the action server (§8) -----------------------------------------------------------

    # The base method is tenacity-decorated, which mypy types as a different callable.
    def _send(  # type: ignore[override]
        self, method: str, path: str, **kwargs: Unpack[RequestOptions]
    ) -> httpx.Response:
        network_errors = self.config.sandbox.remote_runtime_enable_retries
        retrying = Retrying(
            retry=retry_if_exception(lambda e: _is_retryable(e, network_errors)),
            stop=stop_after_attempt(3) | stop_if_should_exit() | _StopWhenClosed(self),
            wait=self.retry_wait,
            reraise=True,
        )
        try:
            return retrying(self._send_resuming, method, path, kwargs)
        except httpx.TimeoutException:
            self.log("error", f"No answer to {method} {path} in time")
            raise

    def _send_resuming(self, method: str, path: str, options: RequestOptions) -> httpx.Response:
        response = self._http.request(
            method, f"{self.action_execution_server_url}{path}", headers=self._headers(), **options
        )
        if response.status_code == 503 and self.config.sandbox.keep_runtime_alive:
            if getattr(self._resuming, "active", False):
                raise AgentRuntimeDisconnectedError(f"{UNAVAILABLE_TEXT} (paused while resuming)")
            self.log("info", f"Runtime is paused ({method} {path}); resuming it")
            try:
                self._resume_from_request()
            except Exception as e:
                raise AgentRuntimeDisconnectedError(
                    f"Runtime is paused and could not be resumed. Original error: {e}"
                ) from e
            response = self._http.request(
                method,
                f"{self.action_execution_server_url}{path}",
                headers=self._headers(),
                **options,
            )
        self._raise_for_status(response)
        return response

    def _raise_for_status(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        try:
            body = response.json()
            detail = body.get("detail", response.text) if isinstance(body, dict) else body
        except ValueError:
            detail = response.text
        error = ActionExecutionHTTPError(response.status_code, str(detail))
        if response.status_code == 404:
            raise AgentRuntimeDisconnectedError(
                "Runtime is not responding. This may be temporary, please try again. "
                f"Original error: {error}"
            ) from error
        if response.status_code in (502, 503, 504):
            raise AgentRuntimeDisconnectedError(
                f"{UNAVAILABLE_TEXT} Original error: {error}"
            ) from error
        raise error

    def _resume_from_request(self) -> None:
        with self._resume_lock:
            self._resuming.active = True
            try:
                self._resume_runtime()
            finally:
                self._resuming.active = False

    def send_action_for_execution(self, action: Action) -> Observation:
        if not getattr(self._resuming, "active", False):
            return super().send_action_for_execution(action)
        # The env set-up of a resume started by an in-flight request, which holds the
        # action lock and the worker: send directly from this thread.
        if action.timeout is None:
            action.set_hard_timeout(self.config.sandbox.timeout, blocking=False)
        assert action.timeout is not None
        response = self._send(
            "POST",
            "/execute_action",
            json={"action": event_to_dict(action)},
            timeout=action.timeout + 5,
        )
        observation = event_from_dict(response.json())
        assert isinstance(observation, Observation)
        return observation

    # The base class binds these names to its own method; point them at the override.
    run = run_ipython = read = write = browse = browse_interactive = send_action_for_execution

    # --- pause, resume, close (§9) --------------------------------------------------------

    def _resume_runtime(self, setup_env: bool = True) -> None:
        self.set_runtime_status(RuntimeStatus.STARTING_RUNTIME)
        try:
            self._api("POST", "/resume", json={"runtime_id": self.runtime_id})
            self._wait_until_ready()
            if setup_env:
                # The sandbox may come back from a snapshot: apply env and git config again.
                self.setup_initial_env()
        except Exception as e:
            self.log("error", f"Unable to resume runtime {self.runtime_id}: {e}")
            raise
        self.log("info", f"Runtime {self.runtime_id} resumed")

    def resume(self) -> None:
        self._resume_runtime()

    def pause(self) -> None:
        self._lifecycle_call("/pause", "pause")

    def _lifecycle_call(self, path: str, verb: str) -> None:
        try:
            self._api("POST", path, json={"runtime_id": self.runtime_id})
        except Exception as e:
            self.log("error", f"Unable to {verb} runtime: {e}")
            raise

    def close(self) -> None:
        if self.closed:
            return
        sandbox = self.config.sandbox
        try:
            if self.runtime_id is None or self.attach_to_existing:
                pass
            elif not sandbox.keep_runtime_alive:
                self._lifecycle_call("/stop", "stop")
            elif sandbox.pause_closed_runtimes:
                self._lifecycle_call("/pause", "pause")
        finally:
            super().close()

    # --- what the UI shows ------------------------------------------------------------------

    @property
    def web_hosts(self) -> dict[str, int]:
        return dict(self._work_hosts)

    @property
    def vscode_url(self) -> str | None:
        token = self.get_vscode_token()
        if not token or self.runtime_url is None or self.runtime_id is None:
            return None
        url = urlparse(self.runtime_url)
        folder = self.config.workspace_mount_path_in_sandbox
        if url.path.startswith(f"/{self.runtime_id}"):
            return (
                f"{url.scheme}://{url.netloc}/{self.runtime_id}/vscode?tkn={token}&folder={folder}"
            )
        return f"{url.scheme}://vscode-{url.netloc}/?tkn={token}&folder={folder}"
