"""Settings of the interactive terminal client (`[cli]`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CLIConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    vi_mode: bool = Field(default=False, description="Vi key bindings in the prompt.")
