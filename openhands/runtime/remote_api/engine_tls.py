"""Which engine URLs the pool accepts, and the TLS material of the ``tcp://`` ones.

Two kinds of engine: ``unix:///path/docker.sock`` (an engine on this machine; the socket's
file permissions are its access control) and ``tcp://HOST:PORT``, always with mutual TLS.
An engine on TCP without TLS would hand root on its machine to anyone who reaches the port,
so the pool has no such mode. ``ssh://`` is not supported (it needs paramiko).

The TLS material is laid out as docker's CLI keeps it under ``DOCKER_CERT_PATH``: ``ca.pem``
(the CA that signed the engine's server certificate), ``cert.pem`` and ``key.pem`` (the
client certificate the engine's ``--tlsverify`` checks against its ``--tlscacert``). One
folder serves every ``tcp://`` engine; an engine whose certificates differ gets a subfolder
named ``HOST:PORT`` (as in its URL), which is used instead when it exists::

    certs/ca.pem certs/cert.pem certs/key.pem          every tcp:// engine
    certs/10.0.0.7:2376/{ca,cert,key}.pem              only tcp://10.0.0.7:2376

The engine's server certificate must name the host of the URL (a DNS name or an IP
address in its subjectAltName): the client checks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from docker.tls import TLSConfig

CA_FILE = "ca.pem"
CERT_FILE = "cert.pem"
KEY_FILE = "key.pem"


@dataclass(frozen=True)
class EngineTLS:
    """Client-side TLS files for one ``tcp://`` engine."""

    ca_cert: Path
    client_cert: Path
    client_key: Path

    @classmethod
    def from_folder(cls, folder: Path) -> EngineTLS:
        tls = cls(folder / CA_FILE, folder / CERT_FILE, folder / KEY_FILE)
        missing = [
            p.name for p in (tls.ca_cert, tls.client_cert, tls.client_key) if not p.is_file()
        ]
        if missing:
            raise ValueError(f"TLS folder {folder} lacks {', '.join(missing)}")
        return tls

    def docker_config(self) -> TLSConfig:
        """docker-py's TLS options: verify the engine against ``ca.pem``, present the client
        certificate."""
        return TLSConfig(
            client_cert=(str(self.client_cert), str(self.client_key)),
            ca_cert=str(self.ca_cert),
            verify=True,
        )


def engine_address(url: str) -> str | None:
    """``HOST:PORT`` of a ``tcp://`` engine URL, None for a ``unix://`` one.

    Raises ``ValueError`` with the reason for any other URL."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        if parts.netloc or not parts.path.startswith("/"):
            raise ValueError(f"engine {url}: a unix:// URL needs an absolute socket path")
        return None
    if parts.scheme == "tcp":
        try:
            port = parts.port
        except ValueError:
            port = None
        if not parts.hostname or port is None or parts.path not in ("", "/"):
            raise ValueError(f"engine {url}: a tcp:// URL is tcp://HOST:PORT")
        return parts.netloc
    if parts.scheme == "ssh":
        raise ValueError(f"engine {url}: ssh:// engines are not supported; use tcp:// with TLS")
    raise ValueError(f"engine {url}: only unix:// and tcp:// (with TLS) engine URLs are supported")


def engine_tls(url: str, cert_path: Path | None) -> EngineTLS | None:
    """The TLS material of the engine at ``url`` (None for a unix socket).

    ``cert_path`` is the folder described in the module docstring; a ``tcp://`` engine
    without one is refused (``ValueError``), never reached in plain text."""
    address = engine_address(url)
    if address is None:
        return None
    if cert_path is None:
        raise ValueError(
            f"engine {url} needs TLS: give the folder of ca.pem, cert.pem and key.pem "
            "(--tls-cert-path, OH_RUNTIME_API_TLS_CERT_PATH or DOCKER_CERT_PATH)"
        )
    own = cert_path / address
    return EngineTLS.from_folder(own if own.is_dir() else cert_path)
