"""Entry point of the sandbox's action execution server (runtime.md §3).

    python -u -m openhands.runtime.action_execution_server PORT [--working-dir W]
        [--plugins P ...] [--username U] [--user-id N] [--no-enable-browser]

Order matters: the server's port is bound first (not listened on), so nothing started
afterwards can take it — the Jupyter kernel's ZMQ ports and other sandbox processes come
from the same ephemeral range as the port the host picked. Then the file viewer starts;
bash and the init commands run in the ASGI lifespan, which uvicorn completes before it
listens — so clients see "connection refused" until the server is ready.
"""

from __future__ import annotations

import os
import socket

from openhands.runtime.server.file_viewer import start_file_viewer
from openhands.runtime.server.options import parse_options


def main(argv: list[str] | None = None) -> None:
    options = parse_options(argv)
    listener = _bind(options.port)
    start_file_viewer(options.port)
    early_kernel = None
    if "jupyter" in options.plugins:
        # The kernel needs ~1 s to boot; launched first, it boots while the web stack below
        # is imported (~0.7 s) instead of after it.
        from openhands.runtime.plugins.jupyter.plugin import launch_early

        early_kernel = launch_early(options.username)

    import uvicorn

    from openhands.runtime.server.app import create_app
    from openhands.runtime.server.executor import ActionExecutor

    app = create_app(ActionExecutor(options, early_kernel=early_kernel))
    config = uvicorn.Config(
        app,
        log_level="debug" if os.environ.get("DEBUG") else "info",
        log_config=None,
        use_colors=False,
    )
    uvicorn.Server(config).run(sockets=[listener])


def _bind(port: int) -> socket.socket:
    # IPPROTO_TCP, not the default 0: asyncio sets TCP_NODELAY only on accepted sockets whose
    # protocol says TCP. Without it Nagle's algorithm held each response body (written after
    # its headers) until the client's delayed ACK: ~40 ms on every action.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", port))
    return listener


if __name__ == "__main__":
    main()
