"""RemoteRuntimeBuilder (remote-runtime.md §4 #3-#5) over httpx.MockTransport, plus the
RemoteRuntime failure that needs no service at all (§6 QUIRK: nothing listens)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import socket
import tarfile
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr
from tenacity import wait_none

from openhands.core.config import OpenHandsConfig
from openhands.core.exceptions import AgentRuntimeBuildError
from openhands.events.stream import EventStream
from openhands.runtime.builder import RemoteRuntimeBuilder
from openhands.runtime.builder.remote import encode_build_context
from openhands.runtime.impl.remote import RemoteRuntime
from openhands.runtime.utils import request as request_module
from openhands.storage.memory import InMemoryFileStore

Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture(autouse=True)
def _no_real_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(request_module, "rate_limit_wait", wait_none())
    monkeypatch.setattr(RemoteRuntimeBuilder, "poll_interval", 0.0)
    monkeypatch.setattr(RemoteRuntimeBuilder, "rate_limit_pause", 0.0)


def builder_with(handler: Handler) -> tuple[RemoteRuntimeBuilder, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    session = httpx.Client(transport=httpx.MockTransport(record))
    return RemoteRuntimeBuilder("http://api.test/", "k-1", session=session), seen


def context_dir(tmp_path: Path) -> Path:
    (tmp_path / "ctx" / "code").mkdir(parents=True, exist_ok=True)
    (tmp_path / "ctx" / "Dockerfile").write_text("FROM scratch\n")
    (tmp_path / "ctx" / "code" / "a.py").write_text("print(1)\n")
    return tmp_path / "ctx"


def test_context_is_base64_of_a_gzip_tar_rooted_at_dot(tmp_path: Path) -> None:
    text = encode_build_context(context_dir(tmp_path))
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(text)), mode="r:gz") as tar:
        assert {"./Dockerfile", "./code/a.py"} <= set(tar.getnames())


def test_build_retries_after_429_and_polls_until_success(tmp_path: Path) -> None:
    build_answers = [429, 429, 429, 200]
    status_answers = ["QUEUED", "RUNNING", "SUCCESS"]

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/build":
            status = build_answers.pop(0)
            return httpx.Response(status, json={"build_id": "b-7"} if status == 200 else {})
        state = status_answers.pop(0)
        return httpx.Response(200, json={"status": state, "image": "repo/runtime:built"})

    builder, seen = builder_with(handler)
    progress: list[str] = []
    image = builder.build(
        context_dir(tmp_path), ["repo/runtime:a", "repo/runtime:b"], progress=progress.append
    )
    assert image == "repo/runtime:built"
    builds = [r for r in seen if r.url.path == "/build"]
    # Three 429s use up send_request's attempts; the builder pauses and sends it once more.
    assert len(builds) == 4
    assert all(r.headers["X-API-Key"] == "k-1" for r in seen)
    body = builds[-1].read().decode("latin-1")
    assert 'name="context"; filename="context.tar.gz"' in body
    assert 'name="target_image"\r\n\r\nrepo/runtime:a' in body
    assert 'name="tags"\r\n\r\nrepo/runtime:b' in body
    statuses = [r.url.params["build_id"] for r in seen if r.url.path == "/build_status"]
    assert statuses == ["b-7", "b-7", "b-7"]
    assert progress


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"status": "FAILURE"}, "Build failed with status: FAILURE. Build ID: b-1"),
        ({"status": "EXPIRED", "error": "too slow"}, "too slow"),
    ],
)
def test_failed_builds_raise(tmp_path: Path, answer: dict[str, str], message: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/build":
            return httpx.Response(200, json={"build_id": "b-1"})
        return httpx.Response(200, json=answer)

    builder, _ = builder_with(handler)
    with pytest.raises(AgentRuntimeBuildError) as caught:
        builder.build(context_dir(tmp_path), ["repo/runtime:a"])
    assert str(caught.value) == message


def test_build_times_out_and_status_errors_raise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def pending(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/build":
            return httpx.Response(200, json={"build_id": "b-1"})
        return httpx.Response(200, json={"status": "RUNNING"})

    builder, _ = builder_with(pending)
    monkeypatch.setattr(builder, "build_timeout", 0.0)
    with pytest.raises(AgentRuntimeBuildError, match="Build timed out after 0 minutes"):
        builder.build(context_dir(tmp_path), ["repo/runtime:a"])

    def broken(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/build":
            return httpx.Response(200, json={"build_id": "b-1"})
        return httpx.Response(500, json={"detail": "db down"})

    builder, _ = builder_with(broken)
    with pytest.raises(AgentRuntimeBuildError, match="Build status check failed"):
        builder.build(context_dir(tmp_path), ["repo/runtime:a"])


def test_image_exists_asks_the_registry() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        image = request.url.params["image"]
        if image == "broken":
            return httpx.Response(500, content=b"oops")
        if image == "there":
            body = {"exists": True, "image": {"upload_time": "t", "image_size_bytes": 5}}
            return httpx.Response(200, content=json.dumps(body).encode())
        return httpx.Response(200, json={"exists": False})

    builder, _ = builder_with(handler)
    assert builder.image_exists("there") and builder.image_id("there") == "there"
    assert not builder.image_exists("absent") and builder.image_id("absent") is None
    with pytest.raises(AgentRuntimeBuildError):
        builder.image_exists("broken")


def test_unreachable_runtime_api_raises_the_connection_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again below: nothing listens there
    config = OpenHandsConfig()
    config.sandbox.api_key = SecretStr("k")
    config.sandbox.remote_runtime_api_url = f"http://127.0.0.1:{port}"
    config.sandbox.runtime_container_image = "some/image:tag"
    stream = EventStream("conv-x", InMemoryFileStore())
    runtime = RemoteRuntime(config, stream, sid="conv-x")
    try:
        with pytest.raises(httpx.ConnectError):
            asyncio.run(runtime.connect())
        assert runtime.closed
        with pytest.raises(NotImplementedError, match="Runtime URL is not initialized"):
            _ = runtime.action_execution_server_url
    finally:
        runtime.close()
        stream.close()


def test_unknown_runtime_class_fails_the_constructor() -> None:
    config = OpenHandsConfig()
    config.sandbox.api_key = SecretStr("k")
    config.sandbox.remote_runtime_class = "kata"
    stream = EventStream("conv-y", InMemoryFileStore())
    try:
        with pytest.raises(AssertionError):
            RemoteRuntime(config, stream)
    finally:
        stream.close()
