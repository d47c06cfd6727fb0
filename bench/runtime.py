"""Runtime benchmark (issue: runtime). Real Docker containers, the app's own code paths.

Prints, in this order:
- sandbox start with a warm image, median of 5: until ``/alive`` answers, and the whole
  ``connect()`` (which then sets up env vars and the git identity), plugins as the app uses;
- memory of an idle sandbox (``docker stats``; resident memory from the cgroup's memory.stat);
- ``echo`` round trip through ``runtime.run()``: p50/p99 over 200 (LocalRuntime too);
- a 10 MB file: write + read through FileWriteAction/FileReadAction, and upload + download
  through ``copy_to``/``copy_from``;
- sandbox image build: on a cache hit (the image for this source exists: hashing and local
  look-ups only); the base image re-imported from the cached debootstrap root filesystem
  (``--cold-base`` runs debootstrap itself, ~100 MB of packages from the Debian mirror); the
  runtime image built cold (from scratch on the cached base, Docker's layer cache off, into a
  throwaway repository that is removed afterwards; the real images are not touched).
Then the numbers against the targets: cache hit ≤ 1 s, warm start ≤ 3 s, echo p50 ≤ 5 ms and
p99 ≤ 10 ms (DockerRuntime). ``--echo-only`` runs just the echo round trips (LocalRuntime, and
DockerRuntime when an engine answers). The machine's load average is printed along: other
work shows in every number.

Usage: python bench/runtime.py [--cold-base] [--skip-build] [--echo-only]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LOG_LEVEL", "WARNING")

from openhands.core.config import OpenHandsConfig
from openhands.core.logger import openhands_logger
from openhands.events.action import CmdRunAction, FileReadAction, FileWriteAction
from openhands.events.observation import CmdOutputObservation, FileReadObservation
from openhands.events.stream import EventStream
from openhands.runtime.builder.base_image import (
    BASE_IMAGE_REPO,
    DEFAULT_BASE_IMAGE,
    ensure_rootfs_tarball,
)
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.impl.action_execution.action_execution_client import (
    ActionExecutionClient,
)
from openhands.runtime.impl.docker.docker_runtime import DockerRuntime
from openhands.runtime.impl.local.local_runtime import LocalRuntime
from openhands.runtime.plugins import AgentSkillsRequirement, JupyterRequirement
from openhands.runtime.utils.runtime_build import build_runtime_image
from openhands.storage.memory import InMemoryFileStore

BENCH_REPO = "openhands-runtime-bench"
ECHOES = 200
STARTS = 5
FILE_MB = 10
TARGETS = {"cache hit": 1.0, "warm start": 3.0, "echo p50": 0.005, "echo p99": 0.010}

openhands_logger.setLevel(logging.WARNING)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


@contextmanager
def env(**values: str) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


# --- image build ----------------------------------------------------------------------------


def echo_line(name: str, values: list[float]) -> str:
    return (
        f"{name:<14} p50 {statistics.median(values) * 1000:6.1f} ms   "
        f"p99 {percentile(values, 0.99) * 1000:6.1f} ms   "
        f"max {max(values) * 1000:6.1f} ms"
    )


def remove_repo_images(builder: DockerRuntimeBuilder, repo: str) -> None:
    for image in builder.client.images.list(name=repo):
        for tag in image.tags:
            if tag.startswith(f"{repo}:"):
                builder.client.images.remove(tag, force=True)


def bench_build(builder: DockerRuntimeBuilder, cold_base: bool) -> dict[str, float]:
    results: dict[str, float] = {}
    # Cache hit on the real repository (the image for this source exists).
    hits = [
        timed(lambda: build_runtime_image(DEFAULT_BASE_IMAGE, builder, enable_browser=False))
        for _ in range(5)
    ]
    results["runtime image, cache hit (median of 5)"] = statistics.median(hits)

    # Base image: a fresh import of the cached rootfs (what a pruned engine costs), or the
    # whole debootstrap when asked.
    base_tag = f"{BASE_IMAGE_REPO}:bench-{secrets.token_hex(3)}"
    try:
        if cold_base:
            with tempfile.TemporaryDirectory(prefix="oh-bench-rootfs-") as cache:
                started = time.perf_counter()
                tarball = ensure_rootfs_tarball(cache_dir=Path(cache))
                builder.import_rootfs(tarball, base_tag)
                results["base, debootstrap + import"] = time.perf_counter() - started
        else:
            tarball = ensure_rootfs_tarball()  # cached: returns at once
            results["base, import of cached rootfs"] = timed(
                lambda: builder.import_rootfs(tarball, base_tag)
            )
    finally:
        if builder.image_exists(base_tag):
            builder.client.images.remove(base_tag)

    # Runtime image, cold: scratch build on the cached base, layer cache off, bench repo.
    with env(OH_RUNTIME_RUNTIME_IMAGE_REPO=BENCH_REPO):
        try:
            results["runtime image, cold (scratch, --no-cache)"] = timed(
                lambda: build_runtime_image(
                    DEFAULT_BASE_IMAGE,
                    builder,
                    force_rebuild=True,
                    enable_browser=False,
                    extra_build_args=["--no-cache"],
                )
            )
        finally:
            remove_repo_images(builder, BENCH_REPO)
    return results


# --- sandboxes ------------------------------------------------------------------------------


def make_runtime(kind: str, plugins: list[Any] | None = None) -> ActionExecutionClient:
    config = OpenHandsConfig()
    config.enable_browser = False
    sid = f"bench-{secrets.token_hex(4)}"
    stream = EventStream(sid, InMemoryFileStore())
    cls = DockerRuntime if kind == "docker" else LocalRuntime
    if plugins is None:
        plugins = [AgentSkillsRequirement(), JupyterRequirement()]
    return cls(config, stream, sid=sid, plugins=plugins, headless_mode=True)


def dispose(runtime: ActionExecutionClient) -> None:
    runtime.close()
    asyncio.run(type(runtime).delete(runtime.sid))
    runtime.event_stream.close()


def start_timings(runtime: ActionExecutionClient) -> tuple[float, float]:
    """(seconds until /alive answered ok, seconds for the whole connect())."""
    alive_at: list[float] = []
    wait_until_alive = runtime.wait_until_alive  # type: ignore[attr-defined]

    def watched() -> None:
        wait_until_alive()
        alive_at.append(time.perf_counter())

    runtime.wait_until_alive = watched  # type: ignore[attr-defined]
    started = time.perf_counter()
    asyncio.run(runtime.connect())
    return alive_at[0] - started, time.perf_counter() - started


def bench_starts() -> tuple[list[float], list[float]]:
    alive, connect = [], []
    for _ in range(STARTS):
        runtime = make_runtime("docker")
        try:
            a, c = start_timings(runtime)
        finally:
            dispose(runtime)
        alive.append(a)
        connect.append(c)
    return alive, connect


def echo_latencies(runtime: ActionExecutionClient, count: int = ECHOES) -> list[float]:
    def echo(i: int) -> float:
        action = CmdRunAction(f"echo {i}")
        action.set_hard_timeout(30)
        started = time.perf_counter()
        obs = runtime.run(action)
        elapsed = time.perf_counter() - started
        assert isinstance(obs, CmdOutputObservation) and obs.content == str(i), obs
        return elapsed

    for i in range(10):  # warm-up
        echo(i)
    return [echo(i) for i in range(count)]


def bench_file(runtime: ActionExecutionClient) -> dict[str, float]:
    line = "0123456789abcdef" * 4 + "\n"  # 65 bytes
    text = line * (FILE_MB * 1024 * 1024 // len(line))
    path = f"/tmp/bench-{secrets.token_hex(3)}.txt"
    results: dict[str, float] = {}

    write = FileWriteAction(path, text)
    write.set_hard_timeout(120)
    results["write (FileWriteAction)"] = timed(lambda: runtime.write(write))
    read = FileReadAction(path)
    read.set_hard_timeout(120)
    observations: list[Any] = []
    results["read (FileReadAction)"] = timed(lambda: observations.append(runtime.read(read)))
    obs = observations[0]
    # FileWriteAction adds a newline after the last piece too (quirk Q1).
    assert isinstance(obs, FileReadObservation) and len(obs.content) == len(text) + 1, obs

    with tempfile.TemporaryDirectory(prefix="oh-bench-") as tmp:
        local = Path(tmp) / "payload.bin"
        local.write_bytes(os.urandom(FILE_MB * 1024 * 1024))
        results["upload (copy_to)"] = timed(lambda: runtime.copy_to(str(local), "/tmp/bench-up"))
        archives: list[Path] = []
        results["download (copy_from)"] = timed(
            lambda: archives.append(runtime.copy_from("/tmp/bench-up"))
        )
        with zipfile.ZipFile(archives[0]) as archive:
            assert archive.read("payload.bin") == local.read_bytes()
        archives[0].unlink()
    return results


def idle_memory(runtime: DockerRuntime) -> tuple[str, str]:
    """(``docker stats`` memory usage, the cgroup's resident anonymous memory)."""
    time.sleep(3)  # let start-up settle
    stats = subprocess.run(
        ["docker", "stats", "--no-stream", "--format", "{{.MemUsage}}", runtime.container_name],
        capture_output=True,
        text=True,
    ).stdout.strip()
    container_id = runtime.docker.containers.get(runtime.container_name).id
    # cgroup v2 (memory.stat "anon") or v1 ("total_rss"), cgroupfs or systemd driver.
    for directory, key in (
        (f"/sys/fs/cgroup/docker/{container_id}", "anon"),
        (f"/sys/fs/cgroup/system.slice/docker-{container_id}.scope", "anon"),
        (f"/sys/fs/cgroup/memory/docker/{container_id}", "total_rss"),
        (f"/sys/fs/cgroup/memory/system.slice/docker-{container_id}.scope", "total_rss"),
    ):
        stat = Path(directory) / "memory.stat"
        if stat.is_file():
            values = dict(line.split() for line in stat.read_text().splitlines())
            return stats, f"{int(values[key]) / 2**20:.1f} MiB ({key})"
    return stats, "n/a (cgroup not found)"


# --- report ----------------------------------------------------------------------------------


def verdict(name: str, value: float) -> str:
    target = TARGETS[name]
    mark = "met" if value <= target else "MISSED"
    return f"{name:<12} {value * 1000:8.1f} ms  (target ≤ {target * 1000:g} ms: {mark})"


def docker_answers() -> bool:
    probe = subprocess.run(["docker", "info"], capture_output=True, stdin=subprocess.DEVNULL)
    return probe.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold-base", action="store_true", help="also run debootstrap")
    parser.add_argument("--skip-build", action="store_true", help="no image build timings")
    parser.add_argument("--echo-only", action="store_true", help="only the echo round trips")
    args = parser.parse_args()
    # Other work on the machine shows in every number below: the load average says how much.
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")

    local = make_runtime("local", plugins=[])
    try:
        asyncio.run(local.connect())
        local_echo = echo_latencies(local)
    finally:
        dispose(local)
    if not docker_answers():
        print("No Docker engine answers `docker info`: only the LocalRuntime numbers.")
        print(echo_line("LocalRuntime", local_echo))
        return 0
    if args.echo_only:
        return bench_echo_only(local_echo)

    builder = DockerRuntimeBuilder()
    summary: dict[str, float] = {}
    # The image for this source must exist; the build timings come last, because removing
    # the throwaway images keeps the engine busy for a while afterwards.
    build_runtime_image(DEFAULT_BASE_IMAGE, builder, enable_browser=False)

    print(f"\n== sandbox start, warm image, plugins agent_skills + jupyter ({STARTS} runs)")
    alive, connect = bench_starts()
    print(f"start → /alive ok  median {statistics.median(alive):5.2f} s  (runs: "
          + ", ".join(f"{a:.2f}" for a in alive) + ")")  # fmt: skip
    print(f"connect() total    median {statistics.median(connect):5.2f} s  (runs: "
          + ", ".join(f"{c:.2f}" for c in connect) + ")")  # fmt: skip
    summary["warm start"] = statistics.median(alive)

    runtime = make_runtime("docker")
    try:
        asyncio.run(runtime.connect())
        assert isinstance(runtime, DockerRuntime)
        stats, cgroup = idle_memory(runtime)
        print(f"\n== idle sandbox memory: docker stats {stats}; cgroup rss {cgroup}")

        print(f"\n== echo round trip through runtime.run(), {ECHOES} actions")
        docker_echo = echo_latencies(runtime)
        for name, values in (("DockerRuntime", docker_echo), ("LocalRuntime", local_echo)):
            print(echo_line(name, values))
        summary["echo p50"] = statistics.median(docker_echo)
        summary["echo p99"] = percentile(docker_echo, 0.99)

        print(f"\n== {FILE_MB} MB file, DockerRuntime")
        for name, seconds in bench_file(runtime).items():
            print(f"{name:<25} {seconds * 1000:8.0f} ms")
    finally:
        dispose(runtime)

    if not args.skip_build:
        print(f"\n== sandbox image build (load average now {os.getloadavg()[0]:.2f})")
        build = bench_build(builder, args.cold_base)
        for name, seconds in build.items():
            print(f"{name:<45} {seconds:8.3f} s")
        summary["cache hit"] = build["runtime image, cache hit (median of 5)"]
        if not args.cold_base:
            print("(the base rootfs comes from the debootstrap cache; --cold-base times it too)")

    print(f"\n== against the targets (load average now {os.getloadavg()[0]:.2f})")
    for name, value in summary.items():
        print(verdict(name, value))
    return 0


def bench_echo_only(local_echo: list[float]) -> int:
    """The echo round trips alone, with the image this source needs (built if missing)."""
    build_runtime_image(DEFAULT_BASE_IMAGE, DockerRuntimeBuilder(), enable_browser=False)
    runtime = make_runtime("docker")
    try:
        asyncio.run(runtime.connect())
        docker_echo = echo_latencies(runtime)
    finally:
        dispose(runtime)
    print(f"\n== echo round trip through runtime.run(), {ECHOES} actions")
    for name, values in (("DockerRuntime", docker_echo), ("LocalRuntime", local_echo)):
        print(echo_line(name, values))
    print(f"\n== against the targets (load average now {os.getloadavg()[0]:.2f})")
    print(verdict("echo p50", statistics.median(docker_echo)))
    print(verdict("echo p99", percentile(docker_echo, 0.99)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
