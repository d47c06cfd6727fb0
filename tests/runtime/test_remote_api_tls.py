"""The runtime API service reaching a Docker engine over TCP with mutual TLS.

Real parts: a second ``dockerd`` of our own listening on ``tcp://127.0.0.1:PORT`` with
``--tlsverify``, certificates made by ``openssl`` for the test (a CA, the engine's server
certificate, a client certificate, and a client from another CA), Redis, and the service as
its own process. The sandbox here is the sandbox base image running ``sleep``: it shows the
service copying an image to the TLS engine and running a container there without the
minutes a full runtime image would cost (tests/runtime/test_remote_api_service.py runs
complete sandboxes on a second engine).
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import docker
import httpx
import pytest
import requests
from docker.errors import DockerException
from docker.tls import TLSConfig

from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE, ensure_base_image
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.remote_api.engines import LABEL_NAMESPACE, LABEL_RUNTIME_ID, EnginePool
from tests.runtime.conformance import require_docker
from tests.support.docker_engine import SecondDockerEngine, ServerTLS
from tests.support.runtime_api import ServiceProcess
from tests.support.services import RedisService, free_port
from tests.support.tls_certs import TestCA

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]

MAIN_ENGINE = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")


@dataclass
class TlsSetup:
    engine: SecondDockerEngine
    admin: docker.DockerClient  # over the engine's unix socket, for checks and clean-up
    ca: TestCA
    certs: Path  # DOCKER_CERT_PATH-style folder with the good client's files
    foreign_certs: Path  # a client whose certificate another CA signed
    root: Path


@pytest.fixture(scope="module")
def tls_setup() -> Iterator[TlsSetup]:
    require_docker()
    missing = [t for t in ("dockerd", "redis-server", "ip", "openssl") if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (containers/dev/ensure-services.sh)")
    if os.geteuid() != 0:
        pytest.skip("a second Docker engine needs root")
    # Short: the engine's unix socket path must fit a socket address.
    root = Path(tempfile.mkdtemp(prefix="ohtls-", dir="/tmp"))
    ca = TestCA(root / "ca")
    server = ca.server("engine", ["127.0.0.1"])
    certs = ca.docker_cert_folder(ca.client("service"), root / "certs")
    foreign = TestCA(root / "foreign-ca", name="Some other CA")
    foreign_certs = foreign.docker_cert_folder(foreign.client("intruder"), root / "foreign")
    engine = SecondDockerEngine(
        root / "engine", tls=ServerTLS(ca.cert, server.cert, server.key, free_port())
    )
    admin: docker.DockerClient | None = None
    try:
        engine.start()
        admin = docker.DockerClient(base_url=engine.url)
        yield TlsSetup(engine, admin, ca, certs, foreign_certs, root)
    finally:
        if admin is not None:
            admin.close()
        engine.stop()
        shutil.rmtree(root, ignore_errors=True)


def _connect(url: str, tls: TLSConfig | bool) -> None:
    """Ping the engine at ``url`` with these TLS options and nothing else: the API version is
    given (no request in the constructor) and requests' environment is off, so a CA bundle
    of the host (REQUESTS_CA_BUNDLE) cannot replace the CA under test."""
    client = docker.APIClient(base_url=url, tls=tls, timeout=10, version="1.41")
    client.trust_env = False
    try:
        client.ping()
    finally:
        client.close()


def test_clients_without_a_certificate_of_the_engines_ca_are_refused(
    tls_setup: TlsSetup,
) -> None:
    url = tls_setup.engine.tcp_url
    ca_only = TLSConfig(ca_cert=str(tls_setup.ca.cert), verify=True)
    foreign = TLSConfig(
        client_cert=(
            str(tls_setup.foreign_certs / "cert.pem"),
            str(tls_setup.foreign_certs / "key.pem"),
        ),
        ca_cert=str(tls_setup.ca.cert),
        verify=True,
    )
    for refused in (ca_only, foreign):  # no client certificate, a stranger's
        with pytest.raises(requests.exceptions.SSLError):
            _connect(url, refused)
    with pytest.raises(DockerException, match="HTTPS"):  # plain HTTP
        _connect(url, False)
    # The good client gets in: the refusals above are about the certificate.
    good = TLSConfig(
        client_cert=(str(tls_setup.certs / "cert.pem"), str(tls_setup.certs / "key.pem")),
        ca_cert=str(tls_setup.certs / "ca.pem"),
        verify=True,
    )
    _connect(url, good)


async def test_the_engine_pool_verifies_both_sides(tls_setup: TlsSetup) -> None:
    url = tls_setup.engine.tcp_url
    pool = EnginePool([url], tls_setup.certs)
    try:
        assert await pool.answers(url)
        assert await pool.ncpu(url) >= 1
    finally:
        pool.close()
    # A client certificate the engine does not trust.
    stranger = EnginePool([url], tls_setup.foreign_certs)
    try:
        assert not await stranger.answers(url)
    finally:
        stranger.close()
    # The right client certificate, but a CA that did not sign the engine's certificate:
    # the pool refuses to talk to an engine it cannot verify.
    impostor_view = tls_setup.root / "wrong-ca"
    impostor_view.mkdir()
    shutil.copyfile(tls_setup.foreign_certs / "ca.pem", impostor_view / "ca.pem")
    shutil.copyfile(tls_setup.certs / "cert.pem", impostor_view / "cert.pem")
    shutil.copyfile(tls_setup.certs / "key.pem", impostor_view / "key.pem")
    unverified = EnginePool([url], impostor_view)
    try:
        assert not await unverified.answers(url)
    finally:
        unverified.close()


def test_the_service_starts_a_sandbox_on_the_tls_engine(tls_setup: TlsSetup) -> None:
    main = docker.DockerClient(base_url=MAIN_ENGINE)
    try:
        image = ensure_base_image(DockerRuntimeBuilder(main))
    finally:
        main.close()
    assert image == DEFAULT_BASE_IMAGE
    url = tls_setup.engine.tcp_url
    api_key = secrets.token_urlsafe(24)
    key_file = tls_setup.root / "api-key"
    key_file.write_text(api_key + "\n")
    key_file.chmod(0o600)
    namespace = f"tls-{secrets.token_hex(4)}"
    redis = RedisService(tls_setup.root / "redis")
    redis.start()
    try:
        port = free_port()
        argv = [
            "--port", str(port),
            "--engines", f"{MAIN_ENGINE},{url}",
            "--redis", redis.url,
            "--api-key-file", str(key_file),
            "--namespace", namespace,
            "--tls-cert-path", str(tls_setup.certs),
        ]  # fmt: skip
        service = ServiceProcess(tls_setup.root, argv, port, api_key)
        service.start()
        try:
            with httpx.Client(base_url=service.url, headers=service.headers, timeout=240) as api:
                # Both engines are idle in this namespace: the tie goes to the URL that sorts
                # first, tcp:// before unix://, so the sandbox lands on the TLS engine, which
                # gets the image from the host's engine on the way (save → load over TLS).
                assert not tls_setup.admin.images.list(name=image.split(":")[0])
                started = api.post(
                    "/start",
                    json={
                        "image": image,
                        "command": ["sleep", "infinity"],
                        "working_dir": "/",
                        "environment": {},
                        "session_id": f"tls-{secrets.token_hex(4)}",
                        "resource_factor": 1,
                    },
                )
                assert started.status_code == 200, f"{started.text}\n{service.log_text()[-3000:]}"
                runtime_id = started.json()["runtime_id"]
                running = tls_setup.admin.containers.list(
                    filters={"label": f"{LABEL_RUNTIME_ID}={runtime_id}"}
                )
                assert len(running) == 1
                assert running[0].labels[LABEL_NAMESPACE] == namespace
                assert tls_setup.admin.images.get(image) is not None

                status = api.get(f"/runtime/{runtime_id}")
                assert status.status_code == 200
                assert status.json()["pod_status"] == "running"  # up; `sleep` has no /alive

                stopped = api.post("/stop", json={"runtime_id": runtime_id})
                assert stopped.status_code == 200, stopped.text
                assert not tls_setup.admin.containers.list(
                    all=True, filters={"label": f"{LABEL_RUNTIME_ID}={runtime_id}"}
                )
        finally:
            service.kill()
    finally:
        redis.stop()
        # Only if placement went wrong: a sandbox of this test on the host's engine.
        main = docker.DockerClient(base_url=MAIN_ENGINE)
        try:
            for leftover in main.containers.list(
                all=True, filters={"label": f"{LABEL_NAMESPACE}={namespace}"}
            ):
                leftover.remove(force=True)
        finally:
            main.close()
