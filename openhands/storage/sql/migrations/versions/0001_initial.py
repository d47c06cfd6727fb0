"""The initial schema: conversation metadata, user settings, user secrets.

Revision ID: 0001
Revises:
Create Date: 2025-06-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "conversation_metadata",
        sa.Column("conversation_id", sa.String(), primary_key=True),
        sa.Column("selected_repository", sa.String(), nullable=True),
        sa.Column("user_id", sa.String(), nullable=True),
        sa.Column("selected_branch", sa.String(), nullable=True),
        sa.Column("git_provider", sa.String(), nullable=True),
        sa.Column("title", sa.String(), nullable=True),
        sa.Column("last_updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("trigger", sa.String(), nullable=True),
        sa.Column("pr_number", postgresql.ARRAY(sa.Integer()), nullable=False, server_default="{}"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("llm_model", sa.String(), nullable=True),
        sa.Column("accumulated_cost", sa.Float(), nullable=False, server_default="0"),
        sa.Column("prompt_tokens", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("completion_tokens", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("total_tokens", sa.BigInteger(), nullable=False, server_default="0"),
    )
    op.create_index(
        "ix_conversation_metadata_user_created",
        "conversation_metadata",
        ["user_id", "created_at", "conversation_id"],
    )
    op.create_index(
        "ix_conversation_metadata_created",
        "conversation_metadata",
        ["created_at", "conversation_id"],
    )
    for table in ("user_settings", "user_secrets"):
        op.create_table(
            table,
            sa.Column("user_id", sa.String(), primary_key=True),
            sa.Column("data", sa.Text(), nullable=False),
            sa.Column(
                "updated_at",
                sa.DateTime(timezone=True),
                nullable=False,
                server_default=sa.func.now(),
            ),
        )


def downgrade() -> None:
    op.drop_table("user_secrets")
    op.drop_table("user_settings")
    op.drop_index("ix_conversation_metadata_created", table_name="conversation_metadata")
    op.drop_index("ix_conversation_metadata_user_created", table_name="conversation_metadata")
    op.drop_table("conversation_metadata")
