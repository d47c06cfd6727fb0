"""KubernetesRuntime (remote-runtime.md §11, checklist items 15-18) against a stand-in cluster.

No Kubernetes runs here, so ``tests/support/kubernetes_api.py`` stands in for the API server:
the official ``kubernetes`` client talks real HTTP to it, with a kubeconfig and a bearer
token, and its pods are real Docker containers of the sandbox image. The runtime finds no
in-cluster credentials, falls back to the kubeconfig and reaches the action server through
the API server's service proxy, as it does from outside a real cluster.

The first tests need neither Docker nor the stand-in (config, names, URLs).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import secrets
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from kubernetes import client as k8s

from openhands.core.config import KubernetesConfig, OpenHandsConfig
from openhands.core.exceptions import (
    AgentRuntimeDisconnectedError,
    AgentRuntimeError,
    AgentRuntimeNotFoundError,
)
from openhands.events.action import CmdRunAction, FileReadAction, FileWriteAction
from openhands.events.observation import (
    CmdOutputObservation,
    FileReadObservation,
    FileWriteObservation,
)
from openhands.events.stream import EventStream
from openhands.runtime import get_runtime_cls
from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.impl.kubernetes.kubernetes_runtime import (
    POD_LABEL,
    POD_NAME_PREFIX,
    ClusterAccess,
    KubernetesRuntime,
    parse_tolerations,
)
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.utils.runtime_build import build_runtime_image
from openhands.storage.memory import InMemoryFileStore
from openhands.utils import shutdown_listener
from tests.runtime.conformance import require_docker
from tests.support.kubernetes_api import StandInKubernetes, quantity_bytes

pytestmark = pytest.mark.timeout(600)

NAMESPACE = "oh-test"
DOMAIN = "sandboxes.example.test"
TOLERATIONS = "- key: dedicated\n  operator: Equal\n  value: sandboxes\n  effect: NoSchedule\n"


def _config(image: str = "no-such-image:latest", **kubernetes: Any) -> OpenHandsConfig:
    config = OpenHandsConfig()
    config.enable_browser = False
    config.sandbox.runtime_container_image = image
    config.sandbox.runtime_startup_env_vars = {"STARTUP_VAR": "from-startup"}
    settings: dict[str, Any] = {
        "namespace": NAMESPACE,
        "ingress_domain": DOMAIN,
        "pvc_storage_size": "1Gi",
        "resource_cpu_request": "500m",
        "resource_memory_request": "512Mi",
        "resource_memory_limit": "3Gi",
    }
    settings.update(kubernetes)
    config.kubernetes = KubernetesConfig(**settings)
    return config


class Statuses(list[RuntimeStatus]):
    def __call__(self, level: str, status: RuntimeStatus, message: str) -> None:
        self.append(status)


def _runtime(
    config: OpenHandsConfig, sid: str, statuses: Statuses | None = None, **kwargs: Any
) -> KubernetesRuntime:
    cls = get_runtime_cls("kubernetes")
    assert cls is KubernetesRuntime
    runtime = cls(
        config,
        EventStream(sid, InMemoryFileStore()),
        sid=sid,
        plugins=[],
        headless_mode=True,
        status_callback=statuses,
        **kwargs,
    )
    assert isinstance(runtime, KubernetesRuntime)
    runtime.ready_poll_seconds = 0.2
    return runtime


def _sid() -> str:
    return f"k8s-{secrets.token_hex(4)}"


# --- without a cluster ---------------------------------------------------------------------------


def test_from_toml_section() -> None:
    section = KubernetesConfig.from_toml_section(
        {"namespace": "oh", "pvc_storage_class": "fast", "privileged": True}
    )
    assert list(section) == ["kubernetes"]
    assert section["kubernetes"].namespace == "oh"
    assert section["kubernetes"].pvc_storage_class == "fast"
    assert section["kubernetes"].privileged is True
    assert section["kubernetes"].resource_memory_limit == "2Gi"
    with pytest.raises(ValueError) as refused:
        KubernetesConfig.from_toml_section({"bad_key": 1})
    assert str(refused.value).startswith("Invalid kubernetes configuration")
    with pytest.raises(ValueError, match="Invalid kubernetes configuration"):
        KubernetesConfig.from_toml_section({"privileged": "sometimes"})


def test_tolerations_yaml(caplog: pytest.LogCaptureFixture) -> None:
    tolerations = parse_tolerations(TOLERATIONS + "- key: gpu\n  operator: Exists\n")
    assert tolerations == [
        k8s.V1Toleration(key="dedicated", operator="Equal", value="sandboxes", effect="NoSchedule"),
        k8s.V1Toleration(key="gpu", operator="Exists"),
    ]
    assert parse_tolerations(None) is None
    assert parse_tolerations("") is None
    with caplog.at_level(logging.ERROR, logger="openhands"):
        assert parse_tolerations("key: dedicated\noperator: Exists\n") is None  # not a list
        assert parse_tolerations("- key: [unclosed\n") is None  # not YAML
        assert parse_tolerations("- just a string\n") is None
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 3
    assert all(message.startswith("Ignoring tolerations_yaml") for message in errors)


def test_missing_kubernetes_section_is_refused() -> None:
    config = _config().model_copy(update={"kubernetes": None})
    with pytest.raises(ValueError, match=r"Kubernetes configuration is required.*\[kubernetes\]"):
        get_runtime_cls("kubernetes")(config, EventStream("nok8s", InMemoryFileStore()))


def test_no_cluster_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing-kubeconfig"))
    with pytest.raises(AgentRuntimeError, match="No Kubernetes cluster to use"):
        _runtime(_config(), _sid())


def test_in_cluster_names_and_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a cluster the action server is the service's DNS name; VS Code is the ingress."""
    configuration = k8s.Configuration(host="https://10.0.0.1:443")
    monkeypatch.setattr(
        ClusterAccess, "load", classmethod(lambda cls: cls(configuration, in_cluster=True))
    )
    sid = _sid()
    config = _config(ingress_tls_secret="wildcard-tls")
    config.sandbox.enable_vscode = True
    runtime = KubernetesRuntime(
        config, EventStream(sid, InMemoryFileStore()), sid=sid, plugins=["vscode"]
    )
    try:
        dns = f"{POD_NAME_PREFIX}{sid}-svc.{NAMESPACE}.svc.cluster.local"
        assert runtime.action_execution_server_url == f"http://{dns}:8080"
        assert runtime.web_hosts == {f"http://{dns}:30082": 30082, f"http://{dns}:30083": 30083}
        assert runtime.tls_secret_name == f"{POD_NAME_PREFIX}{sid}-tls-secret"
        monkeypatch.setattr(runtime, "get_vscode_token", lambda: "tok")
        assert runtime.vscode_url == f"https://{sid}.{DOMAIN}/?tkn=tok&folder=/workspace"
        monkeypatch.setattr(runtime, "get_vscode_token", lambda: None)
        assert runtime.vscode_url is None
        pod = runtime._pod()
        assert pod.spec is not None
        ports = [(p.container_port, p.name) for p in pod.spec.containers[0].ports or []]
        assert ports == [(8080, "http"), (8081, "vscode"), (30082, None), (30083, None)]
    finally:
        runtime.close()


# --- against the stand-in cluster ------------------------------------------------------------------


@pytest.fixture(scope="module")
def runtime_image() -> str:
    require_docker()
    return build_runtime_image(DEFAULT_BASE_IMAGE, DockerRuntimeBuilder(), enable_browser=False)


@pytest.fixture(scope="module")
def cluster() -> Iterator[StandInKubernetes]:
    require_docker()
    with StandInKubernetes() as api:
        yield api


@pytest.fixture
def kubeconfig(cluster: StandInKubernetes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Outside a cluster: the runtime must fall back from in-cluster to this kubeconfig."""
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    path = cluster.write_kubeconfig(tmp_path / "kubeconfig", namespace=NAMESPACE)
    monkeypatch.setenv("KUBECONFIG", str(path))
    return path


def _sh(runtime: KubernetesRuntime, command: str) -> CmdOutputObservation:
    action = CmdRunAction(command)
    action.set_hard_timeout(60)
    observation = runtime.run_action(action)
    assert isinstance(observation, CmdOutputObservation), observation
    return observation


def _names(sid: str) -> dict[str, str]:
    pod = f"{POD_NAME_PREFIX}{sid}"
    return {
        "pod": pod,
        "pvc": f"{pod}-pvc",
        "svc": f"{pod}-svc",
        "code": f"{pod}-svc-code",
        "ingress": f"{pod}-ingress-code",
        "secret": f"{pod}-session-key",
    }


def _created(cluster: StandInKubernetes, sid: str, since: int = 0) -> list[tuple[str, str]]:
    return [(r, n) for r, n in cluster.creations()[since:] if sid in n]


def _session_objects_gone(cluster: StandInKubernetes, sid: str, with_pvc: bool) -> bool:
    names = _names(sid)
    kinds = [
        ("pods", names["pod"]),
        ("services", names["svc"]),
        ("services", names["code"]),
        ("ingresses", names["ingress"]),
        ("secrets", names["secret"]),
    ]
    if with_pvc:
        kinds.append(("persistentvolumeclaims", names["pvc"]))
    return all(cluster.get(kind, NAMESPACE, name) is None for kind, name in kinds)


@pytest.mark.docker
def test_the_api_wants_its_token(cluster: StandInKubernetes) -> None:
    pods = f"{cluster.url}/api/v1/namespaces/{NAMESPACE}/pods"
    refused = httpx.get(pods)
    assert refused.status_code == 401
    assert refused.json()["kind"] == "Status"
    assert refused.json()["reason"] == "Unauthorized"
    listed = httpx.get(pods, headers={"Authorization": f"Bearer {cluster.token}"})
    assert listed.status_code == 200
    assert listed.json()["kind"] == "PodList"
    missing = httpx.get(f"{pods}/nobody", headers={"Authorization": f"Bearer {cluster.token}"})
    assert missing.status_code == 404
    assert missing.json()["reason"] == "NotFound"


@pytest.mark.docker
def test_start_run_close_restart_and_delete(
    cluster: StandInKubernetes, kubeconfig: Path, runtime_image: str
) -> None:
    sid = _sid()
    names = _names(sid)
    config = _config(
        runtime_image,
        pvc_storage_class="standard",
        image_pull_secret="registry-credentials",
        ingress_tls_secret="wildcard-tls",
        node_selector_key="pool",
        node_selector_val="sandboxes",
        tolerations_yaml=TOLERATIONS,
    )
    statuses = Statuses()
    runtime = _runtime(config, sid, statuses)
    second: KubernetesRuntime | None = None
    try:
        asyncio.run(runtime.connect())
        assert statuses[0] == RuntimeStatus.STARTING_RUNTIME
        assert statuses[-1] == RuntimeStatus.READY
        # Outside a cluster: through the API server's service proxy.
        assert runtime.action_execution_server_url == (
            f"{cluster.url}/api/v1/namespaces/{NAMESPACE}/services/{names['svc']}:8080/proxy"
        )

        # Objects, in order (item 15; the Secret is ours, before the pod that reads it).
        assert _created(cluster, sid) == [
            ("persistentvolumeclaims", names["pvc"]),
            ("secrets", names["secret"]),
            ("pods", names["pod"]),
            ("services", names["svc"]),
            ("services", names["code"]),
            ("ingresses", names["ingress"]),
        ]
        labels = {"app": POD_LABEL, "session": sid}
        pod = cluster.get("pods", NAMESPACE, names["pod"])
        assert pod is not None
        assert pod["metadata"]["labels"] == labels
        spec = pod["spec"]
        assert spec["restartPolicy"] == "Never"
        assert spec["imagePullSecrets"] == [{"name": "registry-credentials"}]
        assert spec["nodeSelector"] == {"pool": "sandboxes"}
        assert spec["tolerations"] == [
            {"key": "dedicated", "operator": "Equal", "value": "sandboxes", "effect": "NoSchedule"}
        ]
        assert spec["volumes"] == [
            {"name": "workspace-volume", "persistentVolumeClaim": {"claimName": names["pvc"]}}
        ]
        [container] = spec["containers"]
        assert container["name"] == "runtime"
        assert container["image"] == runtime_image
        assert container["workingDir"] == "/openhands/code/"
        command = container["command"]
        module = command.index("openhands.runtime.action_execution_server")
        assert command[module - 1] == "-m"
        assert command[module + 1 :] == [
            "8080",
            "--working-dir",
            "/workspace",
            "--username",
            "root",
            "--user-id",
            "0",
            "--no-enable-browser",
        ]
        env = {e["name"]: e for e in container["env"]}
        assert env["port"]["value"] == "8080"
        assert env["PYTHONUNBUFFERED"]["value"] == "1"
        assert env["VSCODE_PORT"]["value"] == "8081"
        assert env["STARTUP_VAR"]["value"] == "from-startup"
        assert env["SESSION_API_KEY"] == {
            "name": "SESSION_API_KEY",
            "valueFrom": {"secretKeyRef": {"name": names["secret"], "key": "session-api-key"}},
        }
        assert container["ports"] == [
            {"containerPort": 8080, "name": "http"},
            {"containerPort": 30082},
            {"containerPort": 30083},
        ]
        assert container["volumeMounts"] == [
            {"name": "workspace-volume", "mountPath": "/workspace"}
        ]
        assert container["resources"] == {
            "limits": {"memory": "3Gi"},
            "requests": {"cpu": "500m", "memory": "512Mi"},
        }
        assert container["readinessProbe"] == {
            "httpGet": {"path": "/alive", "port": 8080},
            "initialDelaySeconds": 5,
            "periodSeconds": 10,
            "timeoutSeconds": 5,
            "successThreshold": 1,
            "failureThreshold": 3,
        }
        assert container["securityContext"] == {"privileged": False}
        assert pod["status"]["phase"] == "Running"

        service = cluster.get("services", NAMESPACE, names["svc"])
        assert service is not None and service["metadata"]["labels"] == labels
        assert service["spec"]["type"] == "ClusterIP"
        assert service["spec"]["selector"] == labels
        assert service["spec"]["ports"] == [
            {"name": "execution-server", "port": 8080, "targetPort": "http"},
            {"name": "app-30082", "port": 30082, "targetPort": 30082},
            {"name": "app-30083", "port": 30083, "targetPort": 30083},
        ]
        code = cluster.get("services", NAMESPACE, names["code"])
        assert code is not None and code["spec"]["selector"] == labels
        assert code["spec"]["ports"] == [{"name": "code", "port": 8081, "targetPort": "vscode"}]
        ingress = cluster.get("ingresses", NAMESPACE, names["ingress"])
        assert ingress is not None
        host = f"{sid}.{DOMAIN}"
        assert ingress["metadata"]["annotations"] == {
            "external-dns.alpha.kubernetes.io/hostname": host
        }
        assert ingress["spec"]["rules"] == [
            {
                "host": host,
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {
                                "service": {"name": names["code"], "port": {"number": 8081}}
                            },
                        }
                    ]
                },
            }
        ]
        assert ingress["spec"]["tls"] == [{"hosts": [host], "secretName": "wildcard-tls"}]
        claim = cluster.get("persistentvolumeclaims", NAMESPACE, names["pvc"])
        assert claim is not None and claim["metadata"]["labels"] == labels
        assert claim["spec"] == {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "storageClassName": "standard",
        }

        # The session key: only in the Secret (and so in the container's env), nowhere else.
        key = runtime.session_api_key
        assert key
        for kind, name in [
            ("pods", names["pod"]),
            ("services", names["svc"]),
            ("services", names["code"]),
            ("ingresses", names["ingress"]),
            ("persistentvolumeclaims", names["pvc"]),
        ]:
            obj = cluster.get(kind, NAMESPACE, name)
            assert obj is not None
            assert key not in json.dumps(obj), f"session key in {kind}/{name}"
        secret = cluster.get("secrets", NAMESPACE, names["secret"])
        assert secret is not None and secret["metadata"]["labels"] == labels
        assert key not in json.dumps(secret["metadata"])
        assert base64.b64decode(secret["data"]["session-api-key"]).decode() == key
        docker_container = cluster.container(NAMESPACE, names["pod"])
        assert docker_container is not None
        assert f"SESSION_API_KEY={key}" in docker_container.attrs["Config"]["Env"]
        assert docker_container.attrs["HostConfig"]["Memory"] == quantity_bytes("3Gi")
        mounts = {m["Destination"]: m["Name"] for m in docker_container.attrs["Mounts"]}
        assert mounts["/workspace"] == cluster.volume_name(NAMESPACE, names["pvc"])
        bindings = docker_container.attrs["NetworkSettings"]["Ports"]["8080/tcp"]
        assert {b["HostIp"] for b in bindings} == {"127.0.0.1"}

        # Actions, through the proxy, with the API server's token and the session key.
        before = len(cluster.proxied)
        hi = _sh(runtime, "echo hi")
        assert hi.exit_code == 0
        assert hi.content.strip() == "hi"
        written = runtime.run_action(FileWriteAction(path="/workspace/note.txt", content="kept"))
        assert isinstance(written, FileWriteObservation), written
        read = runtime.run_action(FileReadAction(path="/workspace/note.txt"))
        assert isinstance(read, FileReadObservation), read
        assert read.content.strip() == "kept"
        calls = cluster.proxied[before:]
        assert any(c.path.endswith("/proxy/execute_action") for c in calls)
        assert all(c.headers.get("x-session-api-key") == key for c in calls)
        assert all(c.headers.get("authorization") == f"Bearer {cluster.token}" for c in calls)
        assert runtime.vscode_url is None  # no vscode plugin
        dns = f"{names['svc']}.{NAMESPACE}.svc.cluster.local"
        assert runtime.web_hosts == {f"http://{dns}:30082": 30082, f"http://{dns}:30083": 30083}

        # close(): pod, services, ingress and key go; the PVC (the workspace) stays (item 17).
        # The pod terminates gracefully; held here to see the next start wait for it.
        cluster.hold_terminating = True
        runtime.close()
        terminating = cluster.get("pods", NAMESPACE, names["pod"])
        assert terminating is not None and "deletionTimestamp" in terminating["metadata"]
        assert cluster.get("services", NAMESPACE, names["svc"]) is None
        assert cluster.get("services", NAMESPACE, names["code"]) is None
        assert cluster.get("ingresses", NAMESPACE, names["ingress"]) is None
        assert cluster.get("secrets", NAMESPACE, names["secret"]) is None
        assert cluster.get("persistentvolumeclaims", NAMESPACE, names["pvc"]) is not None

        # The conversation again, at once: the new runtime waits until the old pod is gone,
        # then makes a new one on the same PVC (which is not made again).
        since = len(cluster.creations())
        pod_path = f"/api/v1/namespaces/{NAMESPACE}/pods/{names['pod']}"
        reads_before = len(cluster.requests)
        second = _runtime(config, sid)
        with ThreadPoolExecutor(max_workers=1) as pool:
            connecting = pool.submit(asyncio.run, second.connect())
            cluster.wait_for(
                lambda: (
                    sum(
                        1
                        for r in cluster.requests[reads_before:]
                        if r.method == "GET" and r.path == pod_path
                    )
                    >= 2
                ),
                "the new runtime to wait for the terminating pod",
            )
            assert _created(cluster, sid, since) == []
            cluster.hold_terminating = False
            connecting.result(timeout=300)
        assert cluster.container(NAMESPACE, names["pod"]) is not None
        assert docker_container.id not in [c.id for c in cluster.docker.containers.list(all=True)]
        assert ("persistentvolumeclaims", names["pvc"]) not in _created(cluster, sid, since)
        assert ("pods", names["pod"]) in _created(cluster, sid, since)
        assert second.session_api_key and second.session_api_key != key
        again = second.run_action(FileReadAction(path="/workspace/note.txt"))
        assert isinstance(again, FileReadObservation), again
        assert again.content.strip() == "kept"
        second.close()
        cluster.wait_for(lambda: _session_objects_gone(cluster, sid, with_pvc=False), "close")
        assert cluster.get("persistentvolumeclaims", NAMESPACE, names["pvc"]) is not None
        assert cluster.volume_exists(NAMESPACE, names["pvc"])
        assert cluster.container(NAMESPACE, names["pod"]) is None

        # Deleting the conversation deletes its PVC and so its volume.
        asyncio.run(KubernetesRuntime.delete(sid))
        cluster.wait_for(lambda: _session_objects_gone(cluster, sid, with_pvc=True), "delete")
        cluster.wait_for(lambda: not cluster.volume_exists(NAMESPACE, names["pvc"]), "volume")
    finally:
        cluster.hold_terminating = False
        runtime.close()
        if second is not None:
            second.close()


@pytest.mark.docker
def test_keep_alive_attach_and_the_shutdown_listener(
    cluster: StandInKubernetes, kubeconfig: Path, runtime_image: str
) -> None:
    sid = _sid()
    names = _names(sid)
    kept_config = _config(runtime_image)
    kept_config.sandbox.keep_runtime_alive = True
    runtimes: list[KubernetesRuntime] = []
    try:
        kept = _runtime(kept_config, sid)
        runtimes.append(kept)
        listener = KubernetesRuntime._shutdown_listener_id
        assert listener is not None
        asyncio.run(kept.connect())
        key = kept.session_api_key
        kept.close()  # kept alive: nothing is deleted
        assert cluster.get("pods", NAMESPACE, names["pod"]) is not None
        assert cluster.get("services", NAMESPACE, names["svc"]) is not None
        assert cluster.get("ingresses", NAMESPACE, names["ingress"]) is not None

        # Attaching finds the pod and its key; it creates and deletes nothing.
        since = len(cluster.creations())
        attached = _runtime(_config(runtime_image), sid, attach_to_existing=True)
        runtimes.append(attached)
        asyncio.run(attached.connect())
        assert attached.session_api_key == key
        assert _sh(attached, "echo attached").content.strip() == "attached"
        attached.close()
        assert cluster.get("pods", NAMESPACE, names["pod"]) is not None
        assert cluster.get("secrets", NAMESPACE, names["secret"]) is not None

        # A plain start of the same session reuses the running pod.
        statuses = Statuses()
        owner = _runtime(_config(runtime_image), sid, statuses)
        runtimes.append(owner)
        asyncio.run(owner.connect())
        assert _created(cluster, sid, since) == []
        assert owner.session_api_key == key
        assert statuses[-1] == RuntimeStatus.READY

        # One shutdown listener per process; on shutdown it deletes everything, PVC too.
        assert KubernetesRuntime._shutdown_listener_id == listener
        registered = [
            callback
            for callback in shutdown_listener._listeners.values()
            if callback == KubernetesRuntime._delete_live_sessions
        ]
        assert len(registered) == 1
        registered[0]()
        cluster.wait_for(lambda: _session_objects_gone(cluster, sid, with_pvc=True), "shutdown")
        cluster.wait_for(lambda: not cluster.volume_exists(NAMESPACE, names["pvc"]), "volume")
        owner.close()
    finally:
        for runtime in runtimes:
            runtime.close()
        asyncio.run(KubernetesRuntime.delete(sid))


@pytest.mark.docker
def test_a_crashed_pod_is_reported_and_replaced(
    cluster: StandInKubernetes, kubeconfig: Path, runtime_image: str
) -> None:
    sid = _sid()
    names = _names(sid)
    runtimes: list[KubernetesRuntime] = []
    try:
        first = _runtime(_config(runtime_image), sid)
        runtimes.append(first)
        asyncio.run(first.connect())
        container = cluster.container(NAMESPACE, names["pod"])
        assert container is not None
        container.kill()
        cluster.wait_for(
            lambda: (
                (cluster.get("pods", NAMESPACE, names["pod"]) or {}).get("status", {}).get("phase")
                == "Failed"
            ),
            "the pod to fail",
        )
        # Through the proxy the dead pod is a 503; the runtime says why.
        with pytest.raises(AgentRuntimeDisconnectedError, match="has stopped"):
            _sh(first, "echo never")

        # Attaching to an ended pod fails at once; a plain start replaces it.
        attached = _runtime(_config(runtime_image), sid, attach_to_existing=True)
        runtimes.append(attached)
        with pytest.raises(AgentRuntimeDisconnectedError, match="has ended"):
            asyncio.run(attached.connect())
        since = len(cluster.creations())
        replacement = _runtime(_config(runtime_image), sid)
        runtimes.append(replacement)
        asyncio.run(replacement.connect())
        assert ("pods", names["pod"]) in _created(cluster, sid, since)
        assert _sh(replacement, "echo back").content.strip() == "back"
    finally:
        for runtime in reversed(runtimes):
            runtime.close()
        asyncio.run(KubernetesRuntime.delete(sid))
    cluster.wait_for(lambda: _session_objects_gone(cluster, sid, with_pvc=True), "clean-up")


@pytest.mark.docker
def test_attach_to_a_missing_pod(cluster: StandInKubernetes, kubeconfig: Path) -> None:
    sid = _sid()
    statuses = Statuses()
    runtime = _runtime(_config(), sid, statuses, attach_to_existing=True)
    try:
        with pytest.raises(AgentRuntimeDisconnectedError, match="404"):
            asyncio.run(runtime.connect())
        assert statuses[-1] == RuntimeStatus.ERROR_RUNTIME_DISCONNECTED
        assert _created(cluster, sid) == []
    finally:
        runtime.close()


@pytest.mark.docker
def test_a_pod_that_never_becomes_ready(cluster: StandInKubernetes, kubeconfig: Path) -> None:
    sid = _sid()
    statuses = Statuses()
    cluster.unschedulable = True
    runtime = _runtime(_config(), sid, statuses)
    runtime.ready_timeout_seconds = 1.0
    runtime.ready_poll_seconds = 0.1
    try:
        with pytest.raises(AgentRuntimeDisconnectedError) as failed:
            asyncio.run(runtime.connect())
        assert str(failed.value).startswith("Failed to connect to runtime: ")
        assert "Unschedulable" in str(failed.value)
        assert statuses[-1] == RuntimeStatus.ERROR_RUNTIME_DISCONNECTED
        pod = cluster.get("pods", NAMESPACE, _names(sid)["pod"])
        assert pod is not None and pod["status"]["phase"] == "Pending"
    finally:
        cluster.unschedulable = False
        runtime.close()
        asyncio.run(KubernetesRuntime.delete(sid))
    cluster.wait_for(lambda: _session_objects_gone(cluster, sid, with_pvc=True), "clean-up")


@pytest.mark.docker
def test_refused_creation(cluster: StandInKubernetes, kubeconfig: Path) -> None:
    sid = _sid()
    cluster.refuse_create["pods"] = (403, "Forbidden")
    runtime = _runtime(_config(), sid)
    try:
        with pytest.raises(AgentRuntimeNotFoundError) as failed:
            asyncio.run(runtime.connect())
        assert str(failed.value).startswith("Failed to initialize kubernetes resources: ")
        assert "403" in str(failed.value)
        created = [kind for kind, _ in _created(cluster, sid)]
        assert created == ["persistentvolumeclaims", "secrets", "pods"]
    finally:
        cluster.refuse_create.clear()
        runtime.close()
        asyncio.run(KubernetesRuntime.delete(sid))
    cluster.wait_for(lambda: _session_objects_gone(cluster, sid, with_pvc=True), "clean-up")


def test_the_client_is_imported_only_with_the_runtime() -> None:
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, openhands.runtime, openhands.core.config; "
            "print('kubernetes' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert probe.stdout.strip() == "False"
