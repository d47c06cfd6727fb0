"""The workspace service tells a sandbox's refusal from its failure by type alone.

The runtime here is a small object with the :class:`WorkspaceAccess` methods: it refuses
(``WorkspaceRefused``) or fails (any other exception) on demand, so each answer the
service gives can be checked. The real sandbox behind these methods is covered by
tests/runtime/test_path_confinement.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.events.action import FileReadAction
from openhands.events.observation import ErrorObservation, Observation
from openhands.runtime.workspace_access import WorkspaceAccess, WorkspaceRefused
from openhands.server.errors import ErrorBodyError
from openhands.server.services import workspace as service

WORKSPACE = "/workspace"


class Sandbox:
    """Raises ``error`` from every listing and upload; nothing else is needed here."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def list_files(self, path: str | None = None) -> list[str]:
        raise self.error

    def read(self, action: FileReadAction) -> Observation:
        return ErrorObservation("File not found")

    def copy_to(self, host_src: str, sandbox_dest: str, recursive: bool = False) -> None:
        raise self.error

    def copy_from(self, path: str) -> Path:
        raise self.error

    def get_git_changes(self, cwd: str) -> list[dict[str, str]] | None:
        return None

    def get_git_diff(self, file_path: str, cwd: str) -> dict[str, str]:
        raise self.error


def _sandbox(error: Exception) -> WorkspaceAccess:
    return Sandbox(error)


async def test_a_refused_listing_is_answered_with_the_refusal() -> None:
    runtime = _sandbox(WorkspaceRefused("Path leads out of the workspace"))
    with pytest.raises(ErrorBodyError) as answer:
        await service.list_files(runtime, WORKSPACE, "link")
    assert answer.value.status_code == 400
    assert str(answer.value) == "Path leads out of the workspace"


async def test_a_failed_listing_is_a_server_error() -> None:
    runtime = _sandbox(RuntimeError("sandbox gone"))
    with pytest.raises(ErrorBodyError) as answer:
        await service.list_files(runtime, WORKSPACE, None)
    assert answer.value.status_code == 500
    assert str(answer.value) == "Error listing files: sandbox gone"


async def test_a_file_behind_a_refused_path_is_not_opened() -> None:
    runtime = _sandbox(WorkspaceRefused("Path leads out of the workspace"))
    with pytest.raises(ErrorBodyError) as answer:
        await service.select_file(runtime, WORKSPACE, "link/secret.txt")
    assert answer.value.status_code == 400
    assert str(answer.value) == "Path leads out of the workspace"


async def test_a_diff_whose_check_fails_is_a_server_error() -> None:
    runtime = _sandbox(RuntimeError("sandbox gone"))
    with pytest.raises(ErrorBodyError) as answer:
        await service.git_diff(runtime, WORKSPACE, "a.txt")
    assert answer.value.status_code == 500
    assert str(answer.value) == "Error checking path: sandbox gone"


@pytest.mark.parametrize(
    ("error", "status", "reason"),
    [
        (WorkspaceRefused("Invalid destination"), 400, "Failed to upload: Invalid destination"),
        (RuntimeError("disk full"), 500, "Failed to upload: disk full"),
    ],
)
async def test_an_upload_nobody_took_says_why(error: Exception, status: int, reason: str) -> None:
    with pytest.raises(ErrorBodyError) as answer:
        await service.upload_files(_sandbox(error), WORKSPACE, [("a.txt", b"a")], OpenHandsConfig())
    assert answer.value.status_code == status
    assert answer.value.body()["skipped_files"] == [{"name": "a.txt", "reason": reason}]
    assert answer.value.body()["uploaded_files"] == []


async def test_no_runtime_yet_is_404() -> None:
    with pytest.raises(ErrorBodyError) as answer:
        await service.git_changes(None, WORKSPACE)
    assert answer.value.status_code == 404
    assert str(answer.value) == "Runtime not yet initialized"
