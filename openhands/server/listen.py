"""ASGI entry point: ``uvicorn openhands.server.listen:app``."""

from openhands.server.app import create_app

app = create_app()
