"""REST models of the workspace file and git routes (server-api §6.4)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class FileContent(BaseModel):
    code: str


class SkippedFile(BaseModel):
    name: str
    reason: str


class UploadResult(BaseModel):
    uploaded_files: list[str] = Field(description="Sandbox paths written")
    skipped_files: list[SkippedFile] = Field(default_factory=list)


class GitChange(BaseModel):
    status: Literal["M", "A", "D", "R", "U"]
    path: str


class GitDiff(BaseModel):
    modified: str
    original: str
