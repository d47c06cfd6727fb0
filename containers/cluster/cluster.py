"""`make cluster` / `make cluster-down`: the scale-out deployment of docs/scaling.md on one
machine, on loopback only.

    up      Redis, PostgreSQL, a second Docker engine, the runtime API service over both
            engines, two server nodes and nginx in front; prints the URL and leaves them
            running (their pids and ports are kept in .cluster/state.json).
    down    stops everything `up` started.
    status  prints what runs.

Run with the project's venv from the repository root (the Makefile does).
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT))

from tests.support.docker_engine import SecondDockerEngine  # noqa: E402
from tests.support.services import (  # noqa: E402
    NginxService,
    PostgresService,
    RedisService,
    free_port,
)

STATE_DIR = REPO_ROOT / ".cluster"
STATE_FILE = STATE_DIR / "state.json"
NODES = ("a", "b")
WAIT_SECONDS = 120.0


def _say(message: str) -> None:
    print(f"cluster: {message}", file=sys.stderr, flush=True)


def _wait_http(url: str, what: str, log: Path) -> None:
    import httpx

    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code < 500:
                return
        time.sleep(0.2)
    tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
    raise SystemExit(f"cluster: {what} did not answer at {url}; log tail:\n{tail}")


def _runtime_image() -> str:
    """The sandbox image of this checkout (built now unless one with its hash exists)."""
    built = subprocess.run(
        [sys.executable, "-m", "openhands.runtime.utils.runtime_build"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        check=True,
        text=True,
    )
    return built.stdout.strip().splitlines()[-1]


def _spawn(argv: list[str], env: dict[str, str], log: Path, cwd: Path) -> int:
    with open(log, "ab") as out:
        process = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    return process.pid


def _node_config(root: Path, api_url: str, api_key: str, image: str, jwt_secret: str) -> str:
    return f"""
[core]
runtime = "remote"
file_store = "local"
file_store_path = "{root / "events"}"
jwt_secret = "{jwt_secret}"

[sandbox]
remote_runtime_api_url = "{api_url}"
api_key = "{api_key}"
runtime_container_image = "{image}"
keep_runtime_alive = false
"""


def up() -> None:
    if STATE_FILE.exists():
        raise SystemExit(f"cluster: already up (see {STATE_FILE}); run `make cluster-down` first")
    STATE_DIR.mkdir(exist_ok=True)
    state: dict[str, object] = {}

    def save() -> None:
        STATE_FILE.write_text(json.dumps(state, indent=2))

    _say("building or reusing the sandbox image")
    image = _runtime_image()

    redis = RedisService(STATE_DIR / "redis").start()
    state["redis"] = {"pid": redis.process.pid if redis.process else None, "url": redis.url}
    save()
    postgres = PostgresService(STATE_DIR / "postgres").start()
    state["postgres"] = {
        "pid": postgres.process.pid if postgres.process else None,
        "url": postgres.url,
        "home": str(postgres.home),
    }
    save()
    _say(f"redis {redis.url}, postgres on port {postgres.port}")

    engine = SecondDockerEngine(STATE_DIR / "engine2").start()
    state["engine2"] = {
        "root": str(engine.root),
        "pid": engine.process.pid if engine.process else None,
        "bridge": engine.bridge,
        "subnet": str(engine.subnet),
        "exec_root": str(engine.exec_root),
        "url": engine.url,
    }
    save()
    _say(f"second Docker engine at {engine.url}")

    api_key = secrets.token_urlsafe(24)
    key_file = STATE_DIR / "runtime-api.key"
    key_file.write_text(api_key)
    key_file.chmod(0o600)
    api_port = free_port()
    api_log = STATE_DIR / "runtime-api.log"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    first_engine = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    api_pid = _spawn(
        [
            sys.executable,
            "-m",
            "openhands.runtime.remote_api",
            "--port", str(api_port),
            "--engines", f"{first_engine},{engine.url}",
            "--redis", redis.url,
            "--api-key-file", str(key_file),
        ],
        env,
        api_log,
        STATE_DIR,
    )  # fmt: skip
    api_url = f"http://127.0.0.1:{api_port}"
    state["runtime_api"] = {"pid": api_pid, "url": api_url}
    save()
    _wait_http(f"{api_url}/alive", "the runtime API service", api_log)

    jwt_secret = secrets.token_urlsafe(32)
    config = _node_config(STATE_DIR, api_url, api_key, image, jwt_secret)
    nodes: dict[str, dict[str, object]] = {}
    redis_host = redis.url.removeprefix("redis://").split("/")[0]
    for name in NODES:
        root = STATE_DIR / f"node-{name}"
        root.mkdir(exist_ok=True)
        (root / "config.toml").write_text(config)
        (root / "config.toml").chmod(0o600)
        port = free_port()
        node_env = {
            **os.environ,
            "PYTHONPATH": str(REPO_ROOT),
            "REDIS_HOST": redis_host,
            "CONVERSATION_MANAGER_CLASS": (
                "openhands.server.conversation_manager.clustered_conversation_manager."
                "ClusteredConversationManager"
            ),
            "OPENHANDS_DATABASE_URL": postgres.url,
            "CONVERSATION_STORE_CLASS": "openhands.storage.sql.conversation_store.SqlConversationStore",
            "SETTINGS_STORE_CLASS": "openhands.storage.sql.settings_store.SqlSettingsStore",
            "SECRET_STORE_CLASS": "openhands.storage.sql.secrets_store.SqlSecretsStore",
            "FRONTEND_DIR": str(REPO_ROOT / "frontend" / "build"),
            # Where the other node sends this conversation's routes (files, git, VS Code).
            "OPENHANDS_NODE_URL": f"http://127.0.0.1:{port}",
        }
        log = root / "server.log"
        pid = _spawn(
            [
                sys.executable, "-m", "uvicorn", "openhands.server.listen:app",
                "--host", "127.0.0.1", "--port", str(port),
            ],
            node_env,
            log,
            root,
        )  # fmt: skip
        nodes[name] = {"pid": pid, "url": f"http://127.0.0.1:{port}", "log": str(log)}
        state["nodes"] = nodes
        save()
    for name, node in nodes.items():
        _wait_http(f"{node['url']}/alive", f"server node {name}", Path(str(node["log"])))

    proxy = NginxService(
        STATE_DIR / "nginx", [str(node["url"]).removeprefix("http://") for node in nodes.values()]
    ).start()
    state["nginx"] = {"pid": proxy.process.pid if proxy.process else None, "url": proxy.url}
    save()
    print(proxy.url)
    _say(f"up: open {proxy.url} (stop with `make cluster-down`)")


def _kill(pid: object, sig: signal.Signals = signal.SIGTERM) -> None:
    if not isinstance(pid, int):
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, sig)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def _stop_engine(described: dict[str, str]) -> None:
    """Stop the second engine of an earlier `up` (this process did not start it)."""
    engine = SecondDockerEngine(Path(described["root"]))
    engine.bridge = described["bridge"]
    engine.subnet = ipaddress.ip_network(described["subnet"])
    engine.exec_root = Path(described["exec_root"])
    engine.remove_containers()
    _kill(described.get("pid"))
    engine.stop()  # unmounts, deletes the bridge and the folders


def down() -> None:
    if not STATE_FILE.exists():
        _say("nothing is up")
        return
    state = json.loads(STATE_FILE.read_text())
    nginx = state.get("nginx") or {}
    _kill(nginx.get("pid"))
    for node in (state.get("nodes") or {}).values():
        _kill(node.get("pid"))
    _kill((state.get("runtime_api") or {}).get("pid"))
    if state.get("engine2"):
        _stop_engine(state["engine2"])
    _kill((state.get("redis") or {}).get("pid"))
    postgres = state.get("postgres") or {}
    _kill(postgres.get("pid"), signal.SIGINT)
    if postgres.get("home") and not str(postgres["home"]).startswith(str(STATE_DIR)):
        subprocess.run(["rm", "-rf", str(postgres["home"])], check=False)
    STATE_FILE.unlink()
    _say("down")


def status() -> None:
    if not STATE_FILE.exists():
        _say("nothing is up")
        return
    print(STATE_FILE.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("up", "down", "status"))
    args = parser.parse_args()
    {"up": up, "down": down, "status": status}[args.command]()


if __name__ == "__main__":
    main()
