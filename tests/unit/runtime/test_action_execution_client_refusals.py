"""The action execution client says "refused" with the neutral type the server catches.

A real action execution server (the subprocess fixture of test_action_execution_server)
answers the client's file requests: a path it will not touch comes back as
``WorkspaceRefused`` carrying the server's reason, whatever HTTP client reached it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.events.stream import EventStream
from openhands.runtime.impl.action_execution.action_execution_client import (
    ActionExecutionClient,
)
from openhands.runtime.workspace_access import WorkspaceRefused
from openhands.storage.memory import InMemoryFileStore
from tests.unit.runtime.test_action_execution_server import KEY, server, workspace

__all__ = ["server", "workspace"]  # the fixtures this module borrows


class HostClient(ActionExecutionClient):
    """The client pointed at the fixture's server on the host."""

    def __init__(self, url: str) -> None:
        super().__init__(OpenHandsConfig(), EventStream("refusals", InMemoryFileStore()))
        self.session_api_key = KEY
        self._url = url

    @property
    def action_execution_server_url(self) -> str:
        return self._url

    async def connect(self) -> None:
        """The fixture started the server already."""


@pytest.fixture
def sandbox(server: str) -> HostClient:
    return HostClient(server)


def test_a_listing_that_leads_out_is_refused(
    sandbox: HostClient, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "way-out").symlink_to(tmp_path, target_is_directory=True)
    try:
        with pytest.raises(WorkspaceRefused) as refused:
            sandbox.list_files("way-out")
    finally:
        (workspace / "way-out").unlink()
    assert refused.value.status == 400
    assert refused.value.message
    assert str(refused.value) == refused.value.message


def test_an_upload_to_a_relative_destination_is_refused(
    sandbox: HostClient, tmp_path: Path
) -> None:
    source = tmp_path / "a.txt"
    source.write_text("a")
    with pytest.raises(WorkspaceRefused) as refused:
        sandbox.copy_to(str(source), "relative/dir")
    assert refused.value.status == 400


def test_a_listing_inside_is_not_refused(sandbox: HostClient, workspace: Path) -> None:
    (workspace / "inside").mkdir(exist_ok=True)
    (workspace / "inside" / "f.txt").write_text("f")
    assert sandbox.list_files("inside") == ["f.txt"]
