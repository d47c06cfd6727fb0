"""KubernetesRuntime: each conversation's sandbox as Kubernetes objects (remote-runtime.md §11).

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
import os
import secrets
import socket
import ssl
import threading
import time
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, ClassVar, NoReturn, TypeVar, Unpack
from uuid import UUID

import httpx
import urllib3
import yaml
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

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
from openhands.runtime.plugins.requirement import PluginRequirement
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.utils.command import (
    SANDBOX_PYTHON,
    get_action_execution_server_startup_command,
)
from openhands.utils.shutdown_listener import add_shutdown_listener, sleep_if_should_continue

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry

POD_NAME_PREFIX = "openhands-runtime-"
POD_LABEL = "openhands-runtime"
CODE_DIR = "/openhands/code/"
EXECUTION_SERVER_PORT = 8080
VSCODE_PORT = 8081
APP_PORTS = (30082, 30083)
WORKSPACE_VOLUME = "workspace-volume"
CONTAINER_NAME = "runtime"
# The Secret that carries the session API key, and its key.
SESSION_KEY_SECRET_SUFFIX = "-session-key"
SESSION_KEY_FIELD = "session-api-key"
SESSION_KEY_ENV = "SESSION_API_KEY"
# Seconds a deleted pod gets to stop its server before it is killed.
DELETE_GRACE_SECONDS = 5

# Phases a pod with restart policy Never does not leave.
ENDED_PHASES = ("Failed", "Succeeded")

_Result = TypeVar("_Result")


class PodNotReadyError(Exception):
    """The pod is not ``Running`` with ``Ready=True`` (yet)."""


class PodEndedError(PodNotReadyError):
    """The pod stopped for good (``Failed``/``Succeeded``, restart policy ``Never``)."""


def pod_name(sid: str) -> str:
    return f"{POD_NAME_PREFIX}{sid}"


def session_labels(sid: str) -> dict[str, str]:
    return {"app": POD_LABEL, "session": sid}


def describe_api_error(error: Exception) -> str:
    """A one-line account of an API error (status, reason and the Status message)."""
    if not isinstance(error, ApiException):
        return f"{type(error).__name__}: {error}"
    message = ""
    if error.body:
        try:
            status = k8s.V1Status.from_json(str(error.body))
        except ValueError:
            status = None
        message = (status.message if status is not None else None) or str(error.body)[:200]
    text = f"({error.status}) {error.reason}"
    return f"{text}: {message}" if message else text


def parse_tolerations(text: str | None) -> list[k8s.V1Toleration] | None:
    """``[kubernetes] tolerations_yaml`` as tolerations; None (logged) unless a valid list."""
    if not text:
        return None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        logger.error("Ignoring tolerations_yaml: not valid YAML: %s", e)
        return None
    if not isinstance(data, list):
        logger.error("Ignoring tolerations_yaml: a YAML list is required, got %r", data)
        return None
    tolerations: list[k8s.V1Toleration] = []
    for item in data:
        if not isinstance(item, dict):
            logger.error("Ignoring tolerations_yaml: %r is not a toleration object", item)
            return None
        try:
            toleration = k8s.V1Toleration.from_dict(item)
        except ValueError as e:  # pydantic's ValidationError is a ValueError
            logger.error("Ignoring tolerations_yaml: bad toleration %r: %s", item, e)
            return None
        if toleration is not None:
            tolerations.append(toleration)
    return tolerations


class _ApiServerAuth(httpx.Auth):
    """The API server's credentials (bearer token) on requests through its service proxy.

    Asked of the kubernetes Configuration on every request, so a token it refreshes (exec
    plugins, rotated service account tokens) is used once renewed.
    """

    def __init__(self, configuration: k8s.Configuration) -> None:
        self._configuration = configuration

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        bearer = self._configuration.auth_settings().get("BearerToken")
        if bearer is not None and bearer["in"] == "header" and bearer["value"]:
            request.headers[bearer["key"]] = bearer["value"]
        yield request


def _api_server_tls(configuration: k8s.Configuration) -> ssl.SSLContext:
    """TLS towards the API server as the kubeconfig says: its CA, a client certificate."""
    context = ssl.create_default_context(cafile=configuration.ssl_ca_cert or None)
    if not configuration.verify_ssl:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if configuration.cert_file:
        context.load_cert_chain(configuration.cert_file, configuration.key_file or None)
    return context


class ClusterAccess:
    """The loaded cluster configuration and the API objects made from it."""

    def __init__(self, configuration: k8s.Configuration, in_cluster: bool) -> None:
        self.configuration = configuration
        self.in_cluster = in_cluster
        self.api_client = k8s.ApiClient(configuration)
        self.core = k8s.CoreV1Api(self.api_client)
        self.networking = k8s.NetworkingV1Api(self.api_client)

    @classmethod
    def load(cls) -> ClusterAccess:
        """In-cluster credentials when this process runs in a pod, else the kubeconfig."""
        configuration = k8s.Configuration()
        try:
            k8s_config.load_incluster_config(client_configuration=configuration)
            return cls(configuration, in_cluster=True)
        except ConfigException as in_cluster_error:
            kubeconfig = os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
            try:
                k8s_config.load_kube_config(
                    config_file=kubeconfig, client_configuration=configuration
                )
            except (ConfigException, OSError) as error:
                raise AgentRuntimeError(
                    "No Kubernetes cluster to use: this process is not in a cluster "
                    f"({in_cluster_error}) and the kubeconfig {kubeconfig} is not usable "
                    f"({error})"
                ) from error
            return cls(configuration, in_cluster=False)

    def close(self) -> None:
        self.api_client.close()

    def delete_session(self, namespace: str, sid: str, remove_pvc: bool) -> None:
        """Delete the pod, services, ingress and session key Secret of ``sid`` (and its PVC
        when ``remove_pvc``). Missing objects are fine; other errors are logged."""
        name = pod_name(sid)
        deletions: list[tuple[str, Callable[[], object]]] = [
            (
                f"pod {name}",
                lambda: self.core.delete_namespaced_pod(
                    name,
                    namespace,
                    body=k8s.V1DeleteOptions(grace_period_seconds=DELETE_GRACE_SECONDS),
                ),
            ),
            (
                f"service {name}-svc",
                lambda: self.core.delete_namespaced_service(f"{name}-svc", namespace),
            ),
            (
                f"service {name}-svc-code",
                lambda: self.core.delete_namespaced_service(f"{name}-svc-code", namespace),
            ),
            (
                f"ingress {name}-ingress-code",
                lambda: self.networking.delete_namespaced_ingress(
                    f"{name}-ingress-code", namespace
                ),
            ),
            (
                f"secret {name}{SESSION_KEY_SECRET_SUFFIX}",
                lambda: self.core.delete_namespaced_secret(
                    f"{name}{SESSION_KEY_SECRET_SUFFIX}", namespace
                ),
            ),
        ]
        if remove_pvc:
            deletions.append(
                (
                    f"persistent volume claim {name}-pvc",
                    lambda: self.core.delete_namespaced_persistent_volume_claim(
                        f"{name}-pvc", namespace
                    ),
                )
            )
        for what, delete in deletions:
            try:
                delete()
                logger.info("Deleted %s in namespace %s", what, namespace)
            except ApiException as e:
                if e.status != 404:
                    logger.error("Could not delete %s: %s", what, describe_api_error(e))
            except urllib3.exceptions.HTTPError as e:
                logger.error("Could not delete %s: %s", what, e)


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
        self.pod_name = pod_name(sid)
        sandbox = self.config.sandbox
        self.pod_image = sandbox.runtime_container_image or sandbox.base_container_image
        try:
            self._cluster = ClusterAccess.load()
        except BaseException:
            super().close()
            raise
        self._connect_started = False
        if self._cluster.in_cluster:
            self._server_url = (
                f"http://{self.pod_name}-svc.{self.namespace}.svc.cluster.local:{self.port}"
            )
        else:
            host = self._cluster.configuration.host.rstrip("/")
            self._server_url = (
                f"{host}/api/v1/namespaces/{self.namespace}/services/"
                f"{self.pod_name}-svc:{self.port}/proxy"
            )
            self._use_api_server_credentials()
        self._register_shutdown_listener()

    def _use_api_server_credentials(self) -> None:
        """Send action-server requests with the API server's TLS settings and token."""
        timeout = self._http.timeout
        self._http.close()
        self._http = httpx.Client(
            timeout=timeout,
            auth=_ApiServerAuth(self._cluster.configuration),
            transport=httpx.HTTPTransport(
                verify=_api_server_tls(self._cluster.configuration),
                socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
            ),
        )

    # --- names ------------------------------------------------------------------------------

    @property
    def labels(self) -> dict[str, str]:
        return session_labels(self.sid)

    @property
    def pvc_name(self) -> str:
        return f"{self.pod_name}-pvc"

    @property
    def service_name(self) -> str:
        return f"{self.pod_name}-svc"

    @property
    def vscode_service_name(self) -> str:
        return f"{self.pod_name}-svc-code"

    @property
    def ingress_name(self) -> str:
        return f"{self.pod_name}-ingress-code"

    @property
    def tls_secret_name(self) -> str:
        """A name helper of the reference; no such Secret is ever created."""
        return f"{self.pod_name}-tls-secret"

    @property
    def session_key_secret_name(self) -> str:
        return f"{self.pod_name}{SESSION_KEY_SECRET_SUFFIX}"

    @property
    def ingress_host(self) -> str:
        return f"{self.sid}.{self.k8s_config.ingress_domain}"

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

    def _create_objects(self) -> None:
        """PVC (if missing), session key Secret, pod, services, ingress — in that order."""
        core = self._cluster.core
        try:
            if not self._exists(
                lambda: core.read_namespaced_persistent_volume_claim(self.pvc_name, self.namespace)
            ):
                core.create_namespaced_persistent_volume_claim(self.namespace, self._pvc())
            self._store_session_key()
            core.create_namespaced_pod(self.namespace, self._pod())
            self._create_unless_exists(
                lambda: core.create_namespaced_service(self.namespace, self._action_service())
            )
            self._create_unless_exists(
                lambda: core.create_namespaced_service(self.namespace, self._vscode_service())
            )
            self._create_unless_exists(
                lambda: self._cluster.networking.create_namespaced_ingress(
                    self.namespace, self._ingress()
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

    def _store_session_key(self) -> None:
        """A fresh session API key in this pod's Secret (replacing one left from before)."""
        key = secrets.token_urlsafe(32)
        body = k8s.V1Secret(
            metadata=k8s.V1ObjectMeta(name=self.session_key_secret_name, labels=self.labels),
            type="Opaque",
            string_data={SESSION_KEY_FIELD: key},
        )
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

    def _pvc(self) -> k8s.V1PersistentVolumeClaim:
        return k8s.V1PersistentVolumeClaim(
            api_version="v1",
            kind="PersistentVolumeClaim",
            metadata=k8s.V1ObjectMeta(name=self.pvc_name, labels=self.labels),
            spec=k8s.V1PersistentVolumeClaimSpec(
                access_modes=["ReadWriteOnce"],
                resources=k8s.V1VolumeResourceRequirements(
                    requests={"storage": self.k8s_config.pvc_storage_size}
                ),
                storage_class_name=self.k8s_config.pvc_storage_class,
            ),
        )

    def _environment(self) -> list[k8s.V1EnvVar]:
        values = {
            "port": str(self.port),
            "PYTHONUNBUFFERED": "1",
            "VSCODE_PORT": str(VSCODE_PORT),
        }
        if self.config.debug or os.environ.get("DEBUG", "").lower() == "true":
            values["DEBUG"] = "true"
        values.update(self.config.sandbox.runtime_startup_env_vars)
        values.pop(SESSION_KEY_ENV, None)
        env = [k8s.V1EnvVar(name=name, value=value) for name, value in values.items()]
        env.append(
            k8s.V1EnvVar(
                name=SESSION_KEY_ENV,
                value_from=k8s.V1EnvVarSource(
                    secret_key_ref=k8s.V1SecretKeySelector(
                        name=self.session_key_secret_name, key=SESSION_KEY_FIELD
                    )
                ),
            )
        )
        return env

    def _pod(self) -> k8s.V1Pod:
        command = get_action_execution_server_startup_command(
            self.port,
            self.plugins,
            self.config,
            # Root, so that VS Code (root too) can edit every file of the workspace.
            override_user_id=0,
            override_username="root",
            python_executable=SANDBOX_PYTHON,
        )
        ports = [k8s.V1ContainerPort(container_port=self.port, name="http")]
        if self._vscode_enabled:
            ports.append(k8s.V1ContainerPort(container_port=VSCODE_PORT, name="vscode"))
        ports += [k8s.V1ContainerPort(container_port=port) for port in APP_PORTS]
        settings = self.k8s_config
        container = k8s.V1Container(
            name=CONTAINER_NAME,
            image=self.pod_image,
            command=command,
            working_dir=CODE_DIR,
            env=self._environment(),
            ports=ports,
            volume_mounts=[
                k8s.V1VolumeMount(
                    name=WORKSPACE_VOLUME, mount_path=self.config.workspace_mount_path_in_sandbox
                )
            ],
            resources=k8s.V1ResourceRequirements(
                limits={"memory": settings.resource_memory_limit},
                requests={
                    "cpu": settings.resource_cpu_request,
                    "memory": settings.resource_memory_request,
                },
            ),
            readiness_probe=k8s.V1Probe(
                http_get=k8s.V1HTTPGetAction(path="/alive", port=self.port),
                initial_delay_seconds=5,
                period_seconds=10,
                timeout_seconds=5,
                success_threshold=1,
                failure_threshold=3,
            ),
            security_context=k8s.V1SecurityContext(privileged=settings.privileged),
        )
        spec = k8s.V1PodSpec(
            containers=[container],
            restart_policy="Never",
            volumes=[
                k8s.V1Volume(
                    name=WORKSPACE_VOLUME,
                    persistent_volume_claim=k8s.V1PersistentVolumeClaimVolumeSource(
                        claim_name=self.pvc_name
                    ),
                )
            ],
        )
        if settings.image_pull_secret:
            spec.image_pull_secrets = [k8s.V1LocalObjectReference(name=settings.image_pull_secret)]
        if settings.node_selector_key and settings.node_selector_val:
            spec.node_selector = {settings.node_selector_key: settings.node_selector_val}
        tolerations = parse_tolerations(settings.tolerations_yaml)
        if tolerations:
            spec.tolerations = tolerations
        return k8s.V1Pod(
            api_version="v1",
            kind="Pod",
            metadata=k8s.V1ObjectMeta(name=self.pod_name, labels=self.labels),
            spec=spec,
        )

    def _service(self, name: str, ports: list[k8s.V1ServicePort]) -> k8s.V1Service:
        return k8s.V1Service(
            api_version="v1",
            kind="Service",
            metadata=k8s.V1ObjectMeta(name=name, labels=self.labels),
            spec=k8s.V1ServiceSpec(type="ClusterIP", selector=self.labels, ports=ports),
        )

    def _action_service(self) -> k8s.V1Service:
        ports = [k8s.V1ServicePort(name="execution-server", port=self.port, target_port="http")]
        ports += [
            k8s.V1ServicePort(name=f"app-{port}", port=port, target_port=port) for port in APP_PORTS
        ]
        return self._service(self.service_name, ports)

    def _vscode_service(self) -> k8s.V1Service:
        return self._service(
            self.vscode_service_name,
            [k8s.V1ServicePort(name="code", port=VSCODE_PORT, target_port="vscode")],
        )

    def _ingress(self) -> k8s.V1Ingress:
        host = self.ingress_host
        spec = k8s.V1IngressSpec(
            rules=[
                k8s.V1IngressRule(
                    host=host,
                    http=k8s.V1HTTPIngressRuleValue(
                        paths=[
                            k8s.V1HTTPIngressPath(
                                path="/",
                                path_type="Prefix",
                                backend=k8s.V1IngressBackend(
                                    service=k8s.V1IngressServiceBackend(
                                        name=self.vscode_service_name,
                                        port=k8s.V1ServiceBackendPort(number=VSCODE_PORT),
                                    )
                                ),
                            )
                        ]
                    ),
                )
            ]
        )
        if self.k8s_config.ingress_tls_secret:
            spec.tls = [
                k8s.V1IngressTLS(hosts=[host], secret_name=self.k8s_config.ingress_tls_secret)
            ]
        return k8s.V1Ingress(
            api_version="networking.k8s.io/v1",
            kind="Ingress",
            metadata=k8s.V1ObjectMeta(
                name=self.ingress_name,
                labels=self.labels,
                annotations={"external-dns.alpha.kubernetes.io/hostname": host},
            ),
            spec=spec,
        )

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
