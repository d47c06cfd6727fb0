"""Compatibility package of the reference's ``openhands.server.config`` (see server_config)."""
