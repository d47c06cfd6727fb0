"""The tables of the SQL stores, as SQLAlchemy Core ``Table`` objects.

The migrations in ``migrations/versions`` create the same schema without importing this
module (a migration must not change when the models do); a test compares the two.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    func,
)
from sqlalchemy.dialects.postgresql import ARRAY

metadata = MetaData()

# One row per conversation; the columns are the fields of ConversationMetadata, in order.
# Conversation ids are global (events live under ``sessions/<sid>/`` whatever the owner), so
# the id alone is the key; ``user_id`` leads the listing index so a user's page is a range
# scan of that index, newest first.
conversation_metadata = Table(
    "conversation_metadata",
    metadata,
    Column("conversation_id", String, primary_key=True),
    Column("selected_repository", String, nullable=True),
    Column("user_id", String, nullable=True),
    Column("selected_branch", String, nullable=True),
    Column("git_provider", String, nullable=True),
    Column("title", String, nullable=True),
    Column("last_updated_at", DateTime(timezone=True), nullable=True),
    Column("trigger", String, nullable=True),
    Column("pr_number", ARRAY(Integer), nullable=False, server_default="{}"),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("llm_model", String, nullable=True),
    Column("accumulated_cost", Float, nullable=False, server_default="0"),
    Column("prompt_tokens", BigInteger, nullable=False, server_default="0"),
    Column("completion_tokens", BigInteger, nullable=False, server_default="0"),
    Column("total_tokens", BigInteger, nullable=False, server_default="0"),
    Index("ix_conversation_metadata_user_created", "user_id", "created_at", "conversation_id"),
    Index("ix_conversation_metadata_created", "created_at", "conversation_id"),
)

# The JSON document the file stores write to ``settings.json`` / ``secrets.json``, secret
# values in clear text like those files, one row per user (``""`` in single-user mode).
user_settings = Table(
    "user_settings",
    metadata,
    Column("user_id", String, primary_key=True),
    Column("data", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)

user_secrets = Table(
    "user_secrets",
    metadata,
    Column("user_id", String, primary_key=True),
    Column("data", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)
