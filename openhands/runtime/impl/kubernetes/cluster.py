"""Cluster access for the kubernetes runtime: credentials, API clients and clean-up.

``ClusterAccess`` loads in-cluster credentials (a pod's service account) or else the
kubeconfig, holds the API objects made from them, and deletes a session's objects. The httpx
helpers carry the same credentials (bearer token, client certificate, CA bundle) on requests
that reach the action server through the API server's service proxy.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Generator

import httpx
import urllib3
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from openhands.core.exceptions import AgentRuntimeError
from openhands.core.logger import openhands_logger as logger
from openhands.runtime.impl.kubernetes.manifests import SessionNames

# Seconds a deleted pod gets to stop its server before it is killed.
DELETE_GRACE_SECONDS = 5


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


class ApiServerAuth(httpx.Auth):
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


def api_server_tls(configuration: k8s.Configuration) -> ssl.SSLContext:
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
        names = SessionNames(sid=sid, namespace=namespace)
        deletions: list[tuple[str, Callable[[], object]]] = [
            (
                f"pod {names.pod}",
                lambda: self.core.delete_namespaced_pod(
                    names.pod,
                    namespace,
                    body=k8s.V1DeleteOptions(grace_period_seconds=DELETE_GRACE_SECONDS),
                ),
            ),
            (
                f"service {names.service}",
                lambda: self.core.delete_namespaced_service(names.service, namespace),
            ),
            (
                f"service {names.vscode_service}",
                lambda: self.core.delete_namespaced_service(names.vscode_service, namespace),
            ),
            (
                f"ingress {names.ingress}",
                lambda: self.networking.delete_namespaced_ingress(names.ingress, namespace),
            ),
            (
                f"secret {names.session_key_secret}",
                lambda: self.core.delete_namespaced_secret(names.session_key_secret, namespace),
            ),
        ]
        if remove_pvc:
            deletions.append(
                (
                    f"persistent volume claim {names.pvc}",
                    lambda: self.core.delete_namespaced_persistent_volume_claim(
                        names.pvc, namespace
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
