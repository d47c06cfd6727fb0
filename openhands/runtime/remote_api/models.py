"""The Runtime API's wire format (remote-runtime.md §4): request and response bodies."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class SandboxStatus(StrEnum):
    """What the service knows about a sandbox (stored; not every value is on the wire)."""

    STARTING = "starting"  # recorded, container not created or not running yet
    RUNNING = "running"
    PAUSED = "paused"
    STOPPED = "stopped"  # removed by /stop, or its container disappeared
    FAILED = "failed"  # the container exited or could not be created


class PodStatus(StrEnum):
    """``pod_status`` of ``GET /runtime/{id}`` (the client's readiness table, §7)."""

    PENDING = "pending"
    RUNNING = "running"  # the container runs but the action server does not answer yet
    READY = "ready"
    PAUSED = "paused"
    STOPPED = "stopped"
    FAILED = "failed"
    UNKNOWN = "unknown"


class BuildStatus(StrEnum):
    QUEUED = "QUEUED"
    WORKING = "WORKING"
    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"
    INTERNAL_ERROR = "INTERNAL_ERROR"


class StartRequest(BaseModel):
    image: str = Field(description="Runtime image; it must exist on at least one engine")
    command: list[str] = Field(min_length=1, description="The action server's start command")
    working_dir: str = Field(default="/openhands/code/")
    environment: dict[str, str] = Field(default_factory=dict)
    session_id: str = Field(min_length=1, max_length=200)
    resource_factor: int = Field(default=1, ge=1, le=16, description="Scales memory and CPUs")
    runtime_class: str | None = Field(
        default=None, description="OCI runtime of the engine, e.g. sysbox-runc"
    )


class RuntimeIdRequest(BaseModel):
    runtime_id: str = Field(min_length=1)


class RuntimeResponse(BaseModel):
    """A live sandbox, as ``/start`` returns it."""

    runtime_id: str
    session_id: str
    url: str = Field(description="Where the host reaches the action server (port 60000 inside)")
    session_api_key: str = Field(description="The action server's X-Session-API-Key")
    work_hosts: dict[str, int] = Field(default_factory=dict)
    status: str = Field(description="running, paused, stopped or failed")


class SessionResponse(BaseModel):
    """``GET /sessions/{sid}``: runtime fields only while the sandbox is running or paused."""

    session_id: str
    status: str
    runtime_id: str | None = None
    url: str | None = None
    session_api_key: str | None = None
    work_hosts: dict[str, int] | None = None


class RuntimeStatusResponse(BaseModel):
    runtime_id: str
    session_id: str
    pod_status: PodStatus
    restart_count: int = 0
    restart_reasons: list[str] = Field(default_factory=list)


class ImageInfo(BaseModel):
    upload_time: str | None = None
    image_size_bytes: int | None = None


class ImageExistsResponse(BaseModel):
    exists: bool
    image: ImageInfo | None = None


class RegistryPrefixResponse(BaseModel):
    registry_prefix: str


class BuildStarted(BaseModel):
    build_id: str


class BuildStatusResponse(BaseModel):
    build_id: str
    status: BuildStatus
    image: str | None = None
    error: str | None = None


class ActionDone(BaseModel):
    runtime_id: str
    status: str
