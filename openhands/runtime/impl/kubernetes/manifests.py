"""The Kubernetes objects of one kubernetes-runtime session, as manifests.

``SessionNames`` names a session's objects (and the addresses of its service) from its id
and namespace; ``SessionObjects`` adds what the manifests need and builds them: the workspace
PVC, the session key Secret, the pod of the action execution server, its two ClusterIP
services and the VS Code ingress. Nothing here talks to a cluster.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import yaml
from kubernetes import client as k8s

from openhands.core.config import KubernetesConfig
from openhands.core.logger import openhands_logger as logger

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


def pod_name(sid: str) -> str:
    return f"{POD_NAME_PREFIX}{sid}"


def session_labels(sid: str) -> dict[str, str]:
    return {"app": POD_LABEL, "session": sid}


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


@dataclass(frozen=True)
class SessionNames:
    """The names of session ``sid``'s objects in ``namespace``, and where its service is."""

    sid: str
    namespace: str

    @property
    def labels(self) -> dict[str, str]:
        return session_labels(self.sid)

    @property
    def pod(self) -> str:
        return pod_name(self.sid)

    @property
    def pvc(self) -> str:
        return f"{self.pod}-pvc"

    @property
    def service(self) -> str:
        return f"{self.pod}-svc"

    @property
    def vscode_service(self) -> str:
        return f"{self.pod}-svc-code"

    @property
    def ingress(self) -> str:
        return f"{self.pod}-ingress-code"

    @property
    def tls_secret(self) -> str:
        """A name helper of the reference; no such Secret is ever created."""
        return f"{self.pod}-tls-secret"

    @property
    def session_key_secret(self) -> str:
        return f"{self.pod}{SESSION_KEY_SECRET_SUFFIX}"

    def ingress_host(self, ingress_domain: str) -> str:
        return f"{self.sid}.{ingress_domain}"

    def service_url(self, port: int) -> str:
        """``port`` of the action service at its cluster DNS name (inside the cluster)."""
        return f"http://{self.service}.{self.namespace}.svc.cluster.local:{port}"

    def proxy_url(self, api_server: str, port: int) -> str:
        """``port`` of the action service through the API server's service proxy."""
        return (
            f"{api_server.rstrip('/')}/api/v1/namespaces/{self.namespace}/services/"
            f"{self.service}:{port}/proxy"
        )


@dataclass(frozen=True)
class SessionObjects:
    """Everything the manifests of one session depend on, and the manifests themselves."""

    names: SessionNames
    settings: KubernetesConfig
    image: str
    # The action execution server: its port and the command that starts it.
    port: int
    command: tuple[str, ...]
    workspace_mount_path: str
    # ``[sandbox] runtime_startup_env_vars``.
    startup_env: Mapping[str, str]
    # ``debug`` of the config; the env var ``DEBUG=true`` turns it on as well.
    debug: bool
    vscode_enabled: bool

    @property
    def labels(self) -> dict[str, str]:
        return self.names.labels

    @property
    def ingress_host(self) -> str:
        return self.names.ingress_host(self.settings.ingress_domain)

    def pvc(self) -> k8s.V1PersistentVolumeClaim:
        return k8s.V1PersistentVolumeClaim(
            api_version="v1",
            kind="PersistentVolumeClaim",
            metadata=k8s.V1ObjectMeta(name=self.names.pvc, labels=self.labels),
            spec=k8s.V1PersistentVolumeClaimSpec(
                access_modes=["ReadWriteOnce"],
                resources=k8s.V1VolumeResourceRequirements(
                    requests={"storage": self.settings.pvc_storage_size}
                ),
                storage_class_name=self.settings.pvc_storage_class,
            ),
        )

    def session_key_secret(self, key: str) -> k8s.V1Secret:
        return k8s.V1Secret(
            metadata=k8s.V1ObjectMeta(name=self.names.session_key_secret, labels=self.labels),
            type="Opaque",
            string_data={SESSION_KEY_FIELD: key},
        )

    def environment(self) -> list[k8s.V1EnvVar]:
        """The server's env; the session key comes from the Secret, never as a value."""
        values = {
            "port": str(self.port),
            "PYTHONUNBUFFERED": "1",
            "VSCODE_PORT": str(VSCODE_PORT),
        }
        if self.debug or os.environ.get("DEBUG", "").lower() == "true":
            values["DEBUG"] = "true"
        values.update(self.startup_env)
        values.pop(SESSION_KEY_ENV, None)
        env = [k8s.V1EnvVar(name=name, value=value) for name, value in values.items()]
        env.append(
            k8s.V1EnvVar(
                name=SESSION_KEY_ENV,
                value_from=k8s.V1EnvVarSource(
                    secret_key_ref=k8s.V1SecretKeySelector(
                        name=self.names.session_key_secret, key=SESSION_KEY_FIELD
                    )
                ),
            )
        )
        return env

    def pod(self) -> k8s.V1Pod:
        ports = [k8s.V1ContainerPort(container_port=self.port, name="http")]
        if self.vscode_enabled:
            ports.append(k8s.V1ContainerPort(container_port=VSCODE_PORT, name="vscode"))
        ports += [k8s.V1ContainerPort(container_port=port) for port in APP_PORTS]
        settings = self.settings
        container = k8s.V1Container(
            name=CONTAINER_NAME,
            image=self.image,
            command=list(self.command),
            working_dir=CODE_DIR,
            env=self.environment(),
            ports=ports,
            volume_mounts=[
                k8s.V1VolumeMount(name=WORKSPACE_VOLUME, mount_path=self.workspace_mount_path)
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
                        claim_name=self.names.pvc
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
            metadata=k8s.V1ObjectMeta(name=self.names.pod, labels=self.labels),
            spec=spec,
        )

    def _service(self, name: str, ports: list[k8s.V1ServicePort]) -> k8s.V1Service:
        return k8s.V1Service(
            api_version="v1",
            kind="Service",
            metadata=k8s.V1ObjectMeta(name=name, labels=self.labels),
            spec=k8s.V1ServiceSpec(type="ClusterIP", selector=self.labels, ports=ports),
        )

    def action_service(self) -> k8s.V1Service:
        """The action execution server and the app ports."""
        ports = [k8s.V1ServicePort(name="execution-server", port=self.port, target_port="http")]
        ports += [
            k8s.V1ServicePort(name=f"app-{port}", port=port, target_port=port) for port in APP_PORTS
        ]
        return self._service(self.names.service, ports)

    def vscode_service(self) -> k8s.V1Service:
        return self._service(
            self.names.vscode_service,
            [k8s.V1ServicePort(name="code", port=VSCODE_PORT, target_port="vscode")],
        )

    def ingress(self) -> k8s.V1Ingress:
        """VS Code at ``<sid>.<ingress_domain>``, with TLS when a secret is configured."""
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
                                        name=self.names.vscode_service,
                                        port=k8s.V1ServiceBackendPort(number=VSCODE_PORT),
                                    )
                                ),
                            )
                        ]
                    ),
                )
            ]
        )
        if self.settings.ingress_tls_secret:
            spec.tls = [
                k8s.V1IngressTLS(hosts=[host], secret_name=self.settings.ingress_tls_secret)
            ]
        return k8s.V1Ingress(
            api_version="networking.k8s.io/v1",
            kind="Ingress",
            metadata=k8s.V1ObjectMeta(
                name=self.names.ingress,
                labels=self.labels,
                annotations={"external-dns.alpha.kubernetes.io/hostname": host},
            ),
            spec=spec,
        )
