"""Public names of the reference that sit in modules owned by other features."""

from __future__ import annotations

import inspect
from types import MappingProxyType

import pytest

from openhands.storage.memory import InMemoryFileStore


async def test_session_exists_is_a_coroutine_over_the_store() -> None:
    from openhands.events.stream import session_exists

    assert inspect.iscoroutinefunction(session_exists)
    store = InMemoryFileStore()
    assert await session_exists("nope", store) is True  # memory lists a missing dir as []


async def test_session_exists_on_disk(tmp_path) -> None:
    from openhands.events.action import MessageAction
    from openhands.events.event import EventSource
    from openhands.events.stream import EventStream, session_exists
    from openhands.storage.local import LocalFileStore

    store = LocalFileStore(str(tmp_path))
    assert await session_exists("abc", store) is False
    stream = EventStream("abc", store)
    stream.add_event(MessageAction(content="hi"), EventSource.USER)
    stream.close()
    assert await session_exists("abc", store) is True


def test_get_provider_tokens_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from openhands.core.setup import get_provider_tokens
    from openhands.integrations.service_types import ProviderType

    for name in ("GITHUB_TOKEN", "GITLAB_TOKEN", "BITBUCKET_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    assert get_provider_tokens() is None
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_x")
    monkeypatch.setenv("BITBUCKET_TOKEN", "user:app-pass")
    tokens = get_provider_tokens()
    assert isinstance(tokens, MappingProxyType)
    assert set(tokens) == {ProviderType.GITHUB, ProviderType.BITBUCKET}
    assert tokens[ProviderType.GITHUB].token.get_secret_value() == "ghp_x"


def test_runtime_image_repo_and_tag_is_exposed_by_runtime_build() -> None:
    from openhands.runtime.utils import runtime_build, runtime_hash

    assert (
        runtime_build.get_runtime_image_repo_and_tag is runtime_hash.get_runtime_image_repo_and_tag
    )
    repo, tag = runtime_build.get_runtime_image_repo_and_tag("debian:bookworm")
    assert repo == runtime_build.get_runtime_image_repo()
    assert tag == "oh_v0.59.0_image_debian_tag_bookworm"  # runtime.md §12.2, pre-built helper
