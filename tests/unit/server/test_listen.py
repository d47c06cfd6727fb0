"""The server entry point starts light: no Socket.IO client stack, no LiteLLM, no PyJWT."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
HEAVY = ["aiohttp", "requests", "tornado", "websocket", "litellm", "jwt", "httpx", "psutil"]


def _run(code: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_importing_the_entry_point_loads_no_heavy_library(tmp_path: Path) -> None:
    loaded = _run(
        "import sys, json, openhands.server.listen; "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))",
        tmp_path,
    )
    assert json.loads(loaded) == []


def test_the_libraries_import_normally_afterwards(tmp_path: Path) -> None:
    versions = _run(
        "import openhands.server.listen, aiohttp, requests, tornado.web; "
        "print(aiohttp.__version__, requests.__version__)",
        tmp_path,
    )
    assert len(versions.split()) == 2


def test_a_process_with_a_socketio_client_keeps_it(tmp_path: Path) -> None:
    ok = _run(
        "import socketio, engineio.async_client as c; import openhands.server.listen; "
        "print(c.aiohttp is not None)",
        tmp_path,
    )
    assert ok == "True"
