"""Real Redis, PostgreSQL and nginx daemons for the scale-out tests, benches and `make cluster`.

Each service runs Debian's own binary (``containers/dev/ensure-services.sh`` installs them)
on a free 127.0.0.1 port, keeps its data, config, pid and log files in a folder of its own,
and is stopped (and its folder left for post-mortems) by ``stop()``. Nothing here listens
beyond loopback. Readiness is checked by asking the daemon itself, never by sleeping.

    with RedisService(tmp / "redis") as redis:
        url = redis.url  # redis://127.0.0.1:PORT/0
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

PG_BIN = Path("/usr/lib/postgresql/15/bin")
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(
    ready: Callable[[], bool], what: str, log: Path, process: subprocess.Popen[bytes] | None
) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if ready():
            return
        if process is not None and process.poll() is not None:
            break
        time.sleep(0.05)
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
    raise RuntimeError(f"{what} did not start; log tail:\n{tail}")


def _port_answers(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


class Service:
    """A daemon with a folder of its own; a context manager that starts and stops it."""

    name = "service"

    def __init__(self, root: Path, port: int | None = None) -> None:
        self.root = root.resolve()
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = self.root / f"{self.name}.log"

    def start(self) -> Service:
        raise NotImplementedError

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def _spawn(self, argv: Sequence[str], user: str | None = None, cwd: Path | None = None) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                list(argv),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=cwd or self.root,
                user=user,
                start_new_session=True,
            )

    def __enter__(self) -> Service:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


class RedisService(Service):
    """``redis-server`` without persistence (the tests' coordination data is short-lived)."""

    name = "redis"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisService:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self._spawn(
            [
                binary,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--dir", str(self.root),
                "--save", "",
                "--appendonly", "no",
                "--protected-mode", "yes",
            ]
        )  # fmt: skip
        _wait(self._pong, "redis-server", self.log, self.process)
        return self

    def _pong(self) -> bool:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn,
        ):
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
        return False


class PostgresService(Service):
    """A PostgreSQL 15 cluster of its own (``initdb`` + ``postgres``), trust auth on loopback.

    PostgreSQL refuses to run as root, so under root the cluster belongs to Debian's
    ``postgres`` user (the package creates it), in a folder of its own under the system temp
    folder: the caller's folder may sit below directories only root can enter (pytest's)."""

    name = "postgres"

    def __init__(self, root: Path, port: int | None = None, database: str = "openhands") -> None:
        super().__init__(root, port)
        self.database = database
        home = self.root
        if os.geteuid() == 0:
            home = Path(tempfile.mkdtemp(prefix="openhands-pg-"))
            os.chmod(home, 0o755)
        self.home = home
        self.data = home / "data"
        self.socket_dir = home / "run"

    @property
    def url(self) -> str:
        """An SQLAlchemy URL for asyncpg."""
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{self.database}"

    @property
    def dsn(self) -> str:
        """A libpq-style URL (``psql``, ``asyncpg.connect``)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{self.database}"

    def _user(self) -> str | None:
        return "postgres" if os.geteuid() == 0 else None

    def start(self) -> PostgresService:
        self.root.mkdir(parents=True, exist_ok=True)
        self.socket_dir.mkdir(exist_ok=True)
        user = self._user()
        if user is not None:
            entry = pwd.getpwnam(user)
            for path in (self.home, self.socket_dir):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        if not (self.data / "PG_VERSION").exists():
            subprocess.run(
                [
                    str(PG_BIN / "initdb"),
                    "-D", str(self.data),
                    "-U", "postgres",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--no-sync",
                ],
                check=True,
                capture_output=True,
                user=user,
                cwd=self.home,
            )  # fmt: skip
        self._spawn(
            [
                str(PG_BIN / "postgres"),
                "-D", str(self.data),
                "-p", str(self.port),
                "-k", str(self.socket_dir),
                "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off",
                "-c", "synchronous_commit=off",
                "-c", "full_page_writes=off",
                "-c", "max_connections=200",
            ],
            user=user,
            cwd=self.home,
        )  # fmt: skip
        _wait(self._accepts, "postgres", self.log, self.process)
        created = subprocess.run(
            [
                str(PG_BIN / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "postgres",
                self.database,
            ],
            capture_output=True,
            text=True,
        )
        if created.returncode != 0 and "already exists" not in created.stderr:
            raise RuntimeError(f"createdb failed: {created.stderr}")
        return self

    def _accepts(self) -> bool:
        probe = subprocess.run(
            [str(PG_BIN / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-q"],
            capture_output=True,
        )
        return probe.returncode == 0

    def stop(self) -> None:
        # SIGINT is PostgreSQL's "fast shutdown": no waiting for clients to leave.
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.home != self.root:
            shutil.rmtree(self.home, ignore_errors=True)


class NginxService(Service):
    """nginx as the one address in front of several server nodes.

    Plain round robin, no sticky sessions: REST calls may land on any node, and Socket.IO
    clients that use the WebSocket transport (as the OpenHands UI does) keep one connection
    to one node, which the Upgrade headers below let through."""

    name = "nginx"

    def __init__(self, root: Path, upstreams: Sequence[str], port: int | None = None) -> None:
        super().__init__(root, port)
        self.upstreams = list(upstreams)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def config(self) -> str:
        servers = "\n".join(
            f"        server {address} max_fails=1 fail_timeout=2s;" for address in self.upstreams
        )
        temp = self.root / "tmp"
        return f"""
daemon off;
worker_processes 1;
pid {self.root / "nginx.pid"};
error_log {self.log} warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {temp / "body"};
    proxy_temp_path {temp / "proxy"};
    fastcgi_temp_path {temp / "fastcgi"};
    uwsgi_temp_path {temp / "uwsgi"};
    scgi_temp_path {temp / "scgi"};
    client_max_body_size 100m;
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    upstream openhands {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://openhands;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_read_timeout 3600s;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_connect_timeout 2s;
        }}
    }}
}}
"""

    def start(self) -> NginxService:
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        conf = self.root / "nginx.conf"
        conf.write_text(self.config())
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        self._spawn([binary, "-c", str(conf), "-p", str(self.root), "-e", str(self.log)])
        _wait(lambda: _port_answers(self.port), "nginx", self.log, self.process)
        return self
