"""A sandbox that dies in the middle of a command (runtime.md §10.2, §12.1, §12.6).

What the conversation sees: the runtime's status callback reports
``STATUS$ERROR_RUNTIME_DISCONNECTED`` at level ``error`` (the server turns that into an error
status for the UI and moves the agent to the error state) within a few seconds — not when
the action's two-minute timeout runs out — and no observation is published for the action.
Then a new runtime for the same conversation starts cleanly: Docker finds the killed container
exited and starts it again; the local runtime starts a new server.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import time
import uuid
from typing import Any

import docker
import psutil
import pytest

from openhands.events.action import CmdRunAction
from openhands.events.event import EventSource
from openhands.events.observation import Observation
from openhands.events.stream import EventStreamSubscriber
from openhands.runtime.impl.local.local_runtime import LocalRuntime
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.server.options import tmux_socket_name
from tests.runtime.conformance import Sandbox, open_sandbox, remove_container

pytestmark = pytest.mark.timeout(300)

# The client looks at the sandbox every second while an action runs; the action's own
# timeout is the default sandbox.timeout, 120 s. Waiting up to a minute for the report (no
# timing assertion: the machine may be busy) still tells the liveness check from that timeout.
REPORTED_WITHIN_SECONDS = 60.0
COMMAND = "sleep 30"


class ObservationWatch:
    """Collects every observation published on a sandbox's stream."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.seen: queue.Queue[Observation] = queue.Queue()
        self.callback_id = f"crash-{uuid.uuid4().hex[:8]}"

    def __enter__(self) -> ObservationWatch:
        def on_event(event: Any) -> None:
            if isinstance(event, Observation):
                self.seen.put(event)

        self.sandbox.stream.subscribe(EventStreamSubscriber.TEST, on_event, self.callback_id)
        return self

    def __exit__(self, *exc: object) -> None:
        self.sandbox.stream.unsubscribe(EventStreamSubscriber.TEST, self.callback_id)

    def caused_by(self, action_id: int) -> list[Observation]:
        found = []
        while not self.seen.empty():
            observation = self.seen.get_nowait()
            if observation.cause == action_id:
                found.append(observation)
        return found


def wait_for(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def disconnected_after(sandbox: Sandbox, since: int) -> list[tuple[str, RuntimeStatus, str]]:
    return [
        entry
        for entry in sandbox.status_log[since:]
        if entry[1] == RuntimeStatus.ERROR_RUNTIME_DISCONNECTED
    ]


def run_until_killed(sandbox: Sandbox, kill: Any, running: Any) -> float:
    """Publish COMMAND as the agent, kill the sandbox once it runs; seconds until reported."""
    with ObservationWatch(sandbox) as watch:
        action = CmdRunAction(COMMAND)
        sandbox.stream.add_event(action, EventSource.AGENT)
        wait_for(running, 30, f"{COMMAND!r} to run in the sandbox")
        logged = len(sandbox.status_log)
        killed_at = time.monotonic()
        kill()
        wait_for(
            lambda: disconnected_after(sandbox, logged),
            REPORTED_WITHIN_SECONDS,
            "STATUS$ERROR_RUNTIME_DISCONNECTED",
        )
        elapsed = time.monotonic() - killed_at
        print(f"ELAPSED {elapsed:.2f}")
        level, _status, message = disconnected_after(sandbox, logged)[0]
        assert level == "error"
        assert message  # says what happened
        time.sleep(1)  # anything the runtime would still publish for the action
        assert watch.caused_by(action.id) == []
    return elapsed


@pytest.mark.docker
def test_docker_container_killed_mid_command() -> None:
    client = docker.from_env()
    with open_sandbox("docker", remove=False) as first:
        name, sid = first.container_name, first.runtime.sid
        container = client.containers.get(name)
        try:
            run_until_killed(
                first,
                kill=lambda: container.kill(),
                running=lambda: any(COMMAND in " ".join(p) for p in container.top()["Processes"]),
            )
            first.runtime.close()  # what the session does next; must not hang on a dead box
            container.reload()
            assert container.status == "exited"

            with open_sandbox("docker", sid=sid) as again:
                # The same container, started again; nothing built or created.
                assert client.containers.get(name).id == container.id
                assert RuntimeStatus.RUNTIME_STARTED not in again.statuses
                assert again.statuses[-1] == RuntimeStatus.READY
                assert again.sh("echo ok").content == "ok"
                assert again.ipython("print(6 * 7)", include_extra=False).content == "42"
        finally:
            remove_container(name)


def local_tmux_server(port: int) -> psutil.Process | None:
    """The tmux server of the LocalRuntime server on ``port`` (it renames itself, so ask it)."""
    listed = subprocess.run(
        ["tmux", "-L", tmux_socket_name(port), "list-sessions", "-F", "#{pid}"],
        capture_output=True,
        text=True,
    )
    pids = set(listed.stdout.split()) if listed.returncode == 0 else set()
    return psutil.Process(int(pids.pop())) if pids else None


def test_local_server_killed_mid_command() -> None:
    with open_sandbox("local") as first:
        runtime = first.runtime
        assert isinstance(runtime, LocalRuntime)
        server = runtime._server
        assert server is not None
        try:
            # The kernel is the server's child; the tmux server daemonizes: found by socket.
            kernels = [
                child
                for child in psutil.Process(server.process.pid).children(recursive=True)
                if "ipykernel_launcher" in child.cmdline()
            ]
            assert kernels

            started_in_tmux: list[psutil.Process] = []

            def sleep_running() -> bool:
                tmux = local_tmux_server(server.port)
                if tmux is None:
                    return False
                started_in_tmux[:] = [tmux, *tmux.children(recursive=True)]
                return any(p.cmdline() == COMMAND.split() for p in started_in_tmux)

            run_until_killed(
                first,
                kill=lambda: os.kill(server.process.pid, signal.SIGKILL),
                running=sleep_running,
            )
            first.runtime.close()
            # Nothing the dead server started lives on: close() stops its tmux server (with
            # the shell and its `sleep`); the kernel notices that its parent is gone.
            _gone, alive = psutil.wait_procs(started_in_tmux + kernels, timeout=10)
            assert alive == []
            assert local_tmux_server(server.port) is None
        finally:
            subprocess.run(
                ["tmux", "-L", tmux_socket_name(server.port), "kill-server"], capture_output=True
            )

    with open_sandbox("local", sid=runtime.sid) as again:
        restarted = again.runtime
        assert isinstance(restarted, LocalRuntime) and restarted._server is not None
        assert restarted._server.process.pid != server.process.pid
        assert again.sh("echo ok").content == "ok"
