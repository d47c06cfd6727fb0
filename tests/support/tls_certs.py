"""A throw-away certificate authority for tests, made with the ``openssl`` command.

``TestCA(folder)`` creates a CA; ``server(name, ips)`` and ``client(name)`` issue a key and a
certificate signed by it (EC P-256, valid for a day), the server one naming its IP addresses
in subjectAltName, the client one marked for client authentication. ``docker_cert_folder``
lays a client out as docker's CLI expects under ``DOCKER_CERT_PATH``.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Issued:
    cert: Path
    key: Path


def _openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(
        ["openssl", *args], cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {done.stderr.strip()}")


class TestCA:
    __test__ = False  # not a test class, despite the name

    def __init__(self, folder: Path, name: str = "OpenHands test CA") -> None:
        if shutil.which("openssl") is None:
            raise RuntimeError("openssl is not installed (apt-get install openssl)")
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.cert = folder / "ca.pem"
        self.key = folder / "ca-key.pem"
        self._new_key(self.key)
        _openssl(
            "req", "-x509", "-new", "-key", str(self.key), "-out", str(self.cert),
            "-days", "1", "-subj", f"/CN={name}",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            cwd=folder,
        )  # fmt: skip

    def _new_key(self, path: Path) -> None:
        _openssl(
            "ecparam",
            "-name",
            "prime256v1",
            "-genkey",
            "-noout",
            "-out",
            str(path),
            cwd=self.folder,
        )
        path.chmod(0o600)

    def _issue(self, name: str, extensions: str) -> Issued:
        issued = Issued(self.folder / f"{name}.pem", self.folder / f"{name}-key.pem")
        request = self.folder / f"{name}.csr"
        config = self.folder / f"{name}.ext"
        config.write_text(extensions)
        self._new_key(issued.key)
        _openssl("req", "-new", "-key", str(issued.key), "-out", str(request), "-subj", f"/CN={name}", cwd=self.folder)  # fmt: skip
        _openssl(
            "x509", "-req", "-in", str(request), "-CA", str(self.cert), "-CAkey", str(self.key),
            "-CAcreateserial", "-out", str(issued.cert), "-days", "1", "-extfile", str(config),
            cwd=self.folder,
        )  # fmt: skip
        return issued

    def server(self, name: str, ips: list[str]) -> Issued:
        names = ",".join(f"IP:{ip}" for ip in ips)
        return self._issue(
            name,
            f"subjectAltName={names}\nextendedKeyUsage=serverAuth\n"
            "keyUsage=critical,digitalSignature\n",
        )

    def client(self, name: str) -> Issued:
        return self._issue(
            name, "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n"
        )

    def docker_cert_folder(self, client: Issued, folder: Path) -> Path:
        """``folder`` with ``ca.pem``, ``cert.pem`` and ``key.pem`` for ``client``."""
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.cert, folder / "ca.pem")
        shutil.copyfile(client.cert, folder / "cert.pem")
        shutil.copyfile(client.key, folder / "key.pem")
        (folder / "key.pem").chmod(0o600)
        return folder
