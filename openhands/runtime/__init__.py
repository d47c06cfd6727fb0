"""Runtimes: where the agent's actions run (see README.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.runtime.base import Runtime

# name in config → "module:Class"; imported on demand, so `docker` (or `kubernetes`) is
# imported only when that runtime is used.
_RUNTIMES = {
    "cli": "openhands.runtime.impl.cli.cli_runtime:CLIRuntime",
    "docker": "openhands.runtime.impl.docker.docker_runtime:DockerRuntime",
    "eventstream": "openhands.runtime.impl.docker.docker_runtime:DockerRuntime",
    "kubernetes": "openhands.runtime.impl.kubernetes.kubernetes_runtime:KubernetesRuntime",
    "local": "openhands.runtime.impl.local.local_runtime:LocalRuntime",
    "remote": "openhands.runtime.impl.remote.remote_runtime:RemoteRuntime",
}

# Runtimes contributed by optional third-party packages (the reference's ``third_party``
# runtimes: e2b, modal, runloop, daytona). None ship with this package; the table stays so
# code that registers or inspects them keeps working.
_THIRD_PARTY_RUNTIME_CLASSES: dict[str, type[Runtime]] = {}


def get_runtime_cls(name: str) -> type[Runtime]:
    """The Runtime class for a ``runtime`` config value (or a ``module.Class`` path)."""
    import importlib

    third_party = _THIRD_PARTY_RUNTIME_CLASSES.get(name.lower())
    if third_party is not None:
        return third_party
    target = _RUNTIMES.get(name.lower())
    if target is None:
        if "." not in name:
            known = ", ".join(sorted(_RUNTIMES))
            raise ValueError(f"Runtime {name} not supported, known runtimes are: {known}")
        module_name, _, class_name = name.rpartition(".")
    else:
        module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


__all__ = ["get_runtime_cls"]
