"""Conversation metadata, settings and secrets in PostgreSQL, shared by every server node.

Importing this package is free; its modules import SQLAlchemy, so they load only when a
``*_store_class`` names one of the SQL stores (see ``README.md``).
"""
