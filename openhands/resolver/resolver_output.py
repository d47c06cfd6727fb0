"""One line of ``output.jsonl``: the outcome of resolving one issue or PR."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from openhands.resolver.interfaces.issue import Issue

__all__ = ["Issue", "ResolverOutput"]


class ResolverOutput(BaseModel):
    """Every field is required: a record is written whole or not at all."""

    issue: Issue
    issue_type: str
    instruction: str
    base_commit: str
    git_patch: str
    # ``dataclasses.asdict`` of each event of the agent's history.
    history: list[dict[str, Any]]
    metrics: dict[str, Any] | None
    success: bool
    # For PRs: one verdict per piece of feedback checked.
    comment_success: list[bool] | None
    # For PRs, a JSON-encoded list of explanations (one per verdict).
    result_explanation: str
    error: str | None
