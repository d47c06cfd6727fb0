"""Import-time workload: a fresh interpreter importing one module of the package.

Each figure is the time the ``import`` statement takes inside one fresh child process
(interpreter start-up left out; byte code was compiled at install time, and the driver
takes the median over its rounds). Modules: the event stream (the core), the web server
application (``openhands.server.listen``, without the front end) and the headless entry
point (``openhands.core.main``: controller, agents, runtimes, LLM).
"""

from __future__ import annotations

import os
import subprocess
import sys

import _workload as w

MODULES = {
    "import_event_stream_s": "openhands.events.stream",
    "import_server_s": "openhands.server.listen",
    "import_core_main_s": "openhands.core.main",
}
CHILD = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"


def import_time(module: str) -> float:
    env = dict(os.environ, SERVE_FRONTEND="false")
    command = [sys.executable, "-W", "ignore", "-c", CHILD.format(module=module)]

    def once() -> float:
        done = subprocess.run(
            command, cwd=w.workdir(), env=env, capture_output=True, text=True, timeout=180
        )
        if done.returncode != 0:
            raise RuntimeError(f"import {module} failed:\n{done.stderr[-1500:]}")
        return float(done.stdout.strip().splitlines()[-1])

    return once()


def main() -> None:
    w.quiet_environment()
    w.emit({name: import_time(module) for name, module in MODULES.items()})


if __name__ == "__main__":
    main()
