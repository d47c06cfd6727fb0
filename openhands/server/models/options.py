"""REST models of /api/options and the health routes."""

from __future__ import annotations

from pydantic import BaseModel, Field


class FeatureFlags(BaseModel):
    ENABLE_BILLING: bool = False
    HIDE_LLM_SETTINGS: bool = False


class WebConfig(BaseModel):
    """GET /api/options/config."""

    APP_MODE: str = Field(description="`oss` or `saas`")
    GITHUB_CLIENT_ID: str = ""
    POSTHOG_CLIENT_KEY: str = Field(default="", description="Empty: no analytics")
    FEATURE_FLAGS: FeatureFlags = Field(default_factory=FeatureFlags)


class AliveResponse(BaseModel):
    status: str = "ok"


class MemoryUsage(BaseModel):
    rss: int
    vms: int
    percent: float


class DiskUsage(BaseModel):
    total: int
    used: int
    free: int
    percent: float


class IoUsage(BaseModel):
    read_bytes: int
    write_bytes: int


class Resources(BaseModel):
    cpu_percent: float
    memory: MemoryUsage
    disk: DiskUsage
    io: IoUsage


class ServerInfo(BaseModel):
    uptime: float = Field(description="Seconds since start")
    idle_time: float = Field(description="Seconds since the last request")
    resources: Resources
