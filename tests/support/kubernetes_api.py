"""A stand-in Kubernetes API server on 127.0.0.1 whose pods are Docker containers.

It speaks just enough of the real API for KubernetesRuntime and the official ``kubernetes``
client: core/v1 pods, services, persistentvolumeclaims and secrets, and
networking.k8s.io/v1 ingresses (create, read, replace, delete, list with a label selector),
Status bodies for 401/404/409, and the service proxy
``/api/v1/namespaces/NS/services/NAME[:PORT]/proxy/...``. Every call needs
``Authorization: Bearer <token>``; ``write_kubeconfig()`` writes a kubeconfig with it.

What a real cluster does in the background, a controller thread does here:

- a new pod becomes a Docker container on the local engine (image, command and args, working
  dir, env with ``secretKeyRef`` values resolved, PVC mounts as Docker volumes, memory limit,
  privileged flag, every container port published on a random 127.0.0.1 port); its phase is
  ``Pending`` until the readiness probe's path answers, then ``Running`` with ``Ready=True``;
  a container that exits makes it ``Failed`` (or ``Succeeded``); with ``unschedulable`` set,
  new pods stay ``Pending`` (``PodScheduled=False``, ``Unschedulable``) and never start;
- a deleted pod is marked (``deletionTimestamp``), its container is stopped (grace period)
  and removed, then the object goes (``hold_terminating`` keeps such pods terminating);
- a PVC is a Docker volume; a deleted PVC goes once no pod mounts it (like the
  ``pvc-protection`` finalizer), and its volume with it.

``stop()`` removes every container and volume this instance made, even after a failure.

    with StandInKubernetes() as api:
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
"""

from __future__ import annotations

import base64
import contextlib
import copy
import http.client
import json
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import docker
import yaml
from docker.errors import APIError, DockerException, NotFound
from docker.models.containers import Container

JsonDict = dict[str, Any]

OWNER_LABEL = "openhands-k8s-stand-in"
CONTROLLER_PERIOD = 0.1  # how often the "kubelet" looks at pods, containers and PVCs
PROXY_TIMEOUT = 600.0

KINDS = {
    "pods": "Pod",
    "services": "Service",
    "persistentvolumeclaims": "PersistentVolumeClaim",
    "secrets": "Secret",
    "ingresses": "Ingress",
}
CORE_PATH = re.compile(
    r"^/api/v1/namespaces/(?P<ns>[^/]+)/(?P<resource>pods|services|persistentvolumeclaims|secrets)"
    r"(?:/(?P<name>[^/]+))?/?$"
)
NETWORKING_PATH = re.compile(
    r"^/apis/networking\.k8s\.io/v1/namespaces/(?P<ns>[^/]+)/(?P<resource>ingresses)"
    r"(?:/(?P<name>[^/]+))?/?$"
)
PROXY_PATH = re.compile(
    r"^/api/v1/namespaces/(?P<ns>[^/]+)/services/(?P<target>[^/]+)/proxy(?P<rest>/.*)?$"
)
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailers",
    "transfer-encoding",
    "upgrade",
    "content-length",
    "host",
}
_SUFFIXES = {
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
    "Ti": 1024**4,
    "k": 1000,
    "M": 1000**2,
    "G": 1000**3,
    "T": 1000**4,
}


def quantity_bytes(quantity: str) -> int:
    """A Kubernetes memory quantity (``2Gi``, ``512M``, ``1000``) in bytes."""
    for suffix in sorted(_SUFFIXES, key=len, reverse=True):
        if quantity.endswith(suffix):
            return int(float(quantity[: -len(suffix)]) * _SUFFIXES[suffix])
    return int(float(quantity))


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def status_body(code: int, reason: str, message: str, name: str = "", kind: str = "") -> JsonDict:
    body: JsonDict = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure" if code >= 400 else "Success",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if name or kind:
        body["details"] = {"name": name, "kind": kind}
    return body


def _matches(labels: dict[str, str], selector: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def _parse_selector(text: str) -> dict[str, str]:
    selector: dict[str, str] = {}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        selector[key.strip()] = value.lstrip("=").strip()
    return selector


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: JsonDict | None


@dataclass
class PodRuntime:
    """What the stand-in "kubelet" knows of a pod's container."""

    container_id: str
    host_ports: dict[int, int]  # container port -> 127.0.0.1 port
    ready: bool = False


class StandInKubernetes:
    """The API server and its controller; a context manager that starts and stops them."""

    def __init__(self, docker_client: docker.DockerClient | None = None) -> None:
        self.token = secrets.token_urlsafe(24)
        self.instance = f"k8s-standin-{secrets.token_hex(4)}"
        self._docker = docker_client
        self.requests: list[Recorded] = []  # API calls (not the proxy)
        self.proxied: list[Recorded] = []  # service-proxy calls, with their headers
        self.unschedulable = False
        # While set, deleted pods stay "Terminating" (their container keeps running).
        self.hold_terminating = False
        # resource -> (status, reason) answered to creations, e.g. {"pods": (403, "Forbidden")}
        self.refuse_create: dict[str, tuple[int, str]] = {}
        self._objects: dict[tuple[str, str, str], JsonDict] = {}
        self._pods: dict[tuple[str, str], PodRuntime] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._threads: list[threading.Thread] = []

    # --- lifecycle --------------------------------------------------------------------------

    @property
    def docker(self) -> docker.DockerClient:
        """The engine pods run on (connected on first use)."""
        if self._docker is None:
            self._docker = docker.from_env()
        return self._docker

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> StandInKubernetes:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._threads = [
            threading.Thread(target=self._server.serve_forever, daemon=True),
            threading.Thread(target=self._control, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        for thread in self._threads:
            thread.join(timeout=30)
        self.remove_leftovers()

    def remove_leftovers(self) -> None:
        """Remove every container and volume this instance made."""
        if self._docker is None:
            return
        with contextlib.suppress(DockerException):
            for container in self.docker.containers.list(
                all=True, filters={"label": f"{OWNER_LABEL}={self.instance}"}
            ):
                with contextlib.suppress(DockerException):
                    container.remove(force=True)
        with contextlib.suppress(DockerException):
            for volume in self.docker.volumes.list(
                filters={"label": f"{OWNER_LABEL}={self.instance}"}
            ):
                with contextlib.suppress(DockerException):
                    volume.remove(force=True)

    def __enter__(self) -> StandInKubernetes:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def write_kubeconfig(self, path: Path, namespace: str = "default") -> Path:
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "stand-in", "cluster": {"server": self.url}}],
            "users": [{"name": "stand-in", "user": {"token": self.token}}],
            "contexts": [
                {
                    "name": "stand-in",
                    "context": {"cluster": "stand-in", "user": "stand-in", "namespace": namespace},
                }
            ],
            "current-context": "stand-in",
        }
        path.write_text(yaml.safe_dump(config))
        return path

    # --- what tests look at -----------------------------------------------------------------

    def get(self, resource: str, namespace: str, name: str) -> JsonDict | None:
        with self._lock:
            found = self._objects.get((resource, namespace, name))
            return copy.deepcopy(found) if found is not None else None

    def names(self, resource: str, namespace: str) -> list[str]:
        with self._lock:
            return sorted(n for (r, ns, n) in self._objects if r == resource and ns == namespace)

    def creations(self) -> list[tuple[str, str]]:
        """(resource, name) of every successful-or-not create call, in order."""
        found: list[tuple[str, str]] = []
        for request in list(self.requests):
            match = CORE_PATH.match(request.path) or NETWORKING_PATH.match(request.path)
            if request.method == "POST" and match and request.body:
                found.append((match["resource"], str(request.body["metadata"]["name"])))
        return found

    def container(self, namespace: str, pod: str) -> Container | None:
        with self._lock:
            runtime = self._pods.get((namespace, pod))
        if runtime is None:
            return None
        try:
            return self.docker.containers.get(runtime.container_id)
        except NotFound:
            return None

    def volume_name(self, namespace: str, claim: str) -> str:
        return f"{self.instance}-{namespace}-{claim}"

    def volume_exists(self, namespace: str, claim: str) -> bool:
        try:
            self.docker.volumes.get(self.volume_name(namespace, claim))
        except NotFound:
            return False
        return True

    def wait_for(self, condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
        """Poll ``condition`` (the controller works in the background) until it holds."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"stand-in Kubernetes: timed out waiting for {what}")
            time.sleep(0.05)

    # --- HTTP -------------------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _reply(
                self,
                status: int,
                body: JsonDict | bytes,
                headers: list[tuple[str, str]] | None = None,
            ) -> None:
                payload = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                sent_type = False
                for name, value in headers or []:
                    sent_type = sent_type or name.lower() == "content-type"
                    self.send_header(name, value)
                if not sent_type:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _handle(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                if headers.get("authorization") != f"Bearer {api.token}":
                    self._reply(401, status_body(401, "Unauthorized", "Unauthorized"))
                    return
                proxy = PROXY_PATH.match(parts.path)
                if proxy:
                    api.proxied.append(
                        Recorded(self.command, parts.path, parse_qs(parts.query), headers, None)
                    )
                    self._reply(*api._proxy(self.command, proxy, parts.query, headers, raw))
                    return
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    self._reply(400, status_body(400, "BadRequest", "body is not JSON"))
                    return
                api.requests.append(
                    Recorded(self.command, parts.path, parse_qs(parts.query), headers, body)
                )
                match = CORE_PATH.match(parts.path) or NETWORKING_PATH.match(parts.path)
                if match is None:
                    self._reply(404, status_body(404, "NotFound", "the server could not find it"))
                    return
                status, answer = api._crud(self.command, match, parse_qs(parts.query), body)
                self._reply(status, answer)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

        return Handler

    # --- objects ----------------------------------------------------------------------------

    def _crud(
        self,
        method: str,
        match: re.Match[str],
        query: dict[str, list[str]],
        body: JsonDict | None,
    ) -> tuple[int, JsonDict]:
        resource, namespace, name = match["resource"], match["ns"], match["name"]
        kind = KINDS[resource]
        with self._lock:
            if name is None:
                if method == "GET":
                    selector = _parse_selector((query.get("labelSelector") or [""])[0])
                    items = [
                        copy.deepcopy(obj)
                        for (r, ns, _), obj in sorted(self._objects.items())
                        if r == resource
                        and ns == namespace
                        and _matches(obj["metadata"].get("labels") or {}, selector)
                    ]
                    return 200, {
                        "kind": f"{kind}List",
                        "apiVersion": _api_version(resource),
                        "metadata": {"resourceVersion": "1"},
                        "items": items,
                    }
                if method == "POST":
                    return self._create(resource, namespace, body)
                return 405, status_body(405, "MethodNotAllowed", f"{method} not allowed")
            key = (resource, namespace, name)
            existing = self._objects.get(key)
            if existing is None:
                return 404, status_body(
                    404, "NotFound", f'{resource} "{name}" not found', name, resource
                )
            if method == "GET":
                return 200, copy.deepcopy(existing)
            if method == "PUT":
                if body is None:
                    return 400, status_body(400, "BadRequest", "no body")
                replaced = self._normalise(resource, namespace, body)
                replaced["metadata"]["uid"] = existing["metadata"]["uid"]
                replaced["metadata"]["creationTimestamp"] = existing["metadata"][
                    "creationTimestamp"
                ]
                replaced["status"] = existing.get("status", {})
                self._objects[key] = replaced
                return 200, copy.deepcopy(replaced)
            if method == "DELETE":
                return self._delete(key, existing, body or {})
        return 405, status_body(405, "MethodNotAllowed", f"{method} not allowed")

    def _normalise(self, resource: str, namespace: str, body: JsonDict) -> JsonDict:
        obj = copy.deepcopy(body)
        obj["kind"] = KINDS[resource]
        obj["apiVersion"] = _api_version(resource)
        metadata = obj.setdefault("metadata", {})
        metadata["namespace"] = namespace
        metadata.setdefault("uid", str(uuid.uuid4()))
        metadata.setdefault("creationTimestamp", _now())
        metadata["resourceVersion"] = str(time.monotonic_ns())
        if resource == "secrets":
            data = dict(obj.get("data") or {})
            for field, value in (obj.pop("stringData", None) or {}).items():
                data[field] = base64.b64encode(str(value).encode()).decode()
            obj["data"] = data
        return obj

    def _create(self, resource: str, namespace: str, body: JsonDict | None) -> tuple[int, JsonDict]:
        name = str(((body or {}).get("metadata") or {}).get("name") or "")
        if body is None or not name:
            return 422, status_body(422, "Invalid", "metadata.name: Required value")
        if resource in self.refuse_create:
            code, reason = self.refuse_create[resource]
            return code, status_body(code, reason, f"{resource} is refused by the test")
        key = (resource, namespace, name)
        if key in self._objects:
            return 409, status_body(
                409, "AlreadyExists", f'{resource} "{name}" already exists', name, resource
            )
        obj = self._normalise(resource, namespace, body)
        if resource == "pods":
            obj["status"] = self._pending_status()
        elif resource == "persistentvolumeclaims":
            try:
                self.docker.volumes.create(
                    name=self.volume_name(namespace, name),
                    labels={OWNER_LABEL: self.instance},
                )
            except DockerException as e:
                return 500, status_body(500, "InternalError", f"volume: {e}")
            obj["status"] = {"phase": "Bound", "accessModes": obj["spec"].get("accessModes")}
        elif resource == "services":
            obj["spec"]["clusterIP"] = f"10.96.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
        self._objects[key] = obj
        return 201, copy.deepcopy(obj)

    def _delete(
        self, key: tuple[str, str, str], existing: JsonDict, options: JsonDict
    ) -> tuple[int, JsonDict]:
        resource, _, name = key
        if resource in ("pods", "persistentvolumeclaims"):
            # Gone later, by the controller (graceful termination / pvc-protection).
            metadata = existing["metadata"]
            if "deletionTimestamp" not in metadata:
                metadata["deletionTimestamp"] = _now()
                grace = options.get("gracePeriodSeconds")
                metadata["deletionGracePeriodSeconds"] = 30 if grace is None else int(grace)
            return 200, copy.deepcopy(existing)
        del self._objects[key]
        if resource in ("secrets", "ingresses"):
            return 200, status_body(200, "", "", name, resource)
        return 200, copy.deepcopy(existing)

    # --- the service proxy ------------------------------------------------------------------

    def _proxy(
        self,
        method: str,
        match: re.Match[str],
        query: str,
        headers: dict[str, str],
        body: bytes,
    ) -> tuple[int, JsonDict | bytes, list[tuple[str, str]]]:
        namespace = match["ns"]
        parts = match["target"].split(":")
        service_name = parts[1] if len(parts) == 3 else parts[0]
        port_ref = parts[-1] if len(parts) > 1 else ""
        with self._lock:
            service = self._objects.get(("services", namespace, service_name))
            if service is None:
                return (
                    404,
                    status_body(404, "NotFound", f'services "{service_name}" not found'),
                    [],
                )
            ports = service["spec"].get("ports") or []
            chosen = [
                p for p in ports if port_ref in (str(p.get("name") or ""), str(p.get("port")))
            ]
            if not port_ref and len(ports) == 1:
                chosen = ports
            if not chosen:
                message = f'no service port "{port_ref}" found for service "{service_name}"'
                return 503, status_body(503, "ServiceUnavailable", message), []
            target = chosen[0].get("targetPort", chosen[0]["port"])
            selector = service["spec"].get("selector") or {}
            host_port: int | None = None
            for (r, ns, pod_name), pod in sorted(self._objects.items()):
                if r != "pods" or ns != namespace or "deletionTimestamp" in pod["metadata"]:
                    continue
                runtime = self._pods.get((ns, pod_name))
                if not runtime or not runtime.ready:
                    continue
                if not _matches(pod["metadata"].get("labels") or {}, selector):
                    continue
                container_port = _container_port(pod, target)
                if container_port is not None and container_port in runtime.host_ports:
                    host_port = runtime.host_ports[container_port]
                    break
        if host_port is None:
            message = f'no endpoints available for service "{service_name}"'
            return 503, status_body(503, "ServiceUnavailable", message), []
        path = (match["rest"] or "/") + (f"?{query}" if query else "")
        forwarded = {k: v for k, v in headers.items() if k not in HOP_BY_HOP}
        forwarded.pop("authorization", None)
        forwarded["content-length"] = str(len(body))
        connection = http.client.HTTPConnection("127.0.0.1", host_port, timeout=PROXY_TIMEOUT)
        try:
            connection.request(method, path, body=body or None, headers=forwarded)
            response = connection.getresponse()
            payload = response.read()
            answer = [(k, v) for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP]
            return response.status, payload, answer
        except OSError as e:
            message = f"error trying to reach service: {e}"
            return 503, status_body(503, "ServiceUnavailable", message), []
        finally:
            connection.close()

    # --- the controller ---------------------------------------------------------------------

    def _pending_status(self, reason: str = "", message: str = "") -> JsonDict:
        scheduled: JsonDict = {"type": "PodScheduled", "status": "True"}
        if self.unschedulable:
            scheduled = {
                "type": "PodScheduled",
                "status": "False",
                "reason": "Unschedulable",
                "message": "0/1 nodes are available: the stand-in holds every pod",
            }
        status: JsonDict = {"phase": "Pending", "conditions": [scheduled]}
        if reason:
            status["containerStatuses"] = [
                {
                    "name": "runtime",
                    "image": "",
                    "imageID": "",
                    "ready": False,
                    "restartCount": 0,
                    "state": {"waiting": {"reason": reason, "message": message}},
                }
            ]
        return status

    def _control(self) -> None:
        while not self._stop.wait(CONTROLLER_PERIOD):
            try:
                self._control_once()
            except Exception as e:  # keep the "cluster" running; the test sees the state
                print(f"stand-in Kubernetes controller: {type(e).__name__}: {e}")

    def _control_once(self) -> None:
        with self._lock:
            pods = [(k, copy.deepcopy(v)) for k, v in self._objects.items() if k[0] == "pods"]
        for (_, namespace, name), pod in pods:
            runtime = self._pods.get((namespace, name))
            if "deletionTimestamp" in pod["metadata"]:
                if not self.hold_terminating:
                    self._terminate(namespace, name, pod, runtime)
                continue
            if pod["status"].get("phase") in ("Failed", "Succeeded"):
                continue
            if runtime is None:
                if not self.unschedulable and pod["status"]["conditions"][0]["status"] == "True":
                    self._start_pod(namespace, name, pod)
                continue
            self._observe(namespace, name, pod, runtime)
        with self._lock:
            claims = [
                (k, v)
                for k, v in self._objects.items()
                if k[0] == "persistentvolumeclaims" and "deletionTimestamp" in v["metadata"]
            ]
            in_use = {
                (ns, volume["persistentVolumeClaim"]["claimName"])
                for (r, ns, _), pod in self._objects.items()
                if r == "pods"
                for volume in pod["spec"].get("volumes") or []
                if volume.get("persistentVolumeClaim")
            }
        for (resource, namespace, name), _ in claims:
            if (namespace, name) in in_use:
                continue
            try:
                self.docker.volumes.get(self.volume_name(namespace, name)).remove(force=True)
            except NotFound:
                pass
            with self._lock:
                self._objects.pop((resource, namespace, name), None)

    def _set_status(self, namespace: str, name: str, status: JsonDict) -> None:
        with self._lock:
            pod = self._objects.get(("pods", namespace, name))
            if pod is not None:
                pod["status"] = status

    def _terminate(
        self, namespace: str, name: str, pod: JsonDict, runtime: PodRuntime | None
    ) -> None:
        if runtime is not None:
            grace = int(pod["metadata"].get("deletionGracePeriodSeconds") or 0)
            try:
                container = self.docker.containers.get(runtime.container_id)
                with contextlib.suppress(APIError):
                    container.stop(timeout=grace)
                container.remove(force=True)
            except NotFound:
                pass
        with self._lock:
            self._pods.pop((namespace, name), None)
            self._objects.pop(("pods", namespace, name), None)

    def _resolve_env(self, namespace: str, container: JsonDict) -> dict[str, str] | str:
        """The container's environment, or why it cannot be made yet."""
        env: dict[str, str] = {}
        for item in container.get("env") or []:
            if "value" in item:
                env[item["name"]] = str(item["value"])
                continue
            ref = (item.get("valueFrom") or {}).get("secretKeyRef")
            if ref is None:
                return f"unsupported env source for {item['name']}"
            with self._lock:
                secret = self._objects.get(("secrets", namespace, ref["name"]))
            if secret is None or ref["key"] not in (secret.get("data") or {}):
                return f'secret "{ref["name"]}" not found'
            env[item["name"]] = base64.b64decode(secret["data"][ref["key"]]).decode()
        return env

    def _start_pod(self, namespace: str, name: str, pod: JsonDict) -> None:
        spec = pod["spec"]
        container = spec["containers"][0]
        env = self._resolve_env(namespace, container)
        if isinstance(env, str):
            self._set_status(
                namespace, name, self._pending_status("CreateContainerConfigError", env)
            )
            return
        claims = {
            volume["name"]: volume["persistentVolumeClaim"]["claimName"]
            for volume in spec.get("volumes") or []
            if volume.get("persistentVolumeClaim")
        }
        volumes: dict[str, dict[str, str]] = {}
        for mount in container.get("volumeMounts") or []:
            claim = claims.get(mount["name"])
            with self._lock:
                known = claim is not None and (
                    ("persistentvolumeclaims", namespace, claim) in self._objects
                )
            if not known:
                message = f'persistentvolumeclaim "{claim}" not found'
                self._set_status(namespace, name, self._pending_status("FailedMount", message))
                return
            volumes[self.volume_name(namespace, str(claim))] = {
                "bind": mount["mountPath"],
                "mode": "ro" if mount.get("readOnly") else "rw",
            }
        ports = [int(p["containerPort"]) for p in container.get("ports") or []]
        limits = (container.get("resources") or {}).get("limits") or {}
        kwargs: dict[str, Any] = {}
        if "memory" in limits:
            kwargs["mem_limit"] = quantity_bytes(str(limits["memory"]))
        if (container.get("securityContext") or {}).get("privileged"):
            kwargs["privileged"] = True
        try:
            started = self.docker.containers.run(
                container["image"],
                entrypoint=container.get("command"),
                command=container.get("args"),
                working_dir=container.get("workingDir"),
                environment=env,
                volumes=volumes,
                ports={f"{port}/tcp": ("127.0.0.1", None) for port in ports},
                labels={OWNER_LABEL: self.instance, "k8s-pod": f"{namespace}/{name}"},
                name=f"{self.instance}-{namespace}-{name}"[:120],
                detach=True,
                **kwargs,
            )
            started.reload()
        except DockerException as e:
            self._set_status(
                namespace, name, self._pending_status("CreateContainerError", str(e)[:300])
            )
            return
        mapping = started.attrs["NetworkSettings"]["Ports"] or {}
        host_ports = {
            int(spec_port.split("/")[0]): int(bindings[0]["HostPort"])
            for spec_port, bindings in mapping.items()
            if bindings
        }
        with self._lock:
            self._pods[(namespace, name)] = PodRuntime(str(started.id), host_ports)
            # Deleted while we started it: the next round terminates it.

    def _observe(self, namespace: str, name: str, pod: JsonDict, runtime: PodRuntime) -> None:
        container_spec = pod["spec"]["containers"][0]
        try:
            container = self.docker.containers.get(runtime.container_id)
        except NotFound:
            container = None
        state = container.attrs["State"] if container is not None else {"Status": "removed"}
        base: JsonDict = {
            "name": container_spec["name"],
            "image": container_spec["image"],
            "imageID": container.attrs["Image"] if container is not None else "",
            "restartCount": 0,
        }
        if state.get("Status") != "running":
            code = int(state.get("ExitCode") or 0) if container is not None else 137
            phase = "Succeeded" if code == 0 else "Failed"
            runtime.ready = False
            self._set_status(
                namespace,
                name,
                {
                    "phase": phase,
                    "conditions": [
                        {"type": "PodScheduled", "status": "True"},
                        {"type": "Ready", "status": "False", "reason": "PodCompleted"},
                    ],
                    "containerStatuses": [
                        {
                            **base,
                            "ready": False,
                            "state": {
                                "terminated": {
                                    "exitCode": code,
                                    "reason": "Completed" if code == 0 else "Error",
                                }
                            },
                        }
                    ],
                },
            )
            return
        if not runtime.ready:
            runtime.ready = self._probe(pod, runtime)
        phase = "Running" if runtime.ready else "Pending"
        ready = "True" if runtime.ready else "False"
        self._set_status(
            namespace,
            name,
            {
                "phase": phase,
                "hostIP": "127.0.0.1",
                "podIP": container.attrs["NetworkSettings"].get("IPAddress") or "",
                "startTime": state.get("StartedAt", "")[:19] + "Z",
                "conditions": [
                    {"type": "PodScheduled", "status": "True"},
                    {"type": "Initialized", "status": "True"},
                    {"type": "ContainersReady", "status": ready},
                    {"type": "Ready", "status": ready},
                ],
                "containerStatuses": [
                    {
                        **base,
                        "ready": runtime.ready,
                        "started": True,
                        "state": {"running": {"startedAt": state.get("StartedAt", "")[:19] + "Z"}},
                    }
                ],
            },
        )

    def _probe(self, pod: JsonDict, runtime: PodRuntime) -> bool:
        probe = ((pod["spec"]["containers"][0].get("readinessProbe") or {}).get("httpGet")) or {}
        if not probe:
            return True  # no probe: ready once running
        port = _container_port(pod, probe.get("port"))
        if port is None or port not in runtime.host_ports:
            return False
        connection = http.client.HTTPConnection("127.0.0.1", runtime.host_ports[port], timeout=1)
        try:
            connection.request("GET", probe.get("path") or "/")
            return 200 <= connection.getresponse().status < 400
        except OSError:
            return False
        finally:
            connection.close()


def _api_version(resource: str) -> str:
    return "networking.k8s.io/v1" if resource == "ingresses" else "v1"


def _container_port(pod: JsonDict, target: object) -> int | None:
    """A port number, or a named port of the pod's containers, as a number."""
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    for container in pod["spec"].get("containers") or []:
        for port in container.get("ports") or []:
            if port.get("name") == target:
                return int(port["containerPort"])
    return None
