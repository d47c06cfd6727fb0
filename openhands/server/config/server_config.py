"""Compatibility path: the reference's ``openhands.server.config.server_config``.

``ServerConfig`` and ``load_server_config`` are the objects of
``openhands.server.server_config`` (the implementation lives there).
"""

from openhands.server.server_config import ServerConfig, load_server_config

__all__ = ["ServerConfig", "load_server_config"]
