"""`get_runtime_cls`: the registry names of python-api.md."""

from __future__ import annotations

import pytest

from openhands.runtime import get_runtime_cls
from openhands.runtime.impl.docker.docker_runtime import DockerRuntime
from openhands.runtime.impl.kubernetes.kubernetes_runtime import KubernetesRuntime
from openhands.runtime.impl.local.local_runtime import LocalRuntime
from openhands.runtime.impl.remote.remote_runtime import RemoteRuntime


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("docker", DockerRuntime),
        ("eventstream", DockerRuntime),
        ("kubernetes", KubernetesRuntime),
        ("local", LocalRuntime),
        ("remote", RemoteRuntime),
        ("Remote", RemoteRuntime),
        ("openhands.runtime.impl.remote.remote_runtime.RemoteRuntime", RemoteRuntime),
    ],
)
def test_registry_names(name: str, cls: type) -> None:
    assert get_runtime_cls(name) is cls


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(
        ValueError, match="known runtimes are: cli, docker, eventstream, kubernetes, local, remote"
    ):
        get_runtime_cls("nonesuch")


def test_registered_third_party_runtimes_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    import openhands.runtime as runtimes

    assert runtimes._THIRD_PARTY_RUNTIME_CLASSES == {}
    monkeypatch.setitem(runtimes._THIRD_PARTY_RUNTIME_CLASSES, "sandboxy", LocalRuntime)
    assert get_runtime_cls("sandboxy") is LocalRuntime
    with pytest.raises(ValueError, match="Runtime nonexistent not supported"):
        get_runtime_cls("nonexistent")
