"""ASGI entry point: ``uvicorn openhands.server.listen:app``.

Socket.IO handles ``/socket.io/``; everything else goes to the FastAPI app.
"""

from __future__ import annotations

from openhands.server.socketio_import import import_socketio_for_serving

import_socketio_for_serving()  # before anything imports socketio (see the module)

import socketio  # noqa: E402

from openhands.server.app import create_app  # noqa: E402

base_app = create_app()
sio: socketio.AsyncServer = base_app.state.sio
app = socketio.ASGIApp(sio, other_asgi_app=base_app)
