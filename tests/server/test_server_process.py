"""The test harness's server process survives losing its port to another process.

CI once failed because a port probed free was bound by someone else before uvicorn bound
it (``[Errno 98] address already in use``); a port the harness chose itself is retried."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.server import server_process
from tests.server.server_process import PortTaken, ServerProcess


def test_a_port_taken_after_probing_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as blocker:
        blocker.bind(("0.0.0.0", 0))
        blocker.listen()
        taken = int(blocker.getsockname()[1])
        real_free_port = server_process.free_port
        offered = iter([taken])
        monkeypatch.setattr(
            server_process,
            "free_port",
            lambda host="127.0.0.1": next(offered, 0) or real_free_port(host),
        )
        process = ServerProcess(tmp_path, host="0.0.0.0")
        assert process.port == taken
        with process:
            assert process.port != taken
            assert "address already in use" in process.log_path.read_text()


def test_a_port_the_caller_chose_is_not_silently_changed(tmp_path: Path) -> None:
    with socket.socket() as blocker:
        blocker.bind(("0.0.0.0", 0))
        blocker.listen()
        taken = int(blocker.getsockname()[1])
        process = ServerProcess(tmp_path, host="0.0.0.0", port=taken)
        with pytest.raises(PortTaken):
            process.start()
        assert process.port == taken
