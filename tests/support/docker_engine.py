"""A second Docker engine beside the host's, for tests of multi-engine code.

``SecondDockerEngine(root)`` runs Debian's ``dockerd`` with a socket, data root, exec root,
pid file and Linux bridge of its own. It leaves iptables and masquerading to the first engine
(``--iptables=false --ip-masq=false``), so the two never rewrite each other's rules; ports
published on 127.0.0.1 still work through ``docker-proxy``. Its bridge gets a private /24
that no interface of the host uses. Readiness is ``docker -H <socket> info`` answering.

    with SecondDockerEngine(tmp / "engine") as engine:
        client = docker.DockerClient(base_url=engine.url)

``SecondDockerEngine(root, tls=ServerTLS(...))`` also listens on ``tcp://127.0.0.1:PORT``
with ``--tlsverify``: only clients with a certificate from the given CA get in. The unix
socket stays, for the test's own setup and clean-up.

``stop()`` removes its containers, stops the daemon, unmounts what it left mounted and
deletes its bridge and folders (the big data root in a detached ``rm -rf``); it is safe to
call more than once.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
# sun_path holds 108 bytes; containerd's sockets sit deeper than the engine's.
MAX_SOCKET_PATH = 100


def _run(*argv: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv), capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def _networks_in_use() -> list[ipaddress.IPv4Network]:
    """Every IPv4 network on a host interface or route."""
    found: list[ipaddress.IPv4Network] = []
    addresses = json.loads(_run("ip", "-j", "-4", "addr", "show").stdout or "[]")
    for link in addresses:
        for info in link.get("addr_info", []):
            found.append(
                ipaddress.IPv4Network(f"{info['local']}/{info['prefixlen']}", strict=False)
            )
    for route in json.loads(_run("ip", "-j", "-4", "route", "show").stdout or "[]"):
        destination = route.get("dst", "default")
        if destination != "default":
            found.append(ipaddress.IPv4Network(destination, strict=False))
    return found


def free_subnet() -> ipaddress.IPv4Network:
    """A 10.x.y.0/24 no interface or route of the host overlaps (picked at random, so two
    engines started at once are unlikely to pick the same)."""
    used = _networks_in_use()
    candidates = [
        ipaddress.IPv4Network(f"10.{a}.{b}.0/24") for a in range(200, 250) for b in range(256)
    ]
    random.shuffle(candidates)
    for subnet in candidates:
        if not any(subnet.overlaps(net) for net in used):
            return subnet
    raise RuntimeError("no free private /24 for the second engine's bridge")


@dataclass(frozen=True)
class ServerTLS:
    """The engine's side of mutual TLS: the CA its clients' certificates must chain to, and
    its own certificate and key."""

    ca_cert: Path
    cert: Path
    key: Path
    port: int


class SecondDockerEngine:
    def __init__(self, root: Path, tls: ServerTLS | None = None) -> None:
        self.tls = tls
        self.root = root.resolve()
        self.socket = self.root / "docker.sock"
        if len(str(self.socket)) > MAX_SOCKET_PATH:
            raise ValueError(f"engine root {self.root} is too long for a unix socket path")
        self.data_root = self.root / "data"
        self.pidfile = self.root / "docker.pid"
        self.log = self.root / "dockerd.log"
        self.exec_root: Path | None = None
        self.bridge = f"ohd{os.getpid() % 10000:04d}{random.randrange(16**4):04x}"[:15]
        self.subnet: ipaddress.IPv4Network | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    @property
    def tcp_url(self) -> str:
        """The TLS listener's URL (only with ``tls``)."""
        assert self.tls is not None, "this engine has no TCP listener"
        return f"tcp://127.0.0.1:{self.tls.port}"

    def docker(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """``docker -H <this engine> ARGS``."""
        return _run("docker", "-H", self.url, *args, timeout=timeout)

    # -- start ----------------------------------------------------------------------------

    def start(self) -> SecondDockerEngine:
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        if shutil.which("dockerd") is None:
            raise RuntimeError("dockerd is not installed (apt-get install docker.io)")
        self.root.mkdir(parents=True, exist_ok=True)
        # containerd's state lives under the exec root: keep its socket paths short.
        self.exec_root = Path(tempfile.mkdtemp(prefix="ohx-", dir="/tmp"))
        self._add_bridge()
        config = self.root / "daemon.json"
        config.write_text("{}\n")  # not the host's /etc/docker/daemon.json
        assert self.subnet is not None
        argv = [
            "dockerd",
            "--config-file", str(config),
            "--host", self.url,
            "--data-root", str(self.data_root),
            "--exec-root", str(self.exec_root),
            "--pidfile", str(self.pidfile),
            "--bridge", self.bridge,
            "--iptables=false",
            "--ip-masq=false",
        ]  # fmt: skip
        if self.tls is not None:
            argv += [
                "--host", self.tcp_url,
                "--tlsverify",
                "--tlscacert", str(self.tls.ca_cert),
                "--tlscert", str(self.tls.cert),
                "--tlskey", str(self.tls.key),
            ]  # fmt: skip
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._wait_ready()

    def _add_bridge(self) -> None:
        self.subnet = free_subnet()
        gateway = f"{next(self.subnet.hosts())}/{self.subnet.prefixlen}"
        for argv in (
            ("ip", "link", "add", self.bridge, "type", "bridge"),
            ("ip", "addr", "add", gateway, "dev", self.bridge),
            ("ip", "link", "set", self.bridge, "up"),
        ):
            done = _run(*argv)
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.socket.exists() and self.docker("info", timeout=10).returncode == 0:
                return
            if self.process is not None and self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"the second dockerd did not start; log tail:\n{self._log_tail()}")

    def _log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else "(no log)"

    # -- stop -----------------------------------------------------------------------------

    def stop(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.remove_containers()
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(timeout=STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait(timeout=STOP_TIMEOUT)
            self.process = None
        self._unmount_leftovers()
        if self.subnet is not None:
            _run("ip", "link", "delete", self.bridge)
            self.subnet = None
        if self.exec_root is not None:
            shutil.rmtree(self.exec_root, ignore_errors=True)
            self.exec_root = None
        self._discard_data_root()

    def _discard_data_root(self) -> None:
        """The data root holds whole images: tens of thousands of files that take ~10 s to
        unlink. Move it out of the way at once and let a detached ``rm -rf`` delete it."""
        if not self.data_root.exists():
            return
        trash = Path(tempfile.mkdtemp(prefix="ohtrash-", dir="/tmp"))
        try:
            self.data_root.rename(trash / "data")
        except OSError:  # another filesystem: delete in place
            shutil.rmtree(self.data_root, ignore_errors=True)
            trash.rmdir()
            return
        # The shell returns at once; its background rm outlives it, reparented to init.
        subprocess.run(
            ["sh", "-c", 'rm -rf "$1" >/dev/null 2>&1 </dev/null &', "sh", str(trash)],
            check=True,
            start_new_session=True,
        )

    def remove_containers(self) -> None:
        listed = self.docker("ps", "-aq", timeout=30)
        ids = listed.stdout.split() if listed.returncode == 0 else []
        if ids:
            self.docker("rm", "-f", *ids, timeout=120)

    def _unmount_leftovers(self) -> None:
        """Mounts a killed daemon left under its folders (deepest first)."""
        roots = [str(self.data_root)] + ([str(self.exec_root)] if self.exec_root else [])
        with open("/proc/self/mounts") as mounts:
            points = [line.split()[1] for line in mounts]
        for point in sorted(points, key=len, reverse=True):
            if any(point == r or point.startswith(r + "/") for r in roots):
                _run("umount", "-l", point)

    def __enter__(self) -> SecondDockerEngine:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
