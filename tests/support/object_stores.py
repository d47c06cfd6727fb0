"""Object-store emulators from PyPI, run as real HTTP servers on loopback for the store tests.

``MotoS3Server`` is moto in server mode (S3's REST API); ``GcsEmulator`` is
``gcp-storage-emulator`` (the JSON and upload APIs of Google Cloud Storage, in memory). Each
runs as a child process of this interpreter on a free 127.0.0.1 port, logs to a file in its
own folder and is ready once it answers an HTTP request (polled, never slept on).

    with MotoS3Server(tmp / "s3") as s3:
        endpoint = s3.endpoint  # http://127.0.0.1:PORT

Both are dev dependencies. ``missing_emulator`` turns an absent one into a skip on a
developer's machine and a failure under ``CI=true``, where the venv must have them.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import NoReturn

import httpx
import pytest

from tests.support.services import free_port

START_TIMEOUT = 60.0


def missing_emulator(module: str) -> None:
    """Skip (or, under CI, fail) when the Python module ``module`` cannot be imported."""
    if importlib.util.find_spec(module) is not None:
        return
    reason = f"{module} is not installed (make deps installs the dev group)"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


class _EmulatorProcess:
    name = "emulator"

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.port = free_port()
        self.log = self.root / f"{self.name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def argv(self) -> list[str]:
        raise NotImplementedError

    def start(self) -> _EmulatorProcess:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.argv(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.root,
                start_new_session=True,
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        with httpx.Client(timeout=2) as client:
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    self._fail("exited")
                try:
                    client.get(f"{self.endpoint}/")
                    return  # any HTTP answer: the server is serving
                except httpx.TransportError:
                    time.sleep(0.05)
        self._fail("did not answer")

    def _fail(self, what: str) -> NoReturn:
        tail = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
        raise RuntimeError(f"{self.name} {what}; log tail:\n{tail}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        self.process = None

    def __enter__(self) -> _EmulatorProcess:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


class MotoS3Server(_EmulatorProcess):
    """moto's server mode; any access key is accepted, buckets start empty."""

    name = "moto"

    def argv(self) -> list[str]:
        return [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)]


class GcsEmulator(_EmulatorProcess):
    """gcp-storage-emulator with in-memory storage; clients find it via STORAGE_EMULATOR_HOST."""

    name = "gcp-storage-emulator"

    def argv(self) -> list[str]:
        return [
            sys.executable, "-m", "gcp_storage_emulator", "start",
            "--host", "127.0.0.1", "--port", str(self.port), "--in-memory",
        ]  # fmt: skip
