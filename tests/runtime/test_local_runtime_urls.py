"""LocalRuntime's public URLs (runtime.md §13): the base comes from RUNTIME_URL, else
RUNTIME_URL_PATTERN with RUNTIME_ID, else sandbox.local_runtime_url; an app port's URL
reaches the app that listens on it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from openhands.runtime.impl.local.local_runtime import LocalRuntime
from tests.runtime.conformance import Sandbox, open_sandbox

URL_ENV = ("RUNTIME_URL", "RUNTIME_URL_PATTERN", "RUNTIME_ID")


@pytest.fixture(scope="module")
def local() -> Iterator[Sandbox]:
    with open_sandbox("local") as sandbox:
        yield sandbox


@pytest.fixture
def runtime(local: Sandbox, monkeypatch: pytest.MonkeyPatch) -> LocalRuntime:
    for name in URL_ENV:
        monkeypatch.delenv(name, raising=False)
    assert isinstance(local.runtime, LocalRuntime)
    return local.runtime


def test_base_url_sources_in_order(runtime: LocalRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    assert runtime.runtime_url == runtime.config.sandbox.local_runtime_url
    monkeypatch.setenv("RUNTIME_URL_PATTERN", "https://rt-{runtime_id}.example.org")
    # A pattern without RUNTIME_ID cannot be filled in: the config's URL stays.
    assert runtime.runtime_url == runtime.config.sandbox.local_runtime_url
    monkeypatch.setenv("RUNTIME_ID", "r42")
    assert runtime.runtime_url == "https://rt-r42.example.org"
    monkeypatch.setenv("RUNTIME_URL", "https://given.example.org/r42")
    assert runtime.runtime_url == "https://given.example.org/r42"


def test_app_urls_behind_a_proxy(runtime: LocalRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = runtime._app_ports
    monkeypatch.setenv("RUNTIME_URL", "https://runtimes.example.org")
    assert runtime.web_hosts == {
        "https://work-1-runtimes.example.org": first,
        "https://work-2-runtimes.example.org": second,
    }
    # A base that already routes by runtime id gives each service a path instead.
    monkeypatch.setenv("RUNTIME_ID", "r42")
    monkeypatch.setenv("RUNTIME_URL", "https://proxy.example.org/r42")
    assert runtime.web_hosts == {
        "https://proxy.example.org/r42/work-1": first,
        "https://proxy.example.org/r42/work-2": second,
    }


def test_localhost_app_url_reaches_the_app(local: Sandbox, runtime: LocalRuntime) -> None:
    """The URL listed for an app port serves what an agent started on that port."""
    port = runtime._app_ports[0]
    url = next(url for url, app_port in runtime.web_hosts.items() if app_port == port)
    assert url == f"{runtime.config.sandbox.local_runtime_url}:{port}"
    assert len(set(runtime.web_hosts)) == 2  # one URL per app port
    test_dir = f"{local.workspace}/web_app"
    local.sh(f"rm -rf {test_dir} && mkdir -p {test_dir} && echo served-by-app > {test_dir}/x.txt")
    local.sh(
        f"cd {test_dir} && python3 -m http.server {port} --bind 127.0.0.1 > /dev/null 2>&1 & "
        f"echo $! > {test_dir}/server.pid"
    )
    try:
        # Wait for the server with curl's own retry on refused connections (no fixed sleep).
        local.sh(f"curl -s --retry 30 --retry-connrefused -o /dev/null {url}/", timeout=120)
        assert httpx.get(f"{url}/x.txt", timeout=10).text.strip() == "served-by-app"
    finally:
        local.sh(f"kill $(cat {test_dir}/server.pid)")
