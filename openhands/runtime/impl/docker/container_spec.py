"""How a Docker sandbox container is created: one function for DockerRuntime and the pool.

``run_kwargs`` is the whole ``containers.run`` call of a new sandbox. The warm pool creates
its containers with it too, and ``SandboxSpec.fingerprint`` hashes that same call with the
per-container parts (name, ports, key, labels) blanked plus the image's id: any setting
that changes how a container is created changes the fingerprint, so a pool sandbox made
under other settings, or from an image since rebuilt, can never be handed out.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

import docker
from docker.models.containers import Container

from openhands.core.config import OpenHandsConfig
from openhands.runtime.utils.command import (
    SANDBOX_PYTHON,
    get_action_execution_server_startup_command,
)
from openhands.runtime.utils.ports import (
    APP_PORT_RANGE_1,
    APP_PORT_RANGE_2,
    EXECUTION_SERVER_PORT_RANGE,
    VSCODE_PORT_RANGE,
    PortLock,
    find_and_lock_port,
    find_available_port,
)

CODE_DIR = "/openhands/code/"
# Capabilities a sandbox keeps (Docker's default set minus MKNOD, NET_RAW, SETFCAP,
# SETPCAP and SYS_CHROOT): the root action server chowns and reads/writes files of any
# owner, su/sudo/apt switch users, and root may signal the user's processes.
SANDBOX_CAPABILITIES = (
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "SETGID",
    "SETUID",
    "NET_BIND_SERVICE",
    "AUDIT_WRITE",
)
# Docker SDK keywords that set a CPU limit; one of them in docker_runtime_kwargs replaces
# the nano_cpus limit of `[sandbox] cpu_count`.
CPU_LIMIT_KEYWORDS = frozenset({"nano_cpus", "cpu_period", "cpu_quota"})
# initial_env_vars the action server itself reads at start (runtime.md §3.2); they go into
# the container's environment, everything else is exported through the action server.
SERVER_ENV_KNOBS = frozenset(
    {
        "ENABLE_AUTO_LINT",
        "NO_CHANGE_TIMEOUT_SECONDS",
        "INIT_PLUGIN_TIMEOUT",
        "SU_TO_USER",
        "SANDBOX_GROUP_ID",
        "RUNTIME_MAX_MEMORY_GB",
        "RUNTIME_MEMORY_MONITOR",
        "LOG_JSON",
        "DEBUG",
    }
)
# Placeholders for the per-container parts when a creation is fingerprinted.
_BLANK_PORTS_SERVER, _BLANK_PORTS_VSCODE, _BLANK_PORTS_APPS = 1, 2, (3, 4)


class Confinement(TypedDict, total=False):
    """The resource limits and capabilities of a new container (``containers.run`` keywords)."""

    cap_drop: list[str]
    cap_add: list[str]
    mem_limit: str
    pids_limit: int
    nano_cpus: int


@dataclass(frozen=True)
class SandboxPorts:
    """The host ports of one sandbox (published under the same numbers inside)."""

    server: int
    vscode: int
    apps: tuple[int, int]


def process_volumes(config: OpenHandsConfig) -> dict[str, dict[str, str]] | None:
    """The ``containers.run`` volumes: ``sandbox.volumes`` (``host:container[:mode]``,
    comma-separated, mode ``rw`` by default), else the workspace mount."""
    spec = config.sandbox.volumes
    if spec:
        volumes: dict[str, dict[str, str]] = {}
        for entry in spec.split(","):
            parts = entry.strip().split(":")
            if len(parts) not in (2, 3):
                raise ValueError(f"Invalid sandbox volume {entry!r}: use host:container[:mode]")
            host, container = parts[0], parts[1]
            mode = parts[2] if len(parts) == 3 else "rw"
            if host.startswith("volume:"):
                host = host[len("volume:") :]
            elif os.path.isabs(host):
                host = os.path.abspath(host)
            volumes[host] = {"bind": container, "mode": mode}
        return volumes
    host_path = config.workspace_mount_path or config.workspace_base
    if host_path:
        return {
            os.path.abspath(host_path): {
                "bind": config.workspace_mount_path_in_sandbox,
                "mode": "rw",
            }
        }
    return None


def confinement(config: OpenHandsConfig, host_cpus: float | None) -> Confinement:
    """Resource limits and capabilities of a new sandbox (`[sandbox]` memory_limit,
    pids_limit, cpu_count; `docker_runtime_kwargs` may still override any of them)."""
    sandbox = config.sandbox
    limits: Confinement = {"cap_drop": ["ALL"], "cap_add": list(SANDBOX_CAPABILITIES)}
    if sandbox.memory_limit and sandbox.memory_limit.strip() != "0":
        limits["mem_limit"] = sandbox.memory_limit.strip()
    if sandbox.pids_limit > 0:
        limits["pids_limit"] = sandbox.pids_limit
    if sandbox.cpu_count > 0:
        # The engine refuses more CPUs than its host has.
        cpus = min(sandbox.cpu_count, host_cpus) if host_cpus else sandbox.cpu_count
        limits["nano_cpus"] = int(cpus * 1e9)
    return limits


# The engine's CPU count, per engine address: `docker info` is one of the engine's slower
# calls (tens of ms under load) and every sandbox start needs the count.
_HOST_CPUS: dict[str, float | None] = {}


def host_cpus(client: docker.DockerClient) -> float | None:
    address = str(getattr(client.api, "base_url", ""))
    if address in _HOST_CPUS:
        return _HOST_CPUS[address]
    try:
        cpus = float(client.info().get("NCPU") or 0) or None
    except docker.errors.DockerException:
        return None  # not cached: the engine may answer next time
    _HOST_CPUS[address] = cpus
    return cpus


@dataclass(frozen=True)
class SandboxSpec:
    """Everything about a new sandbox container but its name, ports, key and labels."""

    config: OpenHandsConfig
    image: str
    plugins: tuple[str, ...]
    # initial_env_vars the server reads at start (SERVER_ENV_KNOBS), as the runtime has them.
    knobs: Mapping[str, str] = field(default_factory=dict)
    vscode: bool = False
    host_cpus: float | None = None

    def run_kwargs(
        self,
        name: str,
        ports: SandboxPorts,
        session_api_key: str,
        *,
        labels: Mapping[str, str] | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> dict[str, object]:
        """The keywords of ``client.containers.run`` for this sandbox."""
        config, sandbox = self.config, self.config.sandbox
        # Only the server's own knobs go into the container's create-time environment,
        # which `docker inspect` shows to anybody on the host; secrets (custom secrets,
        # provider tokens, SANDBOX_ENV_* values) reach the shell through the action server
        # after start (setup_initial_env → add_env_vars), runtime.md §10.4.
        environment = {
            **{k: v for k, v in self.knobs.items() if k in SERVER_ENV_KNOBS},
            "port": str(ports.server),
            "PYTHONUNBUFFERED": "1",
            "VSCODE_PORT": str(ports.vscode),
            "APP_PORT_1": str(ports.apps[0]),
            "APP_PORT_2": str(ports.apps[1]),
            "PIP_BREAK_SYSTEM_PACKAGES": "1",
            "SESSION_API_KEY": session_api_key,
            **(extra_env or {}),
        }
        if config.debug:
            environment["DEBUG"] = "true"
        environment.update(sandbox.runtime_startup_env_vars)

        # The reference binds 0.0.0.0; we keep the sandbox reachable from this host only
        # unless the user explicitly configured another binding address.
        binding = sandbox.runtime_binding_address
        if binding == "0.0.0.0":
            binding = "127.0.0.1"
        exposed = [ports.server, *ports.apps]
        if self.vscode:
            exposed.append(ports.vscode)
        kwargs: dict[str, object] = {}
        if sandbox.use_host_network:
            kwargs["network_mode"] = "host"
        else:
            kwargs["ports"] = {f"{p}/tcp": (binding, p) for p in exposed}
        if sandbox.enable_gpu:
            ids = sandbox.cuda_visible_devices
            kwargs["device_requests"] = [
                docker.types.DeviceRequest(
                    capabilities=[["gpu"]],
                    **({"device_ids": ids.split(",")} if ids else {"count": -1}),
                )
            ]
        user_kwargs = dict(sandbox.docker_runtime_kwargs or {})
        limits: dict[str, object] = dict(confinement(config, self.host_cpus))
        if CPU_LIMIT_KEYWORDS & user_kwargs.keys():
            # The user's own CPU limit replaces ours: the engine refuses a container with
            # both nano_cpus and cpu_period/cpu_quota.
            limits.pop("nano_cpus", None)
        kwargs.update(limits)
        kwargs.update(user_kwargs)
        command = get_action_execution_server_startup_command(
            ports.server, list(self.plugins), config, python_executable=SANDBOX_PYTHON
        )
        return {
            "image": self.image,
            "command": command,
            "entrypoint": [],
            "name": name,
            "working_dir": CODE_DIR,
            "environment": environment,
            "volumes": process_volumes(config),
            "detach": True,
            # PID 1 is Docker's init (tini): it reaps the orphans the agent's commands
            # leave behind, so no zombie piles up in a long-lived sandbox.
            "init": True,
            "labels": dict(labels or {}),
            **kwargs,
        }

    def fingerprint(self, image_id: str) -> str:
        """A hash of how this spec creates a container, and of the image's id."""
        blank = SandboxPorts(_BLANK_PORTS_SERVER, _BLANK_PORTS_VSCODE, _BLANK_PORTS_APPS)
        kwargs = self.run_kwargs("", blank, "")
        kwargs["image"] = image_id
        text = json.dumps(kwargs, sort_keys=True, default=repr)
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def ports_held_by_containers(client: docker.DockerClient) -> set[int]:
    """Host ports published by a running container, or bound by a stopped one: a stopped
    sandbox gets its ports back when its conversation reopens, so a new sandbox must not
    take them (the restart would fail, and the conversation lose its container)."""
    held: set[int] = set()
    for summary in client.api.containers(all=True):
        if summary.get("State") == "running":
            held.update(
                int(p["PublicPort"]) for p in summary.get("Ports") or [] if p.get("PublicPort")
            )
            continue
        try:
            info = client.api.inspect_container(summary["Id"])
        except docker.errors.NotFound:
            continue  # removed meanwhile
        for bindings in (info.get("HostConfig", {}).get("PortBindings") or {}).values():
            held.update(
                int(b["HostPort"]) for b in bindings or [] if str(b.get("HostPort", "")).isdigit()
            )
    return held


def allocate_port(
    client: docker.DockerClient,
    port_range: tuple[int, int],
    locks: list[PortLock],
    held: set[int] | None = None,
) -> int:
    """A free port of ``port_range`` outside ``held`` (default: ``ports_held_by_containers``);
    its lock (if one could be taken) joins ``locks``."""
    taken = ports_held_by_containers(client) if held is None else held
    lock = find_and_lock_port(port_range, in_use=taken.__contains__)
    if lock is None:
        return find_available_port(port_range)
    locks.append(lock)
    return lock.port


def allocate_ports(
    client: docker.DockerClient, config: OpenHandsConfig, locks: list[PortLock]
) -> SandboxPorts:
    held = ports_held_by_containers(client)  # one engine round for the four ports
    server = allocate_port(client, EXECUTION_SERVER_PORT_RANGE, locks, held)
    vscode = config.sandbox.vscode_port or allocate_port(client, VSCODE_PORT_RANGE, locks, held)
    apps = (
        allocate_port(client, APP_PORT_RANGE_1, locks, held),
        allocate_port(client, APP_PORT_RANGE_2, locks, held),
    )
    return SandboxPorts(server, vscode, apps)


def ports_of(container_env: Mapping[str, str], exposed: list[int]) -> SandboxPorts:
    """The ports of an existing sandbox, from its create-time environment."""
    server = int(container_env["port"])
    vscode = int(container_env.get("VSCODE_PORT") or 0)
    rest = [p for p in sorted(exposed) if p not in (server, vscode)]
    apps_env = (container_env.get("APP_PORT_1"), container_env.get("APP_PORT_2"))
    if apps_env[0] and apps_env[1]:
        return SandboxPorts(server, vscode, (int(apps_env[0]), int(apps_env[1])))
    padded = [*rest, 0, 0]
    return SandboxPorts(server, vscode, (padded[0], padded[1]))


def container_env(container: Container) -> dict[str, str]:
    items = container.attrs["Config"].get("Env") or []
    return dict(item.split("=", 1) for item in items if "=" in item)
