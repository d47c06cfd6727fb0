"""A small real MCP server for tests, served over SSE or streamable HTTP on 127.0.0.1.

Tools:
* ``add(a, b)`` - the sum of two integers;
* ``explode(reason)`` - always raises (the server answers with an ``isError`` result);
* ``nap(seconds)`` - sleeps, for timeout tests;
* ``whoami()`` - the Authorization and conversation headers the server received.

With ``--api-key`` every HTTP request must carry ``Authorization: Bearer <key>`` (else 401).

Run: ``python -m tests.support.mcp_server --transport sse --port 8123 [--api-key K]``, or
``--transport stdio`` to speak MCP on stdin/stdout (:func:`stdio_command` gives the command).
In tests, :class:`MCPTestServer` starts it in a subprocess and waits until it answers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# The key the tests configure their servers with.
TEST_API_KEY = "mcp-test-key"
SSE_PATH = "/sse"
SHTTP_PATH = "/mcp"
REPO_ROOT = Path(__file__).resolve().parents[2]

# The headers of the request being served, for `whoami`.
_request_headers: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "request_headers", default=None
)


def build_server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("openhands-test-tools")

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Always fails.")
    def explode(reason: str = "boom") -> str:
        raise RuntimeError(f"exploded: {reason}")

    @server.tool(description="Sleep for a while, then say so.")
    async def nap(seconds: float) -> str:
        await asyncio.sleep(seconds)
        return f"slept {seconds}"

    @server.tool(description="The auth and conversation headers of this request.")
    def whoami() -> dict[str, str]:
        headers = _request_headers.get() or {}
        return {
            "authorization": headers.get("authorization", ""),
            "conversation": headers.get("x-openhands-serverconversation-id", ""),
        }

    return server


def build_app(transport: str, api_key: str | None) -> Any:
    from starlette.responses import JSONResponse

    server = build_server()
    if transport == "sse":
        app = server.sse_app(sse_path=SSE_PATH)
    else:
        app = server.streamable_http_app(streamable_http_path=SHTTP_PATH)

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            if api_key and headers.get("authorization") != f"Bearer {api_key}":
                await JSONResponse({"detail": "Unauthorized"}, 401)(scope, receive, send)
                return
            _request_headers.set(headers)
        await app(scope, receive, send)

    return guarded


def serve(transport: str, port: int, api_key: str | None) -> None:
    if transport == "stdio":
        asyncio.run(build_server().run_stdio_async())
        return
    import uvicorn

    uvicorn.run(build_app(transport, api_key), host="127.0.0.1", port=port, log_level="warning")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stdio_command() -> dict[str, Any]:
    """``{name, command, args, env}`` of the test server as a stdio MCP server config."""
    return {
        "name": "test-tools",
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_server", "--transport", "stdio"],
        # The runtime starts it from its own working dir: make the tests package importable.
        "env": {"PYTHONPATH": str(REPO_ROOT)},
    }


class MCPTestServer:
    """The test server in a subprocess; ``url`` is its SSE or streamable-HTTP endpoint."""

    def __init__(self, transport: str, api_key: str | None = None) -> None:
        self.transport = transport
        self.api_key = api_key
        self.port = free_port()
        path = SSE_PATH if transport == "sse" else SHTTP_PATH
        self.url = f"http://127.0.0.1:{self.port}{path}"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20.0) -> MCPTestServer:
        command = [sys.executable, "-m", "tests.support.mcp_server"]
        command += ["--transport", self.transport, "--port", str(self.port)]
        if self.api_key:
            command += ["--api-key", self.api_key]
        self._process = subprocess.Popen(command, cwd=REPO_ROOT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"MCP test server exited with {self._process.returncode}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("MCP test server did not start listening")

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    def __enter__(self) -> MCPTestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--transport", choices=["sse", "shttp", "stdio"], required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--api-key", default=None)
    args = parser.parse_args(argv)
    serve(args.transport, args.port, args.api_key)


if __name__ == "__main__":
    main()
