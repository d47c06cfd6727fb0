"""Engine URLs the runtime API service accepts, and where a tcp:// engine's TLS files come from.

The TLS connection itself is tested against a real engine in
tests/runtime/test_remote_api_tls.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.runtime.remote_api.engine_tls import EngineTLS, engine_address, engine_tls
from openhands.runtime.remote_api.engines import EnginePool
from openhands.runtime.remote_api.settings import parse_settings


def _cert_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("ca.pem", "cert.pem", "key.pem"):
        (folder / name).write_text(f"{name} of {folder.name}\n")
    return folder


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("unix:///var/run/docker.sock", None),
        ("tcp://10.0.0.7:2376", "10.0.0.7:2376"),
        ("tcp://engine.example:2376/", "engine.example:2376"),
        ("tcp://[fd00::7]:2376", "[fd00::7]:2376"),
    ],
)
def test_accepted_engine_urls(url: str, address: str | None) -> None:
    assert engine_address(url) == address


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ssh://root@engine.example", "ssh:// engines are not supported"),
        ("http://10.0.0.7:2375", "only unix:// and tcp://"),
        ("https://10.0.0.7:2376", "only unix:// and tcp://"),
        ("npipe:////./pipe/docker_engine", "only unix:// and tcp://"),
        ("tcp://10.0.0.7", "tcp://HOST:PORT"),
        ("tcp://10.0.0.7:notaport", "tcp://HOST:PORT"),
        ("tcp://10.0.0.7:2376/some/path", "tcp://HOST:PORT"),
        ("unix://relative/docker.sock", "absolute socket path"),
        ("/var/run/docker.sock", "only unix:// and tcp://"),
    ],
)
def test_refused_engine_urls(url: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        engine_address(url)


def test_a_unix_engine_needs_no_tls() -> None:
    assert engine_tls("unix:///var/run/docker.sock", None) is None


def test_a_tcp_engine_without_tls_files_is_refused() -> None:
    with pytest.raises(ValueError, match=r"needs TLS.*--tls-cert-path"):
        engine_tls("tcp://10.0.0.7:2376", None)


def test_the_shared_folder_and_an_engines_own_subfolder(tmp_path: Path) -> None:
    shared = _cert_folder(tmp_path / "certs")
    own = _cert_folder(shared / "10.0.0.8:2376")
    assert engine_tls("tcp://10.0.0.7:2376", shared) == EngineTLS(
        shared / "ca.pem", shared / "cert.pem", shared / "key.pem"
    )
    assert engine_tls("tcp://10.0.0.8:2376", shared) == EngineTLS(
        own / "ca.pem", own / "cert.pem", own / "key.pem"
    )


def test_a_folder_missing_files_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "certs"
    folder.mkdir()
    (folder / "ca.pem").write_text("ca\n")
    with pytest.raises(ValueError, match=r"lacks cert\.pem, key\.pem"):
        engine_tls("tcp://10.0.0.7:2376", folder)


def test_the_pool_refuses_an_unsafe_engine_at_construction() -> None:
    with pytest.raises(ValueError, match="needs TLS"):
        EnginePool(["unix:///var/run/docker.sock", "tcp://10.0.0.7:2376"])
    with pytest.raises(ValueError, match="ssh://"):
        EnginePool(["ssh://engine.example"])


def test_settings_take_the_tls_folder_from_the_command_line_or_environment(
    tmp_path: Path,
) -> None:
    folder = _cert_folder(tmp_path / "certs")
    base = {"OH_RUNTIME_API_API_KEY": "k", "OH_RUNTIME_API_ENGINES": "tcp://10.0.0.7:2376"}
    assert parse_settings([], {**base, "DOCKER_CERT_PATH": str(folder)}).tls_cert_path == folder
    assert (
        parse_settings([], {**base, "OH_RUNTIME_API_TLS_CERT_PATH": str(folder)}).tls_cert_path
        == folder
    )
    assert parse_settings(["--tls-cert-path", str(folder)], base).tls_cert_path == folder
    assert parse_settings([], {"OH_RUNTIME_API_API_KEY": "k"}).tls_cert_path is None


@pytest.mark.parametrize(
    ("engines", "message"),
    [
        ("tcp://10.0.0.7:2376", "needs TLS"),
        ("unix:///var/run/docker.sock,ssh://root@engine.example", "ssh:// engines"),
    ],
)
def test_settings_refuse_unusable_engines(
    engines: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_settings(["--engines", engines], {"OH_RUNTIME_API_API_KEY": "k"})
    assert exited.value.code == 2
    assert message in capsys.readouterr().err
