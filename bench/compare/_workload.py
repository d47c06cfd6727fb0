"""What every workload script shares: its work directory, its result line, small helpers.

A workload runs under either interpreter (ours or the installed reference), so this module
uses only the standard library and never puts the repository on ``sys.path``: that would
shadow the reference's ``openhands`` package with ours.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]


def workdir() -> Path:
    """The fresh, empty directory the driver made for this run (``OH_COMPARE_WORKDIR``)."""
    path = Path(os.environ.get("OH_COMPARE_WORKDIR") or Path.cwd())
    path.mkdir(parents=True, exist_ok=True)
    return path


def emit(metrics: dict[str, float]) -> None:
    """The run's result: one JSON line on stdout, the last one the driver reads."""
    print(json.dumps({key: round(value, 4) for key, value in metrics.items()}), flush=True)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def wait_until(predicate: Any, timeout: float, what: str, step: float = 0.005) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(step)


def load_scripted_llm() -> ModuleType:
    """The repository's scripted OpenAI-compatible server (standard library only), by path."""
    path = REPO_ROOT / "tests" / "support" / "scripted_llm.py"
    spec = importlib.util.spec_from_file_location("bench_scripted_llm", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


def quiet_environment() -> None:
    """Settings both implementations read: no network for LiteLLM, little logging."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    os.environ.setdefault("SKIP_DEPENDENCY_CHECK", "1")
