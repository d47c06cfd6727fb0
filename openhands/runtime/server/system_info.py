"""Numbers for GET /server_info (runtime.md §3.4)."""

from __future__ import annotations

import time
from typing import Any

import psutil


def resource_usage(cpu_interval: float = 0.1) -> dict[str, Any]:
    process = psutil.Process()
    memory = process.memory_info()
    disk = psutil.disk_usage("/")
    try:
        io = process.io_counters()
        io_info = {"read_bytes": io.read_bytes, "write_bytes": io.write_bytes}
    except (AttributeError, psutil.AccessDenied):
        io_info = {"read_bytes": 0, "write_bytes": 0}
    return {
        "cpu_percent": process.cpu_percent(interval=cpu_interval),
        "memory": {"rss": memory.rss, "vms": memory.vms, "percent": process.memory_percent()},
        "disk": {
            "total": disk.total,
            "used": disk.used,
            "free": disk.free,
            "percent": disk.percent,
        },
        "io": io_info,
    }


def server_info(started_at: float, last_execution_at: float) -> dict[str, Any]:
    now = time.time()
    return {
        "uptime": now - started_at,
        "idle_time": now - last_execution_at,
        "resources": resource_usage(),
    }
