"""``python -m openhands.runtime.remote_api`` as a child process, for the service tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

SERVICE_START_TIMEOUT = 60.0


class ServiceProcess:
    """``python -m openhands.runtime.remote_api`` as a child process we can kill."""

    def __init__(self, root: Path, argv: list[str], port: int, api_key: str) -> None:
        self.root = root
        self.argv = argv
        self.url = f"http://127.0.0.1:{port}"
        self.api_key = api_key
        self.log = root / "service.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "openhands.runtime.remote_api", *self.argv],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + SERVICE_START_TIMEOUT
        with httpx.Client(timeout=5) as client:
            while time.monotonic() < deadline:
                assert self.process.poll() is None, f"service exited:\n{self.log_text()[-3000:]}"
                try:
                    answer = client.get(f"{self.url}/registry_prefix", headers=self.headers)
                    if answer.status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        raise AssertionError(f"service did not answer:\n{self.log_text()[-3000:]}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        self.process = None

    @property
    def headers(self) -> dict[str, str]:
        return {"X-API-Key": self.api_key}

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""
