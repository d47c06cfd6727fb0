"""Pods, volumes and ingress of the Kubernetes runtime (`[kubernetes]`)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class KubernetesConfig(BaseModel):
    """The ``[kubernetes]`` section (remote-runtime.md §11.2); unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    namespace: str = Field(default="default", description="Namespace of the runtime pods.")
    ingress_domain: str = Field(default="localhost", description="Domain of the ingress hosts.")
    pvc_storage_size: str = Field(default="2Gi", description="Workspace volume size.")
    pvc_storage_class: str | None = Field(default=None, description="Workspace storage class.")
    resource_cpu_request: str = Field(default="1", description="CPU request of a pod.")
    resource_memory_request: str = Field(default="1Gi", description="Memory request of a pod.")
    resource_memory_limit: str = Field(default="2Gi", description="Memory limit of a pod.")
    image_pull_secret: str | None = Field(
        default=None, description="Name of the secret used to pull the runtime image."
    )
    ingress_tls_secret: str | None = Field(
        default=None, description="Name of the TLS secret of the ingress."
    )
    node_selector_key: str | None = Field(default=None, description="Node selector label.")
    node_selector_val: str | None = Field(default=None, description="Node selector value.")
    tolerations_yaml: str | None = Field(
        default=None,
        description="Pod tolerations: a YAML list of toleration objects (anything else is "
        "logged and ignored when the pod is made).",
    )
    privileged: bool = Field(default=False, description="Run the runtime pod privileged.")

    @classmethod
    def from_toml_section(cls, data: Mapping[str, object]) -> dict[str, KubernetesConfig]:
        """``{"kubernetes": <the section>}``; a bad section raises ``ValueError``."""
        try:
            return {"kubernetes": cls.model_validate(dict(data))}
        except ValidationError as exc:
            raise ValueError(f"Invalid kubernetes configuration: {exc}") from exc
