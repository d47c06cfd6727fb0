"""ASGI entry point: ``uvicorn openhands.server.listen:app``.

Socket.IO handles ``/socket.io/``; everything else goes to the FastAPI app.
"""

from __future__ import annotations

import socketio

from openhands.server.app import create_app

base_app = create_app()
sio: socketio.AsyncServer = base_app.state.sio
app = socketio.ASGIApp(sio, other_asgi_app=base_app)
