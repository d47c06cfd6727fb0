"""Import python-socketio the way a process that only serves Socket.IO needs it.

`import socketio` also imports its client transports, and with them aiohttp, requests,
websocket-client and tornado's web stack: about a third of the server's start-up time,
for code a server never runs. The clients import those libraries inside ``try/except
ImportError``, so while socketio is imported here they are made unimportable, and the
client modules keep ``None`` in their place. Everything else in the process imports the
real libraries afterwards as usual (LiteLLM needs aiohttp, the Docker SDK requests).

Only the server's entry point (``listen.py``) does this; a process that also wants a
Socket.IO *client* must import socketio before it, and then nothing is changed.
"""

from __future__ import annotations

import sys

CLIENT_ONLY_LIBRARIES = ("aiohttp", "requests", "websocket", "tornado")


def import_socketio_for_serving() -> None:
    if "socketio" in sys.modules or "engineio" in sys.modules:
        return
    already = {name for name in CLIENT_ONLY_LIBRARIES if name in sys.modules}
    blocked = [name for name in CLIENT_ONLY_LIBRARIES if name not in already]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # "import name" raises ImportError
    try:
        import socketio  # noqa: F401
    finally:
        for name in blocked:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]
