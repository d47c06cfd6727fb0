"""Compatibility package of the reference's ``openhands.server.data_models`` (the models
themselves live in ``openhands/server/models/`` and ``conversation_manager/``)."""
