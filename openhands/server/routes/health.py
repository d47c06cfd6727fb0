"""Health routes (no `/api` prefix, never key-protected; server-api §6.1)."""

from __future__ import annotations

import os
import time

from fastapi import APIRouter

from openhands.server.dependencies import Services
from openhands.server.errors import MappedErrorsRoute
from openhands.server.models.options import (
    AliveResponse,
    DiskUsage,
    IoUsage,
    MemoryUsage,
    Resources,
    ServerInfo,
)

health_router = APIRouter(route_class=MappedErrorsRoute, tags=["health"])


@health_router.get("/alive")
async def alive() -> AliveResponse:
    return AliveResponse()


@health_router.get("/health")
async def health() -> str:
    return "OK"


@health_router.get("/server_info")
async def server_info(services: Services) -> ServerInfo:
    import psutil  # only this route needs it: not imported at start-up

    now = time.time()
    process = psutil.Process(os.getpid())
    memory = process.memory_info()
    disk = psutil.disk_usage("/")
    try:
        io = process.io_counters()
        io_usage = IoUsage(read_bytes=io.read_bytes, write_bytes=io.write_bytes)
    except (AttributeError, psutil.Error):
        io_usage = IoUsage(read_bytes=0, write_bytes=0)
    return ServerInfo(
        uptime=now - services.started_at,
        idle_time=now - services.last_request_at,
        resources=Resources(
            cpu_percent=process.cpu_percent(interval=None),
            memory=MemoryUsage(rss=memory.rss, vms=memory.vms, percent=process.memory_percent()),
            disk=DiskUsage(total=disk.total, used=disk.used, free=disk.free, percent=disk.percent),
            io=io_usage,
        ),
    )
