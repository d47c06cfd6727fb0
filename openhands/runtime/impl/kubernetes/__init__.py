"""The kubernetes runtime: sandboxes as pods, services and volumes of a Kubernetes cluster."""

from openhands.runtime.impl.kubernetes.kubernetes_runtime import KubernetesRuntime

__all__ = ["KubernetesRuntime"]
