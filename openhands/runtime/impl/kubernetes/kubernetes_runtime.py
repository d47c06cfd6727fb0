"""KubernetesRuntime: each conversation's sandbox as Kubernetes objects (remote-runtime.md §11).

This module is the runtime's lifecycle: create or find the objects, wait until the pod is
ready, send actions, close and delete. The objects' manifests are built in ``manifests``,
cluster credentials and clean-up live in ``cluster``; their public names (``POD_NAME_PREFIX``,
``POD_LABEL``, ``pod_name``, ``parse_tolerations``, ``ClusterAccess``, …) are re-exported here.

For a session ``sid`` the runtime makes, in one namespace (``[kubernetes] namespace``), all
labelled ``app=openhands-runtime, session=<sid>``:

- the PVC ``openhands-runtime-<sid>-pvc`` (the workspace; made only when missing, kept on
  ``close()`` so the workspace outlives the pod, removed by ``delete(sid)``);
- the Secret ``openhands-runtime-<sid>-session-key`` holding a fresh random session API key
  (not in the reference: it reaches the action server as the env var ``SESSION_API_KEY``
  through a ``secretKeyRef``, so it is in no pod spec, label or annotation);
- the pod ``openhands-runtime-<sid>``: the action execution server on port 8080 as root;
- the ClusterIP services ``…-svc`` (8080, plus the app ports 30082/30083, which the reference
  forgot) and ``…-svc-code`` (VS Code, 8081), and the ingress ``…-ingress-code`` at
  ``<sid>.<ingress_domain>``.

How the API server and the action server are reached:

- **Inside the cluster** (``load_incluster_config`` works: the OpenHands server runs in a pod
  with a service account), the action server is the service's cluster DNS name,
  ``http://openhands-runtime-<sid>-svc.<namespace>.svc.cluster.local:8080``.
- **Outside the cluster** (no service account: ``load_kube_config`` reads ``$KUBECONFIG`` or
  ``~/.kube/config``), cluster DNS names do not resolve, so requests to the action server go
  through the API server's service proxy,
  ``<api server>/api/v1/namespaces/<ns>/services/openhands-runtime-<sid>-svc:8080/proxy``, with
  the credentials of the kubeconfig (bearer token, client certificate, CA bundle) on every
  request besides the session key header. The kubeconfig's user needs ``services/proxy``
  (``get``, ``create``) in the namespace on top of the object verbs.

Tested against a stand-in API server that runs pods as Docker containers
(``tests/support/kubernetes_api.py``), not against a real cluster.
"""

from __future__ import annotations

import asyncio
import base64
import secrets
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar, NoReturn, TypeVar, Unpack
from uuid import UUID

import httpx
import urllib3
from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from openhands.core.config import KubernetesConfig, OpenHandsConfig
from openhands.core.exceptions import (
    AgentRuntimeDisconnectedError,
    AgentRuntimeError,
    AgentRuntimeNotFoundError,
)
from openhands.core.logger import openhands_logger as logger
from openhands.events.stream import EventStream
from openhands.runtime.base import Plugin, StatusCallback
from openhands.runtime.impl.action_execution.action_execution_client import (
    ActionExecutionClient,
    ActionExecutionHTTPError,
    RequestOptions,
)
from openhands.runtime.impl.kubernetes.cluster import (
    DELETE_GRACE_SECONDS,
    ApiServerAuth,
    ClusterAccess,
    api_server_tls,
    describe_api_error,
)
from openhands.runtime.impl.kubernetes.manifests import (
    APP_PORTS,
    CODE_DIR,
    CONTAINER_NAME,
    EXECUTION_SERVER_PORT,
    POD_LABEL,
    POD_NAME_PREFIX,
    SESSION_KEY_ENV,
    SESSION_KEY_FIELD,
    SESSION_KEY_SECRET_SUFFIX,
    VSCODE_PORT,
    WORKSPACE_VOLUME,
    SessionNames,
    SessionObjects,
    parse_tolerations,
    pod_name,
    session_labels,
)
from openhands.runtime.plugins.requirement import PluginRequirement
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.utils.command import (
    SANDBOX_PYTHON,
    get_action_execution_server_startup_command,
)
from openhands.utils.shutdown_listener import add_shutdown_listener, sleep_if_should_continue

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry

# Re-exported: the names and manifests' constants are part of this module's public API.
__all__ = [
    "APP_PORTS",
    "CODE_DIR",
    "CONTAINER_NAME",
    "DELETE_GRACE_SECONDS",
    "ENDED_PHASES",
    "EXECUTION_SERVER_PORT",
    "POD_LABEL",
    "POD_NAME_PREFIX",
    "SESSION_KEY_ENV",
    "SESSION_KEY_FIELD",
    "SESSION_KEY_SECRET_SUFFIX",
    "VSCODE_PORT",
    "WORKSPACE_VOLUME",
    "ClusterAccess",
    "KubernetesRuntime",
    "PodEndedError",
    "PodNotReadyError",
    "describe_api_error",
    "parse_tolerations",
    "pod_name",
    "session_labels",
]

# Phases a pod with restart policy Never does not leave.
ENDED_PHASES = ("Failed", "Succeeded")

_Result = TypeVar("_Result")


class PodNotReadyError(Exception):
    """The pod is not ``Running`` with ``Ready=True`` (yet)."""


class PodEndedError(PodNotReadyError):
    """The pod stopped for good (``Failed``/``Succeeded``, restart policy ``Never``)."""


class KubernetesRuntime(ActionExecutionClient):
    """The action execution server in a pod that this class creates and deletes."""

    port = EXECUTION_SERVER_PORT
    # Between two readiness checks, and how long to wait in all (§11.5). Tests lower them.
    ready_poll_seconds: float = 2.0
    ready_timeout_seconds: float = 300.0

    # Process-wide: one shutdown listener, and the sessions it cleans up.
    _shutdown_listener_id: ClassVar[UUID | None] = None
    _live_sessions: ClassVar[dict[tuple[str, str], KubernetesRuntime]] = {}
    _live_lock: ClassVar[threading.Lock] = threading.Lock()
    # The [kubernetes] section last seen, for ``delete()``, which gets only a session id.
    _kubernetes_config: ClassVar[KubernetesConfig | None] = None

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
    ) -> None:
        # Checked before the base class subscribes to the stream.
        if config.kubernetes is None:
            raise ValueError(
                "Kubernetes configuration is required to use the kubernetes runtime: "
                "add a [kubernetes] section to config.toml."
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
        self.k8s_config: KubernetesConfig = self.config.kubernetes
        KubernetesRuntime._kubernetes_config = self.k8s_config
        self.namespace = self.k8s_config.namespace
        self.object_names = SessionNames(sid=sid, namespace=self.namespace)
        self.pod_name = self.object_names.pod
        sandbox = self.config.sandbox
        self.pod_image = sandbox.runtime_container_image or sandbox.base_container_image
        try:
            self._cluster = ClusterAccess.load()
        except BaseException:
            super().close()
            raise
        self._connect_started = False
        if self._cluster.in_cluster:
            self._server_url = self.object_names.service_url(self.port)
        else:
            self._server_url = self.object_names.proxy_url(
                self._cluster.configuration.host, self.port
            )
            self._use_api_server_credentials()
        self._register_shutdown_listener()

    def _use_api_server_credentials(self) -> None:
        """Send action-server requests with the API server's TLS settings and token."""
        timeout = self._http.timeout
        self._http.close()
        self._http = httpx.Client(
            timeout=timeout,
            auth=ApiServerAuth(self._cluster.configuration),
            transport=httpx.HTTPTransport(
                verify=api_server_tls(self._cluster.configuration),
                socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
            ),
        )

    # --- names ------------------------------------------------------------------------------

    @property
    def labels(self) -> dict[str, str]:
        return self.object_names.labels

    @property
    def pvc_name(self) -> str:
        return self.object_names.pvc

    @property
    def service_name(self) -> str:
        return self.object_names.service

    @property
    def vscode_service_name(self) -> str:
        return self.object_names.vscode_service

    @property
    def ingress_name(self) -> str:
        return self.object_names.ingress

    @property
    def tls_secret_name(self) -> str:
        """A name helper of the reference; no such Secret is ever created."""
        return self.object_names.tls_secret

    @property
    def session_key_secret_name(self) -> str:
        return self.object_names.session_key_secret

    @property
    def ingress_host(self) -> str:
        return self.object_names.ingress_host(self.k8s_config.ingress_domain)

    @property
    def action_execution_server_url(self) -> str:
        return self._server_url

    @property
    def _vscode_enabled(self) -> bool:
        return self.config.sandbox.enable_vscode and any(
            (p.name if isinstance(p, PluginRequirement) else p) == "vscode" for p in self.plugins
        )

    # --- the shutdown listener (once per process) ------------------------------------------

    def _register_shutdown_listener(self) -> None:
        with KubernetesRuntime._live_lock:
            if not self.attach_to_existing and not self.config.sandbox.keep_runtime_alive:
                KubernetesRuntime._live_sessions[(self.namespace, self.sid)] = self
            if KubernetesRuntime._shutdown_listener_id is None:
                KubernetesRuntime._shutdown_listener_id = add_shutdown_listener(
                    KubernetesRuntime._delete_live_sessions
                )

    def _forget_live_session(self) -> None:
        with KubernetesRuntime._live_lock:
            key = (self.namespace, self.sid)
            if KubernetesRuntime._live_sessions.get(key) is self:
                del KubernetesRuntime._live_sessions[key]

    @classmethod
    def _delete_live_sessions(cls) -> None:
        """On process shutdown: delete every open session's objects, PVC included.

        Sessions attached to existing pods or kept alive are left alone."""
        with cls._live_lock:
            sessions = list(cls._live_sessions.items())
            cls._live_sessions.clear()
        for (namespace, sid), runtime in sessions:
            logger.info("Shutting down: deleting the Kubernetes objects of session %s", sid)
            runtime._cluster.delete_session(namespace, sid, remove_pvc=True)

    # --- connect (§11.5) -------------------------------------------------------------------

    async def connect(self) -> None:
        self._connect_started = True
        self.set_runtime_status(RuntimeStatus.STARTING_RUNTIME)
        await asyncio.to_thread(self._find_or_create)
        if not self.attach_to_existing:
            await asyncio.to_thread(self.setup_initial_env)
        self._runtime_initialized = True
        self.set_runtime_status(RuntimeStatus.READY)

    def _find_or_create(self) -> None:
        try:
            pod: k8s.V1Pod | None = self._cluster.core.read_namespaced_pod(
                self.pod_name, self.namespace
            )
        except (ApiException, urllib3.exceptions.HTTPError) as e:
            if self.attach_to_existing:
                message = f"Could not find runtime pod {self.pod_name}: {describe_api_error(e)}"
                self.set_runtime_status(
                    RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, message, level="error"
                )
                raise AgentRuntimeDisconnectedError(message) from e
            pod = None
        deadline = time.monotonic() + self.ready_timeout_seconds
        if pod is not None and not self.attach_to_existing and _phase(pod) in ENDED_PHASES:
            # Restart policy Never: an ended pod (crashed, OOM-killed) never runs again.
            self.log("warning", f"Pod {self.pod_name} has ended ({_phase(pod)}); replacing it")
            self._steps(lambda: self._delete_pod(grace_seconds=0))
            pod = self._steps(self._read_pod_if_any)
        if pod is not None and self._is_terminating(pod):
            if self.attach_to_existing:
                self._fail_connect(PodEndedError(f"Pod {self.pod_name} is being deleted"))
            self.log("info", f"Pod {self.pod_name} is being deleted; waiting to replace it")
            self._steps(lambda: self._wait_until_gone(deadline))
            pod = None
        if pod is None:
            self.log("info", f"Creating the Kubernetes objects of pod {self.pod_name}")
            self._create_objects()
        else:
            self.log("info", f"Found pod {self.pod_name}; waiting until it is ready")
            self.session_api_key = self._steps(self._read_session_key)
        self._steps(lambda: self._wait_until_ready(deadline))

    def _steps(self, step: Callable[[], _Result]) -> _Result:
        """Run a step of connecting; its failure is a failure to connect (§11.5)."""
        try:
            return step()
        except (PodNotReadyError, ApiException, urllib3.exceptions.HTTPError) as e:
            self._fail_connect(e)

    def _read_pod_if_any(self) -> k8s.V1Pod | None:
        try:
            return self._cluster.core.read_namespaced_pod(self.pod_name, self.namespace)
        except ApiException as e:
            if e.status == 404:
                return None
            raise

    def _delete_pod(self, grace_seconds: int) -> None:
        try:
            self._cluster.core.delete_namespaced_pod(
                self.pod_name,
                self.namespace,
                body=k8s.V1DeleteOptions(grace_period_seconds=grace_seconds),
            )
        except ApiException as e:
            if e.status != 404:
                raise

    def _fail_connect(self, error: Exception) -> NoReturn:
        message = describe_api_error(error) if isinstance(error, ApiException) else str(error)
        self.set_runtime_status(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, message, level="error")
        raise AgentRuntimeDisconnectedError(f"Failed to connect to runtime: {message}") from error

    @staticmethod
    def _is_terminating(pod: k8s.V1Pod) -> bool:
        return pod.metadata is not None and pod.metadata.deletion_timestamp is not None

    def _wait_until_gone(self, deadline: float) -> None:
        while self._read_pod_if_any() is not None:
            self._pause_or_give_up(deadline, f"old pod {self.pod_name} is still being deleted")

    def _pause_or_give_up(self, deadline: float, reason: str) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or self.closed:
            raise PodNotReadyError(
                f"Pod {self.pod_name} not ready after {self.ready_timeout_seconds:g} s: {reason}"
            )
        sleep_if_should_continue(min(self.ready_poll_seconds, remaining))

    def _wait_until_ready(self, deadline: float) -> None:
        """Every ``ready_poll_seconds`` until the pod is Running and Ready and its action
        server answers ``/alive`` at our URL (through the service, so its endpoints are
        known too)."""
        while True:
            reason = self._not_ready_reason()
            if reason is None:
                return
            self.log("debug", f"Pod {self.pod_name} not ready: {reason}")
            self._pause_or_give_up(deadline, reason)

    def _not_ready_reason(self) -> str | None:
        pod = self._cluster.core.read_namespaced_pod(self.pod_name, self.namespace)
        status = pod.status
        phase = _phase(pod)
        if phase in ENDED_PHASES:
            raise PodEndedError(f"Pod {self.pod_name} has ended (phase {phase}){_why(status)}")
        conditions = (status.conditions if status is not None else None) or []
        ready = any(c.type == "Ready" and c.status == "True" for c in conditions)
        if phase != "Running" or not ready:
            return f"phase {phase}, ready {ready}{_why(status)}"
        try:
            self.check_if_alive()
        except (httpx.HTTPError, AgentRuntimeError) as e:
            return f"the action server does not answer yet ({e})"
        return None

    # --- creating the objects --------------------------------------------------------------

    def _session_objects(self) -> SessionObjects:
        """This session's objects as the config says now."""
        return SessionObjects(
            names=self.object_names,
            settings=self.k8s_config,
            image=self.pod_image,
            port=self.port,
            command=tuple(
                get_action_execution_server_startup_command(
                    self.port,
                    self.plugins,
                    self.config,
                    # Root, so that VS Code (root too) can edit every file of the workspace.
                    override_user_id=0,
                    override_username="root",
                    python_executable=SANDBOX_PYTHON,
                )
            ),
            workspace_mount_path=self.config.workspace_mount_path_in_sandbox,
            startup_env=dict(self.config.sandbox.runtime_startup_env_vars),
            debug=self.config.debug,
            vscode_enabled=self._vscode_enabled,
        )

    def _pod(self) -> k8s.V1Pod:
        return self._session_objects().pod()

    def _create_objects(self) -> None:
        """PVC (if missing), session key Secret, pod, services, ingress — in that order."""
        core = self._cluster.core
        objects = self._session_objects()
        try:
            if not self._exists(
                lambda: core.read_namespaced_persistent_volume_claim(self.pvc_name, self.namespace)
            ):
                core.create_namespaced_persistent_volume_claim(self.namespace, objects.pvc())
            self._store_session_key(objects)
            core.create_namespaced_pod(self.namespace, objects.pod())
            self._create_unless_exists(
                lambda: core.create_namespaced_service(self.namespace, objects.action_service())
            )
            self._create_unless_exists(
                lambda: core.create_namespaced_service(self.namespace, objects.vscode_service())
            )
            self._create_unless_exists(
                lambda: self._cluster.networking.create_namespaced_ingress(
                    self.namespace, objects.ingress()
                )
            )
        except (ApiException, urllib3.exceptions.HTTPError) as e:
            message = describe_api_error(e)
            self.set_runtime_status(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, message, "error")
            raise AgentRuntimeNotFoundError(
                f"Failed to initialize kubernetes resources: {message}"
            ) from e

    @staticmethod
    def _exists(read: Callable[[], object]) -> bool:
        try:
            read()
        except ApiException as e:
            if e.status == 404:
                return False
            raise
        return True

    @staticmethod
    def _create_unless_exists(create: Callable[[], object]) -> None:
        """Services and the ingress have fixed contents: one left from before will do."""
        try:
            create()
        except ApiException as e:
            if e.status != 409:
                raise

    def _store_session_key(self, objects: SessionObjects) -> None:
        """A fresh session API key in this pod's Secret (replacing one left from before)."""
        key = secrets.token_urlsafe(32)
        body = objects.session_key_secret(key)
        try:
            self._cluster.core.create_namespaced_secret(self.namespace, body)
        except ApiException as e:
            if e.status != 409:
                raise
            self._cluster.core.replace_namespaced_secret(
                self.session_key_secret_name, self.namespace, body
            )
        self.session_api_key = key

    def _read_session_key(self) -> str | None:
        """The key of an existing pod; None when it has no Secret (made by someone else)."""
        try:
            secret = self._cluster.core.read_namespaced_secret(
                self.session_key_secret_name, self.namespace
            )
        except ApiException as e:
            if e.status == 404:
                self.log("warning", f"No session key Secret for pod {self.pod_name}")
                return None
            raise
        value = (secret.data or {}).get(SESSION_KEY_FIELD)
        if value is None:
            return None
        raw = value if isinstance(value, bytes) else value.encode()
        return base64.b64decode(raw).decode()

    # --- while actions run ------------------------------------------------------------------

    # The base method is tenacity-decorated, which mypy types as a different callable.
    def _send(  # type: ignore[override]
        self, method: str, path: str, **kwargs: Unpack[RequestOptions]
    ) -> httpx.Response:
        try:
            return super()._send(method, path, **kwargs)
        except ActionExecutionHTTPError as e:
            # Through the API server's proxy a dead pod is a 502/503 ("no endpoints
            # available"), not a refused connection: say so when the pod is gone.
            if e.status_code in (502, 503, 504):
                problem = self._sandbox_problem()
                if problem:
                    raise AgentRuntimeDisconnectedError(problem) from e
            raise

    def _sandbox_problem(self) -> str | None:
        try:
            pod = self._cluster.core.read_namespaced_pod(self.pod_name, self.namespace)
        except ApiException as e:
            return f"Runtime pod {self.pod_name} is gone" if e.status == 404 else None
        except urllib3.exceptions.HTTPError:
            return None  # the API server is unsure, not the pod
        phase = _phase(pod)
        if phase in ENDED_PHASES:
            return f"Runtime pod {self.pod_name} has stopped (phase {phase}){_why(pod.status)}"
        if self._is_terminating(pod):
            return f"Runtime pod {self.pod_name} is being deleted"
        return None

    # --- close and delete -------------------------------------------------------------------

    def close(self) -> None:
        if self.closed:
            return
        super().close()
        try:
            keep = self.config.sandbox.keep_runtime_alive or self.attach_to_existing
            if self._connect_started and not keep:
                self._cluster.delete_session(self.namespace, self.sid, remove_pvc=False)
        finally:
            self._forget_live_session()
            self._cluster.close()

    @classmethod
    def setup(cls, config: OpenHandsConfig, headless_mode: bool = False) -> None:
        cls._kubernetes_config = config.kubernetes

    @classmethod
    async def delete(cls, conversation_id: str) -> None:
        """Delete the conversation's objects, its workspace PVC included."""
        settings = cls._kubernetes_config or KubernetesConfig()

        def delete_all() -> None:
            cluster = ClusterAccess.load()
            try:
                cluster.delete_session(settings.namespace, conversation_id, remove_pvc=True)
            finally:
                cluster.close()

        try:
            await asyncio.to_thread(delete_all)
        except Exception as e:
            logger.error("Could not delete the Kubernetes objects of %s: %s", conversation_id, e)

    # --- what the UI shows ------------------------------------------------------------------

    @property
    def web_hosts(self) -> dict[str, int]:
        """The app ports at the service's cluster DNS name (reachable inside the cluster)."""
        return {
            f"http://{self.service_name}.{self.namespace}.svc.cluster.local:{port}": port
            for port in APP_PORTS
        }

    @property
    def vscode_url(self) -> str | None:
        if not self._vscode_enabled:
            return None
        token = self.get_vscode_token()
        if not token:
            return None
        scheme = "https" if self.k8s_config.ingress_tls_secret else "http"
        folder = self.config.workspace_mount_path_in_sandbox
        return f"{scheme}://{self.ingress_host}/?tkn={token}&folder={folder}"


def _phase(pod: k8s.V1Pod) -> str:
    return (pod.status.phase if pod.status is not None else None) or "Unknown"


def _why(status: k8s.V1PodStatus | None) -> str:
    """The reasons a pod status gives (unschedulable, image pull errors, exit codes)."""
    if status is None:
        return ""
    reasons: list[str] = []
    if status.reason or status.message:
        reasons.append(f"{status.reason or ''} {status.message or ''}".strip())
    for condition in status.conditions or []:
        if condition.status != "True" and (condition.reason or condition.message):
            reasons.append(
                f"{condition.type}: {condition.reason or ''} {condition.message or ''}".strip()
            )
    for container in status.container_statuses or []:
        state = container.state
        if state is not None and state.waiting is not None and state.waiting.reason:
            reasons.append(f"{container.name} waiting: {state.waiting.reason}")
        if state is not None and state.terminated is not None:
            reasons.append(
                f"{container.name} exited with code {state.terminated.exit_code}"
                f" ({state.terminated.reason or 'no reason'})"
            )
    return f" ({'; '.join(reasons)})" if reasons else ""
