"""Confirmation mode and the security analyzer (`[security]`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SecurityConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    confirmation_mode: bool = Field(
        default=False, description="Ask the user before running risky actions."
    )
    security_analyzer: str | None = Field(
        default=None, description="`llm`, `invariant` or `grayswan`; None: no analyzer."
    )
