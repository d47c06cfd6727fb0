"""CLIRuntime against LocalRuntime: what one agent step costs on each (cli.md §13.6).

Both work on this host; LocalRuntime sends each action over HTTP to its action execution
server (a persistent tmux bash), CLIRuntime runs it in-process (a fresh ``bash -c`` per
command). Prints the median over N repetitions, after a short warm-up, of:
- ``echo hi`` through ``run_action`` (a CmdRunAction);
- writing a small file (FileWriteAction, 1 KiB) and reading it back (FileReadAction);
- an editor ``view`` of that file (FileReadAction with ``impl_source=oh_aci``);
and, once each, how long ``connect()`` takes. The machine's load average is printed along.

Usage: python bench/cli_runtime.py [-n N]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LOG_LEVEL", "WARNING")

from openhands.core.config import OpenHandsConfig
from openhands.core.logger import openhands_logger
from openhands.events.action import Action, CmdRunAction, FileReadAction, FileWriteAction
from openhands.events.event import FileReadSource
from openhands.events.observation import (
    CmdOutputObservation,
    FileReadObservation,
    FileWriteObservation,
    Observation,
)
from openhands.events.stream import EventStream
from openhands.runtime.base import Runtime
from openhands.runtime.impl.cli import CLIRuntime
from openhands.runtime.impl.local.local_runtime import LocalRuntime
from openhands.storage.memory import InMemoryFileStore

WARM_UP = 5
TEXT = ("0123456789abcdef" * 4 + "\n") * 16  # 1 KiB

openhands_logger.setLevel(logging.ERROR)


def make_runtime(kind: str, workspace: str) -> Runtime:
    config = OpenHandsConfig()
    config.enable_browser = False
    config.workspace_base = workspace
    sid = f"bench-{secrets.token_hex(4)}"
    stream = EventStream(sid, InMemoryFileStore())
    cls = CLIRuntime if kind == "cli" else LocalRuntime
    return cls(config, stream, sid=sid, plugins=[], headless_mode=True)


def timed_action(runtime: Runtime, make: Callable[[], Action], expect: type[Observation]) -> float:
    action = make()
    action.set_hard_timeout(30)
    started = time.perf_counter()
    obs = runtime.run_action(action)
    elapsed = time.perf_counter() - started
    assert isinstance(obs, expect), obs
    return elapsed


def step_timings(runtime: Runtime, workspace: str, repetitions: int) -> dict[str, float]:
    path = os.path.join(workspace, "bench.txt")
    steps: dict[str, tuple[Callable[[], Action], type[Observation]]] = {
        "echo hi (run)": (lambda: CmdRunAction("echo hi"), CmdOutputObservation),
        "write 1 KiB (write)": (lambda: FileWriteAction(path, TEXT), FileWriteObservation),
        "read 1 KiB (read)": (lambda: FileReadAction(path), FileReadObservation),
        "editor view (read, oh_aci)": (
            lambda: FileReadAction(path, impl_source=FileReadSource.OH_ACI),
            FileReadObservation,
        ),
    }
    medians: dict[str, float] = {}
    for name, (make, expect) in steps.items():
        for _ in range(WARM_UP):
            timed_action(runtime, make, expect)
        medians[name] = statistics.median(
            timed_action(runtime, make, expect) for _ in range(repetitions)
        )
    return medians


def measure(kind: str, repetitions: int) -> dict[str, float]:
    workspace = tempfile.mkdtemp(prefix=f"oh-bench-{kind}-")
    saved_cwd = os.getcwd()
    runtime = make_runtime(kind, workspace)
    try:
        started = time.perf_counter()
        asyncio.run(runtime.connect())
        results = {"connect()": time.perf_counter() - started}
        results.update(step_timings(runtime, workspace, repetitions))
        return results
    finally:
        runtime.close()
        asyncio.run(type(runtime).delete(runtime.sid))
        runtime.event_stream.close()
        os.chdir(saved_cwd)  # CLIRuntime.connect() moved the process into its workspace
        shutil.rmtree(workspace, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100, help="repetitions per step (median)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    cli = measure("cli", args.n)
    local = measure("local", args.n)
    print(f"\n== one step, median of {args.n} (connect(): one run)")
    print(f"{'step':<28} {'CLIRuntime':>12} {'LocalRuntime':>13} {'Local/CLI':>10}")
    for name in cli:
        ratio = local[name] / cli[name] if cli[name] else float("inf")
        unit, scale = ("s", 1.0) if name == "connect()" else ("ms", 1000.0)
        print(
            f"{name:<28} {cli[name] * scale:9.2f} {unit:<2} {local[name] * scale:10.2f} {unit:<2}"
            f" {ratio:9.0f}x"
        )
    print(f"\n(load average now {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
