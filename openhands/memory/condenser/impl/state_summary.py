"""The structured summary the ``structured`` condenser asks its LLM to fill in."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationError

SUMMARY_TOOL_NAME = "create_state_summary"


class StateSummary(BaseModel):
    """What the agent needs to remember about the conversation so far."""

    user_context: str = Field(
        default="", description="What the user asked for, with their constraints and preferences."
    )
    completed_tasks: str = Field(default="", description="Work that is finished, with results.")
    pending_tasks: str = Field(default="", description="Work that still has to be done.")
    current_state: str = Field(
        default="", description="Where things stand now: open files, processes, variables."
    )
    files_modified: str = Field(default="", description="Files created or changed.")
    function_changes: str = Field(default="", description="Functions added or changed.")
    data_structures: str = Field(default="", description="Data structures added or changed.")
    tests_written: str = Field(default="", description="Tests that were written.")
    tests_passing: str = Field(default="", description="Tests known to pass.")
    failing_tests: str = Field(default="", description="Tests that fail, and why.")
    error_messages: str = Field(default="", description="Errors met and not yet resolved.")
    branch_created: str = Field(default="", description="Whether a branch was created.")
    branch_name: str = Field(default="", description="The current branch name.")
    commits_made: str = Field(default="", description="Commits made so far.")
    pr_created: str = Field(default="", description="Whether a pull request was opened.")
    pr_status: str = Field(default="", description="The pull request's state.")
    dependencies: str = Field(default="", description="Dependencies installed or required.")
    other_relevant_context: str = Field(
        default="", description="Anything else needed to carry on with the task."
    )

    REQUIRED_FIELDS: ClassVar[tuple[str, ...]] = (
        "user_context",
        "completed_tasks",
        "pending_tasks",
    )

    @classmethod
    def tool(cls) -> dict[str, Any]:
        """The function the LLM is forced to call (every field a string)."""
        properties = {
            name: {"type": "string", "description": info.description or ""}
            for name, info in cls.model_fields.items()
        }
        return {
            "type": "function",
            "function": {
                "name": SUMMARY_TOOL_NAME,
                "description": (
                    "Record a structured summary of the conversation so far, so the agent "
                    "can continue after older events are dropped."
                ),
                "parameters": {
                    "type": "object",
                    "properties": properties,
                    "required": list(cls.REQUIRED_FIELDS),
                },
            },
        }

    @classmethod
    def from_arguments(cls, arguments: str) -> StateSummary:
        """Parse the tool call's JSON arguments; anything unusable gives an empty summary."""
        try:
            data = json.loads(arguments)
            if not isinstance(data, dict):
                return cls()
            return cls.model_validate(
                {key: str(value) for key, value in data.items() if key in cls.model_fields}
            )
        except (ValueError, ValidationError):
            return cls()

    def __str__(self) -> str:
        sections = [
            ("User context", ["user_context"]),
            ("Completed", ["completed_tasks"]),
            ("Pending", ["pending_tasks"]),
            ("Current state", ["current_state"]),
            ("Code", ["files_modified", "function_changes", "data_structures"]),
            ("Tests", ["tests_written", "tests_passing", "failing_tests", "error_messages"]),
            (
                "Version control",
                ["branch_created", "branch_name", "commits_made", "pr_created", "pr_status"],
            ),
            ("Other", ["dependencies", "other_relevant_context"]),
        ]
        lines = ["# State Summary"]
        for title, names in sections:
            lines.append(f"\n## {title}")
            for name in names:
                label = name.replace("_", " ").capitalize()
                lines.append(f"- **{label}**: {getattr(self, name)}")
        return "\n".join(lines)
