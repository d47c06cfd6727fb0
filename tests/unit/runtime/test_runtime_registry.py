"""`get_runtime_cls`: the registry names of python-api.md and the refusal of `kubernetes`."""

from __future__ import annotations

import pytest

from openhands.runtime import get_runtime_cls
from openhands.runtime.impl.docker.docker_runtime import DockerRuntime
from openhands.runtime.impl.local.local_runtime import LocalRuntime
from openhands.runtime.impl.remote.remote_runtime import RemoteRuntime


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("docker", DockerRuntime),
        ("eventstream", DockerRuntime),
        ("local", LocalRuntime),
        ("remote", RemoteRuntime),
        ("Remote", RemoteRuntime),
        ("openhands.runtime.impl.remote.remote_runtime.RemoteRuntime", RemoteRuntime),
    ],
)
def test_registry_names(name: str, cls: type) -> None:
    assert get_runtime_cls(name) is cls


def test_kubernetes_is_refused_with_the_way_out() -> None:
    with pytest.raises(ValueError) as refused:
        get_runtime_cls("kubernetes")
    assert "docs/scaling.md" in str(refused.value)
    assert 'runtime = "remote"' in str(refused.value)


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(
        ValueError, match="known runtimes are: cli, docker, eventstream, local, remote"
    ):
        get_runtime_cls("nonesuch")
