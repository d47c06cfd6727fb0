"""The sandbox the agent's actions run in (`[sandbox]`, env `SANDBOX_<KEY>`)."""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from openhands.core.config.config_utils import Secret

DEFAULT_BASE_CONTAINER_IMAGE = "nikolaik/python-nodejs:python3.12-nodejs22"


def _host_uid() -> int:
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else 1000


class SandboxConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # --- remote runtime only
    # Optional as in the reference: harnesses pass ``os.environ.get(...)`` straight in; the
    # remote runtime refuses to start without one.
    remote_runtime_api_url: str | None = Field(default="http://localhost:8000")
    api_key: Secret | None = Field(default=None, description="Remote runtime API key.")
    pause_closed_runtimes: bool = Field(default=True)
    remote_runtime_init_timeout: int = Field(default=180)
    remote_runtime_api_timeout: int = Field(default=180)
    remote_runtime_enable_retries: bool = Field(default=True)
    remote_runtime_class: str | None = Field(default=None, description="e.g. sysbox, gvisor.")
    remote_runtime_resource_factor: Literal[1, 2, 4, 8] = Field(default=1)

    # --- every runtime
    local_runtime_url: str = Field(default="http://localhost", description="Action server base.")
    keep_runtime_alive: bool = Field(default=False, description="Leave it running on close.")
    rm_all_containers: bool = Field(default=False, description="Stop every runtime on close.")
    base_container_image: str = Field(
        default=DEFAULT_BASE_CONTAINER_IMAGE, description="Image the runtime image is built on."
    )
    runtime_container_image: str | None = Field(
        default=None, description="Use this image as is (no build)."
    )
    user_id: int = Field(default_factory=_host_uid, description="Defaults to the host uid.")
    timeout: int = Field(default=120, description="Default hard timeout per action (s).")
    enable_auto_lint: bool = Field(default=False)
    use_host_network: bool = Field(default=False)
    additional_networks: list[str] = Field(default_factory=list)
    runtime_binding_address: str = Field(default="0.0.0.0", description="Host IP for ports.")
    runtime_extra_build_args: list[str] | None = Field(default=None)
    initialize_plugins: bool = Field(default=True)
    force_rebuild_runtime: bool = Field(default=False)
    runtime_extra_deps: str | None = Field(default=None, description="Shell run at image build.")
    runtime_startup_env_vars: dict[str, str] = Field(default_factory=dict)
    browsergym_eval_env: str | None = Field(default=None)
    platform: str | None = Field(default=None, description="Image build platform.")
    close_delay: int = Field(default=3600, description="Idle sandboxes close after this (s).")
    enable_gpu: bool = Field(default=False)
    docker_runtime_kwargs: dict[str, Any] | None = Field(default=None)
    selected_repo: str | None = Field(default=None, description="owner/repo to clone.")
    trusted_dirs: list[str] = Field(default_factory=list)
    vscode_port: int | None = Field(default=None)
    enable_vscode: bool = Field(
        default=True,
        description="VS Code (code-server from the npm registry) in the Docker sandboxes of "
        "UI sessions. Its image variant builds in the background: sandboxes started before "
        "it is ready have no VS Code. Off keeps to the plain image and never builds it.",
    )
    volumes: str | None = Field(default=None, description="host:container[:mode], comma-separated.")
    cuda_visible_devices: str | None = Field(default=None)

    # --- Docker sandbox limits (not in the reference, which sets none)
    memory_limit: str | None = Field(
        default="4g", description="Container memory limit (Docker syntax); empty = none."
    )
    pids_limit: int = Field(
        default=4096, description="Most processes + threads in the container; 0 = none."
    )
    cpu_count: float = Field(
        default=2.0, description="CPUs the container may use (capped to the host's); 0 = none."
    )
    # --- Docker warm pool (not in the reference): idle sandboxes the server keeps started
    warm_pool_size: int = Field(
        default=0,
        ge=0,
        le=64,
        description="Idle Docker sandboxes the server keeps ready for new conversations; 0 = none.",
    )

    @field_validator("base_container_image", mode="before")
    @classmethod
    def _null_base_image_means_default(cls, value: Any) -> Any:
        return DEFAULT_BASE_CONTAINER_IMAGE if value is None else value
