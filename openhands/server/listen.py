"""ASGI entry point: ``uvicorn openhands.server.listen:app``.

Socket.IO handles ``/socket.io/``; everything else goes to the FastAPI app, ``base_app``
(the same object as ``openhands.server.app.app``).
"""

from __future__ import annotations

from openhands.server.socketio_import import import_socketio_for_serving

import_socketio_for_serving()  # before anything imports socketio (see the module)

import logging  # noqa: E402
import sys  # noqa: E402

import socketio  # noqa: E402

from openhands.server.app import app as base_app  # noqa: E402
from openhands.server.exposure import bind_host, exposure_warning  # noqa: E402
from openhands.server.listen_port import record_listen_port  # noqa: E402
from openhands.server.middleware import SandboxOriginMiddleware  # noqa: E402

sio: socketio.AsyncServer = base_app.state.sio
# Outside Socket.IO: requests from sandbox containers reach nothing but `/mcp`.
filtered_app = SandboxOriginMiddleware(socketio.ASGIApp(sio, other_asgi_app=base_app))
# The first request tells the app its real port (for the agents' MCP config, `mcp_host`).
app = record_listen_port(filtered_app, base_app)

_warning = exposure_warning(bind_host(sys.argv), base_app.state.server_config)
if _warning:
    logging.getLogger("openhands.server").warning(_warning)
