"""Terminal-app start-up benchmark (issue: terminal app): `openhands` → the first prompt.

Each run starts the real console script in a fresh pseudo-terminal, with a fresh HOME that
already holds settings (a model and key) and trusts the working folder, so nothing is asked
before the session starts. Prints, as the median of 5 runs:
- process start → `openhands --version` printed and exited (the fast path);
- process start → the first `> ` prompt after the welcome line (target ≤ 1.5 s); the agent,
  LiteLLM and the CLI runtime are still being assembled in the background at that point;
- process start → the assembled session answering `/status` (everything loaded).

Run: `python bench/cli_startup.py` (part of `make bench`).
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPENHANDS = ROOT / ".venv" / "bin" / "openhands"
RUNS = 5


def _home(work: Path) -> dict[str, str]:
    home = Path(tempfile.mkdtemp(prefix="oh-cli-bench-"))
    store = home / ".openhands"
    store.mkdir()
    settings = {
        "llm_model": "openai/test-model",
        "llm_api_key": "sk-bench",
        "agent": "CodeActAgent",
        "confirmation_mode": True,
        "enable_default_condenser": False,
    }
    (store / "settings.json").write_text(json.dumps(settings))
    (store / "config.toml").write_text(f'[sandbox]\ntrusted_dirs = ["{work}"]\n')
    # An alias line, so the alias offer is not shown.
    (home / ".bashrc").write_text("alias openhands=true\n")
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        SHELL="/bin/bash",
        TERM="xterm-256color",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        LLM_BASE_URL="http://127.0.0.1:9/v1",
    )
    return env


class Terminal:
    """One program on a pseudo-terminal; ``until`` reads its output up to a text."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
        )
        os.close(slave)
        self.output = b""
        self.seen = 0  # where the last match ended: each wait looks at what came after

    def until(self, text: str, timeout: float = 60) -> float:
        deadline = time.perf_counter() + timeout
        needle = text.encode()
        while needle not in self.output[self.seen :]:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{text!r} not seen; output: {self.output[-500:]!r}")
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:
                    break
        self.seen = self.output.index(needle, self.seen) + len(needle)
        return time.perf_counter() - self.started

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        os.close(self.master)


def one_run() -> tuple[float, float, float]:
    work = Path(tempfile.mkdtemp(prefix="oh-cli-bench-work-"))
    env = _home(work)
    version = Terminal([str(OPENHANDS), "--version"], env, work)
    try:
        version.until("OpenHands CLI version")
        version.process.wait()
        version_s = time.perf_counter() - version.started
    finally:
        version.close()
    app = Terminal([str(OPENHANDS)], env, work)
    try:
        app.until("What do you want to build?")
        prompt_s = app.until("> ")
        app.send("/status\r")
        ready_s = app.until("Total Cost (USD):")
    finally:
        app.close()
    return version_s, prompt_s, ready_s


def main() -> None:
    if not OPENHANDS.exists():
        sys.exit(f"{OPENHANDS} is missing: run `make deps` first")
    runs = [one_run() for _ in range(RUNS)]
    names = ("openhands --version", "first prompt (target <= 1.5 s)", "session ready (/status)")
    print(f"{'terminal app start-up':<36} median of {RUNS}")
    for index, name in enumerate(names):
        value = statistics.median(run[index] for run in runs)
        print(f"  {name:<34} {value * 1000:8.0f} ms")


if __name__ == "__main__":
    main()
